package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// recording is a replay that says it reads a session file, as
// sessionfile.Source does.
type recording struct{ *session.Replay }

func (recording) Recorded() bool { return true }

// An opened recording says so in the header (not "■ closed", the state
// its connection ended in), and a tool's form says it is read-only as it
// opens, before anything is filled in, not only once it is sent.
func TestRecordingSaysReadOnlyBeforeAFormIsFilled(t *testing.T) {
	const why = "run.jsonl is a recording, read-only"
	for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}} {
		evs := sessionEvents()
		for i, ev := range evs {
			if hs, ok := ev.(mcp.HandshakeEvent); ok {
				c := *hs.Handshake
				c.ServerCapabilities = json.RawMessage(`{"tools":{},"prompts":{},"completions":{}}`)
				hs.Handshake = &c
				evs[i] = hs
			}
		}
		evs = append(evs,
			mcp.ListEvent{Time: time.Now(), Method: mcp.MethodPromptsList, Pages: 1, Items: []json.RawMessage{
				json.RawMessage(`{"name":"greet","arguments":[{"name":"name","required":true}]}`)}},
			mcp.StateEvent{Time: time.Now(), State: mcp.StateClosed, Detail: "the recording ends here"})
		m := New(Config{Theme: "dark", Target: "run.jsonl", NoReconnect: true, NewSource: func() session.Source {
			return recording{session.NewReplay(evs, "stdio", why)}
		}})
		p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
		m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		p.run(m.Init())
		p.until("the replayed session", func() bool { return m.ended && m.state == mcp.StateClosed })
		if h := headerLine(m); !strings.Contains(h, "recording · read-only") || strings.Contains(h, "closed") {
			t.Errorf("%dx%d: the header of a recording: %q", sz.w, sz.h, h)
		}
		p.keys("3", "enter")
		p.settle()
		s := ansi.Strip(content(m))
		if !strings.Contains(s, "Call echo · read-only") || !strings.Contains(s, "read-only: run.jsonl is a recording") {
			t.Errorf("%dx%d: the form does not say it is read-only as it opens:\n%s", sz.w, sz.h, s)
		}
		// A prompt's form asks for no completion a recording would refuse.
		p.keys("esc", "5", "enter")
		p.settle()
		s = ansi.Strip(content(m))
		if !strings.Contains(s, "prompts/get greet · read-only") || strings.Contains(s, "cannot send") {
			t.Errorf("%dx%d: the prompt's form:\n%s", sz.w, sz.h, s)
		}
		m.Close()
	}
}
