// Package session is the protocol engine of an interactive debugger: it
// drives one mcp.Client on a person's behalf and says what happened on one
// ordered event stream. It sends the requests a user asks for (tools/call,
// resources/read, prompts/get, list pages, completion/complete, ping, the
// logging level, era-neutral resource subscriptions, tasks/result and
// tasks/cancel), polls tasks, follows list_changed (coalesced, with what
// was added, removed or changed), and tracks URL elicitations.
//
// Everything it learns is an event on the same stream as the client's
// frames, in order: an operation's OpDoneEvent comes after its response
// frame, a ProgressEvent right after its notification. A front end (the
// TUI) only shows events; it decodes no protocol payload itself. Source is
// what such a front end looks at; a Session is the live one, Replay a
// read-only one.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// Options adjust a Session.
type Options struct {
	// RequestTimeout is the timeout of the requests a person starts (it
	// restarts on progress); 60 s when zero.
	RequestTimeout time.Duration
}

// opIDs numbers operations across every session of the process (see OpID).
var opIDs atomic.Int64

// Session drives one client. Its methods are safe for concurrent use and
// never block on the network: requests run on goroutines of their own and
// their outcomes are events.
type Session struct {
	c      *mcp.Client
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	q      *mcp.EventStream

	mu sync.Mutex
	// ended is set once the client's stream has ended: no new operation
	// starts, and the stream closes when those in flight have reported.
	ended bool
	wg    sync.WaitGroup
	ops   map[OpID]*op
	// forwarded is the Seq of the last frame put on the stream; results
	// whose response frame is not on it yet wait in parked.
	forwarded int64
	parked    []parkedEvent
	// streamAt is the time of the last client event put on the stream:
	// what the session adds in between is stamped from it (see atLocked).
	streamAt  time.Time
	handshake *mcp.Handshake
	// lists are the lists as last seen (discovery, a first page, a
	// re-list), for the next diff; listing and relistAgain coalesce
	// list_changed: one re-list in flight per method, one more after it.
	lists       map[string][]json.RawMessage
	listing     map[string]bool
	relistAgain map[string]bool
	// early holds the lists a list_changed named before the handshake was
	// known (a server may send one right after notifications/initialized):
	// whether to follow it depends on the capabilities, so it waits for
	// the HandshakeEvent.
	early map[string]bool
	// logLevel is the modern era's per-request level ("" for none).
	logLevel string
	// polls are the tasks whose tasks/get is scheduled, one timer each.
	polls map[string]*time.Timer
	// listenURIs are the URIs the modern era's subscriptions/listen
	// stream carries; listenOp is that stream.
	listenURIs map[string]bool
	listenOp   OpID
	// urlElicitations are URL elicitations accepted and not completed.
	urlElicitations map[string]bool
}

// op is an operation in flight.
type op struct {
	Op
	cancel     context.CancelFunc
	superseded bool // a listen stream replaced on purpose
}

type parkedEvent struct {
	seq int64
	ev  mcp.Event
}

// New makes a session over an unconnected client and starts reading the
// client's events. ctx bounds every request the session sends. The caller
// must read Events until it is closed (which happens after the client is
// closed).
func New(ctx context.Context, c *mcp.Client, opts Options) *Session {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 60 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{
		c: c, opts: opts, ctx: ctx, cancel: cancel, q: mcp.NewEventStream(),
		ops: map[OpID]*op{}, lists: map[string][]json.RawMessage{},
		listing: map[string]bool{}, relistAgain: map[string]bool{},
		polls: map[string]*time.Timer{}, listenURIs: map[string]bool{},
		urlElicitations: map[string]bool{},
	}
	go s.forward(c.Events())
	return s
}

// Client is the client the session drives.
func (s *Session) Client() *mcp.Client { return s.c }

// Events is the ordered stream: the client's events with the session's in
// between. It is closed after the client's stream ended and every
// operation in flight reported.
func (s *Session) Events() <-chan mcp.Event { return s.q.Channel() }

// Start connects the client (the handshake, then discovery if the client
// was made with it). The outcome is also on the stream.
func (s *Session) Start(ctx context.Context) error {
	hs, err := s.c.Connect(ctx)
	if hs != nil {
		// Known at once, not only when the HandshakeEvent has gone by: a
		// request started right after Start uses the right era.
		s.mu.Lock()
		s.handshake = hs
		s.mu.Unlock()
	}
	return err
}

