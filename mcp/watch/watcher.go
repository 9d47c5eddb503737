// Package watch is hot reload: it watches a server's files (fsnotify),
// runs its build, and replaces the server when they change, then says what
// the new server offers that the old one did not (the surface diff of
// mcp/sessionfile/surfacediff) and, when asked, sends the last request made
// by hand again and compares the answers (mcp/sessionfile/replay's
// comparator).
//
// Watcher and Loop know nothing of MCP: a change, a build, a restart.
// Source is the TUI's side: a session.Source that replaces the session it
// drives under the same event stream. The tap's side (the real client
// keeps its connection while the server behind the tap is replaced) is in
// mcp/tap and uses Loop.
package watch

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a watcher waits after the last event of a
// burst before it reports the change: an editor's save is several events
// (a temporary file written, renamed over the old one, its mode set)
// within a few milliseconds, and a checkout or a formatter touches many
// files at once.
const DefaultDebounce = 80 * time.Millisecond

// maxBurst bounds the wait of a burst that never pauses (a process
// writing a watched file continuously): the change is reported anyway.
const maxBurst = 2 * time.Second

// Change is a burst of changes under the watched paths.
type Change struct {
	// Paths are the changed files, relative to the working directory when
	// they are under it, in the order they first changed, each once.
	Paths []string
	// First is when the first event of the burst arrived (the save), Last
	// when the last one did.
	First, Last time.Time
}

// String names the change: "src/tools.py changed", "a.py and 2 more
// changed".
func (c Change) String() string {
	switch len(c.Paths) {
	case 0:
		return "a change"
	case 1:
		return c.Paths[0] + " changed"
	case 2:
		return c.Paths[0] + " and " + c.Paths[1] + " changed"
	}
	return fmt.Sprintf("%s and %d more changed", c.Paths[0], len(c.Paths)-1)
}

// Options configure a Watcher.
type Options struct {
	// Paths are files or directories; a directory is watched with
	// everything below it (new directories included).
	Paths []string
	// Ignore are more glob patterns (--watch-ignore) of paths whose changes
	// do not count, besides the defaults (see Ignored). A pattern with no
	// slash matches any one name in a path (node_modules, *.log); one with
	// a slash matches the path relative to the working directory
	// (build/*.js).
	Ignore []string
	// Debounce is the quiet time that ends a burst; DefaultDebounce when
	// zero.
	Debounce time.Duration
}

// Watcher reports bursts of changes under some paths.
type Watcher struct {
	fw       *fsnotify.Watcher
	o        Options
	cwd      string
	files    map[string]bool // watched files (their directory is what fsnotify watches)
	dirs     map[string]bool // watched directory trees
	changes  chan Change
	errs     chan error
	done     chan struct{}
	stopped  chan struct{}
	closeOne sync.Once

	// mu guards what the loop tells the watcher while it runs: a round
	// holding the changes, and paths no longer watched.
	mu sync.Mutex
	// holding is set while a round's build runs, and
	// heldPaths are what changed meanwhile. The hold ends when the
	// watcher reads the event of the fence Release writes (fenceName),
	// after every event of the round's writes; for settleAfterHold after
	// that, a change to one of heldPaths is still the round's (a build's
	// child that writes late).
	holding   bool
	heldPaths map[string]bool
	fenceName string    // the fence file whose event ends the hold; "" for none
	fenceAt   time.Time // when it was written
	fenceSeq  int
	released  time.Time
	// saved are the files changes named (what a person saves: sources),
	// by a digest of what they held when the change was delivered: one
	// that changes while the build runs to hold something else was saved
	// again, and counts. Only this run loop reads and writes it.
	saved map[string]uint64
	// fence is a directory of mcpscope's own, watched by the same
	// watcher: the kernel queues its events in order with the others.
	fence string
}

// defaultIgnored are names whose changes never count: version control,
// dependencies, caches a server writes when it starts (a Python server
// writes __pycache__ on every start: watching them would restart it for
// ever), and editors' swap, backup and lock files.
var defaultIgnored = []string{
	".git", ".hg", ".svn", ".jj", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
	".venv", ".tox", ".idea", ".vscode", ".DS_Store",
	"*.pyc", "*.pyo", "*.swp", "*.swo", "*.swx", "*.swpx", "*~", ".#*", "#*#", "4913", "*.tmp", "*.bak", "*.orig",
	"*___jb_tmp___", "*___jb_old___", "*.kate-swp", ".goutputstream-*",
}

