package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/calls"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/panes"
)

// callsProgram drives the model against the demo server (env: the demo's
// environment, e.g. its add offset) with a calls file at path.
func callsProgram(t *testing.T, path string, env ...string) *program {
	t.Helper()
	m := New(Config{Target: "demo", Theme: "dark", CallsFile: path, NewClient: func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], Args: []string{"demo-server"}, Env: env, Grace: 200 * time.Millisecond}
		return mcp.NewClient(tr, mcp.Options{Discover: true})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	p.run(m.Init())
	p.until("the handshake and discovery", func() bool { return m.state == mcp.StateReady && len(m.tools.Tools()) > 0 })
	return p
}

func screenOf(m *Model) string { return ansi.Strip(m.View().Content) }

// The flow of saved calls in the UI: a tool called, its call saved with
// its answer as snapshot (S, tab, enter), run again from the tools pane
// (t) and passing; against a build whose add answers differently it fails,
// and the list of all calls (C) says where and how; enter loads it into
// the form.
func TestSavedCallFlow(t *testing.T) {
	path := filepath.Join(t.TempDir(), calls.DefaultPath)
	p := callsProgram(t, path)
	p.send(panes.CallToolMsg{Name: "add", Args: json.RawMessage(`{"a":1,"b":2}`)})
	p.until("the result", func() bool { return p.m.modal == modalResult && p.m.result.Lines() > 0 })
	p.keys("S")
	if !p.m.result.Saving() || !strings.Contains(screenOf(p.m), "name  add a=1 b=2") {
		t.Fatalf("S did not ask for a name:\n%s", screenOf(p.m))
	}
	p.keys("right", "q") // typed into the name (after it), not quitting
	p.keys("backspace", "tab", "enter")
	p.until("the call saved", func() bool { return len(p.m.calls.file.Calls) == 1 })
	f, err := calls.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Calls[0]
	if c.Name != "add a=1 b=2" || c.Tool() != "add" || !strings.Contains(string(c.Expect.Snapshot), `"structuredContent":{"sum":3}`) ||
		string(c.Expect.Schema) != `"output"` {
		t.Fatalf("saved %+v", c)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the calls file is %v", st.Mode())
	}
	p.keys("esc", "3")
	if s := screenOf(p.m); !strings.Contains(s, "↳ · add a=1 b=2") {
		t.Fatalf("the tools pane does not list the saved call under add:\n%s", s)
	}
	p.keys("j", "t")
	p.until("the call to pass", func() bool { return p.m.calls.runs["add a=1 b=2"].Pass })
	if s := screenOf(p.m); !strings.Contains(s, "↳ ✓ add a=1 b=2") || !strings.Contains(s, "passed") {
		t.Fatalf("the pass is not shown:\n%s", s)
	}

	// The next build: add answers 1+2+1.
	p = callsProgram(t, path, demo.AddOffsetEnv+"=1")
	p.keys("C")
	p.until("the list of calls", func() bool { return p.m.modal == modalCalls && len(p.m.calls.file.Calls) == 1 })
	p.keys("T")
	p.until("the call to fail", func() bool {
		o, ran := p.m.calls.runs["add a=1 b=2"]
		return ran && !o.Pass
	})
	s := screenOf(p.m)
	for _, want := range []string{"Saved calls · 1 · 0 passed, 1 failed", "✗ add a=1 b=2", "snapshot /result/structuredContent/sum: expected 3, got 4"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %q:\n%s", want, s)
		}
	}
	p.keys("enter")
	if p.m.modal != modalNone || p.m.focus != focusTools || !p.m.tools.Editing() {
		t.Fatalf("enter did not load the call into the form:\n%s", screenOf(p.m))
	}
	if s := screenOf(p.m); !strings.Contains(s, "Call add · saved add a=1 b=2") || !strings.Contains(s, "a*       1") {
		t.Errorf("the form does not hold the saved arguments:\n%s", s)
	}
}

// A call whose tool is gone, or whose arguments the tool's schema now
// refuses, stays in the list, marked.
func TestSavedCallsMarkedNotDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), calls.DefaultPath)
	text := `{"calls": [
  {"name": "gone", "method": "tools/call", "params": {"name": "subtract", "arguments": {"a": 1}}},
  {"name": "refused", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": 5}}},
  {"name": "fine", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}
]}`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := callsProgram(t, path)
	p.until("the stale marks", func() bool { return len(p.m.calls.stale) == 2 })
	if !strings.Contains(p.m.calls.stale["gone"], `lists no tool "subtract"`) || !strings.Contains(p.m.calls.stale["refused"], "refuses") {
		t.Errorf("stale = %v", p.m.calls.stale)
	}
	p.keys("C")
	s := screenOf(p.m)
	for _, want := range []string{"⚠ gone", "⚠ refused", "· fine", "Saved calls · 3"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %q:\n%s", want, s)
		}
	}
	// Run, the gone tool's call fails with the server's answer, and is
	// still listed.
	p.keys("T")
	p.until("the run", func() bool { return len(p.m.calls.runs) == 3 && len(p.m.calls.running) == 0 })
	if p.m.calls.runs["gone"].Pass || !p.m.calls.runs["fine"].Pass || len(p.m.calls.file.Calls) != 3 {
		t.Errorf("runs = %+v", p.m.calls.runs)
	}
}

