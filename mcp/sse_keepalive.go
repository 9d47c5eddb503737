package mcp

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// KeepAliveRun is a run of consecutive comment-only SSE events (keep-alives)
// on one stream: one timeline row however many arrive. The run's first
// event is reported at once, then updates at most every keepAliveUpdate
// (the last one as soon as the run ends), each a TransportEvent carrying
// a new KeepAliveRun with the same ID; a viewer updates the row in place
// and a recorder writes only the one that says Done. A KeepAliveRun is
// never changed once sent.
type KeepAliveRun struct {
	ID     uint64 // the same for every event of one run
	Stream string
	// Comment is the first keep-alive's first comment line, without the
	// colon (often empty, "ping" or "keep-alive"), cut at 1 KiB.
	Comment string
	Count   int   // keep-alive events so far
	Bytes   int64 // what they took on the wire, their blank lines included
	Started time.Time
	Last    time.Time // when the last one arrived
	// Done says the run ended: an event with anything else in it came, or
	// the stream ended.
	Done bool
}

// Summary is the run's timeline row: how many, the first one's comment,
// their bytes and how long the run lasted.
func (r *KeepAliveRun) Summary() string {
	comment := ""
	if r.Comment != "" {
		comment = fmt.Sprintf(" %q", r.Comment)
	}
	var s string
	if r.Count == 1 {
		s = fmt.Sprintf("SSE keep-alive%s (a comment-only event, %s) on %s", comment, byteCount(r.Bytes), r.Stream)
	} else {
		s = fmt.Sprintf("SSE %s keep-alives%s (comment-only events, %s over %s) on %s", groupDigits(int64(r.Count)), comment,
			byteCount(r.Bytes), r.Last.Sub(r.Started).Round(time.Millisecond), r.Stream)
	}
	if !r.Done {
		s += ", continuing"
	}
	return s
}

// Event is the TransportEvent that reports the run as it is now.
func (r *KeepAliveRun) Event(at time.Time) TransportEvent {
	fields := []Field{{"stream", r.Stream}, {"keep-alives", groupDigits(int64(r.Count))}, {"bytes", groupDigits(r.Bytes)}}
	if r.Comment != "" {
		fields = append(fields, Field{"comment", r.Comment})
	}
	return TransportEvent{Time: at, Kind: "sse", Summary: r.Summary(), Fields: fields, Run: r}
}

// keepAliveUpdate is how often a run under way is reported: often enough
// for a person to see it grow, rarely enough that a flood of a million
// keep-alives a second costs a few events.
const keepAliveUpdate = 250 * time.Millisecond

// sseMaxKeepAlives bounds the keep-alive bytes a request's answer stream
// may carry in a row before its answer: beyond it mcpscope stops reading
// the stream and the request fails with ErrKeepAliveLimit
// (docs/limits.md). A server that keeps a slow request's stream open sends one
// every few seconds; this many take a flood. A variable for the tests.
var sseMaxKeepAlives int64 = 64 << 20

// ErrKeepAliveLimit means a request's answer stream carried nothing but
// keep-alives, past sseMaxKeepAlives bytes of them in a row: the answer is
// not coming on it.
var ErrKeepAliveLimit = errors.New("the answer stream carried only keep-alives, past mcpscope's limit")

var keepAliveRuns atomic.Uint64

// keepAlives follows the keep-alive runs of one stream as it is read: the
// reader calls add for each comment-only event and end for any other (and
// when the stream ends). A timer reports a run's count when keep-alives
// stop for a while in the middle of one.
type keepAlives struct {
	emit   func(TransportEvent)
	stream string
	// quiet reports a run only when it ends: for a recorder of a stream
	// nobody watches as it comes (a tap's), which writes only that report.
	quiet bool

	mu      sync.Mutex
	run     KeepAliveRun // the run under way (Count 0: none)
	sent    time.Time    // when it was last reported
	pending bool         // it changed since
	timer   *time.Timer
}

func newKeepAlives(stream string, emit func(TransportEvent)) *keepAlives {
	return &keepAlives{stream: stream, emit: emit}
}

// isKeepAlive reports a comment-only event: no data, id, retry or type.
func (e *sseEvent) isKeepAlive() bool {
	return e.CommentCount > 0 && !e.HasData && !e.HasID && !e.HasRetry && e.Event == "" && !e.Incomplete && e.Cut == ""
}

// add counts one keep-alive that arrived at now and returns the bytes of
// the run so far.
func (k *keepAlives) add(ev *sseEvent, now time.Time) int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.run.Count == 0 {
		k.run = KeepAliveRun{ID: keepAliveRuns.Add(1), Stream: k.stream, Started: now}
		if len(ev.Comments) > 0 {
			k.run.Comment = ev.Comments[0]
		}
	}
	k.run.Count++
	k.run.Bytes += int64(ev.Size)
	k.run.Last = now
	switch {
	case k.quiet:
	case k.run.Count == 1 || now.Sub(k.sent) >= keepAliveUpdate:
		k.reportLocked(now)
	case !k.pending:
		k.pending = true
		if k.timer == nil {
			k.timer = time.AfterFunc(keepAliveUpdate, k.flush)
		} else {
			k.timer.Reset(keepAliveUpdate)
		}
	}
	return k.run.Bytes
}

// flush reports a run whose last keep-alives were not reported yet.
func (k *keepAlives) flush() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.pending && k.run.Count > 0 {
		k.reportLocked(time.Now())
	}
}

func (k *keepAlives) reportLocked(now time.Time) {
	r := k.run
	k.sent, k.pending = now, false
	k.emit(r.Event(now))
}

// end closes the run under way, if any, with its final report at now.
func (k *keepAlives) end(now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.timer != nil {
		k.timer.Stop()
	}
	if k.run.Count == 0 {
		return
	}
	k.run.Done = true
	k.reportLocked(now)
	k.run = KeepAliveRun{}
}

// groupDigits writes n with thousands separators: 2,000,000.
func groupDigits(n int64) string {
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// byteCount writes a size for people: 512 B, 9.5 KiB, 10.0 MiB.
func byteCount(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
