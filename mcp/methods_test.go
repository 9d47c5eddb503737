package mcp

import (
	"encoding/json"
	"testing"
)

func TestListTable(t *testing.T) {
	var got []string
	for _, l := range DiscoveryLists() {
		got = append(got, l.Capability+" "+l.Method+" "+l.ItemsKey)
	}
	want := []string{
		"tools tools/list tools",
		"prompts prompts/list prompts",
		"resources resources/list resources",
		"resources resources/templates/list resourceTemplates",
	}
	if len(got) != len(want) {
		t.Fatalf("discovery lists = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("discovery list %d = %q, want %q", i, got[i], want[i])
		}
	}
	if ListItemsKey("tasks/list") != "tasks" || ListItemsKey("tools/call") != "" {
		t.Errorf("ListItemsKey(tasks/list)=%q, ListItemsKey(tools/call)=%q", ListItemsKey("tasks/list"), ListItemsKey("tools/call"))
	}
	changed := ListsChangedBy("notifications/resources/list_changed")
	if len(changed) != 2 || changed[0].Method != "resources/list" || changed[1].Method != "resources/templates/list" {
		t.Errorf("resources list_changed invalidates %+v", changed)
	}
	if l := ListsChangedBy("notifications/tools/list_changed"); len(l) != 1 || l[0].Method != "tools/list" {
		t.Errorf("tools list_changed invalidates %+v", l)
	}
	if l := ListsChangedBy(""); len(l) != 0 {
		t.Errorf(`ListsChangedBy("") = %+v (tasks/list has no notification)`, l)
	}
}

func TestIsToolError(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"content":[],"isError":true}`:  true,
		`{"content":[],"isError":false}`: false,
		`{"content":[]}`:                 false,
		`{"isError":"true"}`:             false,
		`not json`:                       false,
	} {
		if got := IsToolError(json.RawMessage(raw)); got != want {
			t.Errorf("IsToolError(%s) = %v, want %v", raw, got, want)
		}
	}
}

func TestParseProgress(t *testing.T) {
	p, err := ParseProgress(json.RawMessage(`{"progressToken":"abc","progress":2,"total":5,"message":"two"}`))
	if err != nil || p.Token != "abc" || p.Progress != 2 || p.Total == nil || *p.Total != 5 || p.Message != "two" {
		t.Errorf("string token: %+v, %v", p, err)
	}
	p, err = ParseProgress(json.RawMessage(`{"progressToken":7,"progress":0.5}`))
	if err != nil || p.Token != "7" || p.Total != nil {
		t.Errorf("numeric token: %+v, %v", p, err)
	}
	if _, err := ParseProgress(json.RawMessage(`{"progress":"half"}`)); err == nil {
		t.Error("a non-numeric progress decoded without error")
	}
}
