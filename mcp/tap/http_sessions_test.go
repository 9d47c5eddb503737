package tap

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// One tap --listen serves one client session after another, and two at
// once (opencode twice, then Copilot CLI): each session is its own
// conversation. Its ids are its own (two sessions with the same id
// waiting at once are each answered, never UNKNOWN-ID), a stateless client's server/discover
// after a session with a handshake is marked as the probe it is, and a
// reading of the capture counts every request.
func TestHTTPTapTellsClientSessionsApart(t *testing.T) {
	dir := privateDirs(t)
	upstream := httptest.NewServer(demo.HTTPHandler())
	defer upstream.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "shared", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
			Ready: func(u string) { ready <- u }})
	}()
	local := <-ready

	connect := func(era mcp.Era) *mcp.Client {
		c := mcp.NewClient(&mcp.HTTPTransport{URL: local}, mcp.Options{Era: era, Discover: era == mcp.EraModern})
		go func() {
			for range c.Events() {
			}
		}()
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		defer ccancel()
		if _, err := c.Connect(cctx); err != nil {
			t.Fatal(err)
		}
		return c
	}
	call := func(c *mcp.Client) {
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		defer ccancel()
		if _, err := c.Call(cctx, mcp.MethodToolsList, nil); err != nil {
			t.Fatal(err)
		}
	}
	a := connect(mcp.EraLegacy)
	call(a)
	// While a waits for a slow call, b opens its session and sends its
	// own requests, numbered from the start again: one has the id a's
	// call has.
	slow := make(chan error, 1)
	go func() {
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		defer ccancel()
		_, err := a.Call(cctx, mcp.MethodToolsCall, map[string]any{"name": "slow_count", "arguments": map[string]any{"steps": 2, "delay_ms": 300}})
		slow <- err
	}()
	b := connect(mcp.EraLegacy)
	call(b)
	call(b)
	call(b)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	call(a)
	_ = a.Close()
	_ = b.Close()
	c := connect(mcp.EraModern)
	call(c)
	_ = c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("captures %v", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	entries, err := record.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	discover := 0
	for _, e := range entries {
		if e.Type != "frame" {
			continue
		}
		if e.UnknownID || e.Duplicate {
			t.Errorf("frame %d (%s %s) answers no request of its session: %s", e.Seq, e.Dir, e.Method, e.Problem)
		}
		if e.Dir == "out" && e.Method == mcp.MethodServerDiscover {
			discover++
			if !e.Probe {
				t.Errorf("the stateless client's %s (frame %d) is not marked as a probe", e.Method, e.Seq)
			}
		}
	}
	if discover != 1 {
		t.Errorf("%d server/discover requests recorded, want 1", discover)
	}
	rs, err := reading.Read(files[0], bytes.NewReader(raw), true)
	if err != nil {
		t.Fatal(err)
	}
	// The modern client lists every list after server/discover.
	if o := rs.Outcome; o.Requests != 11 || o.Answered != 11 {
		t.Errorf("the reading counts %d requests, %d answered; want 11, all answered (%s)", o.Requests, o.Answered, o)
	}
	// The viewer: each new session is announced, and named in the title.
	src := NewSource(Listed{Info: Info{File: files[0]}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	announced := 0
	for ev := range src.Events() {
		if st, ok := ev.(mcp.StateEvent); ok && st.State == mcp.StateConnecting && strings.Contains(st.Detail, "another client session") {
			announced++
		}
	}
	if name := src.TransportName(); announced != 2 || !strings.Contains(name, "client session 3") {
		t.Errorf("the viewer announced %d new client sessions (want 2) and is titled %q", announced, name)
	}
	_ = src.Close()
	last := rs.Connections[len(rs.Connections)-1]
	if len(rs.Connections) < 3 || last.HandshakeExchange == nil || last.HandshakeExchange.Method() != mcp.MethodServerDiscover || len(last.Requests()) != 5 {
		t.Errorf("the stateless client's session is not a conversation of its own: %d connections, the last with handshake %v and %d requests",
			len(rs.Connections), last.HandshakeExchange, len(last.Requests()))
	}
}
