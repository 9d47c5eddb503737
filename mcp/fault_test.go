package mcp_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// A server that closes its stdout but stays alive is noticed at once: the
// pending request fails with that cause within a second, not at its 10 s
// timeout, and the connection reports it as its own cause.
func TestStdoutClosedIsNoticedAtOnce(t *testing.T) {
	c := mcp.NewClient(fake("close-stdout"), mcp.Options{Timeout: 10 * time.Second})
	col := collect(c)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := callWithin(t, 5*time.Second, func() { _ = c.Close() }, func() error {
		_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}})
		return err
	})
	t.Logf("failed after %s: %v", d, err)
	var sc *mcp.StdoutClosedError
	var le *mcp.LocalError
	if !errors.As(err, &le) || le.Kind != mcp.ConnectionLost || !errors.As(err, &sc) {
		t.Fatalf("want a lost connection caused by the closed stdout, got %v", err)
	}
	if d > time.Second {
		t.Fatalf("noticed after %s; want within 1 s", d)
	}
	if _, err := c.Call(context.Background(), "ping", nil); !errors.As(err, &sc) {
		t.Errorf("a later request: want the same cause at once, got %v", err)
	}
	_ = c.Shutdown(ctxWithin(t, time.Second))
	var failed bool
	for _, ev := range col.wait(t) {
		if st, ok := ev.(mcp.StateEvent); ok && st.State == mcp.StateFailed && strings.Contains(st.Detail, "closed its stdout") {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no failed state naming the closed stdout")
	}
}

// A stopped server (SIGSTOP) is named: in the timeline when it stops, and
// as the cause of the request that timed out.
func TestStoppedServerIsNamed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process states are read from /proc")
	}
	c := mcp.NewClient(fake("stop-on-call"), mcp.Options{})
	col := collect(c)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := callWithin(t, 5*time.Second, func() { _ = c.Close() }, func() error {
		_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}}, mcp.WithTimeout(time.Second))
		return err
	})
	var stopped *mcp.StoppedError
	if !mcp.IsTimeout(err) || !errors.As(err, &stopped) {
		t.Fatalf("want a timeout naming the stopped server, got %v", err)
	}
	t.Logf("%v", err)
	start := time.Now()
	_ = c.Shutdown(ctxWithin(t, 800*time.Millisecond)) // SIGKILL ends a stopped process
	// The deadline is 800 ms; the margin is for reaping on a busy machine,
	// as in TestTimeoutWhileServerDoesNotRead.
	limit := 1500 * time.Millisecond
	if raceEnabled {
		limit = 3 * time.Second
	}
	if d := time.Since(start); d > limit {
		t.Errorf("closing a stopped server took %s, over %s", d, limit)
	}
	var named bool
	for _, ev := range col.wait(t) {
		if te, ok := ev.(mcp.TransportEvent); ok && te.Kind == "process" && strings.Contains(te.Summary, "is stopped") {
			named = true
		}
	}
	if !named {
		t.Errorf("the timeline never said the server was stopped")
	}
}
