package tap

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// spoolRun puts n records of varied sizes (and an event now and then)
// into a small spool while a slow reader drains it, and checks that the
// reader got every record, in order, byte for byte.
func spoolRun(t *testing.T, spillDir string, n int, setup ...func(*spool)) (notes []string, spilled bool) {
	t.Helper()
	s := newSpool(4096, spillDir)
	for _, f := range setup {
		f(s)
	}
	var (
		mu   sync.Mutex
		got  []string
		done = make(chan struct{})
	)
	sr := spoolReader{s: s, note: func(n string) { mu.Lock(); notes = append(notes, n); mu.Unlock() }}
	slow := make(chan struct{})
	go func() {
		defer close(done)
		_ = sr.drain(func() bool { return false }, func(c *chunk) {
			<-slow // the reader lags until the writer is done: the ring overflows
			switch c.kind {
			case chunkEvent:
				got = append(got, c.ev.(mcp.StderrEvent).Line)
			default:
				got = append(got, fmt.Sprintf("%d/%d/%s", c.kind, c.dir, c.data))
			}
		}, func() {})
	}()
	var want []string
	for i := 0; i < n; i++ {
		if i%7 == 3 {
			line := fmt.Sprintf("event %d", i)
			s.putObj(chunk{kind: chunkEvent, ev: mcp.StderrEvent{Line: line}, at: time.Now()})
			want = append(want, line)
			continue
		}
		data := []byte(strings.Repeat(string(rune('a'+i%26)), i%300) + fmt.Sprint(i))
		dir := mcp.Direction(1 + i%2)
		s.putData(chunkData, dir, data, time.Now())
		want = append(want, fmt.Sprintf("%d/%d/%s", chunkData, dir, data))
	}
	s.mu.Lock()
	spilled = s.spilling
	s.mu.Unlock()
	close(slow)
	s.close()
	<-done
	s.release()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d: got %.60q, want %.60q", i, got[i], want[i])
		}
	}
	return notes, spilled
}

func TestSpoolOverflowsToAFileInOrder(t *testing.T) {
	notes, spilled := spoolRun(t, t.TempDir(), 2000)
	if !spilled {
		t.Fatal("the ring never overflowed: the test does not test the file")
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "fell behind") {
		t.Errorf("the record should say once that the recorder fell behind; notes: %q", notes)
	}
}

func TestSpoolWithoutAFileKeepsEverythingInMemory(t *testing.T) {
	notes, _ := spoolRun(t, filepath.Join(t.TempDir(), "missing"), 2000)
	if len(notes) != 1 || !strings.Contains(notes[0], "held in memory") {
		t.Errorf("the record should say the backlog was held in memory; notes: %q", notes)
	}
}

// A file that stops taking writes mid-episode: the batch it refused and
// everything after it are kept in memory, in order (events included).
func TestSpoolFileThatFailsKeepsTheBatchInOrder(t *testing.T) {
	notes, _ := spoolRun(t, t.TempDir(), 3000, func(s *spool) {
		f, err := openSpill(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		_ = f.Close() // writes to it now fail
		s.spill = f
	})
	if len(notes) != 1 || !strings.Contains(notes[0], "held in memory") {
		t.Errorf("the record should say the backlog was held in memory; notes: %q", notes)
	}
}

// A flood writes the file a batch at a time, not a record at a time.
func TestSpoolWritesTheFileInBatches(t *testing.T) {
	s := newSpool(4096, t.TempDir())
	data := bytes.Repeat([]byte("x"), 100)
	for i := 0; i < 5000; i++ {
		s.putData(chunkData, mcp.Inbound, data, time.Now())
	}
	s.mu.Lock()
	onDisk, pending := s.spillW, len(s.batch)
	s.mu.Unlock()
	if onDisk < spillBatch {
		t.Fatalf("%d bytes on disk, less than a batch", onDisk)
	}
	if pending == 0 || pending >= spillBatch {
		t.Fatalf("%d bytes waiting for the next batch write (want some, less than a batch)", pending)
	}
	var got int
	sr := spoolReader{s: s, note: func(string) {}}
	_ = sr.drain(func() bool { return false }, func(c *chunk) {
		if !bytes.Equal(c.data, data) {
			t.Fatalf("record %d differs", got)
		}
		got++
	}, nil)
	if got != 5000 {
		t.Fatalf("drained %d records, want 5000", got)
	}
	s.release()
}

// A lingering reader picks up records put while it lingers and after it
// went idle, and stops when the spool closes during a linger.
func TestSpoolLingeringReaderMissesNothing(t *testing.T) {
	s := newSpool(4096, t.TempDir())
	got := make(chan string, 100)
	sr := spoolReader{s: s, linger: 20 * time.Millisecond, note: func(string) {}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = sr.drain(func() bool { return false }, func(c *chunk) { got <- string(c.data) }, func() {})
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case g := <-got:
			if g != want {
				t.Fatalf("got %q, want %q", g, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q never reached the reader", want)
		}
	}
	s.putData(chunkData, mcp.Inbound, []byte("first"), time.Now())
	expect("first")
	time.Sleep(5 * time.Millisecond) // within the linger
	s.putData(chunkData, mcp.Inbound, []byte("during the linger"), time.Now())
	expect("during the linger")
	time.Sleep(100 * time.Millisecond) // past it: the reader waits to be woken
	s.mu.Lock()
	idle := s.idle
	s.mu.Unlock()
	if !idle {
		t.Error("the reader should wait to be woken once a whole linger passed quietly")
	}
	s.putData(chunkData, mcp.Inbound, []byte("after it"), time.Now())
	expect("after it")
	s.close() // during the linger that follows
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("drain did not end when the spool closed during a linger")
	}
	s.release()
}

// The ring is used again after an overflow is drained, and records that
// do not fit before its end wrap around it.
func TestSpoolWrapsAndReturnsToTheRing(t *testing.T) {
	s := newSpool(1024, t.TempDir())
	sr := spoolReader{s: s, note: func(string) {}}
	for round := 0; round < 50; round++ {
		var want [][]byte
		for i := 0; i < 1+round%9; i++ {
			b := bytes.Repeat([]byte{byte('A' + round%26)}, 37*i+round)
			s.putData(chunkStderr, mcp.Inbound, b, time.Now())
			want = append(want, b)
		}
		var got [][]byte
		_ = sr.drain(func() bool { return false }, func(c *chunk) { got = append(got, bytes.Clone(c.data)) }, nil)
		if len(got) != len(want) {
			t.Fatalf("round %d: got %d records, want %d", round, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("round %d record %d differs", round, i)
			}
		}
		s.mu.Lock()
		spilling, onDisk := s.spilling, s.spillW
		s.mu.Unlock()
		if spilling || onDisk != 0 {
			t.Fatalf("round %d: still spilling (%v) or %d bytes on disk after a full drain", round, spilling, onDisk)
		}
	}
}
