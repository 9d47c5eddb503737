package mcp

import (
	"encoding/json"
	"sync"
	"time"
)

// Event is one entry of the client's ordered event stream: a frame, a stderr
// line, a change of connection state, the handshake result, a discovered
// list, the server's exit, or a local request failure.
type Event interface {
	// At is when the event happened.
	At() time.Time
}

// FrameEvent carries one frame that crossed the wire.
type FrameEvent struct{ Frame *Frame }

// StderrEvent is one line the server wrote to its standard error. Per the
// spec, stderr is for logging of any kind and does not signal an error.
//
// A flood of stderr is not kept whole (see stderrRate): Dropped lines
// (DroppedBytes bytes, newlines included) came before this one and were
// counted, not kept.
type StderrEvent struct {
	Time         time.Time
	Line         string
	Dropped      int
	DroppedBytes int64
}

// State is the connection's life cycle.
type State uint8

// The connection states, in the order a connection goes through them.
const (
	StateConnecting  State = iota + 1 // starting the transport
	StateHandshaking                  // initialize or server/discover in flight
	StateReady                        // handshake done; requests may be sent
	StateClosed                       // closed by mcpscope
	StateFailed                       // the server exited, the handshake failed, or the transport broke
	// StateLost means the connection is still open on mcpscope's side but
	// the server cannot be reached: an HTTP request or the standalone GET
	// stream could not connect, or a write failed. A later exchange that
	// reaches the server brings the state back to StateReady.
	StateLost
)

func (s State) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateHandshaking:
		return "handshaking"
	case StateReady:
		return "ready"
	case StateClosed:
		return "closed"
	case StateFailed:
		return "failed"
	case StateLost:
		return "lost"
	}
	return "unknown"
}

// StateEvent reports a change of connection state, with a human explanation.
type StateEvent struct {
	Time   time.Time
	State  State
	Detail string
}

// HandshakeEvent carries the outcome of a successful handshake.
type HandshakeEvent struct {
	Time      time.Time
	Handshake *Handshake
	// ClientSession is the client session whose handshake it is, in a
	// tap carrying several (Frame.ClientSession); 0 otherwise.
	ClientSession int
}

// ListEvent carries the complete result of a paginated list (tools/list,
// prompts/list, resources/list, resources/templates/list), every page joined.
type ListEvent struct {
	Time   time.Time
	Method string
	Items  []json.RawMessage
	Pages  int
	Err    error // set when a page failed; Items then holds the pages read
}

// ExitEvent reports that the server process ended.
type ExitEvent struct {
	Time time.Time
	Exit *ExitError
}

// LocalErrorEvent reports a request that ended without an answer from the
// server: a timeout, a cancellation, or a connection that went away. These
// are mcpscope's doing, not the server's, and are shown apart from errors
// the server sent.
type LocalErrorEvent struct {
	Time time.Time
	Err  *LocalError
}

// TransportEvent is something the transport did or saw besides JSON-RPC
// messages: an HTTP request and its status, an SSE event's id/retry/comment,
// a reconnect and its delay, an OAuth step. Secrets are redacted before an
// event is made.
type TransportEvent struct {
	Time time.Time
	// Kind groups events: "http", "sse", "reconnect", "oauth", "websocket",
	// "app" (a tool view's bridge message or report, Client.Note).
	Kind string
	// Summary is one line for the timeline, e.g. "POST /mcp → 200 text/event-stream".
	Summary string
	// Fields are the details that matter (method, url, status, headers
	// such as Mcp-Session-Id, MCP-Protocol-Version, Content-Type,
	// WWW-Authenticate, Last-Event-ID, retry), as ordered key/value pairs.
	Fields []Field
	// Err is set when the step failed.
	Err error
	// Run, when set, is a run of SSE keep-alives this event reports as it
	// is now; a later event with the same Run.ID replaces it.
	Run *KeepAliveRun
	// ClientSession is the client session an HTTP request of a tap
	// carrying several belongs to (Frame.ClientSession); 0 otherwise.
	ClientSession int
}

// Field is one named detail of a TransportEvent.
type Field struct{ Key, Value string }

// Field is the value of the event's first field named key, or "".
func (e TransportEvent) Field(key string) string {
	for _, f := range e.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}

// DiagnosticEvent carries a protocol problem found by an [Analyzer]. It is
// published right after the event that revealed it.
type DiagnosticEvent struct {
	Time       time.Time
	Diagnostic *Diagnostic
}

// Severity ranks a diagnostic.
type Severity uint8

// The severities, least severe first.
const (
	SeverityHint Severity = iota + 1
	SeverityWarning
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityHint:
		return "hint"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "unknown"
}

// Diagnostic is one thing a server got wrong, explained.
type Diagnostic struct {
	Rule     string // stable id, e.g. "framing/non-json-stdout"
	Severity Severity
	Frames   []int64 // Seq of the frames concerned (may be empty for stderr or exit)
	Message  string  // what is wrong, in one sentence
	Why      string  // why it matters: which clients break, and how
	Fix      string  // how to fix it
	SpecRef  string  // the spec section or quote it rests on
}

