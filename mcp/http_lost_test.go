package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// lostWithin polls the collected events for a StateLost until d passes.
func lostWithin(col *collector, d time.Duration) (mcp.StateEvent, time.Duration, bool) {
	start := time.Now()
	for time.Since(start) < d {
		col.mu.Lock()
		for _, ev := range col.events {
			if st, ok := ev.(mcp.StateEvent); ok && st.State == mcp.StateLost {
				col.mu.Unlock()
				return st, time.Since(start), true
			}
		}
		col.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	return mcp.StateEvent{}, d, false
}

// killHTTP stops a test server the way a killed process does: nobody
// listens any more and every open connection drops.
func killHTTP(srv *httptest.Server) {
	_ = srv.Listener.Close()
	srv.CloseClientConnections()
}

// An idle Streamable HTTP session whose server dies is lost within 5 s:
// the standalone GET stream breaks and cannot be reopened, and the state
// says so with the cause (not "ready" while the log shows "connection
// refused").
func TestHTTPServerKilledWhileIdleIsLost(t *testing.T) {
	srv := httptest.NewServer(&scriptedHTTPServer{standaloneGET: true})
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second})
	defer func() { _ = c.Close() }()
	if _, err := c.Call(context.Background(), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	killHTTP(srv)
	st, took, ok := lostWithin(col, 5*time.Second)
	if !ok {
		t.Fatal("no StateLost within 5 s of the server going away")
	}
	if !strings.Contains(st.Detail, "connection refused") || !strings.Contains(st.Detail, "server unreachable") {
		t.Errorf("StateLost detail %q does not give the cause", st.Detail)
	}
	t.Logf("lost after %s: %s", took.Round(time.Millisecond), st.Detail)
}

// Without a standalone GET stream, the first request that cannot reach the
// server shows the loss at once.
func TestHTTPFailedRequestIsLostAtOnce(t *testing.T) {
	srv := httptest.NewServer(&scriptedHTTPServer{}) // answers GET with 405
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second})
	defer func() { _ = c.Close() }()
	killHTTP(srv)
	if _, err := c.Call(context.Background(), "ping", nil); err == nil {
		t.Fatal("ping to a dead server succeeded")
	}
	st, _, ok := lostWithin(col, 100*time.Millisecond)
	if !ok {
		t.Fatal("the failed ping did not make the state lost")
	}
	// The ping either dials anew (refused) or reuses the kept-alive
	// connection the kill dropped (EOF or reset): each is a cause.
	if !strings.Contains(st.Detail, "server unreachable: ") || !strings.Contains(st.Detail, "POST http://") ||
		!(strings.Contains(st.Detail, "connection refused") || strings.Contains(st.Detail, "EOF") || strings.Contains(st.Detail, "reset")) {
		t.Errorf("detail %q", st.Detail)
	}
}

// After the fallback to HTTP+SSE, the client names the transport it uses.
func TestHTTPFallbackNamesTheTransportInUse(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	direct, _ := connect(t, &mcp.HTTPTransport{URL: srv.URL + "/mcp"}, mcp.Options{})
	if got := direct.TransportName(); got != "http" {
		t.Errorf("Streamable HTTP: TransportName %q, want http", got)
	}
	_ = direct.Close()
	c, _ := connect(t, &mcp.HTTPTransport{URL: srv.URL + "/sse"}, mcp.Options{})
	defer func() { _ = c.Close() }()
	if got := c.TransportName(); got != "sse (fallback)" {
		t.Errorf("after the fallback: TransportName %q, want %q", got, "sse (fallback)")
	}
}

// A stdio server that closed its input is alive but unreachable: the first
// write that fails shows the connection as lost, with the cause.
func TestFailedWriteIsLost(t *testing.T) {
	c, col := connect(t, fake("close-stdin"), mcp.Options{Timeout: 2 * time.Second})
	defer func() { _ = c.Close() }()
	time.Sleep(100 * time.Millisecond) // the fake closes its stdin after notifications/initialized
	if _, err := c.Call(context.Background(), "ping", nil); err == nil {
		t.Fatal("ping reached a server whose stdin is closed")
	}
	st, _, ok := lostWithin(col, 100*time.Millisecond)
	if !ok {
		t.Fatal("the failed write did not make the state lost")
	}
	if !strings.Contains(st.Detail, "broken pipe") || !strings.Contains(st.Detail, "stdin") {
		t.Errorf("detail %q", st.Detail)
	}
}

// With KeepAlive, an idle session without a standalone GET stream is
// pinged, so a server that went away shows as lost within about that
// time; the pings are marked as mcpscope's own (Probe) and the doctor
// finds nothing wrong in them.
func TestKeepAliveFindsALostServerWithoutAGETStream(t *testing.T) {
	srv := httptest.NewServer(&scriptedHTTPServer{}) // GET → 405: no standalone stream
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second,
		KeepAlive: 200 * time.Millisecond, Analyzer: doctor.New(doctor.Options{})})
	defer func() { _ = c.Close() }()
	time.Sleep(900 * time.Millisecond)
	killHTTP(srv)
	st, took, ok := lostWithin(col, 2*time.Second)
	if !ok {
		t.Fatal("an idle session without a GET stream was not found lost")
	}
	if !strings.Contains(st.Detail, "server unreachable") {
		t.Errorf("detail %q", st.Detail)
	}
	t.Logf("lost %s after the kill: %s", took.Round(time.Millisecond), st.Detail)
	_ = c.Close()
	evs := col.wait(t)
	pings := map[int64]bool{}
	for _, f := range frames(evs) {
		if f.Method == "ping" || f.ReplyToMethod == "ping" {
			pings[f.Seq] = true
			if !f.Probe {
				t.Errorf("keep-alive frame #%d is not marked as mcpscope's own", f.Seq)
			}
		}
	}
	if len(pings) < 4 { // at least two pings and their answers while idle
		t.Errorf("%d keep-alive frames in 0.9 s idle at 200 ms", len(pings))
	}
	for _, ev := range evs {
		if d, ok := ev.(mcp.DiagnosticEvent); ok {
			for _, seq := range d.Diagnostic.Frames {
				if pings[seq] {
					t.Errorf("the doctor found fault with a keep-alive ping: %s %s", d.Diagnostic.Rule, d.Diagnostic.Message)
				}
			}
		}
	}
}

// An open standalone GET stream tells of the server's end by itself: no
// keep-alive pings are sent while it is open.
func TestNoKeepAliveWhileTheGETStreamIsOpen(t *testing.T) {
	srv := httptest.NewServer(&scriptedHTTPServer{standaloneGET: true})
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second, KeepAlive: 100 * time.Millisecond})
	time.Sleep(700 * time.Millisecond)
	_ = c.Close()
	for _, f := range frames(col.wait(t)) {
		if f.Method == "ping" {
			t.Fatalf("ping #%d sent while the GET stream was open", f.Seq)
		}
	}
}
