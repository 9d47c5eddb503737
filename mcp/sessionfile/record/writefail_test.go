package record

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// fullDisk takes room bytes, then fails every write as a full disk does:
// the write that crosses the limit writes what fits.
type fullDisk struct {
	buf    bytes.Buffer
	room   int
	closed bool
}

func (d *fullDisk) Write(p []byte) (int, error) {
	n := min(len(p), d.room-d.buf.Len())
	d.buf.Write(p[:n])
	if n < len(p) {
		return n, &os.PathError{Op: "write", Path: "s.jsonl", Err: syscall.ENOSPC}
	}
	return n, nil
}

func (d *fullDisk) Close() error { d.closed = true; return nil }

func manyFrames(w *Writer, n int) {
	for i := range n {
		raw := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 200) + `"}}`)
		w.Event(mcp.FrameEvent{Frame: &mcp.Frame{Seq: int64(i + 1), Time: time.Now(), Dir: mcp.Inbound, Raw: raw, Kind: mcp.KindNotification, Method: "notifications/message"}})
	}
}

// A recording whose disk fills up says so: Close reports the write that
// failed, OnFail is told once when it happens, and what reached the disk
// reads back as the entries before it, the file said to be cut.
func TestWriterReportsAFullDisk(t *testing.T) {
	d := &fullDisk{room: 100 << 10}
	w := NewWriter(d, Session{Target: "x"})
	var told atomic.Int32
	var first error
	w.OnFail(func(err error) {
		if told.Add(1) == 1 {
			first = err
		}
	})
	manyFrames(w, 2000) // about 600 KiB
	if w.Err() == nil {
		t.Fatal("Err is nil after writes past the disk's room")
	}
	err := w.Close()
	if err == nil {
		t.Fatal("Close reported no error for a recording the disk could not hold")
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("Close's error = %v; want one that wraps ENOSPC and says the file is incomplete", err)
	}
	if n := told.Load(); n != 1 || first == nil || !errors.Is(first, syscall.ENOSPC) {
		t.Errorf("OnFail told %d times (first: %v); want once, with the write's error", n, first)
	}
	if !d.closed {
		t.Error("the file was not closed after the failure")
	}
	sf, rerr := ReadEvents(bytes.NewReader(d.buf.Bytes()), false)
	if rerr != nil {
		t.Fatalf("the cut file does not read: %v", rerr)
	}
	if sf.Cut == nil {
		t.Fatal("the cut file is not said to be cut")
	}
	lines := bytes.Count(d.buf.Bytes(), []byte("\n"))
	if sf.Cut.Lines != lines || len(sf.Events) != lines-1 {
		t.Errorf("read %d events, cut after %d lines; the file has %d whole lines (a header and %d frames)",
			len(sf.Events), sf.Cut.Lines, lines, lines-1)
	}
}

// /dev/full fails every write with ENOSPC, as a full disk does: the
// writer's errors surface with no root and no mount.
func TestWriterOnDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system (TestWriterReportsAFullDisk covers the same with an injected writer)")
	}
	w, err := Create("/dev/full", Session{Target: "x"})
	if err != nil {
		t.Fatal(err)
	}
	manyFrames(w, 10)
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close on /dev/full = %v; want ENOSPC", err)
	}
}

// failingClose takes every write and fails its close, as NFS may.
type failingClose struct{ bytes.Buffer }

func (*failingClose) Close() error { return errors.New("close: stale file handle") }

func TestWriterReportsAFailedClose(t *testing.T) {
	w := NewWriter(&failingClose{}, Session{Target: "x"})
	manyFrames(w, 3)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "stale file handle") {
		t.Fatalf("Close = %v; want the close's error", err)
	}
}

