package resident

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// The trimmer waits for Quiet without events, trims once after the first
// burst, and after that only for a burst of AfterEvents.
func TestTrimmerTrimsAfterABurstGoesQuiet(t *testing.T) {
	tr := &Trimmer{Quiet: 2 * time.Second, AfterEvents: 100}
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	touch := func(n int) {
		for i := 0; i < n; i++ {
			tr.Touch()
		}
	}
	steps := []struct {
		touch int
		at    float64
		want  bool
	}{
		{0, 0, false},    // nothing happened yet
		{0, 5, false},    // still nothing: an idle start is not trimmed
		{10, 6, false},   // the connection's first events
		{5, 7, false},    // more
		{0, 8, false},    // quiet for 1 s
		{0, 9, true},     // quiet for 2 s: trimmed
		{0, 10, false},   // already trimmed, nothing new
		{0, 20, false},   // still nothing new
		{3, 21, false},   // a few events
		{0, 30, false},   // a short burst does not earn another collection
		{200, 31, false}, // a flood
		{0, 32, false},   // quiet for 1 s
		{0, 33.5, true},  // quiet for 2.5 s: trimmed again
		{0, 40, false},
	}
	for i, s := range steps {
		touch(s.touch)
		if got := tr.due(at(s.at)); got != s.want {
			t.Fatalf("step %d (+%d events, at %.1f s): due = %v, want %v", i, s.touch, s.at, got, s.want)
		}
	}
}

// With LongQuiet, any activity since the last trim (a few events, keys
// pressed while browsing) earns a trim once nothing has happened for that
// long; no activity, no trim.
func TestTrimmerTrimsAfterALongQuiet(t *testing.T) {
	tr := &Trimmer{Quiet: 2 * time.Second, AfterEvents: 1000, LongQuiet: 30 * time.Second}
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	steps := []struct {
		touch int
		at    float64
		want  bool
	}{
		{0, 0, false},
		{20, 1, false},  // connecting
		{0, 3.5, true},  // the first burst is over
		{5, 10, false},  // a person presses five keys
		{0, 13, false},  // quiet 3 s: not a burst of 1,000
		{0, 39, false},  // quiet 29 s
		{0, 40.5, true}, // quiet 30.5 s: trimmed
		{0, 100, false}, // nothing since: no collection for nothing
		{0, 200, false},
		{1, 201, false}, // one event
		{0, 232, true},  // and a long quiet after it
	}
	for i, s := range steps {
		for range s.touch {
			tr.Touch()
		}
		if got := tr.due(at(s.at)); got != s.want {
			t.Fatalf("step %d (+%d, at %.1f s): due = %v, want %v", i, s.touch, s.at, got, s.want)
		}
	}
}

// Run trims through the Trim function once the events stop, and returns
// when its context ends.
func TestTrimmerRunTrims(t *testing.T) {
	var trims atomic.Int32
	tr := &Trimmer{Quiet: 20 * time.Millisecond, AfterEvents: 1 << 30, Trim: func() { trims.Add(1) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tr.Run(ctx); close(done) }()
	tr.Touch()
	deadline := time.Now().Add(5 * time.Second)
	for trims.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if trims.Load() != 1 {
		t.Fatalf("trimmed %d times, want 1", trims.Load())
	}
	time.Sleep(100 * time.Millisecond)
	if trims.Load() != 1 {
		t.Fatalf("trimmed %d times with no new events, want 1", trims.Load())
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
