package tap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/errline"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
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
	chunkFrame                   // one whole message (an HTTP body)
	chunkSSE                     // bytes of an event stream (none: its end)
	chunkExit                    // the server ended (ev: its ExitEvent)
	chunkAlias                   // alias names conversation conv from now on
)

type chunk struct {
	kind    chunkKind
	dir     mcp.Direction
	data    []byte
	at      time.Time
	ev      mcp.Event
	stream  string
	problem string
	sse     *mcp.SSEWatch // chunkSSE: the stream's reader
	byTap   bool          // chunkFrame: a message the tap wrote itself (Frame.ByTap)
	// redact: an HTTP body, recorded with the secrets of a body that is
	// not JSON-RPC (an OAuth token request or answer) redacted.
	redact bool
	// conv names the client session a message belongs to, when one tap
	// carries several (HTTP); "" is the tap's one conversation. fresh
	// says the message opens a new one under that name (a handshake).
	conv  string
	fresh bool
	alias string // chunkAlias: another name for conv
	// opened: the alias is the id a handshake's answer named.
	opened bool
}

// recorder turns the copied bytes into frames and session-file entries. It
// runs on its own goroutine at the lowest priority behind a spool (a
// bounded ring that overflows to a temporary file): the copiers hand it
// their bytes and never wait for it.
type recorder struct {
	q  *spool
	sr spoolReader
	// closing tells the low-priority loop to hand over to close.
	closing atomic.Bool
	done    chan struct{}
	// busyAt is when the copiers last queued bytes (since epoch).
	busyAt atomic.Int64
	epoch  time.Time
	// deferredAt is when the recorder began to wait for busy copiers (0:
	// it is not waiting); catchingUp: it waited maxDefer and now records
	// until the queue is empty.
	deferredAt int64
	catchingUp bool

	obs *mcp.Observer
	// convs are the observers of the client sessions by name (an HTTP
	// tap's: each session its own handshake and ids); cur is the name of
	// the chunk being recorded.
	convs map[string]*mcp.Observer
	cur   string
	// sessions are the client sessions' numbers and derivers by
	// observer: an observer without one (a tap of one conversation) is
	// session 0 and uses derive.
	sessions  map[*mcp.Observer]*clientSession
	nSessions int
	// before is the observer of the session without an id that was open
	// when the latest handshake without one began: if the server names
	// the new session (chunkAlias), requests without an id are still the
	// one before's.
	before  *mcp.Observer
	derive  deriver
	w       *record.Writer
	partial [3][]byte // an unfinished line per direction
	errLine []byte    // an unfinished stderr line
	errTail []string  // the last stderr lines, for the exit's record
	// errRecent are more of them, each cut to errline.MaxLine, for the
	// exit's ErrorLine (Node's error is often above the last twelve).
	errRecent []string
	onFlush   func() // after each flush: wake the viewers
	// onFrame, when set, sees every frame (tests, the byte-identity check).
	onFrame func(*mcp.Frame)
	// onEvent, when set, sees every frame and the exit (Recording.OnEvent).
	onEvent func(mcp.Event)
	// keepSecrets leaves URL query secrets in stream names.
	keepSecrets bool
	line        []byte // the frame encoder's buffer
	unflushed   int    // entries written since the last flush
}

// The recorder holds off while the copiers are busy: they count as busy
// while they queued something less than copierQuiet ago, and the recorder
// waits for them at most maxDefer before it records what was queued. A
// viewer sees a flood's frames up to maxDefer late; a conversation's
// single messages a millisecond or two late.
const (
	copierQuiet = time.Millisecond
	maxDefer    = 250 * time.Millisecond
)

// recorderLinger is how long the recorder, having caught up, keeps
// looking before it asks to be woken: in a flood (or any busy stretch)
// the copiers then never wake it, and it costs them nothing but the copy
// into the spool. A viewer sees a frame at most this much later.
const recorderLinger = 2 * time.Millisecond

