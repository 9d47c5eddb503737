package ui

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
)

func httpClient(url string) func() *mcp.Client {
	return func() *mcp.Client {
		return mcp.NewClient(&mcp.HTTPTransport{URL: url}, mcp.Options{Discover: true, Timeout: 5 * time.Second})
	}
}

func headerLine(m *Model) string {
	return strings.SplitN(ansi.Strip(content(m)), "\n", 2)[0]
}

// A real Streamable HTTP server killed mid-session: the header says lost,
// with the cause on the status line and r offered, within 5 s (never
// "● ready" while the log shows "connection refused").
func TestHeaderShowsALostHTTPServer(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	m := New(Config{Theme: "dark", Target: srv.URL + "/mcp", NewClient: httpClient(srv.URL + "/mcp")})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	var readyAt, killedAt time.Time
	runPolling(t, m, m.Init(), func() bool {
		if readyAt.IsZero() && m.state == mcp.StateReady && len(m.lists[mcp.MethodToolsList]) > 0 {
			readyAt = time.Now()
		}
		// Killed once idle (discovery over): only the GET stream can tell.
		if killedAt.IsZero() && !readyAt.IsZero() && time.Since(readyAt) > 500*time.Millisecond {
			if h := headerLine(m); !strings.Contains(h, "● ready") || !strings.Contains(h, " http ") {
				t.Errorf("header before the kill: %q", h)
			}
			_ = srv.Listener.Close()
			srv.CloseClientConnections()
			killedAt = time.Now()
		}
		return m.state == mcp.StateLost
	})
	took := time.Since(killedAt)
	if took > 5*time.Second {
		t.Errorf("the loss showed %s after the kill, want within 5 s", took)
	}
	s := ansi.Strip(content(m))
	if h := headerLine(m); !strings.Contains(h, "■ lost") || strings.Contains(h, "ready") {
		t.Errorf("header after the kill: %q", h)
	}
	for _, want := range []string{"server unreachable", "connection refused", "r to reconnect"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	t.Logf("lost %s after the kill", took.Round(time.Millisecond))
}

// After Streamable HTTP's initialize is refused and the session falls back
// to HTTP+SSE, the header names the transport in use.
func TestHeaderNamesTheFallbackTransport(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	m := New(Config{Theme: "dark", Target: srv.URL + "/sse", NewClient: httpClient(srv.URL + "/sse")})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	runUntil(t, m, m.Init(), func() bool { return m.state == mcp.StateReady })
	if h := headerLine(m); !strings.Contains(h, "sse (fallback)") {
		t.Errorf("header after the fallback: %q", h)
	}
}

// runPolling is runUntil that also checks done every 20 ms, for a
// condition that time alone makes true (an idle session).
func runPolling(t *testing.T, m *Model, cmd tea.Cmd, done func() bool) {
	t.Helper()
	msgs := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			if msg != nil {
				msgs <- msg
			}
		}()
	}
	run(cmd)
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	deadline := time.After(10 * time.Second)
	for !done() {
		select {
		case msg := <-msgs:
			_, c := m.Update(msg)
			run(c)
		case <-tk.C:
		case <-deadline:
			t.Fatalf("timed out; screen:\n%s", ansi.Strip(content(m)))
		}
	}
}

// A long cause never pushes the way out off the status line.
func TestStatusKeepsTheWayOutVisible(t *testing.T) {
	long := "the server ended the HTTP+SSE event stream (unexpected EOF); the 2024-11-05 transport cannot resume: reconnect to start a new session"
	for _, c := range []struct {
		state mcp.State
		badge string
		hint  string
	}{{mcp.StateFailed, "■ failed", "r to restart"}, {mcp.StateLost, "■ lost", "r to reconnect"}} {
		m := newTestModel("dark", 80, 24)
		feed(m, append(sessionEvents(), mcp.StateEvent{Time: at(40), State: c.state, Detail: long}))
		s := ansi.Strip(content(m))
		if !strings.Contains(headerLine(m), c.badge) || !strings.Contains(s, c.hint) || !strings.Contains(s, "the server ended the HTTP+SSE") {
			t.Errorf("%v:\n%s", c.state, s)
		}
	}
}
