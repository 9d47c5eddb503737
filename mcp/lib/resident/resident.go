// Package resident gives the heap that a long-running mcpscope process no
// longer needs back to the operating system once a burst of work is over:
// the TUI stays open all day beside an editor, so what it holds while
// idle is what it costs. Nothing here changes what the program computes:
// the pages given back are free memory.
package resident

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Trim returns the heap's free pages to the OS, after a collection. It
// costs one garbage collection, so it is for quiet moments.
func Trim() { debug.FreeOSMemory() }

// Trimmer trims the process once activity stops for a while: after the
// first burst (connecting, the first listings), and again after any later
// burst of at least AfterEvents events (a flood, a long exchange), so a
// session that trickles an event every few seconds does not pay for a
// collection each time. Any activity at all (a few events, a person
// looking through the panes and closing a big result) earns a trim once
// nothing has happened for LongQuiet: a debugger left open all day should
// not keep the heap its last look needed. Touch counts one event or input;
// it is safe from any goroutine and costs one atomic add.
type Trimmer struct {
	// Quiet is how long no event may arrive before trimming.
	Quiet time.Duration
	// AfterEvents is how many events a later burst needs to earn a trim.
	AfterEvents uint64
	// LongQuiet, when set, is how long any activity since the last trim
	// must be followed by none to earn a trim of its own.
	LongQuiet time.Duration
	// Trim is what trimming does; Trim (the function) when nil.
	Trim func()

	events    atomic.Uint64
	seen      uint64    // events at the last look
	changed   time.Time // when the count last changed
	trimmedAt uint64    // events at the last trim
	trimmed   bool      // whether a trim happened yet
}

// Touch records one event.
func (t *Trimmer) Touch() { t.events.Add(1) }

// Run looks at the activity every Quiet/2 until ctx ends, trimming when due.
func (t *Trimmer) Run(ctx context.Context) {
	tick := time.NewTicker(max(t.Quiet/2, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if t.due(now) {
				if t.Trim != nil {
					t.Trim()
				} else {
					Trim()
				}
			}
		}
	}
}

// due reports whether a trim is due at now, and if so counts it as done.
func (t *Trimmer) due(now time.Time) bool {
	n := t.events.Load()
	if n != t.seen || t.changed.IsZero() {
		t.seen, t.changed = n, now
		return false
	}
	if now.Sub(t.changed) < t.Quiet || n == t.trimmedAt {
		return false
	}
	if t.trimmed && n-t.trimmedAt < t.AfterEvents && (t.LongQuiet <= 0 || now.Sub(t.changed) < t.LongQuiet) {
		return false
	}
	t.trimmed, t.trimmedAt = true, n
	return true
}
