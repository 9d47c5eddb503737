package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// An ended recording that can only be read again offers no reconnect: the
// help bar and the status line leave r out (the live-session key is the
// way to the server, when there is one), and r starts nothing.
func TestEndedRecordingOffersNoReconnect(t *testing.T) {
	exit := &mcp.ExitError{Code: -1, Signal: "SIGTERM", ClientSignal: "SIGTERM"}
	p, n := endedReplay(t, Config{Target: "capture.jsonl", NoReconnect: true,
		LiveSession: func() tea.ExecCommand { return nil }}, "stdio", exit)
	m := p.m
	status := ansi.Strip(m.renderStatus())
	if strings.Contains(status, "r to") || !strings.Contains(status, "L for a live session") {
		t.Errorf("the status line after the end: %q", status)
	}
	for _, b := range m.ShortHelp() {
		if b.Enabled() && b.Help().Key == "r" {
			t.Errorf("the help bar offers %q %q", b.Help().Key, b.Help().Desc)
		}
	}
	for _, g := range m.FullHelp() {
		for _, b := range g {
			if b.Enabled() && b.Help().Desc == "reconnect" {
				t.Errorf("the help overlay offers reconnect")
			}
		}
	}
	p.keys("r")
	p.settle()
	if *n != 1 || m.reconnecting {
		t.Errorf("r started source %d (reconnecting %v)", *n, m.reconnecting)
	}
}

// A live tap's view says what r does there once the tap has ended (take
// up the server's next tap), not that it restarts a server the view never
// started; r asks the factory for a new source.
func TestTapViewSaysRFollowsTheNextTap(t *testing.T) {
	p, n := endedReplay(t, Config{Target: "tap demo", ReconnectHelp: "reattach / next tap"}, "stdio tap", &mcp.ExitError{Code: 0})
	m := p.m
	status := ansi.Strip(m.renderStatus())
	if strings.Contains(status, "restart") || !strings.Contains(status, "(r: reattach / next tap)") {
		t.Errorf("the status line after the tap's end: %q", status)
	}
	offered := false
	for _, b := range m.ShortHelp() {
		if b.Enabled() && b.Help().Key == "r" {
			offered = b.Help().Desc == "reattach / next tap"
		}
	}
	if !offered {
		t.Error("the help bar does not offer r as reattach / next tap")
	}
	p.keys("r")
	p.until("a new source", func() bool { return *n == 2 })
}

// endedReplay runs a model made from cfg on a replay of a session that
// ends with exit (a new replay each time it asks for a source), at
// 200×35, until the replayed session has ended. sources counts the
// replays it asked for.
func endedReplay(t *testing.T, cfg Config, transport string, exit *mcp.ExitError) (p *program, sources *int) {
	t.Helper()
	evs := append(sessionEvents(), mcp.ExitEvent{Time: time.Now(), Exit: exit})
	n := 0
	cfg.Theme = "dark"
	cfg.NewSource = func() session.Source {
		n++
		return session.NewReplay(evs, transport, readOnlyWhy)
	}
	m := New(cfg)
	p = &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 35})
	p.run(m.Init())
	p.until("the replayed session", func() bool { return m.ended && m.exit != nil })
	return p, &n
}

// A live session that cannot start on an ended recording says why on the
// status line, above the recording's exit (it used to be hidden there).
func TestEndedRecordingShowsWhyNoLiveSession(t *testing.T) {
	p, _ := endedReplay(t, Config{Target: "capture.jsonl", NoReconnect: true,
		LiveSession: func() tea.ExecCommand { return nil }}, "stdio", &mcp.ExitError{Code: 1})
	m := p.m
	m.liveSessionDone(liveSessionDoneMsg{err: errors.New("give the server after the file")})
	if status := ansi.Strip(m.renderStatus()); !strings.Contains(status, "the live session: give the server after the file") {
		t.Errorf("the status line: %q", status)
	}
}
