package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/errline"
)

// maxOutput bounds what a build's output keeps: its last bytes, where a
// compiler's error and a test's failure are.
const maxOutput = 256 << 10

// Build is what one run of the build command did.
type Build struct {
	Command string
	// Output is what it wrote to stdout and stderr, interleaved as written:
	// the last maxOutput bytes; Cut is how many came before them.
	Output   []byte
	Cut      int64
	Duration time.Duration
	// Err is nil when the build succeeded: an *exec.ExitError for a
	// failing status, else why it could not run.
	Err error
}

// Headline is the line of a build's output that says what failed
// (errline.Pick: a compiler's first error, a script's exception), "" for
// none.
func (b *Build) Headline() string { return errline.Pick(errline.Lines(b.Output)) }

// Failed reports whether the build failed.
func (b *Build) Failed() bool { return b != nil && b.Err != nil }

// tail keeps the last maxOutput bytes written to it.
type tail struct {
	mu  sync.Mutex
	b   []byte
	cut int64
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - maxOutput; over > 0 {
		t.cut += int64(over)
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// RunBuild runs command with the system's shell (sh -c, or cmd /C on
// Windows) in dir with env added to mcpscope's environment, and waits.
func RunBuild(ctx context.Context, command, dir string, env []string) *Build {
	start := time.Now()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second // a build's child holding the pipes open
	err := cmd.Run()
	out.mu.Lock()
	defer out.mu.Unlock()
	return &Build{Command: command, Output: bytes.Clone(out.b), Cut: out.cut, Duration: time.Since(start), Err: err}
}

// Cause is why a restart round began: a change under the watched paths,
// or a person's ask (the reload key).
type Cause struct {
	Change *Change
	// Asked says who asked when no file changed ("r pressed").
	Asked string
	// At is when the change was saved or the ask made.
	At time.Time
}

// String is "src/tools.py changed" or what was asked.
func (c Cause) String() string {
	if c.Change != nil {
		return c.Change.String()
	}
	if c.Asked != "" {
		return c.Asked
	}
	return "asked"
}

// Round is one restart: why, and the build's outcome (nil without a build
// command).
type Round struct {
	Cause Cause
	Build *Build
}

// Summary is the separator's words: "restarted after src/tools.py
// changed; build 1.2 s".
func (r Round) Summary() string {
	s := "restarted after " + r.Cause.String()
	if r.Cause.Change == nil {
		s = "restarted: " + r.Cause.String()
	}
	if r.Build != nil {
		s += "; build " + Seconds(r.Build.Duration)
	}
	return s
}

// Seconds is a duration as a person reads a build's: "1.2 s", "0.04 s".
func Seconds(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
}

// Loop runs restart rounds one at a time: each change the watcher reports,
// or each Ask, runs the build (when there is one), then Restart. A failed
// build ends its round there: the running server is kept. Changes that
// arrive during a round make one round after it.
type Loop struct {
	// Watcher reports the changes; nil for a loop driven by Ask alone.
	Watcher *Watcher
	// Build is the build command ("" for none), run in Dir with Env added.
	Build string
	Dir   string
	Env   []string
	// Building, when set, is told a build starts.
	Building func(Cause)
	// Failed is told a build failed; the round ends.
	Failed func(Round)
	// Restart replaces the server; the next round waits until it returns.
	Restart func(ctx context.Context, r Round)
	// Note, when set, is told what the watch says of itself (a watched
	// directory removed, or back) and what the loop decided on its own (a
	// path no longer watched because it changes at every restart).
	Note func(string)

	once sync.Once
	ask  chan string
}

func (l *Loop) init() { l.once.Do(func() { l.ask = make(chan string, 1) }) }

// Ask starts a round as a change would (the reload key). An ask made
// while one waits is the same ask.
func (l *Loop) Ask(who string) {
	l.init()
	select {
	case l.ask <- who:
	default:
	}
}

// Run runs rounds until ctx ends.
func (l *Loop) Run(ctx context.Context) {
	l.init()
	var changes <-chan Change
	var errs <-chan error
	if l.Watcher != nil {
		changes, errs = l.Watcher.Changes(), l.Watcher.Errors()
	}
	var guard loopGuard
	for {
		var c Cause
		select {
		case <-ctx.Done():
			return
		case err := <-errs:
			if l.Note != nil {
				l.Note(err.Error())
			}
			continue
		case ch, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			if wait := guard.backoff(ch); wait > 0 {
				if !guard.said && l.Note != nil {
					l.Note(fmt.Sprintf("%s right after each of the last %d restarts: each next restart waits longer, up to %s, "+
						"so that a loop stays slow (a server writing it? --watch-ignore it, or keep it out of the watched folder)",
						ch.String(), loopRounds, loopMaxWait))
				}
				guard.said = true
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
			c = Cause{Change: &ch, At: ch.First}
		case who := <-l.ask:
			c = Cause{Asked: who, At: time.Now()}
		}
		l.round(ctx, c)
		guard.ended(c, time.Now())
	}
}

// A restart loop: loopRounds rounds in a row each started by a change to
// the same files, come within loopWithin of the end of the round before.
// What the build writes while it runs is held (Watcher.Hold); this
// catches what a server writes in the watched folder each time it starts
// (a log, a cache). Such a change still restarts the server, after a wait
// that doubles with each further round (up to loopMaxWait): a person who
// saves again and again quickly (an editor's autosave) loses no save, and
// a loop cannot keep the server restarting hot.
const (
	loopWithin  = time.Second
	loopRounds  = 3
	loopMaxWait = 16 * time.Second
)

// loopGuard counts the rounds in a row that look like a loop.
type loopGuard struct {
	end    time.Time
	paths  []string
	streak int  // rounds in a row that followed the one before as a loop would
	said   bool // the wait was explained for this streak
}

// follows reports whether ch came as a loop's next change would.
func (g *loopGuard) follows(ch Change) bool {
	return !g.end.IsZero() && ch.First.Sub(g.end) <= loopWithin && slices.Equal(ch.Paths, g.paths)
}

// backoff is how long the round ch starts waits first: nothing, unless
// it would make one round more of a loop.
func (g *loopGuard) backoff(ch Change) time.Duration {
	if !g.follows(ch) || g.streak < loopRounds {
		return 0
	}
	wait := loopWithin
	for i := loopRounds; i < g.streak && wait < loopMaxWait; i++ {
		wait *= 2
	}
	return min(wait, loopMaxWait)
}

// ended is told a round ended: its cause and when.
func (g *loopGuard) ended(c Cause, at time.Time) {
	if c.Change == nil {
		*g = loopGuard{} // asked: a person is there
		return
	}
	if g.follows(*c.Change) {
		g.streak++
	} else {
		g.streak, g.said = 1, false
	}
	g.end, g.paths = at, slices.Clone(c.Change.Paths)
}

func (l *Loop) round(ctx context.Context, c Cause) {
	r := Round{Cause: c}
	if l.Build != "" {
		if l.Building != nil {
			l.Building(c)
		}
		// What the build writes is its output, not a save. The hold ends
		// with the build, before the restart and before a failure is
		// said: a save made then (a fix, the next change) counts.
		if l.Watcher != nil {
			l.Watcher.Hold()
		}
		r.Build = RunBuild(ctx, l.Build, l.Dir, l.Env)
		if l.Watcher != nil {
			l.Watcher.Release()
		}
		if ctx.Err() != nil {
			return
		}
		if r.Build.Failed() {
			if l.Failed != nil {
				l.Failed(r)
			}
			return
		}
	}
	if l.Restart != nil {
		l.Restart(ctx, r)
	}
}

// ExitCode is a failed build's exit status, or -1 when it did not exit
// with one (it could not start, or a signal ended it).
func (b *Build) ExitCode() int {
	var ee *exec.ExitError
	if errors.As(b.Err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
