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
func spoolRun(t *testing.T, spillDir string, n int) (notes []string, spilled bool) {
	t.Helper()
	s := newSpool(4096, spillDir)
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
