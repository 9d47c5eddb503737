package mcp_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// bigCall is a tools/call whose argument is far larger than a pipe's
// buffer, so writing it blocks when the server does not read.
func bigCall(size int) map[string]any {
	return map[string]any{"name": "echo", "arguments": map[string]any{"message": strings.Repeat("x", size)}}
}

// callWithin runs fn and fails the test when it has not returned within
// limit; stop then unblocks it (closing the client), so the failure is
// reported instead of hanging the suite.
func callWithin(t *testing.T, limit time.Duration, stop func(), fn func() error) (time.Duration, error) {
	t.Helper()
	type outcome struct {
		err error
		d   time.Duration
	}
	out := make(chan outcome, 1)
	start := time.Now()
	go func() {
		err := fn()
		out <- outcome{err, time.Since(start)}
	}()
	select {
	case o := <-out:
		return o.d, o.err
	case <-time.After(limit):
		stop()
		o := <-out
		t.Fatalf("still blocked after %s (returned %v after %s once the client was closed)", limit, o.err, o.d)
		return 0, nil
	}
}

// A server that never reads stdin: a 1 MiB request with a 500 ms timeout
// returns a local timeout within 1 s (2 s under -race) of its write
// starting, and the client still closes cleanly (goleak in TestMain checks
// that nothing is left behind).
//
// The time is counted from the request's outbound frame (its write
// starting), not from the Call: encoding 1 MiB is the client's own CPU
// work, which under -race on a loaded machine alone took 0.4-1.3 s, and it
// is not what a server that does not read costs.
func TestTimeoutWhileServerDoesNotRead(t *testing.T) {
	writeStarted := make(chan time.Time, 1)
	c := mcp.NewClient(fake("deaf", "ignore-term"), mcp.Options{OnEvent: onOutbound("tools/call", writeStarted)})
	col := collect(c)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := callWithin(t, 5*time.Second, func() { _ = c.Close() }, func() error {
		_, err := c.Call(context.Background(), "tools/call", bigCall(1<<20), mcp.WithTimeout(500*time.Millisecond))
		return err
	})
	returned := time.Now()
	t.Logf("timed out after %s: %v", d, err)
	if !mcp.IsTimeout(err) {
		t.Fatalf("want a local timeout, got %v", err)
	}
	within := time.Second
	if raceEnabled {
		within = 2 * time.Second
	}
	select {
	case started := <-writeStarted:
		if d := returned.Sub(started); d > within {
			t.Fatalf("the timeout came %s after the write started; want within %s", d, within)
		}
	default:
		t.Fatal("the request's outbound frame was never published, yet its write is said to be blocked")
	}
	if !errors.Is(err, mcp.ErrWriteBlocked) {
		t.Errorf("the timeout should say the request was still being written, got %v", err)
	}
	// A second request waits behind the blocked one: it is never written,
	// so it appears nowhere as sent, and it still times out on time.
	d, err = callWithin(t, 3*time.Second, func() { _ = c.Close() }, func() error {
		_, err := c.Call(context.Background(), "ping", nil, mcp.WithTimeout(200*time.Millisecond))
		return err
	})
	if !mcp.IsTimeout(err) || !errors.Is(err, mcp.ErrNotWritten) || d > 700*time.Millisecond {
		t.Fatalf("second request: want a timeout saying it was never written within 700ms, got %v after %s", err, d)
	}
	start := time.Now()
	if err := c.Shutdown(ctxWithin(t, 800*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	t.Logf("Shutdown took %s (the server ignores stdin EOF and SIGTERM)", time.Since(start))
	// The deadline is 800 ms; the margin is for reaping the killed server
	// on a busy machine (the packages are tested in parallel).
	limit := 1500 * time.Millisecond
	if raceEnabled {
		limit = 3 * time.Second
	}
	if el := time.Since(start); el > limit {
		t.Errorf("Shutdown(800ms) took %s, over %s", el, limit)
	}
	evs := col.wait(t)
	for _, ev := range evs {
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Outbound && fe.Frame.Method == "ping" {
			t.Errorf("the ping never reached the wire but its frame was published: %s", fe.Frame.Raw)
		}
	}
}

// Cancelling works while the write is blocked: the user cancels 200 ms
// after the write started, and the call returns within 500 ms of that.
// (Timing from the Call instead counted the client's encoding of 1 MiB,
// 0.4-1.3 s under -race on a loaded machine, and could cancel before the
// write had even started.)
func TestCancelWhileWriteBlocked(t *testing.T) {
	writeStarted := make(chan time.Time, 1)
	c := mcp.NewClient(fake("deaf"), mcp.Options{OnEvent: onOutbound("tools/call", writeStarted)})
	col := collect(c)
	defer func() { _ = c.Close(); col.wait(t) }()
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan time.Time, 1)
	go func() {
		select {
		case <-writeStarted:
		case <-time.After(5 * time.Second): // never written: the assertions below say so
		}
		time.Sleep(200 * time.Millisecond)
		cancelled <- time.Now()
		cancel()
	}()
	_, err := callWithin(t, 8*time.Second, func() { _ = c.Close() }, func() error {
		_, err := c.Call(ctx, "tools/call", bigCall(1<<20))
		return err
	})
	returned := time.Now()
	var le *mcp.LocalError
	if !errors.As(err, &le) || le.Kind != mcp.Cancelled {
		t.Fatalf("want a local cancellation, got %v", err)
	}
	if !errors.Is(err, mcp.ErrWriteBlocked) {
		t.Errorf("the cancel should say the request was still being written, got %v", err)
	}
	if d := returned.Sub(<-cancelled); d > 500*time.Millisecond {
		t.Fatalf("cancel took effect %s after the user cancelled; want within 500ms", d)
	}
}

// onOutbound is an Options.OnEvent that sends, once, when the outbound
// frame of a request for method was published: its write starts then.
func onOutbound(method string, started chan<- time.Time) func(mcp.Event) {
	var once sync.Once
	return func(ev mcp.Event) {
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Outbound && fe.Frame.Method == method {
			once.Do(func() { started <- fe.Frame.Time })
		}
	}
}

func ctxWithin(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// slowAnalyzer takes its time over every frame and reports one diagnostic
// per inbound frame, naming the frame's Seq.
type slowAnalyzer struct{ delay time.Duration }

func (a slowAnalyzer) Observe(ev mcp.Event) []*mcp.Diagnostic {
	fe, ok := ev.(mcp.FrameEvent)
	if !ok {
		return nil
	}
	time.Sleep(a.delay)
	if fe.Frame.Dir != mcp.Inbound {
		return nil
	}
	return []*mcp.Diagnostic{{Rule: "test/seen", Severity: mcp.SeverityHint, Frames: []int64{fe.Frame.Seq}}}
}

// The doctor and the recorder run off the read loop: a slow analyzer delays
// the event stream, not the answers, and the order of events is kept
// (each frame's diagnostic follows it at once). Before, the analyzer ran on
// the read loop under the publish lock, so every answer waited for it.
func TestSlowAnalyzerDoesNotDelayAnswers(t *testing.T) {
	var recorded []mcp.Event
	c := mcp.NewClient(fake(), mcp.Options{Analyzer: slowAnalyzer{delay: 100 * time.Millisecond}, OnEvent: func(ev mcp.Event) {
		recorded = append(recorded, ev) // one goroutine calls OnEvent: no lock needed
	}})
	col := collect(c)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 5 {
		if _, err := c.Call(context.Background(), "ping", nil); err != nil {
			t.Fatal(err)
		}
	}
	// 5 pings are 10 frames, 1 s of analysis; the answers must not wait for it.
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("5 pings took %s with a 100 ms analyzer; the answers waited for the analysis", d)
	}
	_ = c.Close()
	evs := col.wait(t)
	if len(recorded) != len(evs) {
		t.Fatalf("the recorder saw %d events, the stream delivered %d", len(recorded), len(evs))
	}
	var lastSeq int64
	for i, ev := range evs {
		if recorded[i] != ev {
			t.Fatalf("event %d differs between the recorder and the stream", i)
		}
		switch ev := ev.(type) {
		case mcp.FrameEvent:
			if ev.Frame.Seq <= lastSeq {
				t.Fatalf("frame %d after frame %d: order changed", ev.Frame.Seq, lastSeq)
			}
			lastSeq = ev.Frame.Seq
		case mcp.DiagnosticEvent:
			if ev.Diagnostic.Frames[0] != lastSeq {
				t.Fatalf("diagnostic for frame %d delivered after frame %d", ev.Diagnostic.Frames[0], lastSeq)
			}
		}
	}
}
