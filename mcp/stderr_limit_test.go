package mcp

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// A flood of stderr passes at the rate and no faster: the lines past it
// are counted, the last ones kept, and every line is either passed on or
// counted in the Dropped of the line after it; the flood's last line is
// always passed on.
func TestStderrLimiterCountsWhatItDrops(t *testing.T) {
	var mu sync.Mutex
	var got []StderrEvent
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newStderrLimiter(func(ev StderrEvent) {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	})
	l.now = func() time.Time { return clock }
	const n, size = 200000, 100 // 20 MB in no time at all
	line := strings.Repeat("x", size-1-9)
	for i := range n {
		l.line(fmt.Sprintf("%09d%s", i, line))
	}
	l.close()
	mu.Lock()
	defer mu.Unlock()
	var passed, dropped int
	var passedBytes, droppedBytes int64
	for _, ev := range got {
		passed++
		passedBytes += int64(len(ev.Line) + 1)
		dropped += ev.Dropped
		droppedBytes += ev.DroppedBytes
	}
	if passed+dropped != n || passedBytes+droppedBytes != n*size {
		t.Fatalf("%d lines passed and %d counted (%d and %d bytes); %d lines (%d bytes) came", passed, dropped, passedBytes, droppedBytes, n, n*size)
	}
	if passedBytes > stderrBurst+stderrHeldBytes+size {
		t.Errorf("%d bytes passed in no time: more than the burst and what is held", passedBytes)
	}
	if dropped == 0 || got[len(got)-1].Line[:9] != fmt.Sprintf("%09d", n-1) {
		t.Errorf("%d dropped; the last line passed is %.9q", dropped, got[len(got)-1].Line)
	}
	// The order is kept: each line passed comes after the one before it.
	for i := 1; i < len(got); i++ {
		if got[i].Line[:9] <= got[i-1].Line[:9] {
			t.Fatalf("line %.9q passed after %.9q", got[i].Line, got[i-1].Line)
		}
	}
}

// Below the rate nothing is held or dropped; after a flood, the held
// lines follow on their own (the flush), not only when stderr ends.
func TestStderrLimiterPassesTheRateAndFlushes(t *testing.T) {
	got := make(chan StderrEvent, 1<<16)
	l := newStderrLimiter(func(ev StderrEvent) { got <- ev })
	l.line("one")
	if ev := <-got; ev.Line != "one" || ev.Dropped != 0 {
		t.Fatalf("got %+v", ev)
	}
	big := strings.Repeat("y", 1<<20)
	for range stderrBurst>>20 + 3 {
		l.line(big)
	}
	l.line("the last")
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-got:
			if ev.Line == "the last" {
				return
			}
		case <-deadline:
			t.Fatal("the held lines were not flushed without more stderr")
		}
	}
}