// SetHandler installs what answers the server's requests, wrapped so that
// accepted URL elicitations are tracked until the server completes them.
func (s *Session) SetHandler(h mcp.Handler) {
	if h == nil {
		s.c.SetHandler(nil)
		return
	}
	s.c.SetHandler(&trackingHandler{s: s, next: h})
}

// TransportName is the client's transport ("stdio", "http", ...).
func (s *Session) TransportName() string { return s.c.TransportName() }

// Close cancels what is in flight and closes the client; the stream ends
// once the last event is delivered.
func (s *Session) Close() error {
	s.cancel()
	return s.c.Close()
}

// Shutdown is Close within ctx's deadline: the server is stopped in the
// spec's order, fitted in it, and killed when it ends (see
// mcp.Client.Shutdown). Quitting uses it.
func (s *Session) Shutdown(ctx context.Context) error {
	s.cancel()
	return s.c.Shutdown(ctx)
}

// forward copies the client's stream to the session's, adding what the
// session derives from each event right after it.
func (s *Session) forward(in <-chan mcp.Event) {
	for ev := range in {
		s.mu.Lock()
		if at := ev.At(); at.After(s.streamAt) {
			s.streamAt = at
		}
		derived := s.observeLocked(ev)
		s.q.Push(ev)
		s.q.Push(derived...)
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Seq > s.forwarded {
			s.forwarded = fe.Frame.Seq
			s.flushParkedLocked(false)
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.ended = true
	for id, t := range s.polls {
		t.Stop()
		delete(s.polls, id)
	}
	s.mu.Unlock()
	s.wg.Wait() // the client is closed: every Call in flight returns
	s.mu.Lock()
	s.flushParkedLocked(true)
	s.mu.Unlock()
	s.cancel()
	s.q.Close()
}

// publish puts events on the stream at once.
func (s *Session) publish(evs ...mcp.Event) {
	s.mu.Lock()
	s.q.Push(evs...)
	s.mu.Unlock()
}

// publishAfter puts events on the stream after the frame f (a response):
// if that frame is still on its way through the client's stream, they wait
// for it, so a result never overtakes its own frame.
func (s *Session) publishAfter(f *mcp.Frame, evs ...mcp.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.publishAfterLocked(f, evs...)
}

func (s *Session) publishAfterLocked(f *mcp.Frame, evs ...mcp.Event) {
	if f == nil || f.Seq <= s.forwarded || s.ended {
		s.q.Push(evs...)
		return
	}
	for _, ev := range evs {
		s.parked = append(s.parked, parkedEvent{seq: f.Seq, ev: ev})
	}
}

// atLocked is the time of an event the session puts on the stream after
// the frame f (nil: at the stream's end). The session learns things (a
// re-list's outcome) a moment after the frame that told it, while frames
// read meanwhile may still be on their way through the client's stream,
// to be put after it: stamped with the clock, the event would show a time
// later than the frames below it. Its time is the stream's where it is
// put: f's when it waits for f, else the last event's forwarded.
func (s *Session) atLocked(f *mcp.Frame) time.Time {
	switch {
	case f != nil && f.Seq > s.forwarded && !s.ended:
		return f.Time
	case !s.streamAt.IsZero():
		return s.streamAt
	}
	return time.Now()
}

func (s *Session) flushParkedLocked(all bool) {
	kept := s.parked[:0]
	for _, p := range s.parked {
		if all || p.seq <= s.forwarded {
			s.q.Push(p.ev)
		} else {
			kept = append(kept, p)
		}
	}
	s.parked = kept
}

// observeLocked reacts to one event of the client's stream and returns
// the events that follow it.
func (s *Session) observeLocked(ev mcp.Event) []mcp.Event {
	switch ev := ev.(type) {
	case mcp.HandshakeEvent:
		s.handshake = ev.Handshake
		var evs []mcp.Event
		for _, l := range mcp.DiscoveryLists() { // the lists a list_changed names, in order
			if s.early[l.Method] {
				evs = append(evs, s.relistLocked(l.Method, ev.Time)...)
			}
		}
		s.early = nil
		return evs
	case mcp.ListEvent:
		s.lists[ev.Method] = ev.Items
	case mcp.FrameEvent:
		f := ev.Frame
		if f.Dir == mcp.Inbound && f.Kind == mcp.KindNotification {
			return s.notificationLocked(f)
		}
	}
	return nil
}

// notificationLocked follows one inbound notification: a list_changed
// starts a coalesced re-list, a task's status schedules its next poll, an
// elicitation's completion closes one the user accepted; derive says what
// else it shows.
func (s *Session) notificationLocked(f *mcp.Frame) []mcp.Event {
	if lists := mcp.ListsChangedBy(f.Method); len(lists) > 0 {
		var evs []mcp.Event
		for _, l := range lists {
			evs = append(evs, s.relistLocked(l.Method, f.Time)...)
		}
		return evs
	}
	evs := derive(f)
	for i, ev := range evs {
		switch ev := ev.(type) {
		case TaskEvent:
			s.scheduleLocked(ev.Task)
		case ElicitationEvent:
			ev.Known = s.urlElicitations[ev.ID]
			delete(s.urlElicitations, ev.ID)
			evs[i] = ev
		}
	}
	return evs
}

// Derive is what a read-only source (a tap, a session file) shows beside
// one event, as a Session would: for an inbound notification, its
// ProgressEvent, LogMessageEvent, ResourceUpdatedEvent or TaskEvent, or an
// UnreadableEvent when its params cannot be read. A read-only source sends
// nothing, so nothing is re-listed or polled, and an elicitation's
// completion is left to the frame (no elicitation was accepted here).
func Derive(ev mcp.Event) []mcp.Event {
	fe, ok := ev.(mcp.FrameEvent)
	if !ok {
		return nil
	}
	var out []mcp.Event
	for _, d := range derive(fe.Frame) {
		if _, ok := d.(ElicitationEvent); !ok {
			out = append(out, d)
		}
	}
	return out
}

// derive decodes the notifications the session follows. One whose params
// cannot be read is reported (UnreadableEvent) right after its frame,
// never skipped in silence.
func derive(f *mcp.Frame) []mcp.Event {
	if f.Dir != mcp.Inbound || f.Kind != mcp.KindNotification {
		return nil
	}
	switch f.Method {
	case mcp.NotifyProgress, mcp.NotifyMessage, mcp.NotifyResourcesUpdated, mcp.NotifyTasksStatus, mcp.NotifyElicitationComplete:
	default:
		return nil // decode only what the session follows
	}
	unreadable := func(err error) []mcp.Event {
		return []mcp.Event{UnreadableEvent{Time: f.Time, Seq: f.Seq, Method: f.Method, Err: err}}
	}
	var env struct{ Params json.RawMessage }
	var err error
	// A view of the frame's bytes, not a copy: the log pane keeps it.
	if env.Params, err = mcp.ParamsView(f.Raw); err != nil {
		return unreadable(err)
	}
	switch f.Method {
	case mcp.NotifyProgress:
		p, err := mcp.ParseProgress(env.Params)
		if err != nil {
			return unreadable(err)
		}
		return []mcp.Event{ProgressEvent{Time: f.Time, Token: p.Token, Progress: p.Progress, Total: p.Total, Message: p.Message}}
	case mcp.NotifyMessage:
		return []mcp.Event{LogMessageEvent{Time: f.Time, Params: env.Params, Frame: f}}
	case mcp.NotifyResourcesUpdated:
		var p struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(env.Params, &p); err != nil {
			return unreadable(err)
		}
		return []mcp.Event{ResourceUpdatedEvent{Time: f.Time, URI: p.URI}}
	case mcp.NotifyTasksStatus:
		t, ok := decodeTask(env.Params)
		if !ok {
			return unreadable(errors.New("the params are not a task (no taskId)"))
		}
		return []mcp.Event{TaskEvent{Time: f.Time, Task: t}}
	default: // mcp.NotifyElicitationComplete
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		if err := json.Unmarshal(env.Params, &p); err != nil {
			return unreadable(err)
		}
		return []mcp.Event{ElicitationEvent{Time: f.Time, ID: p.ElicitationID, Completed: true}}
	}
}

// trackingHandler answers through the front end's handler and remembers
// the URL elicitations the user accepted.
type trackingHandler struct {
	s    *Session
	next mcp.Handler
}

func (h *trackingHandler) HandleServerRequest(ctx context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
	result, err := h.next.HandleServerRequest(ctx, req)
	if err != nil || req.Method != mcp.MethodElicitationCreate {
		return result, err
	}
	var params struct {
		Mode          string `json:"mode"`
		ElicitationID string `json:"elicitationId"`
	}
	var answer struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(req.Params, &params) != nil || json.Unmarshal(result, &answer) != nil {
		return result, err // not a URL elicitation the session can follow
	}
	if params.Mode == "url" && params.ElicitationID != "" && answer.Action == "accept" {
		h.s.mu.Lock()
		h.s.urlElicitations[params.ElicitationID] = true
		h.s.q.Push(ElicitationEvent{Time: time.Now(), ID: params.ElicitationID, Known: true})
		h.s.mu.Unlock()
	}
	return result, err
}
