package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// recordingWithout is a recorded session whose server declares tools,
// resources and prompts; its client lists tools, asks for prompts/list and
// the recording ends before the answer, and it never asks for resources.
func recordingWithout() []mcp.Event {
	evs := sessionEvents()
	for i, ev := range evs {
		if h, ok := ev.(mcp.HandshakeEvent); ok {
			hs := *h.Handshake
			hs.ServerCapabilities = json.RawMessage(`{"tools":{},"resources":{},"prompts":{}}`)
			evs[i] = mcp.HandshakeEvent{Time: h.Time, Handshake: &hs}
		}
	}
	return append(evs, mcp.FrameEvent{Frame: frame(6, 30, mcp.Outbound, mcp.KindRequest, "prompts/list", "3", `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`)})
}

// A recording that has ended and holds no list says why in that list's
// pane: it used to wait for tools/list, and to say "nothing listed" of
// resources the server may well have.
func TestEndedRecordingSaysWhatTheClientNeverAsked(t *testing.T) {
	evs := recordingWithout()
	// Without the tools/list answer too.
	var noTools []mcp.Event
	for _, ev := range evs {
		if l, ok := ev.(mcp.ListEvent); ok && l.Method == mcp.MethodToolsList {
			continue
		}
		if f, ok := ev.(mcp.FrameEvent); ok && (f.Frame.Method == mcp.MethodToolsList || f.Frame.ReplyToMethod == mcp.MethodToolsList) {
			continue
		}
		noTools = append(noTools, ev)
	}
	m := New(Config{Target: "run.jsonl", Theme: "dark", NewSource: func() session.Source {
		return session.NewReplay(noTools, "stdio", readOnlyWhy)
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the end of the recording", func() bool { return m.ended })

	for _, c := range []struct {
		pane, view, want, title string
	}{
		{"tools", m.tools.View(), "The client never asked for tools/list in this recording: the server's tools are not in it.", "Tools ─"},
		{"resources", m.resources.View(), "The client never asked for resources/list in this recording: the server's resources are not in it.", "Resources (—) · Templates (—)"},
		{"prompts", m.prompts.View(), "The client asked for prompts/list, but the recording ends before the answer.", "Prompts (—)"},
	} {
		v := ansi.Strip(c.view)
		flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "╭", " ", "╮", " ", "╰", " ", "╯", " ").Replace(v)), " ")
		if !strings.Contains(flat, c.want) {
			t.Errorf("%s pane does not say %q:\n%s", c.pane, c.want, v)
		}
		if !strings.Contains(v, c.title) {
			t.Errorf("%s pane's title is not %q:\n%s", c.pane, c.title, v)
		}
		for _, lie := range []string{"waiting", "nothing listed", "no prompts listed", "(0)", "· 0"} {
			if strings.Contains(v, lie) {
				t.Errorf("%s pane says %q, an empty or pending list:\n%s", c.pane, lie, v)
			}
		}
	}
}

// The lists that did come are shown as they came; a live connection that
// ended first says so, never that it waits.
func TestEndedSourcesExplainOnlyTheMissingLists(t *testing.T) {
	m := New(Config{Target: "run.jsonl", Theme: "dark", NewSource: func() session.Source {
		return session.NewReplay(recordingWithout(), "stdio", readOnlyWhy)
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the end of the recording", func() bool { return m.ended })
	if v := ansi.Strip(m.tools.View()); !strings.Contains(v, "echo") || strings.Contains(v, "never asked") {
		t.Errorf("the listed tools:\n%s", v)
	}
	for _, c := range []struct {
		watching, asked, shook bool
		want                   string
	}{
		{false, true, true, "The connection ended before the server answered tools/list."},
		{false, false, true, "The connection ended before tools/list was sent."},
		{false, false, false, "The handshake failed, so tools/list was never sent."},
		{true, false, false, "The recording ends before the handshake: no tools/list in it."},
	} {
		if got := unlistedWhy(mcp.MethodToolsList, "tools", c.watching, c.asked, c.shook); got != c.want {
			t.Errorf("watching %v asked %v shook %v: %q, want %q", c.watching, c.asked, c.shook, got, c.want)
		}
	}
}
