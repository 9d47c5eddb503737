package tap

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// diskFillsAfterHeader takes the capture's first write (its header, which
// startCapture flushes alone) and room bytes more, writes what fits of
// the write that crosses that, and fails every write from there as a
// full disk does.
type diskFillsAfterHeader struct {
	f     io.WriteCloser
	room  int
	wrote int
	first bool
}

func (d *diskFillsAfterHeader) Write(p []byte) (int, error) {
	if !d.first {
		d.first = true
		return d.f.Write(p)
	}
	n := min(len(p), d.room-d.wrote)
	if n > 0 {
		if _, err := d.f.Write(p[:n]); err != nil {
			return 0, err
		}
		d.wrote += n
	}
	if n < len(p) {
		return n, &os.PathError{Op: "write", Path: "capture.jsonl", Err: syscall.ENOSPC}
	}
	return n, nil
}

func (d *diskFillsAfterHeader) Close() error { return d.f.Close() }

// A capture whose disk fills up mid-conversation: the client still gets
// every byte the server wrote (as without a tap), the tap says so on
// stderr, and the capture is marked cut with the reason, for `taps
// --list` and the viewer alike. Before, the capture stopped at 4,096
// bytes and was listed as an ordinary ended one.
func TestStdioTapGoesOnWhenTheCaptureCannotBeWritten(t *testing.T) {
	dir := privateDirs(t)
	name, args := demoCmd()
	want, code := direct(t, clientScript, name, args...)
	r := throughTap(t, StdioOptions{Name: "demo", Command: name, Args: args, Recording: Recording{
		wrapFile: func(f io.WriteCloser) io.WriteCloser { return &diskFillsAfterHeader{f: f, room: 600} },
	}}, clientScript)
	if got := []byte(r.stdout.String()); !bytes.Equal(got, want) || r.out.Code != code {
		t.Fatalf("the client got other bytes (or exit %d, want %d) through a tap whose capture failed:\n tap %q\n direct %q", r.out.Code, code, got, want)
	}
	if !strings.Contains(r.stderr.String(), "no space left on device") || !strings.Contains(r.stderr.String(), "unrecorded") {
		t.Errorf("the tap's stderr does not say the capture stopped: %q", r.stderr.String())
	}
	checkCutCapture(t, dir, r.out.File, "no space left on device")
}

// checkCutCapture checks that the ended capture at file is marked cut
// with reason: its cut mark, the list, the file read to its last whole
// line, and the viewer's last row.
func checkCutCapture(t *testing.T, dir, file, reason string) {
	t.Helper()
	if _, err := os.Stat(cutPath(file)); err != nil {
		t.Errorf("no cut mark beside the capture: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*"+liveSuffix)); len(m) != 0 {
		t.Errorf("live files left behind: %v", m)
	}
	taps, err := List()
	if err != nil {
		t.Fatal(err)
	}
	var l Listed
	for _, x := range taps {
		if x.File == file {
			l = x
		}
	}
	if l.File == "" || l.Live || !strings.Contains(l.Cut, reason) {
		t.Fatalf("the capture is listed as %+v; want an ended capture whose Cut says %q", l, reason)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := record.ReadEvents(f, true)
	_ = f.Close()
	if err != nil || len(sf.Events) == 0 {
		t.Fatalf("the cut capture does not read: %v (%d events)", err, len(sf.Events))
	}

	src := NewSource(l)
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var last mcp.Event
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case ev, ok := <-src.Events():
			if !ok {
				done = true
				break
			}
			last = ev
		case <-timeout:
			t.Fatal("the viewer's stream did not end")
		}
	}
	st, ok := last.(mcp.StateEvent)
	if !ok || st.State != mcp.StateFailed || !strings.Contains(st.Detail, "incomplete") || !strings.Contains(st.Detail, reason) {
		t.Errorf("the viewer's last row is %#v; want a failed state saying the capture is incomplete and why", last)
	}
}

// The same on a real full file system: the taps directory is a 64 KiB
// tmpfs, nearly full before the tap starts.
func TestStdioTapOnAFullTmpfs(t *testing.T) {
	if os.Getenv("MCPSCOPE_TMPFS_TESTS") == "" {
		t.Skip("MCPSCOPE_TMPFS_TESTS is not set (.ci/run sets it; the test mounts a tmpfs, as root on Linux)")
	}
	if runtime.GOOS != "linux" {
		t.Fatal("MCPSCOPE_TMPFS_TESTS is set but tmpfs mounts are Linux's")
	}
	dir := privateDirs(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("MCPSCOPE_TMPFS_TESTS is set but a tmpfs cannot be mounted on %s: %v\n%s", dir, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	name, args := demoCmd()
	want, _ := direct(t, clientScript, name, args...)
	// Room for the live file and the header: the environment's names make
	// the header a few KiB; the tools list does not fit after it.
	fill := 64<<10 - 8<<10 - 4<<10
	if err := os.WriteFile(filepath.Join(dir, "fill"), make([]byte, fill), 0o600); err != nil {
		t.Fatal(err)
	}
	r := throughTap(t, StdioOptions{Name: "demo", Command: name, Args: args, Recording: Recording{NoHub: true}}, clientScript)
	if got := []byte(r.stdout.String()); !bytes.Equal(got, want) {
		t.Fatalf("the client got other bytes through a tap on a full disk:\n tap %q\n direct %q", got, want)
	}
	if !strings.Contains(r.stderr.String(), "no space left on device") {
		t.Fatalf("the tap's stderr does not say the disk is full: %q", r.stderr.String())
	}
	checkCutCapture(t, dir, r.out.File, "no space left on device")
}

// While the tap still runs, its capture is listed live and cut, and a
// viewer attached to it is told why nothing more arrives; the client
// goes on being answered.
func TestLiveTapWithACutCaptureSaysSo(t *testing.T) {
	privateDirs(t)
	name, args := demoCmd()
	lt := startLiveTap(t, StdioOptions{Name: "demo", Command: name, Args: args, Recording: Recording{
		wrapFile: func(f io.WriteCloser) io.WriteCloser { return &diskFillsAfterHeader{f: f, room: 600} },
	}})
	lt.say(clientScript[0] + clientScript[1] + clientScript[2])
	lt.waitLines(t, 2)
	var l Listed
	deadline := time.Now().Add(10 * time.Second)
	for l.Cut == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the live tap is never listed cut: %+v", l)
		}
		l = listLive(t, 1)[0]
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(l.Cut, "no space left on device") {
		t.Errorf("Cut = %q", l.Cut)
	}
	src := NewSource(l)
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-src.Events():
			if te, ok := ev.(mcp.TransportEvent); ok && strings.Contains(te.Summary, "the capture stops here") && te.Err != nil {
				lt.say(clientScript[3])
				lt.waitLines(t, 3) // still answered through the tap
				lt.end(t)
				return
			}
		case <-timeout:
			t.Fatal("the viewer of the live tap was not told that its capture stopped")
		}
	}
}
