package session

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// What the session adds to the stream is stamped with the stream's time
// where it is put, so the log's order and its times agree. A re-list's
// outcome used to be stamped when the re-list finished, then put right
// after its response frame: frames read in between came after it with
// earlier times ("+0.511s ◆ note" above "+0.509s ← resp"). Here the
// re-list's answer comes in a batch with a notification (both read at one
// instant), and the client's stream is held at the answer until the
// outcome waits for it; every time on the stream must follow its order.
func TestSessionTimesFollowTheStream(t *testing.T) {
	srv := newScript(func(method string, _ json.RawMessage) string {
		if method == "initialize" {
			return initResult
		}
		return `{}`
	})
	srv.raw = func(id json.RawMessage, method string) string {
		if method != "tools/list" {
			return ""
		}
		return `[{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}},` +
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"read with the answer"}}]`
	}
	var sess atomic.Pointer[Session]
	held := atomic.Bool{}
	hold := func(ev mcp.Event) {
		fe, ok := ev.(mcp.FrameEvent)
		if !ok || fe.Frame.ReplyToMethod != "tools/list" || !held.CompareAndSwap(false, true) {
			return
		}
		// Hold the stream at the answer until the re-list's outcome is
		// parked behind it.
		s := sess.Load()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			s.mu.Lock()
			n := len(s.parked)
			s.mu.Unlock()
			if n > 0 {
				return
			}
		}
		t.Error("the re-list's outcome was never parked behind its answer")
	}
	s := New(context.Background(), mcp.NewClient(srv, mcp.Options{Era: mcp.EraLegacy, OnEvent: hold}), Options{RequestTimeout: 5 * time.Second})
	sess.Store(s)
	c := collect(s.Events())
	t.Cleanup(func() {
		_ = s.Close()
		c.wait(t)
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv.push(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	until(t, c, "the re-list", func(ListChangedEvent) bool { return true })
	until(t, c, "the notification read with the answer", func(e LogMessageEvent) bool { return true })
	var last time.Time
	var lastEv mcp.Event
	for i, ev := range c.snapshot() {
		if ev.At().Before(last) {
			t.Errorf("event %d (%T) at %s comes after %T at %s", i, ev, ev.At().Format("15:04:05.000000"), lastEv, last.Format("15:04:05.000000"))
		}
		last, lastEv = ev.At(), ev
	}
}
