package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// changingServer lists three tools, and after any tools/call another
// three (one reworded, one gone, one new), saying so by list_changed.
var changingServer = mcptest.Script{
	Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`),
	On: map[string][][]string{
		"tools/list": {
			{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"keep","description":"stays as it is","inputSchema":{"type":"object"}},{"name":"reword","description":"first words","inputSchema":{"type":"object"}},{"name":"retire","description":"goes away","inputSchema":{"type":"object"}}]}}`},
			{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"keep","description":"stays as it is","inputSchema":{"type":"object"}},{"name":"reword","description":"other words, and more of them","inputSchema":{"type":"object"}},{"name":"arrive","description":"new","inputSchema":{"type":"object"}}]}}`},
		},
		"tools/call": {{
			`{"jsonrpc":"2.0","id":{{id}},"result":{"content":[{"type":"text","text":"the list changes now"}]}}`,
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		}},
	},
}

// At 80×24 the Tools pane shows what each tool costs and the list's
// total; v shows the list as Claude Code presents it (mcp__ names) and
// as ChatGPT does; after a call makes the server change its list
// (list_changed), the ChatGPT view marks the tools ChatGPT users still
// see the old way, and names the one removed.
func flowToolCostsAndClientViews(t *testing.T, a *accept) {
	s := a.start(t, 80, 24, scriptArgs(changingServer)...)
	s.ready()
	s.keys("3")
	scr := s.waitFor("the costs", 10*time.Second, func(scr string) bool {
		return strings.Contains(scr, "Tools · 3 · ") && strings.Contains(scr, " tok ")
	})
	for _, name := range []string{"keep", "reword", "retire"} {
		if !rowWithCost(scr, name) {
			t.Fatalf("no cost on %s's row:\n%s", name, scr)
		}
	}

	pick := func(moves, title string) {
		t.Helper()
		s.keys("v")
		s.see("view as")
		s.see("enter show view")
		for _, m := range moves {
			if m == 'r' {
				s.keys("Right")
			} else {
				s.keys("Left")
			}
		}
		s.keys("Enter")
		s.see("Tools as " + title)
	}
	pick("r", "Claude Code")
	s.see("the model sees mcp__")
	pick("r", "ChatGPT")
	s.see("nothing left out or stale")

	s.keys("Enter")
	s.see("Call keep")
	s.keys("C-s")
	s.see("the list changes now")
	s.keys("Escape")
	s.gone("the list changes now")
	scr = s.see("removed, still offered: retire")
	for _, want := range []string{"Tools as ChatGPT · 3 · ", "3 stale", "⟲ 2 seen the old way"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("after list_changed the ChatGPT view lacks %q:\n%s", want, scr)
		}
	}
	for _, name := range []string{"reword", "arrive"} {
		if !rowMarked(scr, name, "⟲") {
			t.Errorf("%s is not marked stale:\n%s", name, scr)
		}
	}
	if rowMarked(scr, "keep", "⟲") {
		t.Errorf("keep, unchanged, is marked stale:\n%s", scr)
	}
	s.keys("j", "j")
	s.see("⟲ added since the list was first seen")
}

// listRow is the list row of a tool (the text before the details' rule).
func listRow(scr, name string) string {
	for _, l := range strings.Split(scr, "\n") {
		l, _, _ = strings.Cut(strings.TrimPrefix(l, "│"), "│")
		if f := strings.Fields(strings.TrimPrefix(l, "▸")); len(f) > 0 && f[0] == name {
			return l
		}
	}
	return ""
}

// rowWithCost: the tool's row ends in a number of tokens.
func rowWithCost(scr, name string) bool {
	f := strings.Fields(listRow(scr, name))
	if len(f) < 2 {
		return false
	}
	last := strings.TrimLeft(f[len(f)-1], "⟲✗")
	return last != "" && strings.Trim(last, "0123456789.k") == ""
}

// rowMarked: the tool's row carries mark.
func rowMarked(scr, name, mark string) bool { return strings.Contains(listRow(scr, name), mark) }
