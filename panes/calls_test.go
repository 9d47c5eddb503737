package panes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

func sampleSavedCalls() []SavedCall {
	return []SavedCall{
		{Name: "add small numbers", Method: "tools/call", Subject: "add", Tool: "add", Args: json.RawMessage(`{"a":1,"b":2}`),
			Params: `{"name":"add","arguments":{"a":1,"b":2}}`, Expects: []string{"isError false", "equals /structuredContent/sum = 3"},
			Where: "mcpscope.calls.json:3", State: CallPassed, Took: "0.42 ms"},
		{Name: "add wrong", Method: "tools/call", Subject: "add", Tool: "add", Args: json.RawMessage(`{"a":2,"b":2}`),
			Params: `{"name":"add","arguments":{"a":2,"b":2}}`, Expects: []string{"equals /structuredContent/sum = 5"},
			Where: "mcpscope.calls.json:9", State: CallFailed, Took: "0.38 ms",
			Failures: []string{"equals /structuredContent/sum: expected 5, got 4"}},
		{Name: "readme", Method: "resources/read", Subject: "demo://readme", Params: `{"uri":"demo://readme"}`,
			Expects: []string{"a result, not an error"}, Where: "mcpscope.calls.json:15"},
		{Name: "gone", Method: "tools/call", Subject: "subtract", Tool: "subtract", Params: `{"name":"subtract"}`,
			Expects: []string{"a result, not an error"}, Where: "mcpscope.calls.json:16", Stale: `the server no longer lists a tool "subtract"`},
	}
}

func cmdMsg(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	return cmd()
}

func TestCallsPaneGoldens(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range paneSizes {
			t.Run(fmt.Sprintf("dark=%t/%dx%d", dark, sz.w, sz.h), func(t *testing.T) {
				p := NewCalls(themes.Default(dark), keymap.Default())
				p.SetSize(sz.w, sz.h)
				p.SetCalls("mcpscope.calls.json", "", sampleSavedCalls())
				p.Focus()
				p.Update(press("down"))
				v := p.View()
				assertPaneSize(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)
			})
		}
	}
}

func TestCallsPaneKeys(t *testing.T) {
	p := NewCalls(themes.Dark(), keymap.Default())
	p.SetSize(80, 20)
	p.SetCalls("f.json", "", sampleSavedCalls())
	s := ansi.Strip(p.View())
	for _, want := range []string{"Saved calls · 4 · 1 passed, 1 failed", "✓ add small numbers", "✗ add wrong  tools/call add  equals /structuredContent/sum", "⚠ gone", "sends   tools/call"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %q:\n%s", want, s)
		}
	}
	if msg, ok := cmdMsg(t, p.Update(press("t"))).(RunCallsMsg); !ok || len(msg.Names) != 1 || msg.Names[0] != "add small numbers" {
		t.Errorf("t: %+v", msg)
	}
	if msg, ok := cmdMsg(t, p.Update(press("T"))).(RunCallsMsg); !ok || msg.Names != nil {
		t.Errorf("T: %+v", msg)
	}
	if msg, ok := cmdMsg(t, p.Update(press("enter"))).(LoadCallMsg); !ok || msg.Name != "add small numbers" {
		t.Errorf("enter: %+v", msg)
	}
	p.Update(press("down"))
	p.Update(press("down"))
	if msg := cmdMsg(t, p.Update(press("enter"))); msg != nil {
		t.Errorf("enter on a resources/read: %+v", msg)
	}
	if s := ansi.Strip(p.View()); !strings.Contains(s, "resources/read has no form: t runs it as saved") {
		t.Errorf("enter on a resources/read says nothing:\n%s", s)
	}
	// A new list keeps the cursor on the same call.
	calls := sampleSavedCalls()
	calls[2].State = CallRunning
	p.SetCalls("f.json", "", append([]SavedCall{{Name: "first", Method: "ping"}}, calls...))
	if c, _ := p.Selected(); c.Name != "readme" || c.State != CallRunning {
		t.Errorf("selected %+v", c)
	}
	if _, ok := cmdMsg(t, p.Update(press("esc"))).(CloseMsg); !ok {
		t.Error("esc does not close")
	}
	p.SetCalls("f.json", "f.json:3:5: invalid character", nil)
	if s := ansi.Strip(p.View()); !strings.Contains(s, "f.json:3:5: invalid character") {
		t.Errorf("the problem is not shown:\n%s", s)
	}
}

