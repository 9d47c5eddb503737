package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
)

// mcpscope opens on the demo server, on server-everything
// and on a broken Python server, and shows the initialize request and its
// result, notifications/initialized, the tools/list exchange, the
// capabilities tree and the tools list within 1 s of the server answering.
// Each case runs the real server as a subprocess and drives the model as a
// program would, at 120×35 and 80×24 (where the panes are tabs).
func TestOpensOnRealServers(t *testing.T) {
	brokenPy, _ := filepath.Abs("../mcp/mcptest/testdata/broken_server.py")
	cases := []struct {
		name     string
		argv     []string
		tool     string // a tool name the list must show
		needs    string // the env var that enables the case ("" = always)
		required string // what the case needs on PATH
	}{
		{"demo", []string{os.Args[0], "demo-server"}, "book_trip", "", ""},
		{"server-everything", []string{"node", os.Getenv("MCPSCOPE_SERVER_EVERYTHING")}, "echo", "MCPSCOPE_NODE_TESTS", "node"},
		{"broken python server", []string{"python3", brokenPy}, "no_schema_type", "MCPSCOPE_PYTHON_TESTS", "python3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				if os.Getenv(tc.needs) == "" {
					t.Skipf("set %s=1 (as .ci/run does) to run against %s", tc.needs, tc.name)
				}
				if _, err := exec.LookPath(tc.required); err != nil {
					t.Fatalf("%s is set but %s is missing: %v", tc.needs, tc.required, err)
				}
			}
			for _, size := range [][2]int{{120, 35}, {80, 24}} {
				opensWithin(t, tc.argv, tc.tool, size[0], size[1])
			}
		})
	}
}

func opensWithin(t *testing.T, argv []string, tool string, w, h int) {
	t.Helper()
	var mu sync.Mutex
	var answered time.Time // when the tools/list answer was read off the pipe
	m := New(Config{Target: "test", Theme: "dark", NewClient: func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: argv[0], Args: argv[1:], Grace: 200 * time.Millisecond}
		return mcp.NewClient(tr, mcp.Options{Discover: true, OnEvent: func(ev mcp.Event) {
			if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.ReplyToMethod == "tools/list" {
				mu.Lock()
				answered = fe.Frame.Time
				mu.Unlock()
			}
		}})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	p.run(m.Init())
	screen := func() string { return ansi.Strip(m.View().Content) }
	// At 80×24 the tools list is a tab of its own: wait for the pane to
	// hold the tools, and look at it below.
	p.until("the tools list", func() bool { return strings.Contains(ansi.Strip(m.tools.View()), tool) })
	mu.Lock()
	at := answered // a server may list its tools again later, on the client's goroutine
	mu.Unlock()
	took := time.Since(at)
	// The limit is the 1 s; the race detector slows everything
	// several times over, so a -race run only guards against a hang.
	limit := time.Second
	if raceEnabled {
		limit = 10 * time.Second
	}
	if at.IsZero() || took > limit {
		t.Errorf("%dx%d: the tools were on screen %v after the server answered tools/list (limit %v)", w, h, took, limit)
	}
	// The log shows the handshake as what it is, in order. At 80×24 the
	// log is its own tab (the first one, focused at start).
	if w < 120 {
		p.keys("1")
	}
	// The handshake is the start of the log; a busy server may have
	// pushed it above the window, so go to the top (the log has focus).
	p.keys("g")
	log := screen()
	want := []string{"initialize #1", "result of initialize #1", "notifications/initialized", "tools/list #2", "result of tools/list #2"}
	last := -1
	for _, s := range want {
		i := strings.Index(log, s)
		if i < 0 || i < last {
			t.Errorf("%dx%d: %q missing or out of order in the log:\n%s", w, h, s, log)
			return
		}
		last = i
	}
	// The capabilities tree: its own tab at 80×24, beside the log at 120.
	if w < 120 {
		p.keys("2")
	}
	if caps := screen(); !strings.Contains(caps, "tools") || !strings.Contains(caps, "Capabilities") {
		t.Errorf("%dx%d: no capabilities tree:\n%s", w, h, caps)
	}
	if w < 120 {
		p.keys("3")
	}
	if tools := screen(); !strings.Contains(tools, tool) {
		t.Errorf("%dx%d: the tools list is not on screen:\n%s", w, h, tools)
	}
}
