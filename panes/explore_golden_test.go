package panes

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/themes"
)

// Goldens of the explorer panes and the ask modal at 80×24 and 120×35,
// dark and light, with fixed data.
func TestExplorerGoldens(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, dark := range []bool{true, false} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 35}} {
			th, k := themes.Default(dark), keymap.Default()
			name := func(p string) string { return fmt.Sprintf("%s/dark=%t/%dx%d", p, dark, sz.w, sz.h) }
			t.Run(name("resources"), func(t *testing.T) {
				r := NewResources(th, k)
				r.SetGate(Gate{OK: true}, true, true)
				r.SetPage("resources/list", []json.RawMessage{json.RawMessage(`{"uri":"demo://readme","name":"readme","mimeType":"text/markdown"}`), json.RawMessage(`{"uri":"demo://clock","name":"clock"}`)}, true, "c2")
				r.SetSubscribed("demo://clock", true, nil)
				r.Updated("demo://clock")
				r.Updated("demo://clock")
				r.SetSize(sz.w, sz.h)
				r.Focus()
				golden.RequireEqual(t, r.View())
			})
			t.Run(name("prompts-gated"), func(t *testing.T) {
				p := NewPrompts(th, k)
				p.SetGate(Gate{Why: `the server did not declare the "prompts" capability, so it offers no prompts`}, false)
				p.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, p.View())
			})
			t.Run(name("serverlog"), func(t *testing.T) {
				s := NewServerLog(th, k)
				for i, l := range []string{"debug", "info", "warning", "error"} {
					s.Append(t0.Add(time.Duration(i)*time.Second), json.RawMessage(fmt.Sprintf(`{"level":%q,"logger":"demo","data":"message %d"}`, l, i)))
				}
				s.SetLevel("debug")
				s.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, s.View())
			})
			t.Run(name("activity"), func(t *testing.T) {
				a := NewActivity(th, k)
				a.SetNow(t0)
				a.Start(Op{ID: 1, Label: "tools/call slow_count", Token: "tok", Started: t0.Add(-3 * time.Second)})
				total := 10.0
				a.Progress("tok", 4, &total, "step 4")
				a.Start(Op{ID: 2, Label: "resources/read demo://readme", Started: t0.Add(-time.Second)})
				a.End(2, OpCancelled, t0)
				a.SetTask("task-1", "working", "researching", t0)
				a.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, a.View())
			})
			t.Run(name("roots"), func(t *testing.T) {
				r := NewRoots(th, k, []policy.Root{{URI: "file:///tmp", Name: "tmp"}})
				r.Asked()
				r.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, r.View())
			})
			t.Run(name("ask-elicitation"), func(t *testing.T) {
				a := NewAsk(th, k)
				a.SetSize(sz.w, sz.h)
				a.SetRequest(1, "elicitation/create", json.RawMessage(`{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"ok":{"type":"boolean","default":true},"colour":{"type":"string","oneOf":[{"const":"g","title":"Green"},{"const":"r","title":"Red"}],"default":"r"},"pets":{"type":"array","items":{"enum":["cat","dog"]},"default":["dog"]}},"required":["name"]}}`), "")
				golden.RequireEqual(t, a.View())
			})
			t.Run(name("ask-sampling"), func(t *testing.T) {
				a := NewAsk(th, k)
				a.SetSize(sz.w, sz.h)
				a.SetRequest(2, "sampling/createMessage", json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"meaning?"}}],"systemPrompt":"Be brief.","modelPreferences":{"hints":[{"name":"claude"}]},"maxTokens":5}`), "ask_model")
				golden.RequireEqual(t, a.View())
			})
		}
	}
}

// The elicitation form prefills defaults (SEP-1034) and answers SEP-1330
// enums with their const values.
func TestAskElicitationDefaults(t *testing.T) {
	a := NewAsk(themes.Dark(), keymap.Default())
	a.SetSize(80, 24)
	a.SetRequest(7, "elicitation/create", json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"n":{"type":"integer","default":3},"colour":{"type":"string","oneOf":[{"const":"g","title":"Green"},{"const":"r","title":"Red"}],"default":"r"},"legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},"pets":{"type":"array","items":{"anyOf":[{"const":"cat","title":"Cat"},{"const":"dog","title":"Dog"}]},"default":["dog"]}}}}`), "")
	c, err := a.content()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	if got, want := string(b), `{"colour":"r","legacy":"a","n":3,"name":"Ada","pets":["dog"]}`; got != want {
		t.Fatalf("content %s, want %s", got, want)
	}
}

func TestTemplateVarsAndExpand(t *testing.T) {
	vars := TemplateVars("demo://notes/{id}{?q,lang}")
	if fmt.Sprint(vars) != "[id q lang]" {
		t.Fatalf("vars %v", vars)
	}
	if got := ExpandTemplate("demo://notes/{id}{?q}", map[string]string{"id": "a b", "q": "x"}); got != "demo://notes/a%20b?q=x" {
		t.Fatalf("expanded %q", got)
	}
}
