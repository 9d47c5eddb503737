package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
)

// keepAliveFloodServer answers tools/list with an SSE stream of
// comment-only events (": k" and a blank line) as fast as it can write
// them until stop is closed and at least min bytes went, then the list.
type keepAliveFloodServer struct {
	stop chan struct{}
	min  int
	sent atomic.Int64
}

func (s *keepAliveFloodServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &msg)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "initialize":
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}`, msg.ID)
	case msg.Method == "tools/list":
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := strings.Repeat(": k\n\n", 1<<12)
		for {
			select {
			case <-s.stop:
				if s.sent.Load() >= int64(s.min) {
					_, _ = fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":\"slow\",\"inputSchema\":{\"type\":\"object\"}}]}}\n\n", msg.ID)
					return
				}
			default:
			}
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			s.sent.Add(int64(len(chunk)))
		}
	default:
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
	}
}

// While a server floods a POST's answer with keep-alives (10 MB and
// more, about two million events), the TUI answers keys at once, its log
// holds one row for the whole run, and the list shows when it comes.
func TestKeepAliveFloodKeepsTheTUIResponsive(t *testing.T) {
	srv := &keepAliveFloodServer{stop: make(chan struct{}), min: 10 << 20}
	hs := httptest.NewServer(srv)
	var stopped sync.Once
	stop := func() { stopped.Do(func() { close(srv.stop) }) }
	defer hs.Close()
	defer stop()
	m := New(Config{Target: "flood", Theme: "dark", NewClient: func() *mcp.Client {
		return mcp.NewClient(&mcp.HTTPTransport{URL: hs.URL}, mcp.Options{Discover: true, Timeout: time.Minute})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the flood", func() bool { return srv.sent.Load() > 1<<20 })

	budget := 100 * time.Millisecond // DESIGN: keys answered within 100 ms
	if raceEnabled {
		budget *= 5
	}
	var slowest time.Duration
	before := srv.sent.Load()
	for i := 0; i < 20; i++ {
		focus := m.focus
		start := time.Now()
		p.msgs <- tea.KeyPressMsg{Code: tea.KeyTab} // behind whatever the flood queued
		p.until("the focus to move", func() bool { return m.focus != focus })
		_ = m.View()
		slowest = max(slowest, time.Since(start))
		time.Sleep(10 * time.Millisecond)
	}
	during := srv.sent.Load() - before
	stop()
	p.until("the list after the flood", func() bool { return len(m.lists[mcp.MethodToolsList]) == 1 })
	t.Logf("slowest key %v while %.1f MB of keep-alives arrived; %d log rows", slowest, float64(during)/1e6, m.logPane.Len())
	if during == 0 {
		t.Fatal("the flood was over before the keys: the test measured nothing")
	}
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