func savedTools(t *testing.T) *Tools {
	t.Helper()
	p := NewTools(themes.Dark(), keymap.Default())
	p.SetSize(90, 24)
	p.Focus()
	p.SetTools([]mcp.Tool{
		{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
		{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
	})
	p.SetSavedCalls(sampleSavedCalls())
	return p
}

// Saved calls are listed under their tool; a call whose tool is gone is
// not (the list of all calls marks it).
func TestToolsListSavedCallsUnderTheirTool(t *testing.T) {
	p := savedTools(t)
	s := ansi.Strip(p.View())
	add := strings.Index(s, "▸ add")
	small, wrong, echo := strings.Index(s, "↳ ✓ add small numbers"), strings.Index(s, "↳ ✗ add wrong"), strings.Index(s, "  echo")
	if add < 0 || small < add || wrong < small || echo < wrong || strings.Contains(s, "gone") {
		t.Fatalf("rows:\n%s", s)
	}
	if !strings.Contains(s, "↳ ✗ add wrong  equal") {
		t.Errorf("the failure's reason is not on its row:\n%s", s)
	}
	// t on a tool runs its calls; on a call, that call; T every call.
	if msg, _ := cmdMsg(t, p.Update(press("t"))).(RunCallsMsg); strings.Join(msg.Names, ",") != "add small numbers,add wrong" {
		t.Errorf("t on add: %+v", msg)
	}
	p.Update(press("down"))
	p.Update(press("down"))
	if c, ok := p.SelectedCall(); !ok || c.Name != "add wrong" {
		t.Fatalf("selected %+v", c)
	}
	if tool, _ := p.Selected(); tool.Name != "add" {
		t.Errorf("a call row's tool is %q", tool.Name)
	}
	if s := ansi.Strip(p.View()); !strings.Contains(s, "Saved call add wrong") || !strings.Contains(s, "✗ equals /structuredContent/sum: expected 5") {
		t.Errorf("the details do not show the call:\n%s", s)
	}
	if msg, _ := cmdMsg(t, p.Update(press("t"))).(RunCallsMsg); strings.Join(msg.Names, ",") != "add wrong" {
		t.Errorf("t on a call: %+v", msg)
	}
	if msg, ok := cmdMsg(t, p.Update(press("T"))).(RunCallsMsg); !ok || msg.Names != nil {
		t.Errorf("T: %+v", msg)
	}
	help := strings.Join(keysOfBindings(p.ShortHelp()), " ")
	for _, want := range []string{"enter load into form", "t run saved call", "T run all saved", "C saved calls"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help bar lacks %q: %s", want, help)
		}
	}
	// A new list of calls keeps the cursor on the call.
	p.SetSavedCalls(sampleSavedCalls())
	if c, _ := p.SelectedCall(); c.Name != "add wrong" {
		t.Errorf("after SetSavedCalls the cursor is on %+v", c)
	}
	// The filter hides a tool with its calls.
	p.SetFilter("echo")
	if s := ansi.Strip(p.View()); strings.Contains(s, "add wrong") {
		t.Errorf("a filtered-out tool's calls are shown:\n%s", s)
	}
}

// The cursor a person moved onto a saved call stays there when data
// arrives afterwards: the tools' token count (counted off the UI
// goroutine, so it may land after the first keys), a re-list after
// notifications/tools/list_changed, and the sort by cost that the count
// allows. Each once put the cursor back on the call's tool.
func TestToolsCursorStaysOnSavedCallAsDataArrives(t *testing.T) {
	p := NewTools(themes.Dark(), keymap.Default())
	p.SetSize(90, 24)
	p.Focus()
	tools := []mcp.Tool{
		{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
		{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
	}
	count := p.SetTools(tools)
	p.SetSavedCalls(sampleSavedCalls())
	p.Update(press("down"))
	p.Update(press("down"))
	onWrong := func(when string) {
		t.Helper()
		if c, ok := p.SelectedCall(); !ok || c.Name != "add wrong" {
			tool, _ := p.Selected()
			t.Errorf("%s the cursor left the saved call for %q (call %+v):\n%s", when, tool.Name, c, ansi.Strip(p.View()))
		}
	}
	onWrong("before any data arrived")
	p.Update(cmdMsg(t, count))
	if s := ansi.Strip(p.View()); !strings.Contains(s, " tok") {
		t.Fatalf("the count did not arrive:\n%s", s)
	}
	onWrong("after the token count arrived")
	recount := p.SetTools(tools)
	onWrong("after a re-list")
	p.Update(cmdMsg(t, recount))
	onWrong("after the re-list's count arrived")
	p.Update(press("$"))
	onWrong("after sorting by cost")
}

func keysOfBindings(bs []key.Binding) []string {
	var out []string
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b.Help().Key+" "+b.Help().Desc)
		}
	}
	return out
}