// newRecorder starts a recorder; spillDir is where its overflow file goes
// ("" for the system's temporary directory).
func newRecorder(transport string, w *record.Writer, onFlush func(), keepSecrets bool, spillDir string) *recorder {
	r := &recorder{q: newSpool(ringSize, spillDir), obs: mcp.NewObserver(transport), w: w, onFlush: onFlush, keepSecrets: keepSecrets, done: make(chan struct{}), epoch: time.Now()}
	r.sr = spoolReader{s: r.q, linger: recorderLinger, note: func(s string) {
		r.w.Event(mcp.TransportEvent{Time: time.Now(), Kind: "tap", Summary: s})
	}}
	go r.run()
	return r
}

// push queues an event or a whole message; it never blocks on the recorder.
func (r *recorder) push(c chunk) {
	switch c.kind {
	case chunkEOF:
		r.q.putData(chunkEOF, c.dir, nil, c.at)
	case chunkData, chunkStderr:
		r.q.putData(c.kind, c.dir, c.data, c.at)
	default:
		r.q.putObj(c)
	}
}

// data queues bytes that crossed the tap; they are copied into the
// spool, so the caller's buffer is its own again when data returns.
func (r *recorder) data(dir mcp.Direction, b []byte, at time.Time) {
	r.q.putData(chunkData, dir, b, at)
	r.busyAt.Store(int64(at.Sub(r.epoch)))
}

// close records what is queued, flushes and waits. The low-priority loop
// stops at its next chunk; the rest is written here, on the caller's
// goroutine at normal priority, so the record is complete soon after the
// conversation ends even when the machine is busy.
func (r *recorder) close() {
	r.closing.Store(true)
	r.q.close()
	<-r.done
	_ = r.sr.drain(func() bool { return false }, r.handle, nil)
	r.q.release()
	r.finish()
}

func (r *recorder) run() {
	defer close(r.done)
	lowerPriority()
	for r.sr.drain(r.yield, r.handle, r.caughtUp) != nil && !r.closing.Load() {
		r.sr.pause(copierQuiet)
	}
}

// yield says whether the recorder should stop for now (checked between
// records): the tap is closing, or the copiers are busy and have not kept
// it waiting for maxDefer yet. The record's work (parsing, encoding, the
// garbage it makes and the collector's work on it) then waits for a pause
// in the traffic instead of competing with the copy, even for CPU that
// looks idle: on two cores a flood keeps both busy in bursts.
func (r *recorder) yield() bool {
	if r.closing.Load() {
		return true
	}
	if r.catchingUp {
		return false
	}
	now := int64(time.Since(r.epoch))
	if now-r.busyAt.Load() >= int64(copierQuiet) {
		r.deferredAt = 0
		return false
	}
	switch {
	case r.deferredAt == 0:
		r.deferredAt = now
	case now-r.deferredAt >= int64(maxDefer):
		// Busy for too long: record everything queued so far, then wait
		// for a pause again.
		r.catchingUp = true
		return false
	}
	return true
}

// caughtUp is called when the queue is empty.
func (r *recorder) caughtUp() {
	r.catchingUp, r.deferredAt = false, 0
	r.flush()
}

// flush writes out what is buffered and wakes the viewers.
func (r *recorder) flush() {
	r.unflushed = 0
	_ = r.w.Flush()
	if r.onFlush != nil {
		r.onFlush()
	}
}

func (r *recorder) finish() {
	r.cur = ""
	for _, d := range []mcp.Direction{mcp.Outbound, mcp.Inbound} {
		r.endOf(d, time.Now())
	}
	if len(r.errLine) > 0 {
		r.stderrLine(strings.TrimRight(string(r.errLine), "\r"), time.Now())
		r.errLine = nil
	}
	_ = r.w.Flush()
	if r.onFlush != nil {
		r.onFlush()
	}
}

