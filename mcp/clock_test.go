package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// The stream's times follow its order. Events are stamped where they
// happen, on several goroutines (an HTTP response's reader, the standalone
// stream's, the writer) and published one at a time, so one stamped later
// could be published first: the log then showed "+0.511s" above "+0.509s".
// Here a transport step stamped ahead of the clock is published before a
// frame read after it; every time after it is at least its time, and a
// response's latency is still the distance between its request's time and
// its own.
func TestStreamTimesFollowItsOrder(t *testing.T) {
	p := &pipeTransport{out: make(chan []byte, 8)}
	c := mcp.NewClient(p, mcp.Options{})
	col := collect(c)
	answer := func(result string) {
		req := <-p.out
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(req, &r)
		p.sink.Receive([]byte(`{"jsonrpc":"2.0","id":`+string(r.ID)+`,"result":`+result+`}`), "", "")
	}
	go func() {
		answer(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"p","version":"1"}}`)
		<-p.out // notifications/initialized
	}()
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	ahead := time.Now().Add(time.Hour)
	p.sink.Transport(mcp.TransportEvent{Time: ahead, Kind: "http", Summary: "stamped ahead"})
	p.sink.Transport(mcp.TransportEvent{Time: ahead.Add(-time.Minute), Kind: "sse", Summary: "stamped before, published after"})
	p.sink.Receive([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`), "", "")
	p.sink.Stderr("a line")
	go answer(`{}`)
	if _, err := c.Call(context.Background(), mcp.MethodPing, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	evs := col.wait(t)
	var last time.Time
	sawAhead := false
	for i, ev := range evs {
		at := ev.At()
		if at.Before(last) {
			t.Errorf("event %d (%T) at %s comes after one at %s", i, ev, at.Format("15:04:05.000000"), last.Format("15:04:05.000000"))
		}
		last = at
		if tr, ok := ev.(mcp.TransportEvent); ok && tr.Summary == "stamped ahead" {
			sawAhead = true
		}
		if sawAhead && at.Before(ahead) {
			t.Errorf("event %d (%T) published after the step stamped ahead has an earlier time", i, ev)
		}
	}
	fs := frames(evs)
	resp := fs[len(fs)-1]
	req := fs[len(fs)-2]
	if resp.Kind != mcp.KindResponse || req.Method != mcp.MethodPing {
		t.Fatalf("last frames: %v %s, %v", req.Kind, req.Method, resp.Kind)
	}
	if resp.Latency < 0 || resp.Latency != resp.Time.Sub(req.Time) {
		t.Errorf("latency %v, but the frames are %v apart", resp.Latency, resp.Time.Sub(req.Time))
	}
}
