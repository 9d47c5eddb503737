package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/replay"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/surfacediff"
)

// SourceOptions configure a reloading Source.
type SourceOptions struct {
	// Watch are the paths and ignore rules; nil Paths means the reload
	// key alone restarts.
	Watch Options
	// Build is run before each restart ("" for none), in Dir with Env
	// added to mcpscope's environment.
	Build string
	Dir   string
	Env   []string
	// Rerun sends the last request made by hand (a tool call, a resource
	// read, a prompt get) again after each restart and compares the
	// answers (a RerunEvent before the new answer's OpDoneEvent).
	Rerun bool
	// Record, when set, sees the events the Source makes itself (the
	// restarts, failed builds, surface diffs and their diagnostics), in
	// order: --record writes them with the sessions' own.
	Record func(mcp.Event)
	// StopBudget bounds the old server's shutdown at a restart (stdin
	// closed, then SIGTERM, then SIGKILL, fitted in it); DefaultStopBudget
	// when zero.
	StopBudget time.Duration
}

// DefaultStopBudget is how long a restart gives the old server to end:
// two thirds of it after its stdin is closed, then SIGTERM, then SIGKILL.
// A server that keeps running after its stdin ends (server-everything has
// timers) is replaced in this much, which counts against hot reload's
// budget (500 ms beside the build and the new server's start).
const DefaultStopBudget = 300 * time.Millisecond

// BuildingEvent says a build has started (the status line shows it while
// it runs).
type BuildingEvent struct {
	Time    time.Time
	Command string
	Cause   string
}

// At is when the build started.
func (e BuildingEvent) At() time.Time { return e.Time }

// RerunEvent is the last request made by hand, sent again after a
// restart, with its answer compared to the one before it by replay's
// comparator (its ignore rules: _meta, timestamps, ids...). It comes right
// before the OpDoneEvent of the new answer.
type RerunEvent struct {
	Time  time.Time
	Op    session.OpID
	Label string
	// Before and After are the two answers ({"result":...} or
	// {"error":...}); After is nil when the request got none (a timeout, a
	// lost connection).
	Before, After json.RawMessage
	Differences   []replay.Difference
}

// At is when the new answer came.
func (e RerunEvent) At() time.Time { return e.Time }

// Source is a session.Source that replaces the session it drives when the
// watched files change (or Reload is called): the build runs, and when it
// succeeds the old server is stopped and a new session started, all on
// one event stream: the old session's last events, then a
// TransportRestart row naming the change, then the new session's events,
// then (once the new server's lists are in) a TransportSurface row with
// what changed and a diagnostic for each breaking change. A failed build
// is a TransportBuild row with its output, and the running server is
// kept.
type Source struct {
	newInner func() session.Source
	o        SourceOptions
	w        *Watcher
	loop     *Loop
	q        *mcp.EventStream
	ctx      context.Context
	cancel   context.CancelFunc
	loopDone chan struct{}

	mu      sync.Mutex
	cur     session.Source
	fwdDone chan struct{} // closed once cur's stream is forwarded to its end
	handler mcp.Handler
	started bool
	closed  bool
	// conn is the current connection's surface as it comes in; prev the
	// last complete one, which the next restart compares with.
	conn *connSurface
	prev *surfacediff.Surface
	// round is the restart whose surface diff waits for the new lists.
	round *Round
	// last is the last request made by hand; rerun the sending again of it.
	last  *manual
	rerun *manual
	// retiring is the session a restart is stopping: its exit is
	// mcpscope's doing.
	retiring session.Source
}

// manual is a request made by hand, how to send it again, and its answer.
type manual struct {
	label  string
	send   func(session.Sender) (session.Op, error)
	op     session.OpID
	answer json.RawMessage // nil until answered (or when it got no answer)
	before json.RawMessage // for a rerun: the answer it is compared with
}

var _ session.Source = (*Source)(nil)

