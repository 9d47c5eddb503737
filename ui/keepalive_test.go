package ui

import (
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// While a server floods a POST's answer with keep-alives (10 MB and
// more, about two million events), the TUI answers keys at once, its log
// holds one row for the whole run, and the list shows when it comes.
func TestKeepAliveFloodKeepsTheTUIResponsive(t *testing.T) {
	stopCh := make(chan struct{})
	srv := &mcptest.KeepAliveServer{Method: "tools/list", Bytes: 10 << 20, Stop: stopCh}
	hs := httptest.NewServer(srv)
	var stopped sync.Once
	stop := func() { stopped.Do(func() { close(stopCh) }) }
	defer hs.Close()
	defer stop()
	m := New(Config{Target: "flood", Theme: "dark", NewClient: func() *mcp.Client {
		return mcp.NewClient(&mcp.HTTPTransport{URL: hs.URL}, mcp.Options{Discover: true, Timeout: time.Minute})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the flood", func() bool { return srv.Sent.Load() > 1<<20 })

	budget := 100 * time.Millisecond // DESIGN: keys answered within 100 ms
	if raceEnabled {
		budget *= 5
	}
	// Twenty keys at least, and on until another MiB of the flood came in
	// while they were answered: the client reads the flood in bursts, and
	// on a loaded machine twenty keys can fall between two of them.
	var slowest time.Duration
	before := srv.Sent.Load()
	keysFrom := time.Now()
	for i := 0; i < 20 || srv.Sent.Load()-before < 1<<20; i++ {
		if time.Since(keysFrom) > 15*time.Second {
			t.Fatalf("%d keys in 15 s and %d bytes of the flood arrived meanwhile: the test measured nothing", i, srv.Sent.Load()-before)
		}
		focus := m.focus
		start := time.Now()
		p.msgs <- tea.KeyPressMsg{Code: tea.KeyTab} // behind whatever the flood queued
		p.until("the focus to move", func() bool { return m.focus != focus })
		_ = m.View()
		slowest = max(slowest, time.Since(start))
		time.Sleep(10 * time.Millisecond)
	}
	during := srv.Sent.Load() - before
	stop()
	p.until("the list after the flood", func() bool { return len(m.lists[mcp.MethodToolsList]) == 1 })
	t.Logf("slowest key %v while %.1f MB of keep-alives arrived; %d log rows", slowest, float64(during)/1e6, m.logPane.Len())
	if slowest > 2*budget {
		t.Errorf("a key took %v to be answered during the flood (budget %v)", slowest, budget)
	}
	// The handshake's frames and states, the list's request and answer,
	// the HTTP rows, and one row for the run: not one per keep-alive.
	if n := m.logPane.Len(); n > 40 {
		t.Errorf("the log holds %d rows after the flood", n)
	}
	if s := content(m); !strings.Contains(s, "keep-alives") || strings.Contains(s, "continuing") {
		t.Errorf("the run's row does not show its end:\n%s", s)
	}
}
