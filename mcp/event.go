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
type StderrEvent struct {
	Time time.Time
	Line string
}

// State is the connection's life cycle.
type State uint8

const (
	StateConnecting  State = iota + 1 // starting the transport
	StateHandshaking                  // initialize or server/discover in flight
	StateReady                        // handshake done; requests may be sent
	StateClosed                       // closed by mcpscope
	StateFailed                       // the server exited, the handshake failed, or the transport broke
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
	// Kind groups events: "http", "sse", "reconnect", "oauth", "websocket".
	Kind string
	// Summary is one line for the timeline, e.g. "POST /mcp → 200 text/event-stream".
	Summary string
	// Fields are the details that matter (method, url, status, headers
	// such as Mcp-Session-Id, MCP-Protocol-Version, Content-Type,
	// WWW-Authenticate, Last-Event-ID, retry), as ordered key/value pairs.
	Fields []Field
	// Err is set when the step failed.
	Err error
}

// Field is one named detail of a TransportEvent.
type Field struct{ Key, Value string }

// DiagnosticEvent carries a protocol problem found by an [Analyzer]. It is
// published right after the event that revealed it.
type DiagnosticEvent struct {
	Time       time.Time
	Diagnostic *Diagnostic
}

// Severity ranks a diagnostic.
type Severity uint8

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
// called synchronously for every event, in order, from the publishing
// goroutine; it must be quick and must not call back into the Client.
type Analyzer interface {
	Observe(ev Event) []*Diagnostic
}

func (e FrameEvent) At() time.Time      { return e.Frame.Time }
func (e StderrEvent) At() time.Time     { return e.Time }
func (e StateEvent) At() time.Time      { return e.Time }
func (e HandshakeEvent) At() time.Time  { return e.Time }
func (e ListEvent) At() time.Time       { return e.Time }
func (e ExitEvent) At() time.Time       { return e.Time }
func (e LocalErrorEvent) At() time.Time { return e.Time }
func (e TransportEvent) At() time.Time  { return e.Time }
func (e DiagnosticEvent) At() time.Time { return e.Time }

// eventQueue is an unbounded FIFO feeding a channel. A debugger must never
// drop an event, and must never block the read loop on a slow UI, so events
// are buffered without limit and delivered in order by one goroutine.
type eventQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []Event
	closed  bool
	out     chan Event
	started bool
}

func newEventQueue() *eventQueue {
	q := &eventQueue{out: make(chan Event, 64)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push queues events under one lock: the delivery goroutine takes them
// together.
func (q *eventQueue) push(evs ...Event) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, evs...)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

// close ends the stream: events already queued are still delivered, then the
// channel is closed.
func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
}

// channel starts the delivery goroutine on first use. The caller must read
// the channel until it is closed.
func (q *eventQueue) channel() <-chan Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.started {
		q.started = true
		go q.run()
	}
	return q.out
}

func (q *eventQueue) run() {
	defer close(q.out)
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.items) == 0 && q.closed {
			q.mu.Unlock()
			return
		}
		batch := q.items
		q.items = nil
		q.mu.Unlock()
		for i, ev := range batch {
			q.out <- ev
			batch[i] = nil // let delivered events be collected
		}
	}
}
