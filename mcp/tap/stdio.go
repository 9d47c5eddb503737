package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/child"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// StdioOptions configure a stdio tap: what a client's config runs instead
// of the server's command.
type StdioOptions struct {
	// Name labels the tap in `mcpscope taps` (the server's name in the
	// client's config); the command's base name when empty.
	Name    string
	Command string
	Args    []string
	// The client's side; os.Stdin, os.Stdout and os.Stderr when nil.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Signals are forwarded to the server's process group as they come.
	Signals <-chan os.Signal
	// Grace is how long the tap waits, after the client closed stdin and
	// the tap closed the server's, before SIGTERM; TermGrace how long after
	// SIGTERM before SIGKILL. Two seconds each when zero.
	Grace, TermGrace time.Duration
	Recording
	// Reload, when set, restarts the server when the watched files change
	// while the client stays connected (tap --watch; reload.go).
	Reload *ReloadOptions
	// onFrame sees every recorded frame (tests).
	onFrame func(*mcp.Frame)
	// passOn, when set, sends the client's signals on instead of
	// signalGroup (tests).
	passOn func(*exec.Cmd, os.Signal)
}

// Outcome is how the tapped server ended.
type Outcome struct {
	// Code is the server's exit status (-1 when it was killed by a signal).
	Code int
	// Signal is the signal that killed it, if one did.
	Signal os.Signal
	// StartErr is set when the server could not be started; Code is then
	// what a shell would exit with (127 not found, 126 not executable).
	StartErr error
	// File is the session file ("" when recording failed).
	File string
}

// copyBuf is the size of one read on either side: a message that fits is
// passed on in one write.
const copyBuf = 64 << 10

// RunStdio starts the server and copies the client's stdin to it and its
// stdout to the client, byte for byte, until the server ends. When the
// client closes stdin, the server is shut down in the spec's order: its
// stdin closed, then SIGTERM, then SIGKILL.
func RunStdio(ctx context.Context, o StdioOptions) (*Outcome, error) {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Warn == nil {
		o.Warn = func(s string) { _, _ = fmt.Fprintln(o.Stderr, "mcpscope tap: "+s) }
	}
	for _, d := range []*time.Duration{&o.Grace, &o.TermGrace} {
		if *d <= 0 {
			*d = 2 * time.Second
		}
	}
	if o.Reload != nil {
		return runReloading(ctx, o)
	}
	info := &Info{Name: o.Name, Transport: "stdio", Command: append([]string{o.Command}, o.Args...)}
	cap := startCapture(info, os.Environ(), o.Recording)
	cap.rec.onFrame = o.onFrame
	out := &Outcome{File: info.File}

	cmd, stdin, stdout, stderr, err := startServer(o.Command, o.Args)
	if err != nil {
		out.StartErr, out.Code = err, startFailureCode(err)
		o.Warn(err.Error())
		cap.rec.push(chunk{kind: chunkEvent, ev: mcp.ExitEvent{Time: time.Now(), Exit: &mcp.ExitError{Code: out.Code, Err: err}}})
		cap.rec.push(chunk{kind: chunkEvent, ev: mcp.StateEvent{Time: time.Now(), State: mcp.StateFailed, Detail: err.Error()}})
		cap.close()
		return out, nil
	}
	ignoreSIGPIPE()
	t := &stdioTap{o: o, cmd: cmd, rec: cap.rec, exited: make(chan struct{}), clientGone: make(chan struct{})}
	var copiers sync.WaitGroup
	copiers.Add(2)
	go func() { defer copiers.Done(); t.copyOut(stdout) }()
	go func() { defer copiers.Done(); t.copyStderr(stderr) }()
	go t.copyIn(stdin)
	go t.forward(ctx)

	waitErr := cmd.Wait()
	close(t.exited)
	// The server is gone; what it wrote is drained (a grandchild holding
	// the pipes open gets a moment, not forever).
	drained := make(chan struct{})
	go func() { copiers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(500 * time.Millisecond):
		_ = stdout.Close()
		_ = stderr.Close()
	}
	signalGroup(cmd, sigKill) // whatever the server left behind
	child.Ended(cmd)

	exit, sig := exitOf(waitErr)
	out.Signal = sig
	t.mu.Lock()
	exit.Forced, exit.Expected, exit.ClientSignal = t.forced, t.stopping, t.clientSignal
	t.mu.Unlock()
	out.Code = exit.Code
	// The recorder adds the stderr lines the server wrote last, and the
	// state that follows.
	cap.rec.push(chunk{kind: chunkExit, ev: mcp.ExitEvent{Time: time.Now(), Exit: exit}})
	cap.close()
	return out, nil
}

func startServer(command string, args []string) (*exec.Cmd, io.WriteCloser, *os.File, *os.File, error) {
	if command == "" {
		return nil, nil, nil, nil, errors.New("no server command given (mcpscope tap -- CMD ARGS...)")
	}
	path, err := exec.LookPath(command)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("cannot start %s: %w", command, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Args[0] = command
	setProcessGroup(cmd)
	// Pipes we own: Wait then never closes our read ends, so the exit
	// status is collected while output still drains.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("cannot start %s: %w", command, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW)
		return nil, nil, nil, nil, fmt.Errorf("cannot start %s: %w", command, err)
	}
	widenPipe(outR, serverPipeSize)
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW, outR, outW)
		return nil, nil, nil, nil, fmt.Errorf("cannot start %s: %w", command, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := child.Start(cmd); err != nil {
		closeFiles(inR, inW, outR, outW, errR, errW)
		return nil, nil, nil, nil, fmt.Errorf("cannot start %s: %w", command, err)
	}
	closeFiles(inR, outW, errW)
	return cmd, inW, outR, errR, nil
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// startFailureCode is what a shell exits with when it cannot run a command.
func startFailureCode(err error) int {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return 127
	}
	return 126
}

