package watch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// saveEvery runs a watch and build loop over dir and saves src every
// interval for span: every save must restart the server once, and
// nothing else may (the build writes inside the watched folder).
func saveEvery(t *testing.T, dir, src, build string, env []string, interval, span time.Duration, edit func(i int) string) {
	t.Helper()
	w := newWatcher(t, Options{Paths: []string{dir}})
	var mu sync.Mutex
	var rounds []Round
	var failed []Round
	l := &Loop{Watcher: w, Build: build, Dir: dir, Env: env,
		Failed:  func(r Round) { mu.Lock(); failed = append(failed, r); mu.Unlock() },
		Restart: func(_ context.Context, r Round) { mu.Lock(); rounds = append(rounds, r); mu.Unlock() }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }()
	defer func() { cancel(); <-done }()

	saves := int(span / interval)
	count := func() (int, int) { mu.Lock(); defer mu.Unlock(); return len(rounds), len(failed) }
	for i := range saves {
		write(t, src, edit(i))
		// The round of this save, before the next one.
		deadline := time.Now().Add(interval)
		for n, _ := count(); n < i+1 && time.Now().Before(deadline); n, _ = count() {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Until(deadline))
	}
	time.Sleep(2 * time.Second) // a loop's next round would have come
	mu.Lock()
	defer mu.Unlock()
	if len(failed) > 0 {
		t.Fatalf("a build failed: %s", failed[0].Build.Output)
	}
	if len(rounds) != saves {
		var causes []string
		for _, r := range rounds {
			causes = append(causes, r.Cause.String())
		}
		t.Fatalf("%d saves over %v made %d restarts, want one each: %s", saves, span, len(rounds), strings.Join(causes, "; "))
	}
	for i, r := range rounds {
		if r.Cause.Change == nil || !slices.Equal(r.Cause.Change.Paths, []string{w.rel(src)}) {
			t.Errorf("restart %d: after %s, want %s alone", i+1, r.Cause, w.rel(src))
		}
	}
}

// A TypeScript build writes build/index.js inside the watched folder
// (tsc -p .): it is the build's own write, not a save, and must not start
// the next restart. The build here does what tsc does to the folder: a
// directory and a file written into it, a moment after it starts.
func TestLoopOneRestartPerSaveWhenTheBuildWritesInTheWatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "index.ts")
	write(t, src, "export const v = 0;\n")
	write(t, filepath.Join(dir, "tsconfig.json"), `{"compilerOptions":{"outDir":"build"}}`)
	build := "sleep 0.2; mkdir -p build && sed 's/export const/exports./' src/index.ts > build/index.js"
	saveEvery(t, dir, src, build, nil, 3*time.Second, 30*time.Second, func(i int) string {
		return fmt.Sprintf("export const v = %d;\n", i+1)
	})
}

// go build -o srv . writes srv-go-tmp-umask (removed again) and srv in
// the watched folder: a save restarts the server once, not twice.
func TestLoopOneRestartPerSaveWithGoBuild(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command to build with: go test runs with one on PATH")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module srv\n\ngo 1.21\n")
	src := filepath.Join(dir, "main.go")
	write(t, src, "package main\n\nfunc main() { println(0) }\n")
	env := []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOWORK=off"}
	saveEvery(t, dir, src, goBin+" build -o srv .", env, 3*time.Second, 30*time.Second, func(i int) string {
		return fmt.Sprintf("package main\n\nfunc main() { println(%d) }\n", i+1)
	})
}

// sed -i writes a temporary file and renames it over the file it edits:
// the change names the file edited, never the temporary one.
func TestWatcherLeavesOutTemporaryFilesGoneAgain(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "server.mjs")
	write(t, src, "v1\n")
	w := newWatcher(t, Options{Paths: []string{dir}})
	cmd := exec.Command("sed", "-i", "s/v1/v2/", src)
	if out, err := cmd.CombinedOutput(); err != nil {
		// No sed: do what it does.
		tmp := filepath.Join(dir, "src", "sedZ6psFZ")
		write(t, tmp, "v2\n")
		if err := os.Rename(tmp, src); err != nil {
			t.Fatal(err, string(out))
		}
	}
	c := next(t, w)
	if !slices.Equal(c.Paths, []string{src}) {
		t.Fatalf("paths %v, want [%s] alone", c.Paths, src)
	}
	// A file deleted for real is named.
	gone := filepath.Join(dir, "src", "old.mjs")
	write(t, gone, "x")
	next(t, w)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if c := next(t, w); !slices.Equal(c.Paths, []string{gone}) {
		t.Fatalf("a deleted file: paths %v", c.Paths)
	}
}

// The same with the real tsc (MCPSCOPE_NODE_TESTS: .ci/run installs
// typescript into .ci/npm; MCPSCOPE_TSC names another tsc).
func TestLoopOneRestartPerSaveWithTsc(t *testing.T) {
	if os.Getenv("MCPSCOPE_NODE_TESTS") == "" {
		t.Skip("set MCPSCOPE_NODE_TESTS=1 (with typescript in .ci/npm) to build with the real tsc")
	}
	t.Parallel()
	tsc := os.Getenv("MCPSCOPE_TSC")
	if tsc == "" {
		tsc, _ = filepath.Abs(filepath.Join("..", "..", ".ci", "npm", "node_modules", ".bin", "tsc"))
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Fatalf("MCPSCOPE_NODE_TESTS is set but there is no tsc: %v (.ci/run installs typescript)", err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tsconfig.json"),
		`{"compilerOptions":{"outDir":"build","rootDir":"src","module":"commonjs","target":"es2020","strict":true},"include":["src"]}`)
	src := filepath.Join(dir, "src", "index.ts")
	write(t, src, "export const v: number = 0;\n")
	saveEvery(t, dir, src, tsc+" -p .", nil, 3*time.Second, 30*time.Second, func(i int) string {
		return fmt.Sprintf("export const v: number = %d;\n", i+1)
	})
	if _, err := os.Stat(filepath.Join(dir, "build", "index.js")); err != nil {
		t.Fatalf("tsc wrote no build/index.js in the watched folder: %v", err)
	}
}

// A source saved again while the build runs is a save, not the build's
// output: one more round follows, and builds the new content.
func TestLoopFollowsASaveMadeWhileTheBuildRuns(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "index.ts")
	write(t, src, "v1\n")
	w := newWatcher(t, Options{Paths: []string{dir}})
	building := make(chan struct{}, 4)
	rounds := make(chan Round, 4)
	l := &Loop{Watcher: w, Dir: dir,
		Build:    "sleep 1; mkdir -p build && cp src/index.ts build/index.js",
		Building: func(Cause) { building <- struct{}{} },
		Restart:  func(_ context.Context, r Round) { rounds <- r }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	write(t, src, "v2\n")
	select {
	case <-building:
	case <-time.After(10 * time.Second):
		t.Fatal("no build")
	}
	time.Sleep(300 * time.Millisecond) // within the build's second
	write(t, src, "v3\n")
	for i := range 2 {
		select {
		case <-rounds:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d restarts, want 2: the save during the build was lost", i)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "build", "index.js")); string(b) != "v3\n" {
		t.Fatalf("the last build built %q", b)
	}
	select {
	case r := <-rounds:
		t.Fatalf("a third restart, after %s", r.Cause)
	case <-time.After(2 * time.Second):
	}
}
