package tap

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// liveTap is a tap running in the test with a client that stays connected.
type liveTap struct {
	in     *io.PipeWriter
	stdout syncBuffer
	done   chan *Outcome
	mu     sync.Mutex
	frames []*mcp.Frame
}

func startLiveTap(t *testing.T, o StdioOptions) *liveTap {
	t.Helper()
	inR, inW := io.Pipe()
	lt := &liveTap{in: inW, done: make(chan *Outcome, 1)}
	o.Stdin, o.Stdout, o.Stderr = inR, &lt.stdout, io.Discard
	o.onFrame = func(f *mcp.Frame) { lt.mu.Lock(); lt.frames = append(lt.frames, f); lt.mu.Unlock() }
	go func() {
		out, _ := RunStdio(context.Background(), o)
		lt.done <- out
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return lt
}

func (lt *liveTap) say(s string) { _, _ = io.WriteString(lt.in, s) }

func (lt *liveTap) waitLines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(lt.stdout.String(), "\n") < n {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %d lines from the server; have %q", n, lt.stdout.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (lt *liveTap) end(t *testing.T) *Outcome {
	t.Helper()
	_ = lt.in.Close()
	select {
	case out := <-lt.done:
		return out
	case <-time.After(10 * time.Second):
		t.Fatal("the tap did not end")
	}
	return nil
}

func listLive(t *testing.T, n int) []Listed {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		taps, err := List()
		if err != nil {
			t.Fatal(err)
		}
		var live []Listed
		for _, l := range taps {
			if l.Live {
				live = append(live, l)
			}
		}
		if len(live) == n {
			return live
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d live taps, have %+v", n, taps)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A viewer that attaches mid-conversation sees every frame from the
// first, in order, then the rest live; the stream ends with the tap. Two
// taps at once are listed apart.
func TestViewerAttachingLateSeesEverythingInOrder(t *testing.T) {
	privateDirs(t)
	name, args := demoCmd()
	a := startLiveTap(t, StdioOptions{Name: "alpha", Command: name, Args: args})
	b := startLiveTap(t, StdioOptions{Name: "beta", Command: name, Args: args})
	for _, lt := range []*liveTap{a, b} {
		lt.say(clientScript[0] + clientScript[1] + clientScript[2])
	}
	a.waitLines(t, 2)
	b.waitLines(t, 2)

	live := listLive(t, 2)
	var alpha Listed
	for _, l := range live {
		if l.Name == "alpha" {
			alpha = l
		}
		fi, err := os.Stat(l.Socket)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("socket %s: %v %v", l.Socket, fi, err)
		}
		di, _ := os.Stat(filepath.Dir(l.Socket))
		if di.Mode().Perm() != 0o700 {
			t.Errorf("hub directory mode %v", di.Mode().Perm())
		}
	}
	if alpha.Name == "" || live[0].File == live[1].File || live[0].ID == live[1].ID {
		t.Fatalf("the two taps are not kept apart: %+v", live)
	}

	src := NewSource(alpha)
	var evs []mcp.Event
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for ev := range src.Events() {
			evs = append(evs, ev)
		}
	}()
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Ping(); err == nil || !strings.Contains(err.Error(), "watched through a tap") {
		t.Errorf("a send on a tap says %v", err)
	}
	a.say(clientScript[3])
	a.waitLines(t, 3)
	b.end(t)
	a.end(t)
	select {
	case <-collected:
	case <-time.After(10 * time.Second):
		t.Fatal("the viewer's stream did not end with the tap")
	}

	var seen []*mcp.Frame
	var hs *mcp.Handshake
	var tools []byte
	for _, ev := range evs {
		switch ev := ev.(type) {
		case mcp.FrameEvent:
			seen = append(seen, ev.Frame)
		case mcp.HandshakeEvent:
			hs = ev.Handshake
		case mcp.ListEvent:
			if ev.Method == mcp.MethodToolsList {
				tools = bytes.Join(func() [][]byte {
					var out [][]byte
					for _, it := range ev.Items {
						out = append(out, it)
					}
					return out
				}(), []byte(","))
			}
		}
	}
	a.mu.Lock()
	want := a.frames
	a.mu.Unlock()
	if len(seen) != len(want) || len(want) < 6 {
		t.Fatalf("the viewer saw %d frames, the tap recorded %d", len(seen), len(want))
	}
	for i := range want {
		if seen[i].Seq != want[i].Seq || !bytes.Equal(seen[i].Raw, want[i].Raw) || seen[i].Dir != want[i].Dir {
			t.Fatalf("frame %d: viewer %d %q, tap %d %q", i, seen[i].Seq, seen[i].Raw, want[i].Seq, want[i].Raw)
		}
	}
	if hs == nil || hs.ClientInfo.Name != "claude-ai" || hs.ServerInfo.Name == "" || hs.ProtocolVersion == "" {
		t.Fatalf("handshake %+v", hs)
	}
	if !bytes.Contains(tools, []byte(`"echo"`)) {
		t.Errorf("the tools the client was given are not rebuilt: %s", tools)
	}
	if n := src.TransportName(); !strings.Contains(n, "claude-ai") || !strings.Contains(n, "claude profile") {
		t.Errorf("the header says %q, want the client and its profile", n)
	}
	var _ session.Source = src
}

// A viewer that attaches and never reads, then is killed with SIGKILL in
// the middle of a flood, changes nothing for the client: same bytes as a
// direct run, and the tap ends normally.
func TestStuckAndKilledViewerChangeNothing(t *testing.T) {
	privateDirs(t)
	const n = 20000
	t.Setenv(floodEnv, "20000")
	want, _ := direct(t, []string{"go\n"}, os.Args[0])
	if c := bytes.Count(want, []byte("\n")); c != n {
		t.Fatalf("the direct run gave %d lines", c)
	}
	lt := startLiveTap(t, StdioOptions{Name: "flood", Command: os.Args[0]})
	l := listLive(t, 1)[0]
	viewer := exec.Command(os.Args[0])
	viewer.Env = append(os.Environ(), stuckViewerEnv+"="+l.Socket)
	vout, _ := viewer.StdoutPipe()
	if err := viewer.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := io.ReadAll(io.LimitReader(vout, 9)); string(line) != "attached\n" {
		t.Fatalf("the viewer says %q", line)
	}
	lt.say("go\n")
	lt.waitLines(t, n/4)
	_ = viewer.Process.Signal(syscall.SIGKILL)
	_ = viewer.Wait()
	lt.waitLines(t, n)
	out := lt.end(t)
	if got := []byte(lt.stdout.String()); !bytes.Equal(got, want) {
		t.Fatalf("the client got %d bytes through the tap, %d direct", len(got), len(want))
	}
	if out.Code != 0 {
		t.Errorf("exit %d", out.Code)
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if len(lt.frames) != n+1 {
		t.Errorf("recorded %d frames, want %d", len(lt.frames), n+1)
	}
}
