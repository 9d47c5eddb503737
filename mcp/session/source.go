package session

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
)

// Source is what a front end looks at: an ordered stream of events and,
// where the source allows it, a way to send. A live Session is one; a
// Replay (a recorded session, read-only) is another; a tap (traffic
// between a real client and a server, watched only) is a third. The
// front end does not know which it has: a source that cannot send answers
// every Sender method with a *ReadOnlyError that says why.
type Source interface {
	// Events is the ordered stream; the same channel on every call. It is
	// closed after the source ends; the reader must read it to the end.
	Events() <-chan mcp.Event
	// Start connects (a live server) or begins (a tap); it returns once
	// the source is ready or failed. The outcome is also on the stream.
	Start(ctx context.Context) error
	// SetHandler installs what answers the server's requests; a source
	// that cannot send ignores it.
	SetHandler(h mcp.Handler)
	// TransportName says how the traffic travels ("stdio", "http", ...).
	TransportName() string
	// Close ends the source and waits for it.
	Close() error
	Sender
}

// Sender sends what a person asks for. Each method returns at once; the
// outcome is on the event stream (an OpDoneEvent, or the more specific
// event the method names).
type Sender interface {
	CallTool(name string, args json.RawMessage) (Op, error)
	Request(method string, params json.RawMessage) (Op, error)
	ReadResource(uri string) (Op, error)
	GetPrompt(name string, args map[string]string) (Op, error)
	ListPage(method, cursor string) (Op, error)
	Complete(req CompleteRequest) (Op, error)
	Ping() (Op, error)
	SetLogLevel(level string) (Op, error)
	Subscribe(uri string, on bool) (Op, error)
	TaskResult(taskID string) (Op, error)
	CancelTask(taskID string) (Op, error)
	Cancel(id OpID) error
	NotifyRootsChanged() (sent bool, err error)
}

var (
	_ Source = (*Session)(nil)
	_ Source = (*Replay)(nil)
)

// ReadOnlyError is the answer of a source that cannot send.
type ReadOnlyError struct {
	Method string // what was asked
	Why    string // e.g. "this is a recorded session (run.jsonl): nothing can be sent"
}

func (e *ReadOnlyError) Error() string {
	if e.Method == "" {
		return e.Why
	}
	return fmt.Sprintf("cannot send %s: %s", e.Method, e.Why)
}

// ReadOnly is a Sender that sends nothing and says why. Sources that only
// watch or replay embed it.
type ReadOnly struct{ Why string }

func (r ReadOnly) refuse(method string) error { return &ReadOnlyError{Method: method, Why: r.Why} }

// Watching reports that the source shows what another client did: what
// that client never asked for is not in it, and no one will ask now.
func (ReadOnly) Watching() bool { return true }

// Watcher is a source that shows what another client did (a recording, a
// tap): every source that embeds ReadOnly.
type Watcher interface{ Watching() bool }

// ReadOnlyWhy is what every send key answers: why nothing can be sent.
func (r ReadOnly) ReadOnlyWhy() string { return r.Why }

// Refuser is a source that sends nothing (every source that embeds
// ReadOnly): the UI says so before anything is filled in, not only when it
// is sent.
type Refuser interface{ ReadOnlyWhy() string }

// Recording is a source that reads a session file: what it shows happened
// before, whatever state the recorded connection ended in.
type Recording interface{ Recorded() bool }

// CallTool refuses.
func (r ReadOnly) CallTool(string, json.RawMessage) (Op, error) {
	return Op{}, r.refuse(mcp.MethodToolsCall)
}

// Request refuses.
func (r ReadOnly) Request(method string, _ json.RawMessage) (Op, error) {
	return Op{}, r.refuse(method)
}

// ReadResource refuses.
func (r ReadOnly) ReadResource(string) (Op, error) { return Op{}, r.refuse(mcp.MethodResourcesRead) }

// GetPrompt refuses.
func (r ReadOnly) GetPrompt(string, map[string]string) (Op, error) {
	return Op{}, r.refuse(mcp.MethodPromptsGet)
}

// ListPage refuses.
func (r ReadOnly) ListPage(method, _ string) (Op, error) { return Op{}, r.refuse(method) }

// Complete refuses.
func (r ReadOnly) Complete(CompleteRequest) (Op, error) {
	return Op{}, r.refuse(mcp.MethodCompletionComplete)
}

// Ping refuses.
func (r ReadOnly) Ping() (Op, error) { return Op{}, r.refuse(mcp.MethodPing) }

// SetLogLevel refuses.
func (r ReadOnly) SetLogLevel(string) (Op, error) { return Op{}, r.refuse("a logging level") }

// Subscribe refuses.
func (r ReadOnly) Subscribe(string, bool) (Op, error) { return Op{}, r.refuse("a subscription") }

// TaskResult refuses.
func (r ReadOnly) TaskResult(string) (Op, error) { return Op{}, r.refuse(mcp.MethodTasksResult) }

// CancelTask refuses.
func (r ReadOnly) CancelTask(string) (Op, error) { return Op{}, r.refuse(mcp.MethodTasksCancel) }

// Cancel refuses: nothing was sent, so nothing can be cancelled.
func (r ReadOnly) Cancel(OpID) error { return r.refuse(mcp.NotifyCancelled) }

// NotifyRootsChanged refuses.
func (r ReadOnly) NotifyRootsChanged() (bool, error) {
	return false, r.refuse(mcp.NotifyRootsListChanged)
}

// Replay is a read-only Source over events already known: a recorded
// session, or a test's script. Its stream delivers them in order and
// closes.
type Replay struct {
	ReadOnly
	events    []mcp.Event
	transport string
	ch        chan mcp.Event
	start     chan struct{}
	done      chan struct{}
	started   sync.Once
	closed    sync.Once
}

// NewReplay makes a read-only source of events. why is what every send
// key answers, e.g. "this is a recorded session (run.jsonl): nothing can
// be sent".
func NewReplay(events []mcp.Event, transport, why string) *Replay {
	r := &Replay{ReadOnly: ReadOnly{Why: why}, events: events, transport: transport,
		ch: make(chan mcp.Event), start: make(chan struct{}), done: make(chan struct{})}
	go r.run()
	return r
}

func (r *Replay) run() {
	defer close(r.ch)
	select {
	case <-r.start:
	case <-r.done:
		return
	}
	for _, ev := range r.events {
		select {
		case r.ch <- ev:
		case <-r.done:
			return
		}
	}
}

// Events delivers the events once Start was called, then closes.
func (r *Replay) Events() <-chan mcp.Event { return r.ch }

// Start begins the delivery.
func (r *Replay) Start(context.Context) error {
	r.started.Do(func() { close(r.start) })
	return nil
}

// SetHandler does nothing: a replayed server asks nothing.
func (r *Replay) SetHandler(mcp.Handler) {}

// TransportName is the recorded transport's.
func (r *Replay) TransportName() string { return r.transport }

// Close stops the delivery; the stream closes.
func (r *Replay) Close() error {
	r.closed.Do(func() { close(r.done) })
	return nil
}
