package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/watch"
)

// A restart on the stream (a live --watch, or a session file or tap
// record that has one): the restart row is the separator and the new
// server's frames count from 1 under it; the breaking change is a
// diagnostic, counted in the header until the Diagnostics pane is seen.
func TestRestartRowsShowAsARestart(t *testing.T) {
	evs := sessionEvents()
	evs = append(evs, mcp.TransportEvent{Time: at(40), Kind: mcp.TransportRestart, Summary: "restarted after src/tools.py changed; build 1.2 s"})
	evs = append(evs, sessionEvents()...)
	evs = append(evs,
		mcp.TransportEvent{Time: at(60), Kind: mcp.TransportSurface, Summary: "1 breaking: tool echo: new required property lang",
			Fields: []mcp.Field{{Key: "breaking", Value: "tool echo: new required property lang"}}},
		mcp.DiagnosticEvent{Time: at(60), Diagnostic: &mcp.Diagnostic{Rule: watch.BreakingRule, Severity: mcp.SeverityWarning,
			Message: "after the restart: tool echo: new required property lang"}})
	m := New(Config{Target: "run.jsonl", Theme: "dark", NewSource: func() session.Source {
		return session.NewReplay(evs, "stdio", readOnlyWhy)
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	p.run(m.Init())
	p.until("the replayed restart", func() bool { return m.ended })
	s := ansi.Strip(content(m))
	for _, want := range []string{"──── restarted after src/tools.py changed; build 1.2 s", "surface 1 breaking: tool echo", "⚠ 1 breaking change"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	// Frame #1 once above the separator and once under it: the second
	// server's frames are numbered from 1 in the log.
	if n := strings.Count(s, "→ req    initialize #1"); n != 2 {
		t.Errorf("the initialize request #1 is on screen %d times, want 2:\n%s", n, s)
	}
	p.keys("9")
	p.settle()
	if s := ansi.Strip(content(m)); strings.Contains(s, "breaking change") && !strings.Contains(s, watch.BreakingRule) {
		t.Errorf("the Diagnostics pane:\n%s", s)
	}
	if header, _, _ := strings.Cut(ansi.Strip(content(m)), "\n"); strings.Contains(header, "breaking change") {
		t.Errorf("the header still counts the change once seen: %s", header)
	}
}