func TestReadEventsKeepsWhatParsesOfACutFile(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(nopCloser{&buf}, Session{Target: "x"})
	manyFrames(w, 3)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	whole := buf.String()
	lastStart := strings.LastIndex(strings.TrimSuffix(whole, "\n"), "\n") + 1

	t.Run("last line cut", func(t *testing.T) {
		cut := whole[:lastStart+40]
		sf, err := ReadEvents(strings.NewReader(cut), false)
		if err != nil {
			t.Fatal(err)
		}
		if sf.Cut == nil || sf.Cut.Lines != 3 || sf.Cut.Bytes != 40 || len(sf.Events) != 2 {
			t.Fatalf("cut = %+v, %d events; want cut after 3 lines (40 bytes), 2 events", sf.Cut, len(sf.Events))
		}
		if !strings.Contains(sf.Cut.Error(), "ends mid-line after 3 lines") {
			t.Errorf("note = %q", sf.Cut.Error())
		}
	})
	t.Run("whole file", func(t *testing.T) {
		sf, err := ReadEvents(strings.NewReader(whole), false)
		if err != nil || sf.Cut != nil || len(sf.Events) != 3 {
			t.Fatalf("err %v, cut %v, %d events", err, sf.Cut, len(sf.Events))
		}
	})
	t.Run("last line without its newline but whole", func(t *testing.T) {
		sf, err := ReadEvents(strings.NewReader(strings.TrimSuffix(whole, "\n")), false)
		if err != nil || sf.Cut != nil || len(sf.Events) != 3 {
			t.Fatalf("err %v, cut %v, %d events", err, sf.Cut, len(sf.Events))
		}
	})
	t.Run("a broken line before the last is an error", func(t *testing.T) {
		lines := strings.SplitAfter(whole, "\n")
		lines[2] = lines[2][:30] + "\n"
		_, err := ReadEvents(strings.NewReader(strings.Join(lines, "")), false)
		if err == nil || !strings.Contains(err.Error(), "line 3") {
			t.Fatalf("err = %v; want an error naming line 3", err)
		}
	})
	t.Run("cut within the header", func(t *testing.T) {
		_, err := ReadEvents(strings.NewReader(whole[:20]), false)
		if err == nil || !strings.Contains(err.Error(), "not an mcpscope session file") {
			t.Fatalf("err = %v; want not a session file", err)
		}
	})
}

// The follower (open, a tap's viewer) reaches the cut at the end of a
// file that no longer grows, after every complete entry.
func TestFollowerSaysACutFileIsCut(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(nopCloser{&buf}, Session{Target: "x"})
	manyFrames(w, 2)
	_ = w.Close()
	b := buf.Bytes()
	path := t.TempDir() + "/cut.jsonl"
	if err := os.WriteFile(path, b[:len(b)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	fl, err := OpenFollower(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fl.Close() }()
	n := 0
	for {
		_, err := fl.Next(t.Context(), false)
		var cut *CutError
		if errors.As(err, &cut) {
			if n != 2 || cut.Lines != 2 {
				t.Fatalf("cut after %d entries (%d lines); want 2", n, cut.Lines)
			}
			return
		}
		if errors.Is(err, io.EOF) {
			t.Fatal("the end of a cut file was taken for a whole one")
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// slowClose takes every write and closes slowly, as a disk with much to
// write back syncs.
type slowClose struct {
	bytes.Buffer
	closed chan struct{}
}

func (s *slowClose) Close() error { time.Sleep(syncBudget + time.Second); close(s.closed); return nil }

// A slow final sync does not hold up the command's exit past the
// budget; the file is still closed (by the system's writeback, later).
func TestWriterCloseWaitsForTheSyncAtMostItsBudget(t *testing.T) {
	s := &slowClose{closed: make(chan struct{})}
	w := NewWriter(s, Session{Target: "x"})
	manyFrames(w, 3)
	start := time.Now()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.closed:
		t.Errorf("Close waited %v, for the whole slow close; want the sync budget, %v", time.Since(start), syncBudget)
	default:
	}
	if d := time.Since(start); d < syncBudget {
		t.Errorf("Close gave up on the sync after %v; want the budget, %v", d, syncBudget)
	}
	<-s.closed
}
