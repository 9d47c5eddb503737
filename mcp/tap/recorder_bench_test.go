package tap

import (
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// floodLines are notifications as the flood benchmark's server writes them.
func floodLines(n int) [][]byte {
	lines := make([][]byte, n)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"event %d of a flood"}}`+"\n", i)
	}
	return lines
}

// BenchmarkRecorderFloodLine is the recorder's work for one message of a
// flood (classify, correlate, encode the session-file entry): what the
// tap does later, off the copy, for every message it passed on.
func BenchmarkRecorderFloodLine(b *testing.B) {
	w := record.NewWriter(nopCloser{io.Discard}, record.Session{})
	r := &recorder{obs: mcp.NewObserver("stdio"), w: w}
	lines := floodLines(1000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.lines(mcp.Inbound, lines[i%len(lines)], time.Now())
	}
}

// While the copiers are busy the recorder holds off, but never longer
// than maxDefer; once they pause it records what is queued at once.
func TestRecorderDefersToBusyCopiersButNotForever(t *testing.T) {
	w := record.NewWriter(nopCloser{io.Discard}, record.Session{})
	r := newRecorder("stdio", w, nil, false, t.TempDir())
	var recorded atomic.Int64
	r.onFrame = func(*mcp.Frame) { recorded.Add(1) }
	lines := floodLines(100)
	start := time.Now()
	var sent int64
	// A steady stream, a message every 100 µs (closer together than
	// copierQuiet), until the recorder records something: it must not
	// wait for a pause that never comes. (It normally does after maxDefer;
	// the bound is loose because a SCHED_IDLE thread on a saturated
	// machine gets little CPU.)
	for recorded.Load() == 0 && time.Since(start) < 20*time.Second {
		r.data(mcp.Inbound, lines[sent%100], time.Now())
		sent++
		for next := time.Now().Add(100 * time.Microsecond); time.Now().Before(next); {
			runtime.Gosched()
		}
	}
	firstSeen := time.Since(start)
	if recorded.Load() == 0 {
		t.Fatalf("nothing was recorded during %v of steady traffic (%d messages): the recorder must not wait for a pause longer than %v", firstSeen, sent, maxDefer)
	}
	// The copiers stop: everything is recorded, without close.
	deadline := time.Now().Add(60 * time.Second)
	for recorded.Load() < sent && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := recorded.Load(); got != sent {
		t.Fatalf("%d of %d messages recorded 60 s after the traffic stopped", got, sent)
	}
	r.close()
	t.Logf("first frame recorded after %v; %d messages", firstSeen, sent)
}

func TestRecorderYieldsOnlyToBusyCopiers(t *testing.T) {
	r := &recorder{epoch: time.Now().Add(-time.Hour)}
	now := func() int64 { return int64(time.Since(r.epoch)) }
	r.busyAt.Store(now() - int64(2*copierQuiet))
	if r.yield() {
		t.Fatal("the copiers queued nothing for 2 ms: the recorder should record")
	}
	r.busyAt.Store(now() + int64(time.Hour)) // busy throughout the test
	if !r.yield() {
		t.Fatal("the copiers just queued bytes: the recorder should hold off")
	}
	if r.deferredAt == 0 {
		t.Fatal("the recorder should note when it began to wait")
	}
	r.deferredAt = now() - int64(maxDefer)
	if r.yield() || !r.catchingUp {
		t.Fatal("after maxDefer of busy copiers the recorder should record anyway, until it has caught up")
	}
	if r.yield() {
		t.Fatal("catching up, the recorder should not stop for busy copiers")
	}
	r.w = record.NewWriter(nopCloser{io.Discard}, record.Session{})
	r.caughtUp()
	if r.catchingUp || r.deferredAt != 0 || !r.yield() {
		t.Fatal("once caught up, the recorder should hold off for busy copiers again")
	}
	r.closing.Store(true)
	r.busyAt.Store(0)
	if !r.yield() {
		t.Fatal("closing: the recorder's loop should hand over to close")
	}
}