// A calls file that does not parse is never written over, and says where
// it is broken.
func TestBrokenCallsFileIsLeftAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), calls.DefaultPath)
	broken := "{\n  \"calls\": [\n    {\"name\": \"a\" \"method\": \"ping\"}\n  ]\n}\n"
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	p := callsProgram(t, path)
	p.until("the problem", func() bool { return p.m.calls.problem != "" })
	if !strings.Contains(p.m.calls.problem, calls.DefaultPath+":3:18") {
		t.Errorf("problem = %q", p.m.calls.problem)
	}
	p.send(panes.CallToolMsg{Name: "echo", Args: json.RawMessage(`{"message":"hi"}`)})
	p.until("the result", func() bool { return p.m.modal == modalResult && p.m.result.Lines() > 0 })
	p.keys("S", "enter")
	p.until("the refusal", func() bool { return strings.Contains(p.m.note, "not saved") })
	if got, _ := os.ReadFile(path); string(got) != broken {
		t.Errorf("the broken file was changed:\n%s", got)
	}
	if !strings.Contains(p.m.note, ":3:18") {
		t.Errorf("note = %q", p.m.note)
	}
}

// A click on a saved call in the list of all calls selects it, and its
// details follow, as the arrow keys would.
func TestSavedCallsListTakesAClick(t *testing.T) {
	path := filepath.Join(t.TempDir(), calls.DefaultPath)
	text := `{"calls": [
  {"name": "first", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "one"}}},
  {"name": "second", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "two"}}},
  {"name": "third", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "three"}}}
]}`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := callsProgram(t, path)
	p.keys("C")
	p.until("the list of calls", func() bool { return p.m.modal == modalCalls && len(p.m.calls.file.Calls) == 3 })
	x, y := -1, -1
	for i, line := range strings.Split(screenOf(p.m), "\n") {
		if j := strings.Index(line, "· third"); j >= 0 {
			x, y = ansi.StringWidth(line[:j])+2, i
		}
	}
	if y < 0 {
		t.Fatalf("the list does not show the third call:\n%s", screenOf(p.m))
	}
	p.send(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
	if c, ok := p.m.callsPane.Selected(); !ok || c.Name != "third" {
		t.Fatalf("the click selected %+v:\n%s", c, screenOf(p.m))
	}
	if s := screenOf(p.m); p.m.modal != modalCalls || !strings.Contains(s, `"three"`) {
		t.Errorf("the details are not the clicked call's:\n%s", s)
	}
}

// One calls file serves every server started in its folder: a call saved
// for another server is listed apart in C (not marked as lost), is not
// under this server's tools, and T leaves it out; a call saved here
// records this server.
func TestSavedCallsOfOtherServersShownApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), calls.DefaultPath)
	text := `{"calls": [
  {"name": "book", "server": "travel", "method": "tools/call", "params": {"name": "book_trip", "arguments": {"legs": []}}},
  {"name": "hi", "server": "mcpscope-demo", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}
]}`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := callsProgram(t, path)
	p.until("the calls read", func() bool { return len(p.m.calls.file.Calls) == 2 && p.m.calls.stale != nil })
	if s, ok := p.m.calls.stale["book"]; ok {
		t.Errorf("another server's call is marked: %q", s)
	}
	p.keys("C")
	p.until("the list of calls", func() bool { return p.m.modal == modalCalls })
	s := screenOf(p.m)
	for _, want := range []string{"Saved calls · 1 · 1 for other servers", "· book  tools/call book_trip  for travel"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "lists no tool") || strings.Contains(s, "⚠") {
		t.Errorf("another server's call shows as lost:\n%s", s)
	}
	if strings.Index(s, "· hi ") > strings.Index(s, "· book ") {
		t.Errorf("this server's call is not first:\n%s", s)
	}
	if c, _ := p.m.callsPane.Selected(); c.Name != "hi" {
		t.Errorf("the cursor is on %q, not on this server's first call", c.Name)
	}
	p.keys("T")
	p.until("the run", func() bool { return len(p.m.calls.runs) == 1 && len(p.m.calls.running) == 0 })
	if _, ran := p.m.calls.runs["book"]; ran || !p.m.calls.runs["hi"].Pass {
		t.Errorf("runs = %+v", p.m.calls.runs)
	}
	p.keys("esc")
	p.send(panes.CallToolMsg{Name: "add", Args: json.RawMessage(`{"a":1,"b":2}`)})
	p.until("the result", func() bool { return p.m.modal == modalResult && p.m.result.Lines() > 0 })
	p.keys("S", "enter")
	p.until("the call saved", func() bool { return len(p.m.calls.file.Calls) == 3 })
	if c, _ := p.m.calls.file.Find("add a=1 b=2"); c.Server != "mcpscope-demo" {
		t.Errorf("saved for %q", c.Server)
	}
}
