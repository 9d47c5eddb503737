package panes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/themes"
)

// runCmd runs a pane's command and returns its message (nil for none).
func runCmd(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	return cmd()
}

// The prompts list moves as every list does: on panes/list g, G, pgup,
// pgdn and the wheel move it, not only ↑ and ↓, enter opens
// the prompt under the cursor, and a long row can be wrapped or scrolled
// sideways.
func TestPromptsListScrolls(t *testing.T) {
	p := NewPrompts(themes.Default(true), keymap.Default())
	p.SetGate(Gate{OK: true}, false)
	p.SetSize(80, 24)
	p.Focus()
	items := make([]json.RawMessage, 300)
	for i := range items {
		items[i] = json.RawMessage(fmt.Sprintf(`{"name":"prompt-%03d","description":"Prompt number %d, whose description runs on well past the edge of an eighty-column pane so that it is cut there: the end is here."}`, i, i))
	}
	p.SetPage(items, true, "")
	screen := func() string { return ansi.Strip(p.View()) }
	p.Update(press("G"))
	if !strings.Contains(screen(), "▸ prompt-299") || !strings.Contains(screen(), "300/300") {
		t.Fatalf("G did not reach the last prompt:\n%s", screen())
	}
	if msg := runCmd(p.Update(press("enter"))); p.Form() == nil {
		t.Fatalf("enter on the last prompt opened no form (%v)", msg)
	} else if !strings.Contains(ansi.Strip(p.View()), "prompt-299") {
		t.Fatalf("enter opened the form of another prompt:\n%s", ansi.Strip(p.View()))
	}
	if cmd := p.Update(press("esc")); cmd != nil {
		p.Update(cmd())
	}
	if p.Form() != nil {
		t.Fatalf("esc did not close the form:\n%s", ansi.Strip(p.View()))
	}
	p.Update(press("g"))
	p.Update(press("pgdown"))
	if s := screen(); strings.Contains(s, "▸ prompt-000") || !strings.Contains(s, fmt.Sprintf("▸ prompt-%03d", p.list.Rows()-1)) {
		t.Fatalf("pgdn did not page:\n%s", s)
	}
	p.Update(press("g"))
	p.Update(tea.MouseWheelMsg(tea.Mouse{Button: tea.MouseWheelDown}))
	if !strings.Contains(screen(), "▸ prompt-003") {
		t.Fatalf("the wheel did not move the cursor three rows:\n%s", screen())
	}
	// Long rows: cut, → shows their end, W wraps them.
	if strings.Contains(screen(), "the end is here") {
		t.Fatal("the fixture's rows are not long enough to be cut")
	}
	for range 4 {
		p.Update(press("right"))
	}
	if !strings.Contains(screen(), "the end is here") {
		t.Fatalf("→ did not scroll the rows sideways:\n%s", screen())
	}
	p.Update(press("W"))
	if s := screen(); !strings.Contains(s, "the end is here") || !strings.Contains(s, "Prompt number 3,") {
		t.Fatalf("W did not wrap the rows:\n%s", s)
	}
	// A click selects the prompt on the clicked row.
	p.Update(press("W"))
	p.ClickRow(2)
	if got := p.prompts[p.list.Cursor()].Name; got != fmt.Sprintf("prompt-%03d", p.list.Top()+1) {
		t.Fatalf("a click on the second row selected %s", got)
	}
}

// The resources and templates each keep a cursor on panes/list: G in one
// section leaves the other where it was; enter reads the resource under
// the cursor; s subscribes to it.
func TestResourcesListScrolls(t *testing.T) {
	r := NewResources(themes.Default(true), keymap.Default())
	r.SetGate(Gate{OK: true}, true, false)
	r.SetSize(80, 24)
	r.Focus()
	res := make([]json.RawMessage, 300)
	for i := range res {
		res[i] = json.RawMessage(fmt.Sprintf(`{"uri":"demo://static/resource/%03d/with/a/long/path/that/runs/past/the/edge/of/the/pane/end","name":"res-%03d"}`, i, i))
	}
	r.SetPage("resources/list", res, true, "")
	tm := make([]json.RawMessage, 40)
	for i := range tm {
		tm[i] = json.RawMessage(fmt.Sprintf(`{"uriTemplate":"demo://t/%02d/{id}","name":"tmpl-%02d"}`, i, i))
	}
	r.SetPage("resources/templates/list", tm, true, "")
	screen := func() string { return ansi.Strip(r.View()) }
	r.Update(press("G"))
	if s := screen(); !strings.Contains(s, "▸ res-299") || !strings.Contains(s, "300/300") {
		t.Fatalf("G did not reach the last resource:\n%s", s)
	}
	if msg, ok := runCmd(r.Update(press("enter"))).(ReadResourceMsg); !ok || !strings.Contains(msg.URI, "/299/") {
		t.Fatalf("enter read %+v, want resource 299", msg)
	}
	if msg, ok := runCmd(r.Update(press("s"))).(SubscribeMsg); !ok || !strings.Contains(msg.URI, "/299/") {
		t.Fatalf("s subscribed to %+v, want resource 299", msg)
	}
	r.Update(press("t"))
	if s := screen(); !strings.Contains(s, "▸ tmpl-00") {
		t.Fatalf("the templates' cursor moved with the resources':\n%s", s)
	}
	r.Update(press("pgdown"))
	if s := screen(); strings.Contains(s, "▸ tmpl-00") {
		t.Fatalf("pgdn did not page the templates:\n%s", s)
	}
	r.Update(press("t"))
	if !strings.Contains(screen(), "▸ res-299") {
		t.Fatalf("back in the resources, the cursor left res-299:\n%s", screen())
	}
	r.Update(press("g"))
	r.Update(tea.MouseWheelMsg(tea.Mouse{Button: tea.MouseWheelDown}))
	if !strings.Contains(screen(), "▸ res-003") {
		t.Fatalf("the wheel did not move three rows:\n%s", screen())
	}
	// The long URIs: cut, then shown by → or W.
	if strings.Contains(screen(), "pane/end") {
		t.Fatal("the fixture's URIs are not long enough to be cut")
	}
	r.Update(press("W"))
	if !strings.Contains(screen(), "pane/end") {
		t.Fatalf("W did not wrap the long URIs:\n%s", screen())
	}
	r.Update(press("W"))
	r.ClickRow(4)
	if got := r.resources[r.lists[0].Cursor()].Name; got != fmt.Sprintf("res-%03d", r.lists[0].Top()+2) {
		t.Fatalf("a click on the third list row selected %s", got)
	}
}
