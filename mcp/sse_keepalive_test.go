package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

const keepAliveEvent = mcptest.KeepAliveEvent

// runsOf gives the reports of keep-alive runs, in order.
func runsOf(evs []mcp.Event) []*mcp.KeepAliveRun {
	var out []*mcp.KeepAliveRun
	for _, te := range transportEventsOf(evs) {
		if te.Run != nil {
			out = append(out, te.Run)
		}
	}
	return out
}

// A flood of keep-alives before the answer is one run: a few reports of
// one row (the first at once), the last saying how many and how many
// bytes, exactly; the answer arrives as usual.
func TestKeepAlivesAreOneRun(t *testing.T) {
	const n = 200_000
	srv := httptest.NewServer(&mcptest.KeepAliveServer{Bytes: n * len(keepAliveEvent)})
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 20 * time.Second})
	resp, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "slow"})
	if err != nil || !bytes.Contains(resp.Frame.Raw, []byte(`"done"`)) {
		t.Fatalf("tools/call: %v", err)
	}
	_ = c.Close()
	runs := runsOf(col.wait(t))
	if len(runs) == 0 {
		t.Fatal("no keep-alive run was reported")
	}
	last := runs[len(runs)-1]
	if !last.Done || last.Count != n || last.Bytes != int64(n*len(keepAliveEvent)) || last.Comment != "k" {
		t.Errorf("the run's last report: %+v, want %d keep-alives of %d bytes, done", last, n, n*len(keepAliveEvent))
	}
	if runs[0].Count != 1 || runs[0].Done {
		t.Errorf("the first report: %+v, want the first keep-alive at once", runs[0])
	}
	for _, r := range runs {
		if r.ID != last.ID {
			t.Errorf("the reports name two runs: %d and %d", r.ID, last.ID)
		}
	}
	if len(runs) > 100 {
		t.Errorf("%d reports for one run of %d keep-alives", len(runs), n)
	}
	if !strings.Contains(last.Summary(), "200,000 keep-alives") || strings.Contains(last.Summary(), "continuing") {
		t.Errorf("summary %q", last.Summary())
	}
}

// Keep-alives that stop for a while in the middle of a run are reported
// when they stop, not when the next comes.
func TestKeepAliveRunReportedWhilePaused(t *testing.T) {
	srv := httptest.NewServer(&mcptest.KeepAliveServer{Bytes: 3 * len(keepAliveEvent), Pause: 2 * time.Second})
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 20 * time.Second})
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "slow"})
		done <- err
	}()
	deadline := time.Now().Add(1500 * time.Millisecond)
	for {
		col.mu.Lock()
		runs := runsOf(col.events)
		col.mu.Unlock()
		if len(runs) > 0 && runs[len(runs)-1].Count == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first two keep-alives were not both reported during the pause: %d reports", len(runs))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	runs := runsOf(col.wait(t))
	if last := runs[len(runs)-1]; !last.Done || last.Count != 3 {
		t.Errorf("last report %+v", last)
	}
}

// An answer stream that carries nothing but keep-alives past the limit
// fails its request with ErrKeepAliveLimit, at once and with a message
// that says so, and is not resumed or sent again.
func TestKeepAliveLimit(t *testing.T) {
	defer mcp.SetKeepAliveLimit(1 << 20)()
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		srv := httptest.NewServer(&mcptest.KeepAliveServer{Bytes: 1 << 20 * len(keepAliveEvent), NoAnswer: true})
		c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Era: era, Timeout: 30 * time.Second})
		start := time.Now()
		_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "slow"})
		if !errors.Is(err, mcp.ErrKeepAliveLimit) || !strings.Contains(err.Error(), "only keep-alives") {
			t.Errorf("%s: tools/call: %v, want the keep-alive limit", era, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: the limit took %v", era, d)
		}
		_ = c.Close()
		srv.Close()
		evs := col.wait(t)
		if n := len(framesOf(evs, "tools/call")); n != 1 {
			t.Errorf("%s: tools/call was sent %d times", era, n)
		}
		var said bool
		for _, te := range transportEventsOf(evs) {
			if errors.Is(te.Err, mcp.ErrKeepAliveLimit) && strings.Contains(te.Summary, "stopped reading") {
				said = true
			}
		}
		if !said {
			t.Errorf("%s: no timeline row said the stream was given up", era)
		}
	}
}

func framesOf(evs []mcp.Event, method string) []*mcp.Frame {
	var out []*mcp.Frame
	for _, f := range frames(evs) {
		if f.Dir == mcp.Outbound && f.Method == method {
			out = append(out, f)
		}
	}
	return out
}
