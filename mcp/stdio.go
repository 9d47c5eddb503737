package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/mcpscope/mcpscope/mcp/lib/child"
	"github.com/mcpscope/mcpscope/mcp/lib/errline"
)

// StdioTransport runs a server as a child process and speaks
// newline-delimited JSON over its stdin and stdout (spec §3.1). stderr is
// read line by line and reported; it is logging, not an error signal.
type StdioTransport struct {
	Command string
	Args    []string
	Env     []string // extra KEY=VALUE entries, added to mcpscope's environment
	Dir     string   // working directory; empty means mcpscope's

	// Grace is how long Close waits after closing stdin before sending
	// SIGTERM. Zero means 2 seconds.
	Grace time.Duration
	// TermGrace is how long Close waits after SIGTERM before SIGKILL. Zero
	// means 2 seconds.
	TermGrace time.Duration
	// MaxLine caps one stdout line; a longer line is cut and reported as
	// such. Zero means 256 MiB.
	MaxLine int
	// KeepLongLines reads each stdout line over 1 MiB into memory mapped
	// outside the Go heap, where it stays for as long as the program
	// runs: it is held once, never copied on its way in, and the
	// collector neither scans it nor lets the heap grow by its size. For
	// a program that keeps every frame anyway (the TUI's log); any other
	// gets each line in a heap buffer it can let go of.
	KeepLongLines bool
}

// stderrTail is how many of the last stderr lines an ExitError carries.
const stderrTail = 12

// Name is the short name frames carry: "stdio".
func (t *StdioTransport) Name() string { return "stdio" }

// Start spawns the process in its own process group.
func (t *StdioTransport) Start(ctx context.Context, sink Sink) (Conn, error) {
	path, err := lookCommand(t.Command)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, t.Args...)
	cmd.Args[0] = t.Command
	cmd.Dir = t.Dir
	cmd.Env = append(os.Environ(), t.Env...)
	setProcessGroup(cmd)

	// Pipes we own, not cmd.StdoutPipe: Wait then never closes our read
	// ends, so the exit status can be collected while output still drains.
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: %w", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, fmt.Errorf("stdio: %w", err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, fmt.Errorf("stdio: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	if err := child.Start(cmd); err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW)
		return nil, startError(t.Command, err)
	}
	closeAll(stdinR, stdoutW, stderrW)

	c := &stdioConn{
		t:          t,
		cmd:        cmd,
		stdin:      stdinW,
		sink:       sink,
		stdoutDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
		done:       make(chan struct{}),
		hurry:      make(chan struct{}),
	}
	go c.readStdout(stdoutR)
	go c.readStderr(stderrR)
	go c.wait()
	go c.watch()
	return c, nil
}

// lookCommand resolves the command and turns the usual failures into
// sentences a user can act on.
func lookCommand(name string) (string, error) {
	if name == "" {
		return "", errors.New("no server command given")
	}
	path, err := exec.LookPath(name)
	if err == nil {
		return path, nil
	}
	var execErr *exec.Error
	if errors.As(err, &execErr) && errors.Is(execErr.Err, exec.ErrNotFound) {
		if strings.ContainsRune(name, os.PathSeparator) {
			return "", fmt.Errorf("cannot start %q: no such file", name)
		}
		return "", fmt.Errorf("cannot start %q: command not found in PATH", name)
	}
	if errors.Is(err, os.ErrPermission) || strings.Contains(err.Error(), "permission denied") {
		return "", fmt.Errorf("cannot start %q: not executable (check its permissions: chmod +x)", name)
	}
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("cannot start %q: no such file", name)
	}
	return "", fmt.Errorf("cannot start %q: %w", name, err)
}

func startError(name string, err error) error {
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("cannot start %q: not executable (check its permissions: chmod +x)", name)
	}
	if errors.Is(err, syscall.ENOEXEC) {
		return fmt.Errorf("cannot start %q: not a program this system can run (a script without a #! line?)", name)
	}
	return fmt.Errorf("cannot start %q: %w", name, err)
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