// clientSession is one client session of a tap that carries several.
type clientSession struct {
	n      int // 1 on, in the order the sessions began
	derive deriver
}

// begin numbers a new client session, whose observer is o.
func (r *recorder) begin(o *mcp.Observer) {
	if r.sessions == nil {
		r.sessions = map[*mcp.Observer]*clientSession{}
	}
	r.nSessions++
	r.sessions[o] = &clientSession{n: r.nSessions}
}

// observer is the observer of the conversation being recorded.
func (r *recorder) observer() *mcp.Observer {
	if r.cur == "" {
		return r.obs
	}
	o := r.convs[r.cur]
	if o == nil {
		if r.convs == nil {
			r.convs = map[string]*mcp.Observer{}
		}
		o = r.obs.Fork()
		r.convs[r.cur] = o
		r.begin(o) // a session whose handshake the tap did not see
	}
	return o
}

func (r *recorder) handle(c *chunk) {
	r.cur = c.conv
	if c.fresh {
		// A handshake: a new client session, whose ids and era are its
		// own (the sessions before it keep their observers by name).
		if c.conv == "" {
			r.before = r.obs
			r.obs = r.obs.Fork()
			r.begin(r.obs)
		} else {
			delete(r.convs, c.conv)
		}
	}
	// A long backlog is flushed as it goes, so a viewer follows it.
	if r.unflushed++; r.unflushed >= 4096 {
		r.flush()
	}
	switch c.kind {
	case chunkData:
		r.lines(c.dir, c.data, c.at)
	case chunkStderr:
		r.stderr(c.data, c.at)
	case chunkEOF:
		r.endOf(c.dir, c.at)
	case chunkEvent:
		if te, ok := c.ev.(mcp.TransportEvent); ok && te.Kind == "http" {
			if cs := r.sessions[r.observer()]; cs != nil {
				te.ClientSession = cs.n
				c.ev = te
			}
		}
		r.w.Event(c.ev)
		if te, ok := c.ev.(mcp.TransportEvent); ok && r.onEvent != nil {
			r.onEvent(te) // an HTTP tap's Mcp-Session-Id
		}
	case chunkExit:
		r.exited(c.ev.(mcp.ExitEvent))
	case chunkAlias:
		o := r.observer()
		if r.convs == nil {
			r.convs = map[string]*mcp.Observer{}
		}
		r.convs[c.alias] = o
		if c.opened && r.cur == "" && o == r.obs && r.before != nil {
			// The handshake opened a session with an id: messages
			// without one are still the session's before it (a stateless
			// client beside a stateful one).
			r.obs, r.before = r.before, nil
		}
	case chunkFrame:
		data, redacted := c.data, []string(nil)
		if c.redact {
			data, redacted = redactBody(data)
		}
		r.framesBy(c.dir, data, c.problem, c.stream, c.at, c.byTap)
		if len(redacted) > 0 {
			r.w.Event(mcp.TransportEvent{Time: c.at, Kind: "tap",
				Summary: "the tap redacted secrets in the body above before recording it (the client and the server got it as sent): " + strings.Join(redacted, ", "),
				Fields:  []mcp.Field{{Key: "redacted", Value: strings.Join(redacted, ", ")}}})
		}
	case chunkSSE:
		emit := func(it mcp.SSEItem) {
			if it.Row != nil {
				r.w.Event(*it.Row)
				return
			}
			r.frames(mcp.Inbound, it.Message, it.Problem, c.stream, c.at)
		}
		if c.data == nil {
			c.sse.End(c.at, emit)
		} else {
			c.sse.Feed(c.data, c.at, emit)
		}
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
	r.framesBy(dir, raw, problem, stream, at, false)
}

// framesBy is frames for a message that either crossed the tap or was
// written by it (byTap).
func (r *recorder) framesBy(dir mcp.Direction, raw []byte, problem, stream string, at time.Time, byTap bool) {
	o := r.observer()
	derive := &r.derive
	session := r.sessions[o]
	if session != nil {
		derive = &session.derive
	}
	for _, f := range o.Frames(dir, raw, problem, stream, at) {
		f.ByTap = byTap
		if session != nil {
			f.ClientSession = session.n
		}
		if r.onFrame != nil {
			g := *f
			g.Raw = bytes.Clone(f.Raw) // f.Raw is the spool's
			r.onFrame(&g)
		}
		if r.onEvent != nil {
			r.onEvent(mcp.FrameEvent{Frame: f})
		}
		stream := f.Stream
		if stream != "" && !r.keepSecrets {
			stream = redact.URLs(stream)
		}
		r.line = appendFrameEntry(r.line[:0], f, stream)
		r.w.Line(r.line)
		for _, ev := range derive.frame(f) {
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
		r.stderrLine(strings.TrimRight(string(line), "\r"), at)
		b = b[i+1:]
	}
}

func (r *recorder) stderrLine(line string, at time.Time) {
	r.w.Event(mcp.StderrEvent{Time: at, Line: line})
	r.errTail = append(r.errTail, line)
	if len(r.errTail) > stderrTail {
		r.errTail = r.errTail[len(r.errTail)-stderrTail:]
	}
	if len(line) > errline.MaxLine {
		line = strings.Clone(line[:errline.MaxLine])
	}
	if len(r.errRecent) == errline.Window {
		r.errRecent = append(r.errRecent[:0], r.errRecent[1:]...)
	}
	r.errRecent = append(r.errRecent, line)
}

// stderrTail is how many of the last stderr lines the exit carries, as
// mcpscope's own stdio client keeps them.
const stderrTail = 12

// exited records how the server ended, with the stderr lines it wrote
// last (all of them are recorded before the exit: the tap drains the
// pipe first), and the state that follows: closed when the client asked
// for the end (it closed stdin, or sent the signal), failed otherwise.
func (r *recorder) exited(ev mcp.ExitEvent) {
	if len(r.errLine) > 0 {
		r.stderrLine(strings.TrimRight(string(r.errLine), "\r"), ev.Time)
		r.errLine = nil
	}
	x := *ev.Exit
	x.LastStderr = append([]string(nil), r.errTail...)
	if x.ErrorLine == "" {
		x.ErrorLine = errline.Pick(r.errRecent)
	}
	r.errRecent = r.errRecent[:0] // a reloading tap's next server starts afresh
	r.w.Event(mcp.ExitEvent{Time: ev.Time, Exit: &x})
	st := mcp.StateClosed
	if !x.Expected && x.ClientSignal == "" && (x.Code != 0 || x.Signal != "" || x.Err != nil) {
		st = mcp.StateFailed
	}
	r.w.Event(mcp.StateEvent{Time: ev.Time, State: st, Detail: x.Error()})
	if r.onEvent != nil {
		r.onEvent(mcp.ExitEvent{Time: ev.Time, Exit: &x})
		r.onEvent(mcp.StateEvent{Time: ev.Time, State: st, Detail: x.Error()})
	}
}

// redactBody is an HTTP body as the tap records it: a JSON-RPC message
// (or batch) exactly as it crossed; anything else (an OAuth token request,
// a token answer, a client registration) with the values of its secret
// fields redacted (redact.Body), and the names of those fields. The
// credentials are the client's: they never reach a capture, whatever
// --record-secrets says, as Authorization values do not.
func redactBody(b []byte) ([]byte, []string) {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '[' {
		return b, nil
	}
	rpc := false
	jsonview.Each(t, func(k []byte, _ json.RawMessage) bool {
		rpc = string(k) == "jsonrpc"
		return !rpc // "jsonrpc" comes first in what every SDK writes: a big result is not scanned
	})
	if rpc {
		return b, nil
	}
	return redact.Body(b)
}
