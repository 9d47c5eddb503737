package mcp

import (
	"sync"
	"time"
)

// A server's stderr is copied into the event stream at most at
// stderrRate bytes a second (with a burst of stderrBurst): every stage
// behind it (the client's queues, a session's, the TUI's log, a
// recording) is unbounded, so a server writing hundreds of megabytes of
// stderr faster than they drain them made each hold its backlog (607 MB
// for 400 MB of stderr in the TUI). Past the rate, the last
// stderrHeldLines lines (stderrHeldBytes at most) are held and the older
// ones counted and dropped; the next line let through, or a flush soon
// after the flood, carries the count (StderrEvent.Dropped), so the drop is
// seen where the lines would have been.
const (
	stderrRate      = 4 << 20
	stderrBurst     = 4 << 20
	stderrHeldLines = 256
	stderrHeldBytes = 256 << 10
	stderrFlush     = 100 * time.Millisecond
)

// stderrLimiter passes stderr lines to emit at stderrRate at most. It is
// safe for concurrent use (its flush runs on a timer).
type stderrLimiter struct {
	emit func(StderrEvent)
	now  func() time.Time

	mu      sync.Mutex
	tokens  float64
	last    time.Time
	held    []StderrEvent // the newest lines past the rate, oldest first
	heldLen int           // their bytes
	dropped int
	dropB   int64
	timer   *time.Timer
}

func newStderrLimiter(emit func(StderrEvent)) *stderrLimiter {
	return &stderrLimiter{emit: emit, now: time.Now, tokens: stderrBurst}
}

// line takes one stderr line.
func (l *stderrLimiter) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.refill(now)
	ev := StderrEvent{Time: now, Line: s}
	if len(l.held) == 0 && l.tokens >= float64(len(s)+1) {
		l.tokens -= float64(len(s) + 1)
		l.emitLocked(ev)
		return
	}
	l.held = append(l.held, ev)
	l.heldLen += len(s) + 1
	for len(l.held) > stderrHeldLines || l.heldLen > stderrHeldBytes && len(l.held) > 1 {
		l.dropped++
		l.dropB += int64(len(l.held[0].Line) + 1)
		l.heldLen -= len(l.held[0].Line) + 1
		l.held[0] = StderrEvent{}
		l.held = l.held[1:]
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(stderrFlush, l.flush)
	}
}

func (l *stderrLimiter) refill(now time.Time) {
	if !l.last.IsZero() {
		l.tokens = min(stderrBurst, l.tokens+now.Sub(l.last).Seconds()*stderrRate)
	}
	l.last = now
}

// flush lets the held lines through as far as the rate allows, the first
// carrying the count of those dropped; it comes back later for the rest.
// Called by the timer, and by close at the end of stderr with all set.
func (l *stderrLimiter) flush() { l.flushAll(false) }

func (l *stderrLimiter) flushAll(all bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	l.refill(l.now())
	for len(l.held) > 0 && (all || l.tokens >= float64(len(l.held[0].Line)+1)) {
		ev := l.held[0]
		l.tokens -= float64(len(ev.Line) + 1)
		l.heldLen -= len(ev.Line) + 1
		l.held[0] = StderrEvent{}
		l.held = l.held[1:]
		l.emitLocked(ev)
	}
	if len(l.held) > 0 {
		l.timer = time.AfterFunc(stderrFlush, l.flush)
	} else {
		l.held = nil
	}
}

// emitLocked passes ev on with the count of the lines dropped before it.
func (l *stderrLimiter) emitLocked(ev StderrEvent) {
	ev.Dropped, ev.DroppedBytes = l.dropped, l.dropB
	l.dropped, l.dropB = 0, 0
	l.emit(ev)
}

// close passes on what is held: stderr ended.
func (l *stderrLimiter) close() {
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	l.flushAll(true)
}
