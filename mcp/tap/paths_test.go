package tap

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// tapProcess is the tap as a client starts it: its own process, with the
// environment the client chose, an echo server behind it.
type tapProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startTapProcess(t *testing.T, env []string) *tapProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "env", echoEnv+"=1", os.Args[0])
	cmd.Env = append(env, asTapEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tp := &tapProcess{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return tp
}

// say writes a line and waits for the echo server to send it back.
func (tp *tapProcess) say(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(tp.in, line); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.out.ReadString('\n'); err != nil {
		t.Fatalf("the echo through the tap: %v", err)
	}
}

// waitListed waits until List shows the tap "bench" in the state wanted.
func waitListed(t *testing.T, live bool) Listed {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		taps, err := List()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range taps {
			if l.Name == "bench" && l.Live == live {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tap \"bench\" listed with Live=%v: %+v", live, taps)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// collect gathers a source's events until the stream ends.
type collected struct {
	evs  chan mcp.Event
	done chan []mcp.Event
}

func collect(t *testing.T, src *Source) *collected {
	t.Helper()
	c := &collected{evs: make(chan mcp.Event, 1024), done: make(chan []mcp.Event, 1)}
	go func() {
		var all []mcp.Event
		for ev := range src.Events() {
			all = append(all, ev)
			select {
			case c.evs <- ev:
			default:
			}
		}
		close(c.evs)
		c.done <- all
	}()
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return c
}

// waitFrame waits for a frame whose method is method.
func (c *collected) waitFrame(t *testing.T, method string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-c.evs:
			if !ok {
				t.Fatalf("the stream ended before a %s frame: a frozen snapshot", method)
			}
			if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Method == method {
				return
			}
		case <-timeout:
			t.Fatalf("no %s frame reached the viewer", method)
		}
	}
}

func (c *collected) end(t *testing.T) []mcp.Event {
	t.Helper()
	select {
	case all := <-c.done:
		return all
	case <-time.After(15 * time.Second):
		t.Fatal("the viewer's stream did not end")
	}
	return nil
}

func lastState(evs []mcp.Event) mcp.StateEvent {
	var st mcp.StateEvent
	for _, ev := range evs {
		if s, ok := ev.(mcp.StateEvent); ok {
			st = s
		}
	}
	return st
}

// A client chooses its servers' environment: the TypeScript SDK passes
// HOME, LOGNAME, PATH, SHELL, TERM and USER; Claude Code everything,
// XDG_* included. Whatever the tap was given, the viewer, whose own XDG_*
// point elsewhere, lists it live while its process runs, follows it (what
// the client says after the viewer opened it arrives), and lists it as a
// capture once it has ended.
func TestTapFoundWhateverEnvironmentTheClientGaveIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(home string) []string
	}{
		{"sdk environment", func(home string) []string {
			return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LOGNAME=u", "USER=u", "SHELL=/bin/sh", "TERM=dumb"}
		}},
		{"its own XDG variables", func(home string) []string {
			rt, err := os.MkdirTemp("", "tapx")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(rt) })
			return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"),
				"XDG_STATE_HOME=" + filepath.Join(t.TempDir(), "client-state"), "XDG_RUNTIME_DIR=" + rt}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := privateDirs(t)
			tp := startTapProcess(t, tc.env(os.Getenv("HOME")))
			tp.say(t, clientScript[0])

			l := waitListed(t, true)
			if filepath.Dir(l.File) != state || !l.Running() {
				t.Fatalf("listed %+v (running %v), want a live capture in %s", l, l.Running(), state)
			}
			c := collect(t, NewSource(l))
			c.waitFrame(t, mcp.MethodInitialize)
			tp.say(t, clientScript[2])
			c.waitFrame(t, mcp.MethodToolsList)

			_ = tp.in.Close()
			if err := tp.cmd.Wait(); err != nil {
				t.Fatalf("the tap: %v", err)
			}
			if st := lastState(c.end(t)); st.State != mcp.StateClosed {
				t.Errorf("the stream ended on %+v, want the record's closed state", st)
			}
			ended := waitListed(t, false)
			if ended.File != l.File {
				t.Errorf("the capture is listed as %s, was %s", ended.File, l.File)
			}
			if _, err := os.Stat(livePath(l.File)); !os.IsNotExist(err) {
				t.Errorf("the live file is still there: %v", err)
			}
		})
	}
}

// A live tap without a socket (--no-live, or a hub that could not start)
// is still live, and the viewer follows its file.
func TestViewerFollowsALiveTapWithoutASocket(t *testing.T) {
	privateDirs(t)
	name, args := demoCmd()
	lt := startLiveTap(t, StdioOptions{Name: "nosock", Command: name, Args: args, Recording: Recording{NoHub: true}})
	lt.say(clientScript[0])
	lt.waitLines(t, 1)
	l := listLive(t, 1)[0]
	if l.Socket != "" {
		t.Fatalf("a tap without a hub lists a socket: %+v", l)
	}
	c := collect(t, NewSource(l))
	c.waitFrame(t, mcp.MethodInitialize)
	lt.say(clientScript[1] + clientScript[2])
	lt.waitLines(t, 2)
	c.waitFrame(t, mcp.MethodToolsList)
	lt.end(t)
	if st := lastState(c.end(t)); st.State != mcp.StateClosed {
		t.Errorf("the stream ended on %+v", st)
	}
}

// A tap killed outright leaves its live file behind, unlocked: it is
// listed as a capture (and the live file removed), and a viewer says the
// record stops without an end instead of showing it as still going.
func TestKilledTapIsListedAsEnded(t *testing.T) {
	privateDirs(t)
	tp := startTapProcess(t, []string{"HOME=" + os.Getenv("HOME"), "PATH=" + os.Getenv("PATH")})
	tp.say(t, clientScript[0])
	l := waitListed(t, true)
	_ = tp.cmd.Process.Signal(syscall.SIGKILL)
	_ = tp.cmd.Wait()
	ended := waitListed(t, false)
	if _, err := os.Stat(livePath(l.File)); !os.IsNotExist(err) {
		t.Errorf("the dead tap's live file is still there: %v", err)
	}
	if ended.Running() {
		t.Error("a killed tap still counts as running")
	}
	c := collect(t, NewSource(ended))
	st := lastState(c.end(t))
	if st.State != mcp.StateFailed || !strings.Contains(st.Detail, "no longer running") {
		t.Errorf("the stream of a killed tap ended on %+v", st)
	}
	// Dated when the record stopped, not when someone looked.
	if fi, err := os.Stat(ended.File); err != nil || !st.Time.Equal(fi.ModTime()) {
		t.Errorf("the end is dated %v, the file was last written %v", st.Time, fi.ModTime())
	}
}
