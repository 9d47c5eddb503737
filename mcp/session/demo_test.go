package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// wire keeps the raw frames a client sent.
type wire struct {
	mu  sync.Mutex
	out []string
}

func (w *wire) observe(ev mcp.Event) {
	if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Outbound {
		w.mu.Lock()
		w.out = append(w.out, string(fe.Frame.Raw))
		w.mu.Unlock()
	}
}

func (w *wire) sent(method string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, raw := range w.out {
		if strings.Contains(raw, `"method":"`+method+`"`) {
			out = append(out, raw)
		}
	}
	return out
}

// onDemo connects a session to mcpscope's demo server (an independent
// go-sdk peer) in one era.
func onDemo(t *testing.T, era mcp.Era) (*Session, *collector, *wire) {
	t.Helper()
	w := &wire{}
	tr := &mcp.StdioTransport{Command: os.Args[0], Args: []string{"demo-server"}, Grace: 500 * time.Millisecond}
	s := New(context.Background(), mcp.NewClient(tr, mcp.Options{Era: era, Timeout: 10 * time.Second, OnEvent: w.observe}), Options{})
	c := collect(s.Events())
	t.Cleanup(func() {
		_ = s.Close()
		c.wait(t)
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, c, w
}

// Subscriptions are era-neutral: resources/subscribe and unsubscribe in
// the legacy era, one subscriptions/listen stream in the modern era that
// is replaced (the old one cancelled, not reported as a failure) when the
// set changes. Either way updates arrive as ResourceUpdatedEvents.
func TestSubscriptionsInBothEras(t *testing.T) {
	const uri = "demo://clock"
	t.Run("legacy", func(t *testing.T) {
		s, c, w := onDemo(t, mcp.EraLegacy)
		o, err := s.Subscribe(uri, true)
		if err != nil || o.Method != mcp.MethodResourcesSubscribe {
			t.Fatalf("subscribe: %+v, %v", o, err)
		}
		until(t, c, "the subscription", func(e SubscriptionEvent) bool { return e.URI == uri && e.On && e.Err == nil })
		until(t, c, "an update", func(e ResourceUpdatedEvent) bool { return e.URI == uri })
		if _, err := s.Subscribe(uri, false); err != nil {
			t.Fatal(err)
		}
		until(t, c, "the unsubscription", func(e SubscriptionEvent) bool { return e.URI == uri && !e.On })
		if n := len(w.sent(mcp.MethodResourcesUnsubscribe)); n != 1 {
			t.Errorf("%d resources/unsubscribe sent", n)
		}
	})
	t.Run("modern", func(t *testing.T) {
		s, c, w := onDemo(t, mcp.EraModern)
		o, err := s.Subscribe(uri, true)
		if err != nil || o.Method != mcp.MethodSubscriptionsListen {
			t.Fatalf("subscribe: %+v, %v", o, err)
		}
		if e, _ := until(t, c, "the listen", func(e SubscriptionEvent) bool { return e.On }); len(e.Listening) != 1 || e.Listening[0] != uri {
			t.Fatalf("listening to %v", e.Listening)
		}
		until(t, c, "an update", func(e ResourceUpdatedEvent) bool { return e.URI == uri })
		if n := len(w.sent(mcp.MethodResourcesSubscribe)); n != 0 {
			t.Errorf("the modern era sent resources/subscribe %d times", n)
		}
		if _, err := s.Subscribe(uri, false); err != nil {
			t.Fatal(err)
		}
		done, _ := until(t, c, "the old stream's end", doneOf(o.ID))
		if l, ok := done.Result.(*ListenEnded); !ok || !l.Superseded || done.Status != StatusCancelled {
			t.Fatalf("the replaced stream ended as %v with %+v", done.Status, done.Result)
		}
		for _, ev := range c.snapshot() {
			if e, ok := ev.(SubscriptionEvent); ok && e.Err != nil {
				t.Errorf("a replaced stream was reported as a failed subscription: %v", e.Err)
			}
		}
	})
}

// The logging level: logging/setLevel in the legacy era; in the modern era
// nothing is sent, and every later request carries the level in _meta.
func TestLogLevelInBothEras(t *testing.T) {
	t.Run("legacy", func(t *testing.T) {
		s, c, w := onDemo(t, mcp.EraLegacy)
		o, err := s.SetLogLevel("debug")
		if err != nil || o.ID == 0 {
			t.Fatalf("set level: %+v, %v", o, err)
		}
		until(t, c, "the level in force", func(e LogLevelEvent) bool { return e.Level == "debug" && !e.PerRequest })
		if n := len(w.sent(mcp.MethodLoggingSetLevel)); n != 1 {
			t.Errorf("%d logging/setLevel sent", n)
		}
	})
	t.Run("modern", func(t *testing.T) {
		s, c, w := onDemo(t, mcp.EraModern)
		o, err := s.SetLogLevel("debug")
		if err != nil || o.ID != 0 {
			t.Fatalf("set level: %+v, %v (the modern era sends nothing)", o, err)
		}
		until(t, c, "the level in force", func(e LogLevelEvent) bool { return e.Level == "debug" && e.PerRequest })
		r, err := s.ReadResource("demo://clock")
		if err != nil {
			t.Fatal(err)
		}
		until(t, c, "the read", doneOf(r.ID))
		reads := w.sent(mcp.MethodResourcesRead)
		if len(reads) != 1 || !strings.Contains(reads[0], `"`+mcp.MetaLogLevel+`":"debug"`) {
			t.Fatalf("the read does not carry the level in _meta: %v", reads)
		}
		if n := len(w.sent(mcp.MethodLoggingSetLevel)); n != 0 {
			t.Errorf("the modern era sent logging/setLevel %d times", n)
		}
	})
}

// A tool that reports isError ends as an error with its result shown; a
// server error is an *mcp.RPCError with the response frame; cancelling a
// request ends it as cancelled.
func TestToolOutcomes(t *testing.T) {
	s, c, _ := onDemo(t, mcp.EraLegacy)
	fail, _ := s.CallTool("fail", nil)
	done, _ := until(t, c, "fail", doneOf(fail.ID))
	if tr, ok := done.Result.(*ToolResult); !ok || !tr.IsError || done.Status != StatusError || done.Err != nil {
		t.Errorf("isError tool: status %v, err %v, result %+v", done.Status, done.Err, done.Result)
	}
	bad, _ := s.GetPrompt("no-such-prompt", nil)
	done, _ = until(t, c, "the bad prompt", doneOf(bad.ID))
	var rpc *mcp.RPCError
	if !errors.As(done.Err, &rpc) || done.Frame == nil || done.Status != StatusError {
		t.Errorf("server error: status %v, err %T %v, frame %v", done.Status, done.Err, done.Err, done.Frame)
	}
	slow, _ := s.CallTool("slow_count", json.RawMessage(`{"steps":1000,"delay_ms":20}`))
	until(t, c, "progress of the slow call", func(e ProgressEvent) bool { return e.Token == slow.Token })
	if err := s.Cancel(slow.ID); err != nil {
		t.Fatal(err)
	}
	done, _ = until(t, c, "the cancelled call", doneOf(slow.ID))
	if done.Status != StatusCancelled {
		t.Errorf("cancelled call ended as %v (%v)", done.Status, done.Err)
	}
	if err := s.Cancel(slow.ID); err == nil {
		t.Error("cancelling a finished operation did not say it is not running")
	}
}