type stdioConn struct {
	t     *StdioTransport
	cmd   *exec.Cmd
	stdin *os.File
	sink  Sink

	stdoutDone chan struct{}
	stderrDone chan struct{}
	exited     chan struct{} // closed when the process has been reaped
	done       chan struct{} // closed after sink.Closed

	mu         sync.Mutex
	stderrLast []string
	// stderrRecent are more of the last lines, each cut to
	// errline.MaxLine, for the exit's ErrorLine.
	stderrRecent []string
	stopping     bool   // Close was called
	forced       string // signal Close had to send
	hurried      bool   // SIGKILL came before SIGTERM had its grace (the caller's deadline)
	closeOnce    sync.Once
	stdinOnce    sync.Once
	hurry        chan struct{} // closed when Close killed the group: stop waiting for output
	hurryOnce    sync.Once
}

// Write writes one line to the server's stdin. ctx is honoured until the
// first byte is written; after that the line is finished, however long the
// server takes to read it, since half a line would corrupt every message
// after it. The client's writer goroutine calls Write, and its callers wait
// with their own deadlines, so a blocked Write holds up nobody's timeout;
// closing the connection closes stdin, which ends it.
func (c *stdioConn) Write(ctx context.Context, raw []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-c.exited:
		return &UnreachableError{Op: "write to server stdin", Err: errors.New("server process has exited")}
	default:
	}
	buf := make([]byte, 0, len(raw)+1)
	buf = append(append(buf, raw...), '\n')
	_, err := c.stdin.Write(buf)
	if err != nil {
		return &UnreachableError{Op: "write to server stdin", Err: fmt.Errorf("write to server stdin: %w", err)}
	}
	return nil
}