// Analyzer watches the event stream and reports diagnostics. Observe is
// called for every event, in order, from one goroutine of the client's
// (never the read loop, so a slow rule delays delivery but not reading); it
// must not call back into the Client.
type Analyzer interface {
	Observe(ev Event) []*Diagnostic
}

// At is when the frame crossed the wire (or was found malformed).
func (e FrameEvent) At() time.Time { return e.Frame.Time }

// At is when the StderrEvent happened.
func (e StderrEvent) At() time.Time { return e.Time }

// At is when the StateEvent happened.
func (e StateEvent) At() time.Time { return e.Time }

// At is when the HandshakeEvent happened.
func (e HandshakeEvent) At() time.Time { return e.Time }

// At is when the ListEvent happened.
func (e ListEvent) At() time.Time { return e.Time }

// At is when the ExitEvent happened.
func (e ExitEvent) At() time.Time { return e.Time }

// At is when the LocalErrorEvent happened.
func (e LocalErrorEvent) At() time.Time { return e.Time }

// At is when the TransportEvent happened.
func (e TransportEvent) At() time.Time { return e.Time }

// At is when the DiagnosticEvent happened.
func (e DiagnosticEvent) At() time.Time { return e.Time }

// fifo is an unbounded first-in first-out queue that one goroutine drains.
// Pushing never blocks, so the read loop and the writers never wait on a
// slow consumer.
type fifo[T any] struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []T
	closed bool
}

func newFIFO[T any]() *fifo[T] {
	f := &fifo[T]{}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// push adds items under one lock (the consumer takes them together); it
// reports false, keeping nothing, once the queue is closed.
func (f *fifo[T]) push(items ...T) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.items = append(f.items, items...)
	f.cond.Signal()
	return true
}

// close ends the queue: items already queued are still taken.
func (f *fifo[T]) close() {
	f.mu.Lock()
	f.closed = true
	f.cond.Signal()
	f.mu.Unlock()
}

// take waits for items and returns all of them; ok is false once the queue
// is closed and empty.
func (f *fifo[T]) take() (items []T, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.items) == 0 && !f.closed {
		f.cond.Wait()
	}
	if len(f.items) == 0 {
		return nil, false
	}
	items, f.items = f.items, nil
	return items, true
}

// eventQueue carries published events to the reader of Events in two
// stages. Events are published in order under the client's publish lock
// (from the read loop, the writer, callers); a processing goroutine then
// runs the expensive observers (the recorder's OnEvent, the Analyzer, which
// compiles schemas) in that same order, off the read loop, and queues each
// event followed by its diagnostics for delivery. A debugger must never
// drop an event and never block the read loop on a slow UI, so both stages
// are unbounded.
type eventQueue struct {
	in      *fifo[Event] // published, not yet processed
	out     *fifo[Event] // processed, waiting for the reader
	process func(Event) []Event

	startProcess sync.Once
	processed    chan struct{} // closed once every published event was processed
	startDeliver sync.Once
	ch           chan Event
}

// EventBuffer is how many delivered events wait in a stream's channel. The
// queues behind it are unbounded, so this is not back-pressure: it is how
// much one reader can take at once. The TUI drains what is waiting into one
// batch of up to 2,048 events and redraws once per batch; with 64 here a
// 50,000-notification flood cost about 780 batches and as many frames.
const EventBuffer = 2048

// newEventQueue makes a queue; process (nil for none) turns one published
// event into the events to deliver: itself, then what it revealed.
func newEventQueue(process func(Event) []Event) *eventQueue {
	return &eventQueue{
		in:        newFIFO[Event](),
		out:       newFIFO[Event](),
		process:   process,
		processed: make(chan struct{}),
		ch:        make(chan Event, EventBuffer),
	}
}

// push queues events in order. The processing goroutine starts with the
// first event.
func (q *eventQueue) push(evs ...Event) {
	if q.in.push(evs...) {
		q.startProcess.Do(func() { go q.runProcess() })
	}
}

// close ends the stream: events already queued are still processed and
// delivered, then the channel is closed.
func (q *eventQueue) close() {
	q.in.close()
	q.startProcess.Do(func() { go q.runProcess() })
}

// waitProcessed waits until every event pushed before close was processed
// (the recorder has seen it).
func (q *eventQueue) waitProcessed() { <-q.processed }

// channel starts the delivery goroutine on first use. The caller must read
// the channel until it is closed.
func (q *eventQueue) channel() <-chan Event {
	q.startDeliver.Do(func() { go q.runDeliver() })
	return q.ch
}

func (q *eventQueue) runProcess() {
	defer close(q.processed)
	defer q.out.close()
	for {
		batch, ok := q.in.take()
		if !ok {
			return
		}
		for i, ev := range batch {
			if q.process == nil {
				q.out.push(ev)
			} else {
				q.out.push(q.process(ev)...)
			}
			batch[i] = nil // let processed events be collected
		}
	}
}

func (q *eventQueue) runDeliver() {
	defer close(q.ch)
	for {
		batch, ok := q.out.take()
		if !ok {
			return
		}
		for i, ev := range batch {
			q.ch <- ev
			batch[i] = nil // let delivered events be collected
		}
	}
}