// NewSource makes a reloading source over sessions made by newInner (one
// per server start). It starts watching at once; nothing restarts before
// Start.
func NewSource(newInner func() session.Source, o SourceOptions) (*Source, error) {
	s := &Source{newInner: newInner, o: o, q: mcp.NewEventStream(), loopDone: make(chan struct{}), conn: newConnSurface()}
	if s.o.StopBudget <= 0 {
		s.o.StopBudget = DefaultStopBudget
	}
	if len(o.Watch.Paths) > 0 {
		w, err := New(o.Watch)
		if err != nil {
			return nil, err
		}
		s.w = w
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.loop = &Loop{Watcher: s.w, Build: o.Build, Dir: o.Dir, Env: o.Env,
		Building: s.building, Failed: s.buildFailed, Restart: s.restart, Note: s.note}
	s.cur = newInner()
	return s, nil
}

// Events is the one stream of every session the source runs.
func (s *Source) Events() <-chan mcp.Event { return s.q.Channel() }

// Start starts the first session and the watch.
func (s *Source) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return nil
	}
	s.started = true
	cur := s.cur
	s.fwdDone = s.forward(cur)
	s.mu.Unlock()
	go func() { defer close(s.loopDone); s.loop.Run(s.ctx) }()
	return cur.Start(ctx)
}

// Reload runs a round as a change would: the build, then the restart.
func (s *Source) Reload(who string) { s.loop.Ask(who) }

// Reloads reports that the source restarts its server on Reload.
func (s *Source) Reloads() bool { return true }

// SetHandler installs what answers the server's requests, in every
// session to come too.
func (s *Source) SetHandler(h mcp.Handler) {
	s.mu.Lock()
	s.handler = h
	cur := s.cur
	s.mu.Unlock()
	cur.SetHandler(h)
}

// TransportName is the current session's.
func (s *Source) TransportName() string { return s.current().TransportName() }

// Close stops watching and ends the current session; the stream closes
// after its last event.
func (s *Source) Close() error { return s.stop(func(src session.Source) error { return src.Close() }) }

// Shutdown is Close within ctx's deadline (see session.Session.Shutdown).
func (s *Source) Shutdown(ctx context.Context) error {
	return s.stop(func(src session.Source) error { return shutdown(ctx, src) })
}

func (s *Source) stop(end func(session.Source) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	cur, done, started := s.cur, s.fwdDone, s.started
	s.mu.Unlock()
	s.cancel()
	if s.w != nil {
		_ = s.w.Close()
	}
	if started {
		<-s.loopDone
	}
	err := end(cur)
	if done != nil {
		<-done
	}
	s.q.Close()
	return err
}

func shutdown(ctx context.Context, src session.Source) error {
	if sd, ok := src.(interface{ Shutdown(context.Context) error }); ok {
		return sd.Shutdown(ctx)
	}
	return src.Close()
}

func (s *Source) current() session.Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// own puts an event the source made on the stream and in the record.
func (s *Source) ownLocked(evs ...mcp.Event) {
	s.q.Push(evs...)
	if s.o.Record != nil {
		for _, ev := range evs {
			s.o.Record(ev)
		}
	}
}

func (s *Source) building(c Cause) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.Push(BuildingEvent{Time: time.Now(), Command: s.o.Build, Cause: c.String()})
}

// note is a row of the watch's own.
func (s *Source) note(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ownLocked(mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportWatch, Summary: what})
}

// buildFailed says so with the build's output; the server runs on.
func (s *Source) buildFailed(r Round) {
	b := r.Build
	// What failed first (a long row is cut at its end), then what is kept.
	status := b.Err.Error()
	summary := "build failed (" + status + ")"
	if h := b.Headline(); h != "" {
		summary += ": " + h
	}
	summary += "; the running server is kept"
	fields := []mcp.Field{{Key: "command", Value: b.Command}, {Key: "cause", Value: r.Cause.String()},
		{Key: "status", Value: status}, {Key: "took", Value: Seconds(b.Duration)}}
	fields = append(fields, outputFields(b)...)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ownLocked(mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportBuild, Summary: summary, Fields: fields, Err: b.Err})
}

// outputFields are a build's output, a field a line (an empty key: the
// detail view shows the line alone).
func outputFields(b *Build) []mcp.Field {
	var out []mcp.Field
	if b.Cut > 0 {
		out = append(out, mcp.Field{Key: "output", Value: fmt.Sprintf("(the first %d bytes are left out)", b.Cut)})
	} else if len(b.Output) > 0 {
		out = append(out, mcp.Field{Key: "output", Value: ""})
	}
	for _, line := range strings.Split(strings.TrimRight(string(b.Output), "\n"), "\n") {
		if line != "" || len(out) > 1 {
			out = append(out, mcp.Field{Value: line})
		}
	}
	return out
}

