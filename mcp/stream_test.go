package mcp_test

import (
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// An EventStream delivers everything pushed, in order, and closes its
// channel only after the last event queued before Close.
func TestEventStreamKeepsOrderAndEndsAfterClose(t *testing.T) {
	q := mcp.NewEventStream()
	const n = 3 * mcp.EventBuffer // more than the channel holds: nothing may block or drop
	for i := 0; i < n; i++ {
		q.Push(mcp.StderrEvent{Time: time.Unix(int64(i), 0)})
	}
	q.Close()
	q.Push(mcp.StderrEvent{Time: time.Unix(-1, 0)}) // after Close: dropped
	got := 0
	for ev := range q.Channel() {
		if want := time.Unix(int64(got), 0); !ev.At().Equal(want) {
			t.Fatalf("event %d is %v, want %v", got, ev.At(), want)
		}
		got++
	}
	if got != n {
		t.Fatalf("%d events delivered, want %d", got, n)
	}
}
