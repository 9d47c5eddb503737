package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newWatcher(t *testing.T, o Options) *Watcher {
	t.Helper()
	w, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func next(t *testing.T, w *Watcher) Change {
	t.Helper()
	select {
	case c := <-w.Changes():
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no change was reported")
	}
	return Change{}
}

func TestWatcherReportsASaveOnce(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "tools.py")
	write(t, src, "v1")
	w := newWatcher(t, Options{Paths: []string{dir}})
	write(t, src, "v2")
	c := next(t, w)
	if !slices.Equal(c.Paths, []string{src}) {
		t.Fatalf("paths %v, want [%s]", c.Paths, src)
	}
	if c.First.IsZero() || c.Last.Before(c.First) {
		t.Errorf("times %v .. %v", c.First, c.Last)
	}
	if got := c.String(); got != src+" changed" {
		t.Errorf("String() = %q", got)
	}
	select {
	case c := <-w.Changes():
		t.Fatalf("one save reported twice: %v", c.Paths)
	case <-time.After(4 * DefaultDebounce):
	}
}

// What mcpscope, the server and the editor write besides the code does
// not count: a burst of them and one real change is the real change alone.
func TestWatcherIgnoresWhatIsNotCode(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "app.py"), "v1")
	for _, d := range []string{".git", "node_modules/pkg", "__pycache__", "dist"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := newWatcher(t, Options{Paths: []string{dir}, Ignore: []string{"*.log", filepath.Join(dir, "dist")}})
	for _, p := range []string{".git/index", "node_modules/pkg/index.js", "__pycache__/app.cpython-312.pyc",
		".app.py.swp", "app.py~", ".#app.py", "4913", "server.log", "dist/out.js", "x.pyc"} {
		write(t, filepath.Join(dir, p), "noise")
	}
	write(t, filepath.Join(dir, "app.py"), "v2")
	c := next(t, w)
	if !slices.Equal(c.Paths, []string{filepath.Join(dir, "app.py")}) {
		t.Fatalf("paths %v, want only app.py", c.Paths)
	}
}

func TestWatcherDebouncesABurstIntoOneChange(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t, Options{Paths: []string{dir}, Debounce: 150 * time.Millisecond})
	var want []string
	for i := range 5 {
		p := filepath.Join(dir, string(rune('a'+i))+".go")
		want = append(want, p)
		write(t, p, "x")
		time.Sleep(10 * time.Millisecond)
	}
	c := next(t, w)
	slices.Sort(c.Paths)
	if !slices.Equal(c.Paths, want) {
		t.Fatalf("paths %v, want %v in one change", c.Paths, want)
	}
	if !strings.HasSuffix(c.String(), "and 4 more changed") {
		t.Errorf("String() = %q", c.String())
	}
}

// An editor that saves by renaming a new file over the old one: a watch
// on the file alone would lose it after the first save.
func TestWatcherFollowsAFileRenamedOver(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.json")
	write(t, file, "[]")
	write(t, filepath.Join(dir, "other.txt"), "x")
	w := newWatcher(t, Options{Paths: []string{file}})
	for round := range 2 {
		tmp := filepath.Join(dir, ".tools.json.tmp")
		write(t, tmp, "[1]")
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "other.txt"), "y") // not watched
		c := next(t, w)
		if !slices.Equal(c.Paths, []string{file}) {
			t.Fatalf("save %d: paths %v, want [%s]", round+1, c.Paths, file)
		}
	}
}

func TestWatcherWatchesNewDirectories(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t, Options{Paths: []string{dir}})
	sub := filepath.Join(dir, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	next(t, w) // the directories themselves
	// The new directory is watched once its create is seen; a file
	// written there is then a change of its own.
	deadline := time.Now().Add(10 * time.Second)
	for {
		write(t, filepath.Join(sub, "x.go"), time.Now().String())
		select {
		case c := <-w.Changes():
			if slices.Contains(c.Paths, filepath.Join(sub, "x.go")) {
				return
			}
		case <-time.After(time.Second):
		}
		if time.Now().After(deadline) {
			t.Fatal("a file in a new directory was never reported")
		}
	}
}

func TestWatcherRefusesWhatItCannotWatch(t *testing.T) {
	if _, err := New(Options{Paths: []string{filepath.Join(t.TempDir(), "missing")}}); err == nil || !strings.Contains(err.Error(), "--watch") {
		t.Errorf("a missing path: %v", err)
	}
	if _, err := New(Options{}); err == nil {
		t.Error("no path: no error")
	}
	if _, err := New(Options{Paths: []string{t.TempDir()}, Ignore: []string{"[x"}}); err == nil || !strings.Contains(err.Error(), "--watch-ignore") {
		t.Errorf("a bad pattern: %v", err)
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1234 * time.Millisecond: "1.2 s", 40 * time.Millisecond: "0.04 s", 12 * time.Second: "12s",
	} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

// A failed build ends its round: nothing is restarted, and the failure
// carries the build's output and status.
func TestLoopKeepsTheServerWhenTheBuildFails(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var failed, restarted []Round
	done := make(chan struct{}, 4)
	l := &Loop{Build: "echo compiling; echo 'tools.go:3: syntax error' >&2; exit 2", Dir: dir,
		Failed: func(r Round) { mu.Lock(); failed = append(failed, r); mu.Unlock(); done <- struct{}{} },
		Restart: func(_ context.Context, r Round) {
			mu.Lock()
			restarted = append(restarted, r)
			mu.Unlock()
			done <- struct{}{}
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	l.Ask("r pressed")
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(restarted) != 0 || len(failed) != 1 {
		t.Fatalf("restarted %d, failed %d", len(restarted), len(failed))
	}
	b := failed[0].Build
	if b.ExitCode() != 2 || !strings.Contains(string(b.Output), "compiling\n") || !strings.Contains(string(b.Output), "syntax error") {
		t.Errorf("build: code %d, output %q", b.ExitCode(), b.Output)
	}
	if failed[0].Cause.String() != "r pressed" {
		t.Errorf("cause %q", failed[0].Cause)
	}
}

func TestLoopRestartsAfterAGoodBuild(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	write(t, src, "v1")
	w := newWatcher(t, Options{Paths: []string{src}})
	rounds := make(chan Round, 4)
	l := &Loop{Watcher: w, Build: "echo built > out.txt", Dir: dir,
		Restart: func(_ context.Context, r Round) { rounds <- r }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	write(t, src, "v2")
	select {
	case r := <-rounds:
		if r.Build == nil || r.Build.Failed() || r.Cause.Change == nil {
			t.Fatalf("round %+v", r)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(got) != "built\n" {
			t.Errorf("the build did not run in Dir: %q", got)
		}
		if !strings.HasPrefix(r.Summary(), "restarted after "+src+" changed; build ") {
			t.Errorf("summary %q", r.Summary())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no restart")
	}
}

func TestBuildOutputKeepsItsEnd(t *testing.T) {
	b := RunBuild(context.Background(), "yes line | head -c 600000; echo; echo the-end; exit 1", t.TempDir(), nil)
	if !b.Failed() || len(b.Output) > maxOutput || b.Cut == 0 || !strings.HasSuffix(string(b.Output), "the-end\n") {
		t.Fatalf("failed %v, %d bytes kept, %d cut, ends %q", b.Failed(), len(b.Output), b.Cut, b.Output[max(0, len(b.Output)-20):])
	}
}
