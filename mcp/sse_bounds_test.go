package mcp

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// Finding 4: 10 MB of comment keep-alives in one event cost about nothing
// once read (they used to be kept as 2.6 million strings and timeline
// fields: 397 MB RSS in `call`).
func TestSSECommentsCostWhatTheyAre(t *testing.T) {
	const n = 10 << 20 / 4
	body := strings.Repeat(": k\n", n) + "data: {}\n\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := newSSEReader(strings.NewReader(body))
	ev, err := r.next()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if ev.CommentCount != n || ev.CommentBytes != 4*n || len(ev.Comments) != sseKeptComments || string(ev.Data) != "{}" {
		t.Fatalf("count %d bytes %d kept %d data %q", ev.CommentCount, ev.CommentBytes, len(ev.Comments), ev.Data)
	}
	if live := int64(after.HeapAlloc) - int64(before.HeapAlloc); live > 1<<20 {
		t.Errorf("the event keeps %d bytes alive for %d bytes of comments", live, len(body))
	}
	te, ok := sseTransportEvent("s", ev)
	if !ok || !strings.Contains(te.Summary, "2621440 comment lines") || len(te.Fields) > sseKeptComments+4 {
		t.Errorf("timeline row: %q with %d fields", te.Summary, len(te.Fields))
	}
	runtime.KeepAlive(ev)
}

// An event over the event limit, or a line over the line limit, is cut
// with a clear problem; the stream goes on, and what was within is kept.
func TestSSELimitsAreReported(t *testing.T) {
	r := newSSEReader(strings.NewReader("data: 12345\ndata: 67890\ndata: abc\n\ndata: next\n\n"))
	r.maxEvent = 12
	ev, err := r.next()
	if err != nil || string(ev.Data) != "12345\n67890" || !strings.Contains(ev.Problem(), "limit of 12 bytes") {
		t.Fatalf("event: %q, problem %q, err %v", ev.Data, ev.Problem(), err)
	}
	if ev, err = r.next(); err != nil || string(ev.Data) != "next" || ev.Problem() != "" {
		t.Fatalf("the next event: %q %q %v", ev.Data, ev.Problem(), err)
	}
	r = newSSEReader(strings.NewReader("data: 0123456789\n\n"))
	r.maxLine = 8
	ev, _ = r.next()
	if !strings.Contains(ev.Problem(), "SSE line longer than") {
		t.Fatalf("long line: %q %q", ev.Data, ev.Problem())
	}
	if _, err := r.next(); err != io.EOF {
		t.Fatalf("after: %v", err)
	}
}