// enter on a saved call opens its tool's form holding its arguments; a
// draft the tool had is kept in the form's history.
func TestToolsLoadSavedCall(t *testing.T) {
	p := savedTools(t)
	// feed runs what a key returns and gives the pane its messages back,
	// as the program would (the form answers esc with a Cmd).
	feed := func(msg tea.Msg) {
		for cmd := p.Update(msg); cmd != nil; {
			out := cmd()
			if _, batch := out.(tea.BatchMsg); batch || out == nil {
				return
			}
			cmd = p.Update(out)
		}
	}
	feed(press("enter")) // add's form
	feed(press("7"))
	feed(press("esc"))
	feed(press("k")) // keep the draft
	if !p.HasDraft("add") {
		t.Fatalf("no draft kept:\n%s", ansi.Strip(p.View()))
	}
	p.Update(press("down"))
	cmd := p.Update(press("enter"))
	if !p.Editing() || p.Form() == nil {
		t.Fatalf("enter on a saved call opened no form (%v):\n%s", cmd, ansi.Strip(p.View()))
	}
	v, err := p.Form().Value()
	if err != nil || string(v) != `{"a":1,"b":2}` {
		t.Errorf("the form holds %s (%v)", v, err)
	}
	if s := ansi.Strip(p.View()); !strings.Contains(s, "Call add · saved add small numbers") {
		t.Errorf("title:\n%s", s)
	}
	p.Update(tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl}) // older arguments: the draft
	if v, _ := p.Form().Value(); string(v) != `{"a":7}` {
		t.Errorf("the earlier draft is not in the history: %s", v)
	}
	p.CloseEditor()
	if _, err := p.LoadCall(sampleSavedCalls()[3]); err == nil || !strings.Contains(err.Error(), `no longer lists a tool "subtract"`) {
		t.Errorf("loading a gone tool's call: %v", err)
	}
}

