package ui

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/panes"
)

// taskServer is a scripted 2025-11-25 server with task-augmented tools/call:
// the call creates a task, tasks/get reports "working" once, then "completed".
type taskServer struct {
	sink mcp.Sink
	mu   sync.Mutex
	gets []time.Time
}

func (s *taskServer) Name() string { return "script" }
func (s *taskServer) Start(_ context.Context, sink mcp.Sink) (mcp.Conn, error) {
	s.sink = sink
	return s, nil
}
func (s *taskServer) Close(context.Context) error {
	s.sink.Closed(mcp.ErrClosed)
	return nil
}

func (s *taskServer) Write(_ context.Context, raw []byte) error {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(raw, &req)
	answer := func(result string) {
		go s.sink.Receive([]byte(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`), "", "")
	}
	switch req.Method {
	case "initialize":
		answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"tasks","version":"1"}}`)
	case "tools/list":
		answer(`{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`)
	case "tools/call":
		answer(`{"task":{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":300}}`)
	case "tasks/get":
		s.mu.Lock()
		s.gets = append(s.gets, time.Now())
		n := len(s.gets)
		s.mu.Unlock()
		status := "working"
		if n >= 2 {
			status = "completed"
		}
		answer(`{"taskId":"t1","status":"` + status + `","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":300}`)
	default:
		if req.ID != nil {
			answer(`{}`)
		}
	}
	return nil
}

// A task is polled with tasks/get at the server's pollInterval until it
// reaches a terminal status, and then no more.
func TestTaskIsPolledUntilDone(t *testing.T) {
	srv := &taskServer{}
	m := New(Config{Target: "tasks", Theme: "dark", NewClient: func() *mcp.Client {
		return mcp.NewClient(srv, mcp.Options{Discover: true})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the tools", func() bool { return len(m.lists["tools/list"]) > 0 })
	called := time.Now()
	p.send(panes.CallToolMsg{Name: "slow", Args: json.RawMessage(`{}`)})
	p.until("two polls", func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		return len(srv.gets) >= 2
	})
	p.keys("7") // the Activity pane lists tasks
	p.until("the completed task on screen", func() bool { return strings.Contains(m.View().Content, "completed") })
	time.Sleep(800 * time.Millisecond) // more than two poll intervals
	p.settle()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.gets) != 2 {
		t.Errorf("tasks/get sent %d times; polling must stop at the terminal status", len(srv.gets))
	}
	if first := srv.gets[0].Sub(called); first < 250*time.Millisecond {
		t.Errorf("the first poll came %v after the call; the server asked for 300 ms", first)
	}
}
