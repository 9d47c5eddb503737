package mcp_test

import (
	"context"
	"errors"
	"strings"
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
// returns a local timeout within 1 s, and the client still closes cleanly
// (goleak in TestMain checks that nothing is left behind).
func TestTimeoutWhileServerDoesNotRead(t *testing.T) {
	c := mcp.NewClient(fake("deaf", "ignore-term"), mcp.Options{})
	col := collect(c)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := callWithin(t, 3*time.Second, func() { _ = c.Close() }, func() error {
		_, err := c.Call(context.Background(), "tools/call", bigCall(1<<20), mcp.WithTimeout(500*time.Millisecond))
		return err
	})
	t.Logf("timed out after %s: %v", d, err)
	if !mcp.IsTimeout(err) {
		t.Fatalf("want a local timeout, got %v", err)
	}
	if d > time.Second {
		t.Fatalf("the timeout came after %s; want within 1 s of the request", d)
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
	if el := time.Since(start); el > time.Second {
		t.Errorf("Shutdown(800ms) took %s", el)
	}
	evs := col.wait(t)
	for _, ev := range evs {
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Outbound && fe.Frame.Method == "ping" {
			t.Errorf("the ping never reached the wire but its frame was published: %s", fe.Frame.Raw)
		}
	}
}

// Cancelling works while the write is blocked.
func TestCancelWhileWriteBlocked(t *testing.T) {
	c := mcp.NewClient(fake("deaf"), mcp.Options{})
	col := collect(c)
	defer func() { _ = c.Close(); col.wait(t) }()
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	d, err := callWithin(t, 3*time.Second, func() { _ = c.Close() }, func() error {
		_, err := c.Call(ctx, "tools/call", bigCall(1<<20))
		return err
	})
	var le *mcp.LocalError
	if !errors.As(err, &le) || le.Kind != mcp.Cancelled {
		t.Fatalf("want a local cancellation, got %v", err)
	}
	if d > 700*time.Millisecond {
		t.Fatalf("cancel took effect after %s; want about 200ms", d)
	}
}

func ctxWithin(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