// restart replaces the session: the old one is stopped and its stream
// drained, then the separator, then the new session.
func (s *Source) restart(ctx context.Context, r Round) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	old, done := s.cur, s.fwdDone
	if sf := s.conn.surface(); sf != nil {
		s.prev = sf
	}
	s.retiring = old
	s.mu.Unlock()
	stopCtx, cancel := context.WithTimeout(ctx, s.o.StopBudget)
	_ = shutdown(stopCtx, old)
	cancel()
	<-done // its last events are on the stream before the separator

	s.mu.Lock()
	s.retiring = nil
	if s.closed {
		s.mu.Unlock()
		return
	}
	fields := []mcp.Field{{Key: "cause", Value: r.Cause.String()}}
	if r.Build != nil {
		fields = append(fields, mcp.Field{Key: "build", Value: r.Build.Command}, mcp.Field{Key: "took", Value: Seconds(r.Build.Duration)})
		fields = append(fields, outputFields(r.Build)...)
	}
	s.ownLocked(mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportRestart, Summary: r.Summary(), Fields: fields})
	s.conn, s.round = newConnSurface(), &r
	inner := s.newInner()
	inner.SetHandler(s.handler)
	s.cur = inner
	s.fwdDone = s.forward(inner)
	s.mu.Unlock()
	_ = inner.Start(ctx) // a failure is on the stream (its state, exit and stderr)
}

// forward copies one session's stream onto the source's, watching what
// it says of the server's surface and of the requests made by hand.
func (s *Source) forward(src session.Source) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range src.Events() {
			s.mu.Lock()
			if s.retiring == src {
				ev = stoppedForTheReload(ev)
			}
			after := s.observeLocked(ev)
			s.mu.Unlock()
			if after != nil {
				after()
			}
		}
	}()
	return done
}

// stoppedForTheReload is an event of a server a restart is stopping,
// saying so: its exit is no crash, its connection's end no failure.
func stoppedForTheReload(ev mcp.Event) mcp.Event {
	switch x := ev.(type) {
	case mcp.ExitEvent:
		if x.Exit != nil {
			e := *x.Exit
			e.StoppedFor = "the reload"
			x.Exit = &e
			return x
		}
	case mcp.StateEvent:
		if x.State == mcp.StateClosed {
			x.Detail = "mcpscope stopped the server for the reload"
			return x
		}
	}
	return ev
}

// observeLocked passes one event on, with what the source makes of it
// (the surface diff once the lists are in, a rerun's comparison before
// its answer); what must run outside the lock (sending the rerun) is
// returned.
func (s *Source) observeLocked(ev mcp.Event) func() {
	switch e := ev.(type) {
	case mcp.HandshakeEvent:
		s.conn.handshake(e.Handshake)
	case mcp.ListEvent:
		s.conn.list(e.Method, e.Items, e.Err)
	case session.ListChangedEvent:
		s.conn.list(e.Method, e.Items, e.Err)
	case session.OpDoneEvent:
		if s.rerun != nil && e.Op.ID == s.rerun.op {
			r := s.rerun
			s.rerun = nil
			var after json.RawMessage
			if e.Frame != nil {
				after = replay.AnswerOf(e.Frame.Raw)
			}
			var diffs []replay.Difference
			if after != nil {
				diffs, _ = replay.Compare(r.before, after, nil, false)
			}
			s.q.Push(RerunEvent{Time: e.Time, Op: e.Op.ID, Label: r.label, Before: r.before, After: after, Differences: diffs})
		}
		if s.last != nil && e.Op.ID == s.last.op && e.Frame != nil {
			s.last.answer = replay.AnswerOf(e.Frame.Raw)
		}
	}
	s.q.Push(ev)
	if s.round == nil || !s.conn.complete() {
		return nil
	}
	r := *s.round
	s.round = nil
	s.ownLocked(s.diffEvents(r)...)
	if !s.o.Rerun || s.last == nil || s.last.answer == nil {
		return nil
	}
	last, cur := s.last, s.cur
	return func() {
		op, err := last.send(cur)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.rerun = &manual{label: last.label, op: op.ID, before: last.answer}
		last.op, last.answer = op.ID, nil // the new answer is the next rerun's
		s.mu.Unlock()
	}
}

