package watch

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// The wait before a round that would continue a loop doubles with each
// round, from loopWithin up to loopMaxWait; a change that does not follow
// the round before waits nothing.
func TestLoopGuardBacksOff(t *testing.T) {
	var g loopGuard
	at := time.Now()
	ch := Change{Paths: []string{"server.log"}}
	var waits []time.Duration
	for range 8 {
		ch.First = at.Add(10 * time.Millisecond)
		waits = append(waits, g.backoff(ch))
		at = ch.First.Add(50 * time.Millisecond)
		g.ended(Cause{Change: &ch}, at)
	}
	want := []time.Duration{0, 0, 0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	if w := g.backoff(Change{Paths: []string{"server.log"}, First: at.Add(2 * loopWithin)}); w != 0 {
		t.Errorf("a change long after the round waits %v", w)
	}
	if w := g.backoff(Change{Paths: []string{"other.go"}, First: at.Add(time.Millisecond)}); w != 0 {
		t.Errorf("a change to another file waits %v", w)
	}
}

// A file saved again right after each restart (an editor's autosave, or
// a script) restarts the server every time: no save is lost to the loop
// guard, which only spaces the restarts out and says so once.
func TestLoopKeepsEverySaveMadeRightAfterARestart(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "server.go")
	write(t, src, "v0")
	w := newWatcher(t, Options{Paths: []string{src}})
	rounds := make(chan Round, 8)
	notes := make(chan string, 8)
	l := &Loop{Watcher: w, Dir: dir,
		Restart: func(_ context.Context, r Round) { rounds <- r },
		Note:    func(s string) { notes <- s }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	const saves = 5
	var at []time.Time
	for i := range saves {
		write(t, src, fmt.Sprintf("v%d", i+1))
		select {
		case <-rounds:
			at = append(at, time.Now())
		case <-time.After(20 * time.Second):
			t.Fatalf("save %d restarted nothing: the save was lost", i+1)
		}
	}
	if gap := at[saves-1].Sub(at[saves-2]); gap < loopWithin {
		t.Errorf("the fifth quick restart came %v after the fourth: a loop would restart hot", gap)
	}
	select {
	case n := <-notes:
		t.Logf("note: %s", n)
	default:
		t.Error("the wait was never explained")
	}
	if len(notes) > 0 {
		t.Errorf("the wait was explained more than once: %q", <-notes)
	}
}