// New starts watching. A path that does not exist is an error: the user
// named it.
func New(o Options) (*Watcher, error) {
	if len(o.Paths) == 0 {
		return nil, errors.New("--watch: no path to watch")
	}
	for _, p := range o.Ignore {
		if _, err := filepath.Match(p, ""); err != nil {
			return nil, fmt.Errorf("--watch-ignore %q: %w", p, err)
		}
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("--watch: %w", err)
	}
	cwd, _ := os.Getwd()
	w := &Watcher{fw: fw, o: o, cwd: cwd, files: map[string]bool{}, dirs: map[string]bool{}, saved: map[string]uint64{},
		changes: make(chan Change, 1), errs: make(chan error, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	for _, p := range o.Paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			_ = fw.Close()
			return nil, fmt.Errorf("--watch %s: %w", p, err)
		}
		info, err := os.Stat(abs)
		if err != nil {
			_ = fw.Close()
			return nil, fmt.Errorf("--watch %s: %w (name a file or directory that exists)", p, err)
		}
		if info.IsDir() {
			w.dirs[abs] = true
			if err := w.addTree(abs); err != nil {
				_ = fw.Close()
				return nil, fmt.Errorf("--watch %s: %w", p, err)
			}
			continue
		}
		// A file is watched through its directory: editors save by
		// writing a new file and renaming it over the old one, which a
		// watch on the file itself does not survive.
		w.files[abs] = true
		if err := fw.Add(filepath.Dir(abs)); err != nil {
			_ = fw.Close()
			return nil, fmt.Errorf("--watch %s: %w", p, err)
		}
	}
	// Without a fence a hold ends when Release is called.
	if d, err := os.MkdirTemp("", "mcpscope-watch-"); err == nil {
		if fw.Add(d) == nil {
			w.fence = d
		} else {
			_ = os.Remove(d)
		}
	}
	go w.run()
	return w, nil
}

// addTree watches a directory and every directory below it that is not
// ignored.
func (w *Watcher) addTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // a directory that went away or cannot be read
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && w.Ignored(path) {
			return filepath.SkipDir
		}
		if err := w.fw.Add(path); err != nil && path == root {
			return err
		}
		return nil
	})
}

// Changes delivers each burst once it is over. A burst that comes while
// the last one is not taken yet is merged into it.
func (w *Watcher) Changes() <-chan Change { return w.changes }

// Errors delivers what the watcher could not do (a directory that could
// not be watched, an overflow of the system's queue) and what became of
// the watched directories (one removed: the watch waits for it to come
// back, and follows it then); the watch goes on.
func (w *Watcher) Errors() <-chan error { return w.errs }

// settleAfterHold is how long, after a round's hold, a change to what it
// wrote is still the round's: a build's child may write a moment after
// the build exits. A save of another file counts at once.
const settleAfterHold = 500 * time.Millisecond

// fenceWait ends a hold whose fence event never came (a system whose
// watches do not queue one directory's events in order with another's).
const fenceWait = 2 * time.Second

// Hold makes the changes that come until Release the build's own: a
// build writes its output (tsc's build/index.js, go build's binary and its
// temporary files), and none of it is a save. Each would start the next
// round, for ever. A file a change named before (a source) whose content
// changes while the build runs was saved again, and counts (savedAgain).
func (w *Watcher) Hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holding, w.heldPaths, w.fenceName = true, map[string]bool{}, ""
}

// Release ends the hold Hold began once the watcher has read every event
// queued before it: the events of a build's last writes are queued by
// the kernel before the build exits, but read by this process a moment
// later (longer on a busy machine). It writes a file in a directory of
// its own: the hold ends with that file's event.
func (w *Watcher) Release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fence != "" {
		if w.fenceName != "" {
			_ = os.Remove(w.fenceName)
		}
		w.fenceSeq++
		name := filepath.Join(w.fence, "release-"+strconv.Itoa(w.fenceSeq))
		if err := os.WriteFile(name, nil, 0o600); err == nil {
			w.fenceName, w.fenceAt = name, time.Now()
			return
		}
	}
	w.holding, w.released = false, time.Now()
}

// fenced ends the hold when name is the fence Release wrote.
func (w *Watcher) fenced(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.holding && name == w.fenceName {
		w.holding, w.released, w.fenceName = false, time.Now(), ""
	}
}