// diffEvents are the surface row and a diagnostic per breaking change.
func (s *Source) diffEvents(r Round) []mcp.Event {
	now := time.Now()
	cur := s.conn.surface()
	if s.prev == nil {
		return []mcp.Event{mcp.TransportEvent{Time: now, Kind: mcp.TransportSurface,
			Summary: "nothing to compare with: the server before the restart never finished listing"}}
	}
	a, b := s.prev, cur
	var skipped []string
	for m, err := range s.conn.errs {
		skipped = append(skipped, m+" failed ("+err.Error()+"), not compared")
		a, b = without(a, m), without(b, m)
	}
	rep := surfacediff.Compare(a, b)
	ev := mcp.TransportEvent{Time: now, Kind: mcp.TransportSurface, Summary: SurfaceSummary(rep)}
	for _, ch := range rep.Changes {
		ev.Fields = append(ev.Fields, mcp.Field{Key: string(ch.Class), Value: changeText(ch)})
	}
	for _, sk := range skipped {
		ev.Fields = append(ev.Fields, mcp.Field{Key: "skipped", Value: sk})
	}
	evs := []mcp.Event{ev}
	for _, ch := range rep.Changes {
		if ch.Class != surfacediff.Breaking {
			continue
		}
		evs = append(evs, mcp.DiagnosticEvent{Time: now, Diagnostic: &mcp.Diagnostic{
			Rule:     BreakingRule,
			Severity: mcp.SeverityWarning,
			Message:  "after the restart (" + r.Cause.String() + "): " + changeText(ch),
			Why: "a client that listed the server before the change (a model's cached tool list, a saved call, " +
				"a client that does not follow list_changed) may send what the new server refuses",
			Fix: "if the change is meant, keep it compatible where you can (a new property optional with a default, " +
				"a new tool beside the old one) and tell the clients; if not, undo it",
		}})
	}
	return evs
}

// BreakingRule is the rule of the diagnostics a breaking change makes.
const BreakingRule = "reload/breaking-change"

// without is s with one list left out of the comparison.
func without(s *surfacediff.Surface, method string) *surfacediff.Surface {
	c := *s
	c.Lists = map[string][]json.RawMessage{}
	for k, v := range s.Lists {
		if k != method {
			c.Lists[k] = v
		}
	}
	return &c
}

// changeText is one change in words: "tool echo: new required property
// lang (inputSchema.properties.lang)".
func changeText(ch surfacediff.Change) string {
	s := ch.What
	if ch.Name != "" && !strings.Contains(ch.What, ch.Name) {
		s = ch.Area + " " + ch.Name + ": " + ch.What
	}
	if ch.Path != "" && !strings.Contains(s, ch.Path) {
		s += " (" + ch.Path + ")"
	}
	return s
}

// SurfaceSummary is the surface row's one line: the counts and the first
// changes.
func SurfaceSummary(r *surfacediff.Report) string {
	if len(r.Changes) == 0 {
		return "no change: the same tools, resources, templates and prompts"
	}
	var counts []string
	if r.Breaking > 0 {
		counts = append(counts, fmt.Sprintf("%d breaking", r.Breaking))
	}
	if r.Compatible > 0 {
		counts = append(counts, fmt.Sprintf("%d compatible", r.Compatible))
	}
	if info := len(r.Changes) - r.Breaking - r.Compatible; info > 0 {
		counts = append(counts, fmt.Sprintf("%d to note", info))
	}
	var first []string
	for i, ch := range r.Changes {
		if i == 3 {
			first = append(first, fmt.Sprintf("and %d more", len(r.Changes)-3))
			break
		}
		first = append(first, changeText(ch))
	}
	return strings.Join(counts, ", ") + ": " + strings.Join(first, "; ")
}

// The Sender methods go to the current session; a tool call, a resource
// read and a prompt get are remembered for Rerun.

