package tap

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/record"
)

// maxLine caps one recorded message, as the client's stdio reader does;
// the copy itself is never cut.
const maxLine = 256 << 20

// chunkKind says what a queued chunk is.
type chunkKind uint8

const (
	chunkData   chunkKind = iota // bytes that crossed the tap in dir
	chunkStderr                  // bytes the server wrote to stderr
	chunkEOF                     // dir's stream ended
	chunkEvent                   // an event made elsewhere (exit, transport)
	chunkFrame                   // one whole message (HTTP bodies, SSE events)
)

type chunk struct {
	kind    chunkKind
	dir     mcp.Direction
	data    []byte
	at      time.Time
	ev      mcp.Event
	stream  string
	problem string
}

// recorder turns the copied bytes into frames and session-file entries. It
// runs on its own goroutine behind an unbounded queue: the copiers hand it
// chunks and never wait for it.
type recorder struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []chunk
	closed bool
	// closing is closed's lock-free twin, read between chunks by the loop.
	closing atomic.Bool
	done    chan struct{}

	obs     *mcp.Observer
	derive  deriver
	w       *record.Writer
	partial [3][]byte // an unfinished line per direction
	errLine []byte    // an unfinished stderr line
	onFlush func()    // after each flush: wake the viewers
	// onFrame, when set, sees every frame (tests, the byte-identity check).
	onFrame func(*mcp.Frame)
	// keepSecrets leaves URL query secrets in stream names.
	keepSecrets bool
	line        []byte // the frame encoder's buffer
}

func newRecorder(transport string, w *record.Writer, onFlush func(), keepSecrets bool) *recorder {
	r := &recorder{obs: mcp.NewObserver(transport), w: w, onFlush: onFlush, keepSecrets: keepSecrets, done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	go r.run()
	return r
}

// push queues chunks; it never blocks on the recorder.
func (r *recorder) push(c chunk) {
	r.mu.Lock()
	if !r.closed {
		r.items = append(r.items, c)
		r.cond.Signal()
	}
	r.mu.Unlock()
}

// data queues a copy of bytes that crossed the tap.
func (r *recorder) data(dir mcp.Direction, b []byte, at time.Time) {
	r.push(chunk{kind: chunkData, dir: dir, data: bytes.Clone(b), at: at})
}

// close records what is queued, flushes and waits. The low-priority loop
// stops at its next chunk; the rest is written here, on the caller's
// goroutine at normal priority, so the record is complete soon after the
// conversation ends even when the machine is busy.
func (r *recorder) close() {
	r.closing.Store(true)
	r.mu.Lock()
	r.closed = true
	r.cond.Signal()
	r.mu.Unlock()
	<-r.done
	r.mu.Lock()
	rest := r.items
	r.items = nil
	r.mu.Unlock()
	for i := range rest {
		r.handle(&rest[i])
	}
	r.finish()
}

func (r *recorder) run() {
	defer close(r.done)
	lowerPriority()
	for {
		r.mu.Lock()
		for len(r.items) == 0 && !r.closed {
			r.cond.Wait()
		}
		if r.closed {
			// close drains what is left at normal priority: on a busy
			// machine this thread may get almost no CPU, and a client
			// that kills the tap soon after closing stdin would find the
			// end of the conversation missing from the record.
			r.mu.Unlock()
			return
		}
		batch := r.items
		r.items = nil
		r.mu.Unlock()
		for i := range batch {
			if r.closing.Load() {
				// Hand the rest back, in order, for close to write.
				r.mu.Lock()
				r.items = append(batch[i:len(batch):len(batch)], r.items...)
				r.mu.Unlock()
				return
			}
			r.handle(&batch[i])
			batch[i] = chunk{}
		}
		_ = r.w.Flush()
		if r.onFlush != nil {
			r.onFlush()
		}
	}
}

func (r *recorder) finish() {
	for _, d := range []mcp.Direction{mcp.Outbound, mcp.Inbound} {
		r.endOf(d, time.Now())
	}
	if len(r.errLine) > 0 {
		r.w.Event(mcp.StderrEvent{Time: time.Now(), Line: strings.TrimRight(string(r.errLine), "\r")})
		r.errLine = nil
	}
	_ = r.w.Flush()
	if r.onFlush != nil {
		r.onFlush()
	}
}

func (r *recorder) handle(c *chunk) {
	switch c.kind {
	case chunkData:
		r.lines(c.dir, c.data, c.at)
	case chunkStderr:
		r.stderr(c.data, c.at)
	case chunkEOF:
		r.endOf(c.dir, c.at)
	case chunkEvent:
		r.w.Event(c.ev)
	case chunkFrame:
		r.frames(c.dir, c.data, c.problem, c.stream, c.at)
	}
}

// lines splits a direction's bytes into messages, one per line.
func (r *recorder) lines(dir mcp.Direction, b []byte, at time.Time) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(r.partial[dir]) < maxLine {
				r.partial[dir] = append(r.partial[dir], b[:min(len(b), maxLine-len(r.partial[dir]))]...)
			}
			return
		}
		line := b[:i]
		problem := ""
		if p := r.partial[dir]; len(p) > 0 {
			if len(p)+len(line) > maxLine {
				problem = fmt.Sprintf("line longer than %d bytes: cut", maxLine)
				line = line[:max(0, maxLine-len(p))]
			}
			line = append(p, line...)
			r.partial[dir] = nil
		}
		r.frames(dir, line, problem, "", at)
		b = b[i+1:]
	}
}

func (r *recorder) endOf(dir mcp.Direction, at time.Time) {
	if p := r.partial[dir]; len(p) > 0 {
		r.partial[dir] = nil
		r.frames(dir, p, "last line has no trailing newline", "", at)
	}
}

func (r *recorder) frames(dir mcp.Direction, raw []byte, problem, stream string, at time.Time) {
	for _, f := range r.obs.Frames(dir, raw, problem, stream, at) {
		if r.onFrame != nil {
			r.onFrame(f)
		}
		stream := f.Stream
		if stream != "" && !r.keepSecrets {
			stream = record.RedactQuerySecrets(stream)
		}
		r.line = appendFrameEntry(r.line[:0], f, stream)
		r.w.Line(r.line)
		for _, ev := range r.derive.frame(f) {
			r.w.Event(ev)
		}
	}
}

func (r *recorder) stderr(b []byte, at time.Time) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(r.errLine) < 1<<20 {
				r.errLine = append(r.errLine, b...)
			}
			return
		}
		line := append(r.errLine, b[:i]...)
		r.errLine = nil
		r.w.Event(mcp.StderrEvent{Time: at, Line: strings.TrimRight(string(line), "\r")})
		b = b[i+1:]
	}
}