type stdioTap struct {
	o   StdioOptions
	cmd *exec.Cmd
	rec *recorder

	exited     chan struct{}
	clientGone chan struct{}
	goneOnce   sync.Once

	mu       sync.Mutex
	stopping bool   // the client closed stdin (or went away)
	forced   string // the signal the shutdown had to send
	// clientSignal is the first signal the client sent the tap (passed on).
	clientSignal string
}

// copyIn copies the client's stdin to the server. When the client closes
// it, the server's stdin is closed and the shutdown begins.
func (t *stdioTap) copyIn(w io.WriteCloser) {
	buf := make([]byte, copyBuf)
	broken := false
	for {
		n, err := t.o.Stdin.Read(buf)
		if n > 0 {
			// Queued before it is passed on: the answer it causes must
			// come after it in the record.
			t.rec.data(mcp.Outbound, buf[:n], time.Now())
			if !broken {
				if _, werr := w.Write(buf[:n]); werr != nil {
					broken = true // the server stopped reading; it is ending
				}
			}
		}
		if err != nil {
			t.rec.push(chunk{kind: chunkEOF, dir: mcp.Outbound, at: time.Now()})
			_ = w.Close()
			t.shutdown()
			return
		}
	}
}

// copyOut copies the server's stdout to the client.
func (t *stdioTap) copyOut(r *os.File) {
	defer func() { _ = r.Close() }()
	buf := make([]byte, copyBuf)
	broken := false
	for {
		n, err := r.Read(buf)
		if n > 0 {
			t.rec.data(mcp.Inbound, buf[:n], time.Now())
			if !broken {
				if _, werr := t.o.Stdout.Write(buf[:n]); werr != nil {
					// The client went away without closing stdin first:
					// shut the server down as if it had.
					broken = true
					go t.shutdown()
				}
			}
		}
		if err != nil {
			t.rec.push(chunk{kind: chunkEOF, dir: mcp.Inbound, at: time.Now()})
			if c, ok := t.o.Stdout.(io.Closer); ok && t.o.Stdout != os.Stdout {
				_ = c.Close()
			}
			return
		}
	}
}

// copyStderr passes the server's stderr through and records its lines.
func (t *stdioTap) copyStderr(r *os.File) { copyStderr(r, t.o.Stderr, t.rec) }

// copyStderr passes a server's stderr to w and records it.
func copyStderr(r *os.File, w io.Writer, rec *recorder) {
	defer func() { _ = r.Close() }()
	buf := make([]byte, 16<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			rec.push(chunk{kind: chunkStderr, data: append([]byte(nil), buf[:n]...), at: time.Now()})
		}
		if err != nil {
			return
		}
	}
}

// exitOf is how a server ended, from its Wait's error, and the signal
// that killed it (nil when none did).
func exitOf(waitErr error) (*mcp.ExitError, os.Signal) {
	exit := &mcp.ExitError{Code: -1}
	var sig os.Signal
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
		exit.Code = 0
	case errors.As(waitErr, &ee):
		exit.Code = ee.ExitCode()
		if sig = exitSignal(ee.ProcessState); sig != nil {
			exit.Signal = signalName(sig)
		}
	default:
		exit.Err = waitErr
	}
	return exit, sig
}

// shutdown follows the spec's order once the server's stdin is closed:
// wait, SIGTERM, wait, SIGKILL.
func (t *stdioTap) shutdown() {
	t.goneOnce.Do(func() {
		t.mu.Lock()
		t.stopping = true
		t.mu.Unlock()
		for i, sig := range []os.Signal{sigTerm, sigKill} {
			grace := t.o.Grace
			if i == 1 {
				grace = t.o.TermGrace
			}
			timer := time.NewTimer(grace)
			select {
			case <-t.exited:
				timer.Stop()
				return
			case <-timer.C:
			}
			t.mu.Lock()
			t.forced = signalName(sig)
			t.mu.Unlock()
			signalGroup(t.cmd, sig)
		}
	})
}

// forward passes the signals the tap gets on to the server's group.
func (t *stdioTap) forward(ctx context.Context) {
	if t.o.Signals == nil {
		return
	}
	for {
		select {
		case sig := <-t.o.Signals:
			name := signalName(sig)
			t.mu.Lock()
			if t.clientSignal == "" {
				t.clientSignal = name
			}
			t.mu.Unlock()
			// Written and flushed here, before it is passed on and ahead
			// of what the recorder has queued: a client may send SIGKILL
			// right after (Copilot CLI does), and this row is then all
			// that says how the conversation ended.
			t.rec.w.Event(mcp.TransportEvent{Time: time.Now(), Kind: record.TransportClientSignal,
				Summary: "the tap got " + name + " (from its client: some clients close a server this way) and passed it on to the server"})
			_ = t.rec.w.Flush()
			if t.o.passOn != nil {
				t.o.passOn(t.cmd, sig)
			} else {
				signalGroup(t.cmd, sig)
			}
		case <-t.exited:
			return
		case <-ctx.Done():
			return
		}
	}
}