func (c *stdioConn) readStdout(r *os.File) {
	defer close(c.stdoutDone)
	defer func() { _ = r.Close() }() // our end of the pipe; nothing was written to it
	max := c.t.MaxLine
	if max <= 0 {
		max = 256 << 20
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, total, err := readLineSized(br, max, c.t.KeepLongLines)
		cut := total > int64(len(line))
		if len(line) > 0 || (err == nil && !cut) {
			problem := ""
			switch {
			case cut:
				problem = CutLineProblem(total, max)
			case err != nil:
				problem = "last line has no trailing newline"
			}
			c.sink.Receive(line, problem, "")
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one newline-terminated line of any length up to max. The
// newline is removed; every other byte is kept. When the line is longer than
// max, the first max bytes are returned with cut set and the rest of the line
// is discarded.
func readLine(br *bufio.Reader, max int) (line []byte, cut bool, err error) {
	line, total, err := readLineSized(br, max, false)
	return line, total > int64(len(line)), err
}

// longLineBytes is the length from which a line is read into a mapping of
// its own (mappedLine) rather than into heap chunks.
const longLineBytes = 1 << 20

// readLineSized is readLine that says how long the whole line was (without
// its newline), so a cut line's row can give its size. With keep, a line
// over longLineBytes stays where it was read, outside the Go heap, for good
// (StdioTransport.KeepLongLines).
func readLineSized(br *bufio.Reader, max int, keep bool) (line []byte, total int64, err error) {
	// A long line arrives as many buffer-sized chunks. Growing one slice
	// by append would copy a 20 MB line about five times over (Go grows
	// big slices by a quarter), and joining the chunks once holds it
	// twice for a moment; past longLineBytes the line goes into a
	// mapping that grows without moving, from which it is kept or copied
	// piece by piece.
	var chunks [][]byte
	var long *mappedLine
	mapped := false // a mapping was tried (it may have failed)
	size := 0
	for {
		chunk, err := br.ReadSlice('\n')
		hasNewline := err == nil
		if hasNewline {
			chunk = chunk[:len(chunk)-1]
		}
		total += int64(len(chunk))
		if room := max - size; len(chunk) > room {
			chunk = chunk[:room]
		}
		if len(chunk) > 0 {
			if !mapped && size+len(chunk) > longLineBytes {
				mapped = true
				if long = newMappedLine(max); long != nil {
					for _, c := range chunks {
						long.write(c)
					}
					chunks = nil
				}
			}
			if long != nil {
				long.write(chunk)
			} else {
				chunks = append(chunks, bytes.Clone(chunk)) // ReadSlice's bytes are only valid until the next read
			}
			size += len(chunk)
		}
		if hasNewline || !errors.Is(err, bufio.ErrBufferFull) {
			switch {
			case long == nil:
				return join(chunks, size), total, err
			case keep:
				return long.kept(), total, err
			}
			return long.copied(), total, err
		}
	}
}

// CutLineProblem is the problem of a stdout line longer than the limit:
// its size, the limit, and how to raise it.
func CutLineProblem(total int64, limit int) string {
	return fmt.Sprintf("a line of %s, %s %s: cut to its first %d bytes, the rest read and dropped (raise the limit with --max-line-mib)",
		mib(total), cutLineMark, mib(int64(limit)), limit)
}

// cutLineMark is the words of CutLineProblem that IsCutLine looks for.
const cutLineMark = "over mcpscope's limit of"

// IsCutLine reports whether a frame's problem says the line was cut at
// mcpscope's limit (CutLineProblem), not sent broken.
func IsCutLine(problem string) bool { return strings.Contains(problem, cutLineMark) }

func mib(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// join concatenates chunks into one slice of exactly size bytes; a single
// chunk is returned as it is.
func join(chunks [][]byte, size int) []byte {
	switch len(chunks) {
	case 0:
		return nil
	case 1:
		return chunks[0]
	}
	out := make([]byte, 0, size)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

func (c *stdioConn) readStderr(r *os.File) {
	defer close(c.stderrDone)
	defer func() { _ = r.Close() }() // our end of the pipe; nothing was written to it
	br := bufio.NewReaderSize(r, 16<<10)
	lim := newStderrLimiter(func(ev StderrEvent) {
		if es, ok := c.sink.(stderrEventSink); ok {
			es.stderrEvent(ev)
		} else {
			c.sink.Stderr(ev.Line)
		}
	})
	defer lim.close() // before stderrDone: the held lines go out first
	for {
		line, _, err := readLine(br, 1<<20)
		if len(line) > 0 || err == nil {
			// readLine's line is a copy of its own that nothing else holds:
			// it becomes the string without a second copy (a flood of
			// stderr is hundreds of megabytes of garbage already).
			s := strings.TrimRight(unsafe.String(unsafe.SliceData(line), len(line)), "\r")
			c.mu.Lock()
			c.stderrLast = append(c.stderrLast, s)
			if len(c.stderrLast) > stderrTail {
				c.stderrLast = c.stderrLast[len(c.stderrLast)-stderrTail:]
			}
			recent := s
			if len(recent) > errline.MaxLine {
				recent = strings.Clone(recent[:errline.MaxLine])
			}
			if len(c.stderrRecent) == errline.Window {
				c.stderrRecent = append(c.stderrRecent[:0], c.stderrRecent[1:]...)
			}
			c.stderrRecent = append(c.stderrRecent, recent)
			c.mu.Unlock()
			lim.line(s)
		}
		if err != nil {
			return
		}
	}
}

// How the watchdog works: stdoutExitWait is how long the end of stdout may
// precede the process's exit before it counts as a fault of its own (a
// process that exits closes stdout a moment before it is reaped);
// watchEvery is how often the process's state is read.
const (
	stdoutExitWait = 250 * time.Millisecond
	watchEvery     = 250 * time.Millisecond
)

// watch notices at once what would otherwise only show as a request
// timeout: a server that closed its stdout but lives on (nothing it does
// can reach mcpscope any more, so the connection ends with that cause), and
// a server that is stopped (SIGSTOP, or a debugger holds it), which is
// named in the timeline when it stops and when it continues.
func (c *stdioConn) watch() {
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	stdoutDone := c.stdoutDone
	pid := c.cmd.Process.Pid
	stopped := false
	for {
		select {
		case <-c.exited:
			return
		case <-stdoutDone:
			stdoutDone = nil
			select {
			case <-c.exited:
				return // an ordinary exit: wait reports it
			case <-time.After(stdoutExitWait):
			}
			c.mu.Lock()
			stopping := c.stopping
			tail := append([]string(nil), c.stderrLast...)
			c.mu.Unlock()
			if !stopping {
				c.closeOnce.Do(func() { c.sink.Closed(&StdoutClosedError{PID: pid, LastStderr: tail}) })
			}
		case <-tick.C:
			st := processState(pid)
			now := st == 'T' || st == 't'
			if now == stopped {
				continue
			}
			stopped = now
			ev := TransportEvent{Time: time.Now(), Kind: "process", Fields: []Field{{"pid", strconv.Itoa(pid)}, {"state", string(st)}}}
			if now {
				ev.Summary = fmt.Sprintf("the server process (pid %d) is stopped (SIGSTOP, or a debugger holds it): it answers nothing until it is continued", pid)
			} else {
				ev.Summary = fmt.Sprintf("the server process (pid %d) was continued", pid)
			}
			c.sink.Transport(ev)
		}
	}
}

// stoppedError says, when the server process is stopped right now, so a
// request that timed out can name the reason; nil otherwise.
func (c *stdioConn) stoppedError() error {
	select {
	case <-c.exited:
		return nil
	default:
	}
	pid := c.cmd.Process.Pid
	if st := processState(pid); st == 'T' || st == 't' {
		return &StoppedError{PID: pid, State: string(st)}
	}
	return nil
}

// wait reaps the process, lets its output drain briefly (a grandchild may
// hold the pipes open), and reports the exit.
func (c *stdioConn) wait() {
	err := c.cmd.Wait()
	// Whether mcpscope had asked it to stop when it ended: a Close that
	// comes while its output drains did not end it.
	c.mu.Lock()
	expected := c.stopping
	c.mu.Unlock()
	close(c.exited)
	drained := make(chan struct{})
	timer := time.AfterFunc(300*time.Millisecond, func() { close(drained) })
	defer timer.Stop()
	for _, done := range []chan struct{}{c.stdoutDone, c.stderrDone} {
		select {
		case <-done:
		case <-drained:
		case <-c.hurry:
		}
	}
	c.mu.Lock()
	exit := &ExitError{Code: -1, Forced: c.forced, Hurried: c.hurried, Expected: expected}
	exit.LastStderr = append([]string(nil), c.stderrLast...)
	exit.ErrorLine = errline.Pick(c.stderrRecent)
	c.mu.Unlock()
	var ee *exec.ExitError
	switch {
	case err == nil:
		exit.Code = 0
	case errors.As(err, &ee):
		exit.Code = ee.ExitCode()
		exit.Signal = exitSignal(ee)
	default:
		exit.Err = err
	}
	c.stdinOnce.Do(func() { _ = c.stdin.Close() })
	// Kill whatever the server left behind in its group (npx, shells).
	killGroup(c.cmd, syscall.SIGKILL)
	child.Ended(c.cmd)
	c.closeOnce.Do(func() { c.sink.Closed(exit) })
	close(c.done)
}

// killReserve is the part of a Close deadline kept for SIGKILL and reaping.
const killReserve = 150 * time.Millisecond

// Close follows the spec's order: close stdin, wait, SIGTERM, wait, SIGKILL,
// each signal sent to the whole process group. When ctx has a deadline the
// two waits are shortened to fit in it; when ctx ends the group is killed
// at once.
func (c *stdioConn) Close(ctx context.Context) error {
	grace := []time.Duration{c.t.Grace, c.t.TermGrace}
	for i, g := range grace {
		if g <= 0 {
			grace[i] = 2 * time.Second
		}
	}
	if deadline, ok := ctx.Deadline(); ok {
		// Most of it for the server to exit on its own (the doctor calls
		// needing SIGTERM a fault), the rest for SIGTERM.
		budget := max(time.Until(deadline)-killReserve, 0)
		grace[0] = min(grace[0], budget*2/3)
		grace[1] = min(grace[1], budget-grace[0])
	}
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	c.stdinOnce.Do(func() { _ = c.stdin.Close() })
	hurried := false
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(grace[i])
		select {
		case <-c.exited:
			t.Stop()
			select {
			case <-c.done:
			case <-ctx.Done():
				// Output still draining (a child kept the pipes open).
				c.hurryOnce.Do(func() { close(c.hurry) })
				<-c.done
			}
			return nil
		case <-ctx.Done():
			t.Stop()
			hurried = true // before SIGTERM, or before its grace ended
			sig = syscall.SIGKILL
		case <-t.C:
		}
		c.mu.Lock()
		c.forced, c.hurried = signalName(sig), hurried
		c.mu.Unlock()
		killGroup(c.cmd, sig)
		if sig == syscall.SIGKILL {
			c.hurryOnce.Do(func() { close(c.hurry) })
			break
		}
	}
	<-c.done
	return nil
}