// held reports whether a change to path that arrives now belongs to a
// round.
func (w *Watcher) held(path string, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.holding && w.fenceName != "" && now.Sub(w.fenceAt) > fenceWait {
		w.holding, w.released, w.fenceName = false, now, ""
	}
	if w.holding {
		if len(w.heldPaths) < 10000 {
			w.heldPaths[path] = true
		}
		return true
	}
	return now.Sub(w.released) < settleAfterHold && w.heldPaths[path]
}

// Close stops watching.
func (w *Watcher) Close() error {
	var err error
	w.closeOne.Do(func() {
		close(w.done)
		err = w.fw.Close()
		<-w.stopped
		if w.fence != "" {
			_ = os.RemoveAll(w.fence)
		}
	})
	return err
}

// Ignored reports whether a change to path does not count: one of its
// names below the watched directory matches a default or an
// Options.Ignore pattern without a slash, or its path relative to the
// working directory (or a directory it is in) matches a pattern with
// one. A file named in Paths
// always counts.
func (w *Watcher) Ignored(path string) bool {
	if w.files[path] {
		return false
	}
	below := path
	for d := range w.dirs {
		if r, ok := strings.CutPrefix(path, d+string(filepath.Separator)); ok {
			below = r
			break
		}
	}
	names := strings.Split(filepath.ToSlash(below), "/")
	rel := filepath.ToSlash(w.rel(path))
	for _, pats := range [][]string{defaultIgnored, w.o.Ignore} {
		for _, p := range pats {
			if strings.Contains(p, "/") {
				// The path or a directory it is in (build/gen matches
				// build/gen/x.js).
				parts := strings.Split(rel, "/")
				for i := len(parts); i > 0; i-- {
					if ok, _ := filepath.Match(filepath.ToSlash(p), strings.Join(parts[:i], "/")); ok {
						return true
					}
				}
				continue
			}
			for _, n := range names {
				if ok, _ := filepath.Match(p, n); ok {
					return true
				}
			}
		}
	}
	return false
}