func resultWithResponse() ToolResultMsg {
	raw := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"4"}],"structuredContent":{"sum":4}}}`)
	return ToolResultMsg{Name: "add", Args: json.RawMessage(`{"a":2,"b":2}`), Result: json.RawMessage(`{"content":[{"type":"text","text":"4"}],"structuredContent":{"sum":4}}`),
		Response: &mcp.Frame{Seq: 7, Dir: mcp.Inbound, Kind: mcp.KindResponse, Raw: raw}, Latency: 3 * time.Millisecond,
		OutputSchema: json.RawMessage(`{"type":"object"}`)}
}

// S on a result asks for a name (suggested, editable), tab chooses the
// snapshot, enter asks the root to save; esc keeps what was typed for the
// next S.
func TestResultSavesTheCall(t *testing.T) {
	r := NewResult(themes.Dark(), keymap.Default())
	r.SetSize(80, 22)
	r.SetCalls("my.calls.json", []string{"taken"})
	r.SetResult(resultWithResponse())
	r.Focus()
	if help := strings.Join(keysOfBindings(r.ShortHelp()), " "); !strings.Contains(help, "S save call") {
		t.Errorf("the help bar lacks S: %s", help)
	}
	r.Update(press("S"))
	s := ansi.Strip(r.View())
	assertPaneSize(t, r.View(), 80, 22)
	for _, want := range []string{"save this call to my.calls.json", "name  add a=2 b=2", "[ ] keep this answer as its snapshot (tab)", "expects isError false · schema: the tool's outputSchema"} {
		if !strings.Contains(s, want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	if !r.Capturing() {
		t.Error("the question does not take typed keys")
	}
	for range len("add a=2 b=2") {
		r.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	for _, c := range "taken" {
		r.Update(press(string(c)))
	}
	if s := ansi.Strip(r.View()); !strings.Contains(s, "replaces the saved call of that name") {
		t.Errorf("a taken name is not flagged:\n%s", s)
	}
	r.Update(press("esc"))
	if r.Saving() {
		t.Fatal("esc did not close the question")
	}
	r.Update(press("S"))
	if s := ansi.Strip(r.View()); !strings.Contains(s, "name  taken") {
		t.Errorf("what was typed was lost:\n%s", s)
	}
	r.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	if s := ansi.Strip(r.View()); !strings.Contains(s, "[x] keep this answer") || !strings.Contains(s, "snapshot: the whole") {
		t.Errorf("tab did not choose the snapshot:\n%s", s)
	}
	msg, ok := cmdMsg(t, r.Update(press("enter"))).(SaveCallMsg)
	if !ok || msg.Name != "taken" || !msg.Snapshot || msg.Tool != "add" || string(msg.Args) != `{"a":2,"b":2}` || msg.Response == nil || !msg.OutputSchema {
		t.Errorf("enter: %+v", msg)
	}
	if r.Saving() {
		t.Error("the question is still open")
	}
	// A call that got no answer from the server cannot be saved.
	failed := resultWithResponse()
	failed.Response, failed.Result, failed.Err = nil, nil, &mcp.LocalError{Kind: mcp.Timeout, Method: "tools/call"}
	r.SetResult(failed)
	r.Update(press("S"))
	if r.Saving() {
		t.Error("S opened on a local failure")
	}
}

// The suggested name is shown selected: the first key typed replaces it
// (typing does not append to it), a paste too, backspace clears it, and a
// key that moves the cursor keeps it to edit.
func TestResultSaveNameSuggestionIsReplacedByTyping(t *testing.T) {
	open := func() *Result {
		r := NewResult(themes.Dark(), keymap.Default())
		r.SetSize(100, 22)
		r.SetCalls("my.calls.json", nil)
		r.SetResult(resultWithResponse())
		r.Focus()
		r.Update(press("S"))
		return r
	}
	name := func(r *Result) string { return r.saveQ.name.Value() }
	r := open()
	if s := ansi.Strip(r.View()); !strings.Contains(s, "name  add a=2 b=2  typing replaces it") {
		t.Errorf("the suggestion is not shown as replaceable:\n%s", s)
	}
	for _, c := range "sum" {
		r.Update(press(string(c)))
	}
	if name(r) != "sum" {
		t.Errorf("typing made %q, want %q", name(r), "sum")
	}
	if s := ansi.Strip(r.View()); strings.Contains(s, "typing replaces it") {
		t.Errorf("the hint stays once typed:\n%s", s)
	}
	r = open()
	r.Update(press("end"))
	r.Update(press("space"))
	r.Update(press("x"))
	if name(r) != "add a=2 b=2 x" {
		t.Errorf("end then typing made %q", name(r))
	}
	r = open()
	r.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if name(r) != "" {
		t.Errorf("backspace left %q", name(r))
	}
	r = open()
	r.Update(tea.PasteMsg{Content: "pasted"})
	if name(r) != "pasted" {
		t.Errorf("a paste made %q", name(r))
	}
	// esc keeps what was typed: it is not selected again.
	r.Update(press("esc"))
	r.Update(press("S"))
	r.Update(press("!"))
	if name(r) != "pasted!" {
		t.Errorf("after esc and S, typing made %q", name(r))
	}
}

func TestToolsWithSavedCallsGoldens(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range paneSizes {
			t.Run(fmt.Sprintf("dark=%t/%dx%d", dark, sz.w, sz.h), func(t *testing.T) {
				p := NewTools(themes.Default(dark), keymap.Default())
				p.SetSize(sz.w, sz.h)
				p.Focus()
				p.SetTools([]mcp.Tool{
					{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)},
					{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
				})
				p.SetSavedCalls(sampleSavedCalls())
				p.Update(press("down"))
				p.Update(press("down"))
				v := p.View()
				assertPaneSize(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)
			})
		}
	}
}

// The calls saved for other servers come last, under a rule that says
// so, each naming its server; the title counts them apart, and the cursor
// crosses the rule as one row.
func TestCallsOfOtherServersHaveTheirSection(t *testing.T) {
	p := NewCalls(themes.Dark(), keymap.Default())
	p.SetSize(60, 15)
	p.Focus()
	p.SetCalls("mcpscope.calls.json", "", []SavedCall{
		{Name: "hi", Method: "tools/call", Subject: "echo"},
		{Name: "old", Method: "tools/call", Subject: "gone"},
		{Name: "book", Method: "tools/call", Subject: "book_trip", OtherServer: "travel"},
	})
	v := p.View()
	assertPaneSize(t, v, 60, 15)
	s := ansi.Strip(v)
	for _, want := range []string{"Saved calls · 2 · 1 for other servers", "── saved for other servers ──", "· book  tools/call book_trip  for travel"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "wrap") {
		t.Errorf("the title speaks of wrapping:\n%s", s)
	}
	if strings.Index(s, "saved for other servers ─") > strings.Index(s, "· book") || strings.Index(s, "saved for other servers ─") < strings.Index(s, "· old") {
		t.Errorf("the rule is not between the sections:\n%s", s)
	}
	p.Update(press("down"))
	p.Update(press("down"))
	if c, _ := p.Selected(); c.Name != "book" {
		t.Errorf("two downs reach %q", c.Name)
	}
	if s := ansi.Strip(p.View()); !strings.Contains(s, "▸ · book") || !strings.Contains(s, `saved for "travel", not this server`) {
		t.Errorf("the cursor on another server's call:\n%s", s)
	}
}