func (s *Source) remember(label string, send func(session.Sender) (session.Op, error)) (session.Op, error) {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	op, err := send(cur)
	if err == nil {
		s.mu.Lock()
		s.last = &manual{label: label, send: send, op: op.ID}
		s.mu.Unlock()
	}
	return op, err
}

// CallTool calls a tool in the current session.
func (s *Source) CallTool(name string, args json.RawMessage) (session.Op, error) {
	return s.remember(mcp.MethodToolsCall+" "+name, func(x session.Sender) (session.Op, error) { return x.CallTool(name, args) })
}

// ReadResource reads a resource in the current session.
func (s *Source) ReadResource(uri string) (session.Op, error) {
	return s.remember(mcp.MethodResourcesRead+" "+uri, func(x session.Sender) (session.Op, error) { return x.ReadResource(uri) })
}

// GetPrompt gets a prompt in the current session.
func (s *Source) GetPrompt(name string, args map[string]string) (session.Op, error) {
	return s.remember(mcp.MethodPromptsGet+" "+name, func(x session.Sender) (session.Op, error) { return x.GetPrompt(name, args) })
}

// Request sends any request in the current session.
func (s *Source) Request(method string, params json.RawMessage) (session.Op, error) {
	return s.current().Request(method, params)
}

// ListPage lists a page in the current session.
func (s *Source) ListPage(method, cursor string) (session.Op, error) {
	return s.current().ListPage(method, cursor)
}

// Complete asks for completions in the current session.
func (s *Source) Complete(req session.CompleteRequest) (session.Op, error) {
	return s.current().Complete(req)
}

// Ping pings the current server.
func (s *Source) Ping() (session.Op, error) { return s.current().Ping() }

// SetLogLevel sets the current server's logging level.
func (s *Source) SetLogLevel(level string) (session.Op, error) { return s.current().SetLogLevel(level) }

// Subscribe subscribes in the current session.
func (s *Source) Subscribe(uri string, on bool) (session.Op, error) {
	return s.current().Subscribe(uri, on)
}

// TaskResult asks the current server for a task's result.
func (s *Source) TaskResult(taskID string) (session.Op, error) { return s.current().TaskResult(taskID) }

// CancelTask cancels a task on the current server.
func (s *Source) CancelTask(taskID string) (session.Op, error) { return s.current().CancelTask(taskID) }

// Cancel cancels a request of the current session.
func (s *Source) Cancel(id session.OpID) error { return s.current().Cancel(id) }

// NotifyRootsChanged tells the current server the roots changed.
func (s *Source) NotifyRootsChanged() (bool, error) { return s.current().NotifyRootsChanged() }

// connSurface is one connection's surface as its events come: the
// handshake, then the lists it declared.
type connSurface struct {
	hs    *mcp.Handshake
	lists map[string][]json.RawMessage
	want  map[string]bool  // declared lists not in yet
	errs  map[string]error // lists that failed
}

func newConnSurface() *connSurface {
	return &connSurface{lists: map[string][]json.RawMessage{}, errs: map[string]error{}}
}

func (c *connSurface) handshake(h *mcp.Handshake) {
	c.hs, c.want = h, map[string]bool{}
	for _, l := range mcp.DiscoveryLists() {
		if h.HasCapability(l.Capability) {
			c.want[l.Method] = true
		}
	}
}

func (c *connSurface) list(method string, items []json.RawMessage, err error) {
	delete(c.want, method)
	if err != nil {
		c.errs[method] = err
		return
	}
	delete(c.errs, method)
	c.lists[method] = items
}

func (c *connSurface) complete() bool { return c.hs != nil && len(c.want) == 0 }

// surface is the connection's surface, nil until it is complete.
func (c *connSurface) surface() *surfacediff.Surface {
	if !c.complete() {
		return nil
	}
	h := c.hs
	lists := map[string][]json.RawMessage{}
	for k, v := range c.lists {
		lists[k] = v
	}
	return &surfacediff.Surface{Label: h.ServerInfo.Name, Server: h.ServerInfo, Era: h.Era.String(), ProtocolVersion: h.ProtocolVersion,
		Capabilities: h.ServerCapabilities, Lists: lists, Client: h.ClientInfo, ClientCapabilities: h.ClientCapabilities,
		OfferedVersion: h.OfferedVersion}
}
