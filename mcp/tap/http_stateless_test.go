package tap

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Two stateless (2026-07-28) clients talking through one tap --listen at
// once, with no session id to tell them apart and request ids that
// collide: each is a client session of its own, named by the clientInfo
// its requests carry, every request answered within it.
// sharedTap is one tap --listen in front of the demo server, as several
// clients at once reach it.
type sharedTap struct {
	t      *testing.T
	ctx    context.Context
	cancel context.CancelFunc
	url    string // the tap's
	target string // the server's, where the tap sends
	dir    string
	done   chan error
}

func startSharedTap(t *testing.T) *sharedTap {
	t.Helper()
	dir := privateDirs(t)
	upstream := httptest.NewServer(demo.HTTPHandler())
	t.Cleanup(upstream.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan string, 1)
	s := &sharedTap{t: t, ctx: ctx, cancel: cancel, target: upstream.URL + "/mcp", dir: dir, done: make(chan error, 1)}
	go func() {
		s.done <- RunHTTP(ctx, HTTPOptions{Name: "shared", Listen: "127.0.0.1:0", Target: s.target,
			Ready: func(u string) { ready <- u }})
	}()
	s.url = <-ready
	return s
}

// connect is a client named name (version 1.0) through the tap, its
// handshake made.
func (s *sharedTap) connect(name string, era mcp.Era) *mcp.Client {
	s.t.Helper()
	c := mcp.NewClient(&mcp.HTTPTransport{URL: s.url}, mcp.Options{Era: era, Discover: era == mcp.EraModern,
		ClientInfo: &mcp.Implementation{Name: name, Version: "1.0"}})
	go func() {
		for range c.Events() {
		}
	}()
	cctx, ccancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer ccancel()
	if _, err := c.Connect(cctx); err != nil {
		s.t.Fatal(err)
	}
	return c
}

// capture stops the tap and reads the one capture it wrote.
func (s *sharedTap) capture() (file string, raw []byte, entries []record.Entry) {
	s.t.Helper()
	s.cancel()
	if err := <-s.done; err != nil {
		s.t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	if len(files) != 1 {
		s.t.Fatalf("captures %v", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		s.t.Fatal(err)
	}
	entries, err = record.Read(bytes.NewReader(raw))
	if err != nil {
		s.t.Fatal(err)
	}
	return files[0], raw, entries
}

func TestHTTPTapTellsStatelessClientsApart(t *testing.T) {
	tap := startSharedTap(t)
	clients := map[string]*mcp.Client{"copilot-like": tap.connect("copilot-like", mcp.EraModern), "gemini-like": tap.connect("gemini-like", mcp.EraModern)}
	errs := make(chan error, 2*4)
	var wg sync.WaitGroup
	for _, c := range clients {
		for i := range 4 {
			wg.Go(func() {
				cctx, ccancel := context.WithTimeout(tap.ctx, 20*time.Second)
				defer ccancel()
				_, err := c.Call(cctx, mcp.MethodToolsCall, map[string]any{"name": "slow_count", "arguments": map[string]any{"steps": 1, "delay_ms": 20 * (i + 1)}})
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range clients {
		_ = c.Close()
	}
	file, raw, entries := tap.capture()
	sessions := map[int]bool{}
	for _, e := range entries {
		if e.Type != "frame" {
			continue
		}
		sessions[e.ClientSession] = true
		if e.UnknownID || e.Duplicate {
			t.Errorf("frame %d (%s %s) answers no request of its session: %s", e.Seq, e.Dir, e.Method, e.Problem)
		}
	}
	if len(sessions) != 2 || sessions[0] {
		t.Errorf("the frames name client sessions %v, want two, every frame numbered", sessions)
	}
	rs, err := reading.Read(file, bytes.NewReader(raw), true)
	if err != nil {
		t.Fatal(err)
	}
	for name := range clients {
		var conv *reading.Connection
		for _, c := range rs.Connections {
			if c.Client() == name+" 1.0" {
				conv = c
			}
		}
		if conv == nil {
			t.Fatalf("no conversation of %s among %d connections", name, len(rs.Connections))
		}
		calls, answered := 0, 0
		for _, x := range conv.Requests() {
			if x.Method() != mcp.MethodToolsCall {
				continue
			}
			calls++
			if x.Final().Response != nil {
				answered++
			}
		}
		if calls != 4 || answered != 4 {
			t.Errorf("%s's conversation has %d tool calls, %d answered; want its 4, all answered", name, calls, answered)
		}
	}
}
