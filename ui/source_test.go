package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

const readOnlyWhy = "this is a recorded session (run.jsonl): nothing can be sent"

// A read-only source (a session file, a tap) drives the same panes as a
// live one, and every send key says why nothing can be sent.
func TestReadOnlySourceExplainsEverySendKey(t *testing.T) {
	m := New(Config{Target: "run.jsonl", Theme: "dark", NewSource: func() session.Source {
		return session.NewReplay(sessionEvents(), "stdio", readOnlyWhy)
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the replayed session", func() bool { return m.ended && len(m.lists[mcp.MethodToolsList]) == 2 })
	if s := ansi.Strip(content(m)); !strings.Contains(s, "echo") || !strings.Contains(s, "stdio") {
		t.Fatalf("the replayed session is not shown:\n%s", s)
	}

	sends := []struct {
		name string
		do   func()
		want string // the method the explanation names
	}{
		{"ping key", func() { p.keys("P") }, "ping"},
		{"load more", func() { p.send(panes.ListPageMsg{Method: mcp.MethodToolsList, Cursor: "x"}) }, "tools/list"},
		{"read", func() { p.send(panes.ReadResourceMsg{URI: "demo://x"}) }, "resources/read"},
		{"prompt", func() { p.send(panes.GetPromptMsg{Name: "greet"}) }, "prompts/get"},
		{"subscribe", func() { p.send(panes.SubscribeMsg{URI: "demo://x", On: true}) }, "subscription"},
		{"level", func() { p.send(panes.SetLevelMsg{Level: "debug"}) }, "logging level"},
		{"complete", func() {
			p.send(panes.CompleteMsg{Ref: json.RawMessage(`{"type":"ref/prompt","name":"greet"}`), Arg: "name"})
		}, "completion/complete"},
		{"task result", func() { p.send(panes.TaskResultMsg{TaskID: "t1"}) }, "tasks/result"},
		{"task cancel", func() { p.send(panes.TaskCancelMsg{TaskID: "t1"}) }, "tasks/cancel"},
		{"roots changed", func() { p.send(panes.RootsChangedMsg{}) }, "roots/list_changed"},
	}
	for _, s := range sends {
		m.note = ""
		s.do()
		p.settle()
		if !strings.Contains(m.note, readOnlyWhy) || !strings.Contains(m.note, s.want) || m.noteOK {
			t.Errorf("%s: the status line says %q (ok %v); want why %s cannot be sent", s.name, m.note, m.noteOK, s.want)
		}
	}

	// A tool call opens the result view, which says why it failed.
	p.send(panes.CallToolMsg{Name: "echo", Args: json.RawMessage(`{}`)})
	p.until("the refused call", func() bool { return m.modal == modalResult })
	if s := ansi.Strip(content(m)); !strings.Contains(s, "cannot send tools/call") {
		t.Errorf("the result view does not say why the call was not sent:\n%s", s)
	}
}

// A recorded session usually ends with the server's exit, which the status
// line shows; a send key's refusal is shown over it (it answers the key
// just pressed), and a new source clears it.
func TestReadOnlyRefusalShowsOverTheRecordedExit(t *testing.T) {
	p, n := endedReplay(t, Config{Target: "run.jsonl"}, "stdio", &mcp.ExitError{Code: 0})
	m := p.m
	p.keys("P")
	p.settle()
	if s := ansi.Strip(m.renderStatus()); !strings.Contains(s, readOnlyWhy) {
		t.Fatalf("the status line hides why nothing was sent: %q", s)
	}
	p.keys("r")
	p.until("the second source", func() bool { return *n == 2 })
	if m.note != "" {
		t.Errorf("the old refusal is still the note after a new source: %q", m.note)
	}
}