// rel is path relative to the working directory when it is under it.
func (w *Watcher) rel(path string) string {
	if w.cwd != "" {
		if r, err := filepath.Rel(w.cwd, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return path
}

// counts reports whether an event is a change under a watched path.
func (w *Watcher) counts(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod || ev.Name == "" {
		return false // a mode change alone changes no code
	}
	if w.files[ev.Name] {
		return true
	}
	for d := range w.dirs {
		if ev.Name == d || strings.HasPrefix(ev.Name, d+string(filepath.Separator)) {
			return !w.Ignored(ev.Name)
		}
	}
	return false // another file in the directory of a watched file
}

// burst is a change being gathered: the paths in the order they first
// changed, and which of them the burst created (a file created and gone
// again by its end was an editor's or a tool's temporary file: sed -i's
// sedXXXXXX, renamed over the file it edits).
type burst struct {
	Change
	abs     []string
	created map[string]bool
}

func (b *burst) add(w *Watcher, ev fsnotify.Event, now time.Time) {
	b.Last = now
	p := w.rel(ev.Name)
	if slices.Contains(b.Paths, p) {
		return
	}
	b.Paths = append(b.Paths, p)
	b.abs = append(b.abs, ev.Name)
	if ev.Has(fsnotify.Create) {
		b.created[ev.Name] = true
	}
}

// real is the change without the files the burst both created and
// removed: what changed for good. Its Paths are empty when nothing did.
func (b *burst) real() Change {
	c := b.Change
	c.Paths = nil
	for i, p := range b.Paths {
		if b.created[b.abs[i]] {
			if _, err := os.Lstat(b.abs[i]); err != nil {
				continue // created and gone again
			}
		}
		c.Paths = append(c.Paths, p)
	}
	return c
}

// lostEvery is how often a watched directory that was removed is looked
// for again.
const lostEvery = 200 * time.Millisecond

func (w *Watcher) run() {
	defer close(w.stopped)
	var pending *burst
	var quiet, cap, poll <-chan time.Time
	var quietTimer *time.Timer
	lost := map[string]bool{} // watched directories removed, waited for
	var pollTicker *time.Ticker
	defer func() {
		if pollTicker != nil {
			pollTicker.Stop()
		}
	}()
	note := func(err error) {
		select {
		case w.errs <- err:
		default: // the last one is not read yet: one is enough to say it
		}
	}
	flush := func() {
		if pending != nil {
			if c := pending.real(); len(c.Paths) > 0 {
				for _, p := range pending.abs {
					if len(w.saved) < maxSaved {
						w.saved[p] = digest(p)
					}
				}
				w.deliver(&c)
			}
		}
		pending, quiet, cap = nil, nil, nil
	}
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if w.fence != "" && filepath.Dir(ev.Name) == w.fence {
				w.fenced(ev.Name)
				continue
			}
			if ev.Has(fsnotify.Create) && w.underTree(ev.Name) {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() && !w.Ignored(ev.Name) {
					_ = w.addTree(ev.Name) // a new directory: watch it and what is in it
				}
			}
			if w.dirs[ev.Name] && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
				if _, err := os.Stat(ev.Name); err != nil && !lost[ev.Name] {
					// The kernel's watch went with the directory: a new
					// one of that name is watched again when it comes.
					_ = w.fw.Remove(ev.Name)
					lost[ev.Name] = true
					note(fmt.Errorf("--watch: %s was removed; the watch waits for it to come back", w.rel(ev.Name)))
					if pollTicker == nil {
						pollTicker = time.NewTicker(lostEvery)
						poll = pollTicker.C
					}
				}
				continue
			}
			if !w.counts(ev) {
				continue
			}
			now := time.Now()
			if w.held(ev.Name, now) && !w.savedAgain(ev.Name) {
				continue // the build's own writes
			}
			if pending == nil {
				pending = &burst{Change: Change{First: now}, created: map[string]bool{}}
				cap = time.After(maxBurst)
			}
			pending.add(w, ev, now)
			if quietTimer == nil {
				quietTimer = time.NewTimer(w.o.Debounce)
			} else {
				quietTimer.Reset(w.o.Debounce)
			}
			quiet = quietTimer.C
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			note(err)
		case <-poll:
			for d := range lost {
				info, err := os.Stat(d)
				if err != nil || !info.IsDir() {
					continue
				}
				if err := w.addTree(d); err != nil {
					continue // being made still: the next tick tries again
				}
				delete(lost, d)
				note(fmt.Errorf("--watch: %s is back and watched again", w.rel(d)))
				// What is in it now is new to the server.
				now := time.Now()
				c := Change{Paths: []string{w.rel(d)}, First: now, Last: now}
				w.deliver(&c)
			}
			if len(lost) == 0 {
				pollTicker.Stop()
				pollTicker, poll = nil, nil
			}
		case <-quiet:
			flush()
		case <-cap:
			flush()
			if quietTimer != nil {
				quietTimer.Stop()
			}
		}
	}
}

// maxSaved bounds the files whose digests are kept; maxDigest the bytes
// read for one (a bigger file is known by its size and time).
const (
	maxSaved  = 10000
	maxDigest = 16 << 20
)

// savedAgain reports whether path is a file a change named before whose
// content is now another: a person saved it while the build ran.
func (w *Watcher) savedAgain(path string) bool {
	before, ok := w.saved[path]
	if !ok {
		return false
	}
	now := digest(path)
	if now == before {
		return false // touched, not changed (a formatter with nothing to do)
	}
	w.saved[path] = now
	return true
}

// digest is a hash of what path holds (0 when it cannot be read).
func digest(path string) uint64 {
	h := fnv.New64a()
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return 0
	}
	if info.Size() > maxDigest {
		_, _ = fmt.Fprintf(h, "%d %d", info.Size(), info.ModTime().UnixNano())
		return h.Sum64()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	_, _ = h.Write(b)
	return h.Sum64()
}

// underTree reports whether path is under a watched directory tree.
func (w *Watcher) underTree(path string) bool {
	for d := range w.dirs {
		if strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// deliver hands a burst over, merged with one not taken yet.
func (w *Watcher) deliver(c *Change) {
	if c == nil {
		return
	}
	for {
		select {
		case w.changes <- *c:
			return
		case old := <-w.changes:
			merged := old
			for _, p := range c.Paths {
				if !slices.Contains(merged.Paths, p) {
					merged.Paths = append(merged.Paths, p)
				}
			}
			merged.Last = c.Last
			c = &merged
		case <-w.done:
			return
		}
	}
}
