package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// ClientVersion is sent as clientInfo.version; main sets it at start-up.
var ClientVersion = "dev"

// Options configure a [Client]. The zero value is usable: legacy era,
// 60 second timeouts, default capabilities, no handler for server requests.
type Options struct {
	Era             Era           // EraLegacy when zero
	ProtocolVersion string        // the version to offer; the era's latest when empty
	Timeout         time.Duration // per request; 60 s when zero
	ProbeTimeout    time.Duration // how long the auto-era probe waits; 5 s when zero
	ClientInfo      *Implementation
	Capabilities    json.RawMessage // client capabilities; DefaultClientCapabilities when nil
	Handler         Handler         // answers server requests and MRTR input requests
	// Discover lists, after the handshake, everything the server's
	// capabilities allow (all pages), publishing a ListEvent for each.
	Discover bool
	// LogLevel, in the modern era, is sent in every request's _meta.
	LogLevel string
	// TraceMeta, when set, gives keys to add to every request's
	// params._meta (--propagate: W3C traceparent and tracestate, as
	// SEP-414 carries them); they are part of the frame like any byte.
	TraceMeta func() map[string]string
	// OnEvent, when set, sees every event (diagnostics included) in order,
	// from one goroutine of the client's that is not the read loop, before
	// the event is delivered on Events (a recorder uses it). Once Close has
	// returned it has seen every event.
	OnEvent func(Event)
	// Analyzer, when set, sees every event on that same goroutine; its
	// diagnostics are delivered right after the event.
	Analyzer Analyzer
	// KeepAlive, when set, pings a connection that has no other way to
	// notice the server going away (Streamable HTTP in the legacy era
	// without an open standalone GET stream) once nothing was sent or
	// received for this long, so that a lost server shows as StateLost
	// within about this time. The ping's frames are marked Probe: they are
	// mcpscope's own, and the doctor judges them as such. The modern era
	// has no ping, and the other transports notice a loss by themselves.
	KeepAlive time.Duration
	// Probes are requests sent before the handshake, in order, each
	// marked as a probe and never cancelled, its answer (or error) handed
	// to its Answer: a replay sends what the recorded client probed with
	// (Claude Code's server/discover before its initialize). A probe that
	// gets no answer within ProbeTimeout does not stop the handshake.
	Probes []Probe
}

// Probe is one request sent before the handshake (Options.Probes).
type Probe struct {
	Method string
	Params json.RawMessage
	Answer func(*Response, error)
}

// Handler answers requests the server makes of the client: server→client
// requests in the legacy era, input requests inside an InputRequiredResult
// in the modern era. Returning an *RPCError sends that error.
type Handler interface {
	HandleServerRequest(ctx context.Context, req *ServerRequest) (json.RawMessage, error)
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, req *ServerRequest) (json.RawMessage, error)

// HandleServerRequest calls f.
func (f HandlerFunc) HandleServerRequest(ctx context.Context, req *ServerRequest) (json.RawMessage, error) {
	return f(ctx, req)
}

// ServerRequest is one thing the server asked of the client.
type ServerRequest struct {
	Method string
	Params json.RawMessage
	// Frame is the request frame (legacy era); nil for MRTR input requests.
	Frame *Frame
	// InputKey is the key of an MRTR input request (modern era).
	InputKey string
}

// noHandler answers every server request with a JSON-RPC error that says
// plainly why.
type noHandler struct{}

func (noHandler) HandleServerRequest(_ context.Context, req *ServerRequest) (json.RawMessage, error) {
	return nil, &RPCError{
		Code:    CodeMethodNotFound,
		Message: "mcpscope has no answer configured for " + req.Method + " (answer it in the TUI, or set a policy flag)",
	}
}

// Response is the server's answer to a request.
type Response struct {
	Frame  *Frame
	Result json.RawMessage // set unless Error is
	Error  *RPCError
}

// Client speaks MCP to one server over one transport, reporting every
// frame. It is safe for concurrent use.
type Client struct {
	opts      Options
	transport Transport
	q         *eventQueue

	pubMu sync.Mutex // orders seq numbers with the event stream
	seq   int64
	// lastAt is the time of the last event published (under pubMu): the
	// stream's times never run backwards (see clockLocked).
	lastAt time.Time

	conn   Conn
	outbox *fifo[*writeJob] // messages waiting for the writer goroutine

	nextID atomic.Int64

	mu        sync.Mutex
	handler   Handler
	pending   map[ID]*pending // our requests awaiting an answer
	finished  map[ID]finished // our requests answered or abandoned
	progress  map[string]*pending
	inbound   map[ID]context.CancelFunc // server requests being handled
	handshake *Handshake
	modern    bool
	meta      json.RawMessage // _meta object for modern requests
	connected bool
	lost      bool         // StateLost was published and no exchange has reached the server since
	lastWire  atomic.Int64 // UnixNano of the last frame sent or received (KeepAlive)
	closeErr  error

	done      chan struct{} // closed when the connection ended
	closeOnce sync.Once
	wg        sync.WaitGroup // handler goroutines
}

type pending struct {
	seq    int64
	method string
	probe  bool // its answer is labelled as the answer to a probe
	byView bool // its answer is labelled as the answer to a view's request
	// strayCh gets the id of an answer matching no request, for handshake
	// requests only: the server may have answered them under another id.
	strayCh    chan ID
	sent       time.Time
	ch         chan *Response
	failCh     chan error // the transport says no answer will come
	progressCh chan struct{}
	onProgress func(Progress)
}

type finished struct {
	seq       int64
	method    string
	abandoned bool
}

// Progress is one notifications/progress for a request.
type Progress struct {
	Token    string
	Progress float64
	Total    *float64
	Message  string
}

// NewClient makes a client for one transport. Nothing happens until Connect.
func NewClient(t Transport, opts Options) *Client {
	if opts.Era == 0 {
		opts.Era = EraLegacy
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 5 * time.Second
	}
	if opts.ClientInfo == nil {
		opts.ClientInfo = &Implementation{Name: "mcpscope", Version: ClientVersion}
	}
	if opts.Capabilities == nil {
		opts.Capabilities = DefaultClientCapabilities()
	}
	h := opts.Handler
	if h == nil {
		h = noHandler{}
	}
	c := &Client{
		opts:      opts,
		transport: t,
		outbox:    newFIFO[*writeJob](),
		handler:   h,
		pending:   map[ID]*pending{},
		finished:  map[ID]finished{},
		progress:  map[string]*pending{},
		inbound:   map[ID]context.CancelFunc{},
		done:      make(chan struct{}),
	}
	c.q = newEventQueue(c.observe)
	return c
}

// Events returns the ordered stream of everything the client sees. Once it
// is called, the caller must read until the channel is closed, which
// happens after the connection ends.
func (c *Client) Events() <-chan Event { return c.q.channel() }

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err says why the connection ended (nil while it is open).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// Handshake returns the handshake result, or nil before it completed.
func (c *Client) Handshake() *Handshake {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handshake
}

// SetHandler replaces the handler for server requests (the UI installs one
// once it can show modals).
func (c *Client) SetHandler(h Handler) {
	if h == nil {
		h = noHandler{}
	}
	c.mu.Lock()
	c.handler = h
	c.mu.Unlock()
}

// TransportName is the short name of the transport in use: the
// transport's Name, or what the connection fell back to ("sse (fallback)"
// once a Streamable HTTP server was found to speak only HTTP+SSE).
func (c *Client) TransportName() string {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if u, ok := conn.(interface{ TransportInUse() string }); ok {
		if name := u.TransportInUse(); name != "" {
			return name
		}
	}
	return c.transport.Name()
}

// keepAlive pings an idle connection that cannot otherwise tell that its
// server went away (see Options.KeepAlive), until the connection ends.
func (c *Client) keepAlive(idle time.Duration) {
	defer c.wg.Done()
	tick := time.NewTicker(max(idle/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-tick.C:
		}
		if !c.needsKeepAlive() || time.Since(time.Unix(0, c.lastWire.Load())) < idle {
			continue
		}
		// The outcome is in the events: a ping that cannot reach the
		// server makes the state lost (markLost), an answer is a frame.
		// Call returns when the connection ends.
		_, _ = c.Call(context.Background(), MethodPing, nil, AsProbe(), WithTimeout(max(idle, time.Second)))
	}
}

// needsKeepAlive reports whether the connection, now, has no other way to
// notice that the server went away.
func (c *Client) needsKeepAlive() bool {
	c.mu.Lock()
	conn, modern, lost, ready, closed := c.conn, c.modern, c.lost, c.handshake != nil, c.closeErr != nil
	c.mu.Unlock()
	if !ready || modern || lost || closed {
		return false
	}
	k, ok := conn.(interface{ needsKeepAlive() bool })
	return ok && k.needsKeepAlive()
}

// markLost publishes StateLost once, with the cause, when the server of an
// open, handshaken connection could not be reached. Before the handshake
// a failure ends the connection anyway (StateFailed).
func (c *Client) markLost(cause *UnreachableError) {
	c.pubMu.Lock()
	defer c.pubMu.Unlock()
	c.mu.Lock()
	publish := c.handshake != nil && c.closeErr == nil && !c.lost
	if publish {
		c.lost = true
	}
	c.mu.Unlock()
	if publish {
		c.publishLocked(StateEvent{Time: time.Now(), State: StateLost, Detail: "server unreachable: " + cause.Reason() + " (" + cause.Op + ")"})
	}
}

// markReachable brings a lost connection back to StateReady once an
// exchange reached the server again; how brings the exchange's summary.
func (c *Client) markReachable(how string) {
	c.pubMu.Lock()
	defer c.pubMu.Unlock()
	c.mu.Lock()
	publish := c.lost && c.closeErr == nil
	c.lost = false
	c.mu.Unlock()
	if publish {
		c.publishLocked(StateEvent{Time: time.Now(), State: StateReady, Detail: "the server answers again (" + how + ")"})
	}
}

// Note puts a row of mcpscope's own on the client's timeline, in order
// with its frames, recorded and analysed like them: the MCP Apps preview's
// bridge messages and its view's reports are TransportEvents of kind "app".
// After the client closed, the row is dropped with the stream.
func (c *Client) Note(ev TransportEvent) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	c.publish(ev)
}

func (c *Client) publish(ev Event) {
	c.pubMu.Lock()
	c.publishLocked(ev)
	c.pubMu.Unlock()
}

func (c *Client) publishLocked(ev Event) {
	if fe, ok := ev.(FrameEvent); ok {
		c.numberLocked(fe.Frame)
	}
	c.q.push(restamp(ev, c.clockLocked(ev.At())))
}

// clockLocked keeps the stream's times in the stream's order; the caller
// holds pubMu. Events are stamped where they happen, on several
// goroutines (an HTTP response's reader, the standalone stream's, the
// writer), and published one at a time: one stamped a moment before
// another can take the lock after it. The log shows the stream in order
// with each event's time, so a time earlier than the last one published
// is raised to it: by what the event waited for the lock, and the order
// and the times agree.
func (c *Client) clockLocked(t time.Time) time.Time {
	if t.Before(c.lastAt) {
		return c.lastAt
	}
	c.lastAt = t
	return t
}

// restamp is ev with its time set to t (a frame's, in place: it is not
// published yet).
func restamp(ev Event, t time.Time) Event {
	if ev.At().Equal(t) {
		return ev
	}
	switch e := ev.(type) {
	case FrameEvent:
		e.Frame.Time = t
	case StderrEvent:
		e.Time = t
		return e
	case StateEvent:
		e.Time = t
		return e
	case HandshakeEvent:
		e.Time = t
		return e
	case ListEvent:
		e.Time = t
		return e
	case ExitEvent:
		e.Time = t
		return e
	case LocalErrorEvent:
		e.Time = t
		return e
	case TransportEvent:
		e.Time = t
		return e
	case DiagnosticEvent:
		e.Time = t
		return e
	}
	return ev
}

// numberLocked gives a frame the next Seq; the caller holds pubMu.
func (c *Client) numberLocked(f *Frame) {
	c.seq++
	f.Seq = c.seq
	if !f.Time.IsZero() {
		c.lastWire.Store(f.Time.UnixNano())
	}
}

// observe runs the recorder and the analyzer on one event, off the read
// loop and in publication order, and returns the event followed by its
// diagnostics: they are queued together, so a reader that drains what is
// queued seldom gets a frame without its diagnostics.
func (c *Client) observe(ev Event) []Event {
	if c.opts.OnEvent != nil {
		c.opts.OnEvent(ev)
	}
	if c.opts.Analyzer == nil {
		return []Event{ev}
	}
	group := []Event{ev}
	for _, d := range c.opts.Analyzer.Observe(ev) {
		dev := DiagnosticEvent{Time: ev.At(), Diagnostic: d}
		if c.opts.OnEvent != nil {
			c.opts.OnEvent(dev)
		}
		group = append(group, dev)
	}
	return group
}

func (c *Client) state(s State, detail string) {
	c.publish(StateEvent{Time: time.Now(), State: s, Detail: detail})
}

// Connect starts the transport and performs the handshake of the configured
// era. On failure the connection is closed and the error says why: an
// *ExitError inside for a server that died, a *HandshakeError for a refused
// or unsupported handshake.
func (c *Client) Connect(ctx context.Context) (*Handshake, error) {
	c.state(StateConnecting, "starting "+c.transport.Name()+" transport")
	conn, err := c.transport.Start(ctx, clientSink{c})
	if err != nil {
		c.state(StateFailed, err.Error())
		c.finish(err)
		return nil, err
	}
	c.mu.Lock()
	closedMeanwhile := c.closeErr != nil
	c.conn = conn
	c.connected = !closedMeanwhile
	if !closedMeanwhile {
		c.wg.Add(1)
		go c.writeLoop(conn)
	}
	c.mu.Unlock()
	if closedMeanwhile {
		// Close ran while the transport was starting: stop what started.
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, ErrClosed
	}

	c.state(StateHandshaking, "era "+c.opts.Era.String())
	for _, p := range c.opts.Probes {
		resp, err := c.call(ctx, p.Method, p.Params, callOpts{probe: true, noCancel: true, timeout: c.opts.ProbeTimeout})
		if p.Answer != nil {
			p.Answer(resp, err)
		}
	}
	hs, err := c.runHandshake(ctx)
	if err != nil {
		// The server may already be gone; prefer its exit as the cause.
		if cerr := c.Err(); cerr != nil && !errors.Is(err, cerr) {
			var exit *ExitError
			if errors.As(cerr, &exit) && !errors.As(err, &exit) {
				err = &HandshakeError{Reason: "the server ended during the handshake", Err: cerr}
			}
		}
		c.state(StateFailed, err.Error())
		_ = c.Close()
		return nil, err
	}
	c.mu.Lock()
	c.handshake = hs
	c.mu.Unlock()
	c.publish(HandshakeEvent{Time: time.Now(), Handshake: hs})
	c.state(StateReady, fmt.Sprintf("%s era, protocol %s", hs.Era, hs.ProtocolVersion))
	if c.opts.KeepAlive > 0 {
		c.wg.Add(1)
		go c.keepAlive(c.opts.KeepAlive)
	}
	if c.opts.Discover {
		c.DiscoverAll(ctx)
	}
	return hs, nil
}

// DiscoverAll lists (all pages) every list the server's capabilities allow,
// publishing a ListEvent for each. Errors are reported in the events.
func (c *Client) DiscoverAll(ctx context.Context) {
	hs := c.Handshake()
	for _, l := range DiscoveryLists() {
		if !hs.HasCapability(l.Capability) {
			continue
		}
		items, pages, err := c.ListAll(ctx, l.Method)
		c.publish(ListEvent{Time: time.Now(), Method: l.Method, Items: items, Pages: pages, Err: err})
		if errors.Is(err, ErrClosed) || c.Err() != nil {
			return
		}
	}
}

// ListAll calls a paginated list method until the server stops returning
// nextCursor. A cursor the server already gave is an error: following it
// would loop forever.
func (c *Client) ListAll(ctx context.Context, method string, opts ...CallOption) ([]json.RawMessage, int, error) {
	if ListItemsKey(method) == "" {
		return nil, 0, fmt.Errorf("%s is not a paginated list method", method)
	}
	var items []json.RawMessage
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		params := json.RawMessage(`{}`)
		if page > 1 {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		resp, err := c.Call(ctx, method, params, opts...)
		if err != nil {
			return items, page - 1, err
		}
		pageItems, next, err := DecodePage(method, resp.Result)
		if err != nil {
			return items, page, fmt.Errorf("%s page %d: %w", method, page, err)
		}
		items = append(items, pageItems...)
		if next == "" {
			return items, page, nil
		}
		if seen[next] {
			return items, page, fmt.Errorf("%s page %d: the server repeated cursor %q; stopped to avoid an endless loop", method, page, next)
		}
		seen[next] = true
		cursor = next
	}
}

// CallOption adjusts one request.
type CallOption func(*callOpts)

// maxReissues caps how often a modern request is sent again after its
// stream broke.
const maxReissues = 2

type callOpts struct {
	reissued        int // times this request was sent again after a broken stream
	timeout         time.Duration
	onProgress      func(Progress)
	resetOnProgress bool
	maxTimeout      time.Duration
	probe           bool
	byView          bool
	noCancel        bool
	progressToken   string
	onResponse      func(*Response)
}

// WithResponse hands fn every response the request gets (each round of
// the modern era's input requests, error responses too), on the caller's
// goroutine, for callers that need the frames as well as the result: a
// paginated list's last response, after which an outcome is published.
func WithResponse(fn func(*Response)) CallOption {
	return func(o *callOpts) { o.onResponse = fn }
}

// WithTimeout overrides the client's timeout for one request.
func WithTimeout(d time.Duration) CallOption { return func(o *callOpts) { o.timeout = d } }

// WithProgress asks for progress notifications (a progressToken in _meta)
// and delivers them to fn, from the read goroutine; fn must not block.
func WithProgress(fn func(Progress)) CallOption {
	return func(o *callOpts) { o.onProgress = fn }
}

// WithTimeoutResetOnProgress restarts the timeout on every progress
// notification for the request.
func WithTimeoutResetOnProgress() CallOption {
	return func(o *callOpts) { o.resetOnProgress = true }
}

// WithTimeoutMax caps how long progress can keep a request alive
// (WithTimeoutResetOnProgress): past d it times out whatever comes.
func WithTimeoutMax(d time.Duration) CallOption {
	return func(o *callOpts) { o.maxTimeout = d }
}

// WithProgressToken sets the request's progress token instead of the
// client's generated one, so a caller that only sees the event stream (the
// UI) can tell which request a notifications/progress belongs to. It
// implies WithProgress's bookkeeping (timeout reset, token routing).
func WithProgressToken(token string) CallOption {
	return func(o *callOpts) { o.progressToken = token }
}

// AsProbe marks the request as a probe in its frame.
func AsProbe() CallOption { return func(o *callOpts) { o.probe = true } }

// ByView marks the request, and its answer, as sent on behalf of a tool's
// view (Frame.ByView).
func ByView() CallOption { return func(o *callOpts) { o.byView = true } }

// maxInputRounds caps MRTR retries: a server that keeps asking is a bug to
// show, not a loop to follow forever.
const maxInputRounds = 8

// Call sends a request and waits for its answer. params may be nil, a
// json.RawMessage, or anything encoding/json accepts. In the modern era the
// required _meta is added, and an InputRequiredResult is answered through
// the Handler and retried under a new id, up to 8 rounds.
//
// The error is an *RPCError when the server answered with one (resp is then
// set too), a *LocalError for timeouts, cancellations and lost connections.
func (c *Client) Call(ctx context.Context, method string, params any, opts ...CallOption) (*Response, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	var co callOpts
	for _, o := range opts {
		o(&co)
	}
	call := func(raw json.RawMessage) (*Response, error) {
		resp, err := c.call(ctx, method, raw, co)
		if resp != nil && co.onResponse != nil {
			co.onResponse(resp)
		}
		return resp, err
	}
	resp, err := call(raw)
	for round := 1; err == nil && c.isModern(); round++ {
		// Most results are not input requests: look at resultType alone
		// before decoding the whole result (which can be 20 MB).
		var kind struct {
			ResultType string `json:"resultType"`
		}
		if small, ok := jsonview.Pick(resp.Result, "resultType"); !ok || json.Unmarshal(small, &kind) != nil || kind.ResultType != "input_required" {
			break
		}
		var rr struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  json.RawMessage            `json:"requestState"`
		}
		if json.Unmarshal(resp.Result, &rr) != nil || rr.ResultType != "input_required" {
			break
		}
		if round > maxInputRounds {
			return resp, fmt.Errorf("%s: the server still asked for input after %d rounds; stopped", method, maxInputRounds)
		}
		responses, herr := c.answerInputRequests(ctx, rr.InputRequests)
		if herr != nil {
			return resp, herr
		}
		raw, err = withInputResponses(raw, responses, rr.RequestState)
		if err != nil {
			return resp, err
		}
		resp, err = call(raw)
	}
	return resp, err
}

func (c *Client) answerInputRequests(ctx context.Context, reqs map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	c.mu.Lock()
	h := c.handler
	c.mu.Unlock()
	for key, raw := range reqs {
		var r struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("input request %q is not a request object: %w", key, err)
		}
		res, err := h.HandleServerRequest(ctx, &ServerRequest{Method: r.Method, Params: r.Params, InputKey: key})
		if err != nil {
			return nil, fmt.Errorf("answering input request %q (%s): %w", key, r.Method, err)
		}
		out[key] = res
	}
	return out, nil
}

func withInputResponses(params json.RawMessage, responses map[string]json.RawMessage, state json.RawMessage) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &obj); err != nil {
			return nil, fmt.Errorf("params are not an object: %w", err)
		}
	}
	b, err := json.Marshal(responses)
	if err != nil {
		return nil, err
	}
	obj["inputResponses"] = b
	delete(obj, "requestState")
	if len(state) > 0 {
		obj["requestState"] = state // echoed exactly, as the spec requires
	}
	return json.Marshal(obj)
}

func marshalParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	case []byte:
		return p, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode params: %w", err)
	}
	return b, nil
}

func (c *Client) isModern() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.modern
}

// call sends one request and waits for its answer, timeout or cancellation.
func (c *Client) call(ctx context.Context, method string, params json.RawMessage, co callOpts) (*Response, error) {
	id := intID(c.nextID.Add(1))
	c.mu.Lock()
	modern, meta := c.modern, c.meta
	c.mu.Unlock()
	var progressToken string
	switch {
	case co.progressToken != "":
		progressToken = co.progressToken
	case co.onProgress != nil || co.resetOnProgress:
		progressToken = "mcpscope-" + string(id)
	}
	var trace map[string]string
	if c.opts.TraceMeta != nil {
		trace = c.opts.TraceMeta()
	}
	if modern || progressToken != "" || len(trace) > 0 {
		var err error
		params, err = addMeta(params, meta, progressToken, trace)
		if err != nil {
			return nil, err
		}
	}
	msg := encodeRequest(id, method, params)
	pd := &pending{method: method, probe: co.probe, byView: co.byView, strayCh: make(chan ID, 1), ch: make(chan *Response, 1), failCh: make(chan error, 1), progressCh: make(chan struct{}, 1), onProgress: co.onProgress}
	frame := &Frame{Dir: Outbound, Transport: c.transport.Name(), Raw: msg, Kind: KindRequest, Method: method, ID: id, Probe: co.probe, ByView: co.byView}

	// The deadline starts now, before a byte is written: a server that
	// does not read its input costs the caller its timeout, no more.
	timeout := co.timeout
	if timeout <= 0 {
		timeout = c.opts.Timeout
	}
	queued := time.Now()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	clock := newRequestClock() // held while the transport waits on a sign-in (HoldTimeout)
	var atMax <-chan time.Time
	if co.maxTimeout > 0 {
		mt := time.NewTimer(co.maxTimeout)
		defer mt.Stop()
		atMax = mt.C
	}
	var waited timeoutInfo // what a timeout reports: progress, silence
	alive := queued        // the request's write, or its last progress

	c.mu.Lock()
	if !c.connected || c.closeErr != nil {
		cerr := c.closeErr
		c.mu.Unlock()
		if cerr == nil {
			cerr = ErrClosed
		}
		return nil, &LocalError{Kind: ConnectionLost, Method: method, ID: id, Err: cerr}
	}
	c.pending[id] = pd
	if progressToken != "" {
		c.progress[progressToken] = pd
	}
	pd.sent = queued
	c.mu.Unlock()
	job, err := c.send(context.WithValue(ctx, clockKey{}, clock), frame, func(f *Frame) {
		c.mu.Lock()
		pd.seq, pd.sent = f.Seq, f.Time
		c.mu.Unlock()
	})
	if err != nil {
		c.forget(id, progressToken, true)
		return nil, &LocalError{Kind: ConnectionLost, Method: method, ID: id, Err: err}
	}

	written := job.done
	var strayAt <-chan time.Time // set once an unmatched answer came
	var stray ID
	for {
		select {
		case stray = <-pd.strayCh:
			if strayAt == nil {
				strayAt = time.After(strayGrace)
			}
		case <-strayAt:
			// The handshake's answer most likely came under another id:
			// say so now instead of after the whole timeout.
			c.forget(id, progressToken, true)
			seq, sent := c.sentAt(pd)
			le := &LocalError{Kind: Unmatched, Method: method, ID: id, ReqSeq: seq, Elapsed: time.Since(sent),
				Err: &UnmatchedAnswerError{Method: method, Sent: id, Received: stray}}
			c.publish(LocalErrorEvent{Time: time.Now(), Err: le})
			return nil, le
		case err := <-written:
			written = nil
			if err != nil {
				if !c.forget(id, progressToken, true) {
					continue // answered all the same (an HTTP body that came with an error)
				}
				seq, sent := c.sentAt(pd)
				le := &LocalError{Kind: WriteFailed, Method: method, ID: id, ReqSeq: seq, Elapsed: time.Since(sent), Err: err}
				switch {
				case ctx.Err() != nil && errors.Is(err, ctx.Err()):
					le.Kind = Cancelled
				case failedKind(err) == SignInFailed:
					le.Kind = SignInFailed
				}
				c.publish(LocalErrorEvent{Time: time.Now(), Err: le})
				return nil, le
			}
		case resp := <-pd.ch:
			if resp.Error != nil {
				return resp, resp.Error
			}
			return resp, nil
		case <-pd.progressCh:
			waited.progressed, alive = true, time.Now()
			if co.resetOnProgress && clock.held.Load() == 0 {
				timer.Reset(timeout)
			}
		case <-clock.changed:
			if clock.held.Load() > 0 {
				timer.Stop()
			} else {
				alive = time.Now()
				timer.Reset(timeout)
			}
		case err := <-pd.failCh:
			c.forget(id, progressToken, true)
			if modern && errors.Is(err, ErrStreamBroken) && co.reissued < maxReissues {
				// The modern era has no stream resumption: the spec says
				// to send the request again under a new id.
				co.reissued++
				c.publish(TransportEvent{Time: time.Now(), Kind: "reconnect",
					Summary: fmt.Sprintf("%s (id %s): stream broke before the answer; sending it again under a new id (%d of %d)", method, id, co.reissued, maxReissues)})
				return c.call(ctx, method, params, co)
			}
			seq, sent := c.sentAt(pd)
			le := &LocalError{Kind: failedKind(err), Method: method, ID: id, ReqSeq: seq, Elapsed: time.Since(sent), Err: err}
			c.publish(LocalErrorEvent{Time: time.Now(), Err: le})
			return nil, le
		case <-timer.C:
			waited.silent = time.Since(alive)
			return nil, c.abandon(pd, job, written != nil, id, progressToken, Timeout, fmt.Sprintf("timed out after %s", timeout), co.noCancel, waited)
		case <-atMax:
			waited.silent, waited.atMax = time.Since(alive), true
			return nil, c.abandon(pd, job, written != nil, id, progressToken, Timeout, fmt.Sprintf("timed out at the maximum of %s", co.maxTimeout), co.noCancel, waited)
		case <-ctx.Done():
			return nil, c.abandon(pd, job, written != nil, id, progressToken, Cancelled, "cancelled by the user", co.noCancel, timeoutInfo{})
		case <-c.done:
			// Closed() already published a LocalErrorEvent for each pending request.
			seq, sent := c.sentAt(pd)
			return nil, &LocalError{Kind: ConnectionLost, Method: method, ID: id, ReqSeq: seq, Elapsed: time.Since(sent), Err: c.Err()}
		}
	}
}

// sentAt is when a request's write started and its frame's Seq (0 while it
// has not started).
func (c *Client) sentAt(pd *pending) (int64, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return pd.seq, pd.sent
}

// strayGrace is how long a handshake request still waits for its answer
// after an answer with an unmatched id arrived.
const strayGrace = 3 * time.Second

// abandon gives up on a request, tells the server so (unless it is a request
// the spec forbids cancelling, or it never reached the server), and reports
// the local error. writing says the request's write had not finished.
// timeoutInfo is what a timed-out request saw while it waited.
type timeoutInfo struct {
	progressed bool
	silent     time.Duration
	atMax      bool
}

func (c *Client) abandon(pd *pending, job *writeJob, writing bool, id ID, token string, kind LocalErrorKind, reason string, noCancel bool, waited timeoutInfo) error {
	unsent := job.drop()
	if !c.forget(id, token, true) {
		// The answer raced us and won.
		select {
		case resp := <-pd.ch:
			if resp.Error != nil {
				return resp.Error
			}
		default:
		}
	}
	seq, sent := c.sentAt(pd)
	le := &LocalError{Kind: kind, Method: pd.method, ID: id, ReqSeq: seq, Elapsed: time.Since(sent),
		Progressed: waited.progressed, Silent: waited.silent, AtMax: waited.atMax}
	switch {
	case unsent:
		// Nothing was written: there is nothing to cancel.
		le.Err = ErrNotWritten
	case writing:
		le.Err = ErrWriteBlocked
	}
	if stopped := c.serverStopped(); stopped != nil {
		le.Err = stopped // the reason behind the silence, written or not
	}
	if !noCancel && !unsent {
		le.CancelSent = true
		p, _ := json.Marshal(map[string]any{"requestId": json.RawMessage(id), "reason": reason})
		// Queued, not awaited: after a request still being written, it
		// follows that request when (if) the server reads again.
		// A closed client has no server to tell (ErrClosed).
		_, _ = c.queueNotification(NotifyCancelled, p)
	}
	c.publish(LocalErrorEvent{Time: time.Now(), Err: le})
	return le
}

// serverStopped names a stopped server process (stdio), or returns nil.
func (c *Client) serverStopped() error {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if sc, ok := conn.(interface{ stoppedError() error }); ok {
		return sc.stoppedError()
	}
	return nil
}

// forget removes a pending request. It reports false when the request was
// already answered.
func (c *Client) forget(id ID, token string, abandoned bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	pd, ok := c.pending[id]
	if !ok {
		return false
	}
	delete(c.pending, id)
	if token != "" {
		delete(c.progress, token)
	}
	c.finished[id] = finished{seq: pd.seq, method: pd.method, abandoned: abandoned}
	return true
}

func encodeRequest(id ID, method string, params json.RawMessage) []byte {
	m, _ := json.Marshal(method)
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.WriteString(string(id))
	b.WriteString(`,"method":`)
	b.Write(m)
	if len(params) > 0 {
		b.WriteString(`,"params":`)
		b.WriteString(compactJSON(params))
	}
	b.WriteString("}")
	return []byte(b.String())
}

// addMeta merges the modern era's _meta fields and a progress token into
// params, keeping any _meta the caller set.
func addMeta(params, meta json.RawMessage, progressToken string, extra map[string]string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &obj); err != nil {
			return nil, fmt.Errorf("params must be a JSON object to carry _meta: %w", err)
		}
		if obj == nil {
			obj = map[string]json.RawMessage{}
		}
	}
	m := map[string]json.RawMessage{}
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &m); err != nil {
			return nil, err
		}
	}
	if existing, ok := obj["_meta"]; ok {
		var mine map[string]json.RawMessage
		if err := json.Unmarshal(existing, &mine); err == nil {
			for k, v := range mine {
				m[k] = v
			}
		}
	}
	if progressToken != "" {
		m["progressToken"], _ = json.Marshal(progressToken)
	}
	for k, v := range extra {
		if _, ok := m[k]; !ok { // the caller's own _meta wins
			m[k], _ = json.Marshal(v)
		}
	}
	var err error
	obj["_meta"], err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// Notify sends a notification and waits until it is written, ctx ends, or
// the connection does.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return err
	}
	job, err := c.queueNotification(method, raw)
	if err != nil {
		return err
	}
	select {
	case err := <-job.done:
		return err
	case <-ctx.Done():
		if job.drop() {
			return fmt.Errorf("%s not sent: %w", method, ctx.Err())
		}
		return ctx.Err()
	case <-c.done:
		return ErrClosed
	}
}

// queueNotification queues a notification for the writer without waiting.
func (c *Client) queueNotification(method string, params json.RawMessage) (*writeJob, error) {
	m, _ := json.Marshal(method)
	msg := `{"jsonrpc":"2.0","method":` + string(m)
	if len(params) > 0 {
		msg += `,"params":` + compactJSON(params)
	}
	msg += "}"
	c.mu.Lock()
	ok := c.connected && c.closeErr == nil
	c.mu.Unlock()
	if !ok {
		return nil, ErrClosed
	}
	return c.send(context.Background(), &Frame{Dir: Outbound, Transport: c.transport.Name(), Raw: []byte(msg), Kind: KindNotification, Method: method}, nil)
}

// Close shuts the connection down (for stdio: close stdin, wait, SIGTERM,
// SIGKILL) and waits for it to end, at most about 10 seconds. The event
// channel is closed after the last event; OnEvent has seen every event
// when Close returns.
func (c *Client) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Shutdown(ctx)
}

// Shutdown is Close within ctx's deadline: the transport's orderly steps
// are fitted in it, and when it ends the server is killed (stdio) or the
// connection dropped. Quitting uses a short deadline, so that nothing a
// server does can hold mcpscope up.
func (c *Client) Shutdown(ctx context.Context) error {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		_ = conn.Close(ctx)
	}
	c.finish(ErrClosed) // a transport that did not finish in time
	c.wg.Wait()
	c.q.waitProcessed()
	return nil
}

// finish records why the connection ended, fails what is pending, and ends
// the event stream. It runs once.
func (c *Client) finish(cause error) {
	c.closeOnce.Do(func() {
		c.pubMu.Lock()
		c.mu.Lock()
		c.closeErr = cause
		stranded := c.pending
		c.pending = map[ID]*pending{}
		c.progress = map[string]*pending{}
		for _, cancel := range c.inbound {
			cancel()
		}
		c.mu.Unlock()
		now := time.Now()
		for id, pd := range stranded {
			c.publishLocked(LocalErrorEvent{Time: now, Err: &LocalError{Kind: ConnectionLost, Method: pd.method, ID: id, ReqSeq: pd.seq, Elapsed: now.Sub(pd.sent), Err: cause}})
		}
		var exit *ExitError
		if errors.As(cause, &exit) {
			c.publishLocked(ExitEvent{Time: now, Exit: exit})
			st := StateFailed
			if exit.Expected {
				st = StateClosed
			}
			c.publishLocked(StateEvent{Time: now, State: st, Detail: exit.Error()})
		} else if errors.Is(cause, ErrClosed) && c.connected {
			c.publishLocked(StateEvent{Time: now, State: StateClosed, Detail: "closed by mcpscope"})
		} else if cause != nil && c.connected {
			c.publishLocked(StateEvent{Time: now, State: StateFailed, Detail: cause.Error()})
		}
		c.pubMu.Unlock()
		close(c.done)
		c.stopWriter()
		c.q.close()
	})
}

// clientSink receives from the transport on the client's behalf.
type clientSink struct{ c *Client }

func (s clientSink) Stderr(line string) {
	s.c.publish(StderrEvent{Time: time.Now(), Line: line})
}

// stderrEventSink is a Sink that takes a stderr line with the count of
// the lines dropped before it (stderrLimiter).
type stderrEventSink interface{ stderrEvent(StderrEvent) }

func (s clientSink) stderrEvent(ev StderrEvent) { s.c.publish(ev) }

func (s clientSink) Closed(err error) { s.c.finish(err) }

func (s clientSink) RequestFailed(id ID, err error) {
	s.c.mu.Lock()
	pd := s.c.pending[id]
	s.c.mu.Unlock()
	if pd == nil {
		return
	}
	select {
	case pd.failCh <- err:
	default:
	}
}

func (s clientSink) Transport(ev TransportEvent) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	s.c.publish(ev)
	var unreachable *UnreachableError
	switch {
	case errors.As(ev.Err, &unreachable):
		s.c.markLost(unreachable)
	case ev.Kind == "http" && ev.Field("status") != "":
		s.c.markReachable(ev.Summary)
	}
}

func (s clientSink) Receive(raw []byte, problem, stream string) {
	c := s.c
	now := time.Now()
	// A frame's bytes never change once read: the ends of its long
	// strings, found by the reader's check, serve every later reader.
	jsonview.Immutable(raw)
	p := classify(raw)
	f := &Frame{Time: now, Dir: Inbound, Transport: c.transport.Name(), Raw: raw, Kind: p.kind, Method: p.method, ID: p.id, Problem: joinProblems(problem, p.problem), Stream: stream}
	if p.kind != KindBatch {
		c.inboundMessage(f, p)
		return
	}
	c.publish(FrameEvent{Frame: f})
	for _, elem := range p.batch {
		ep := classify(elem)
		ef := &Frame{Time: now, Dir: Inbound, Transport: f.Transport, Raw: elem, Kind: ep.kind, Method: ep.method, ID: ep.id, Problem: ep.problem, BatchSeq: f.Seq, Stream: stream}
		if ep.kind == KindBatch {
			ef.Kind, ef.Problem = KindInvalid, "a batch inside a batch"
		}
		c.inboundMessage(ef, ep)
	}
}

func joinProblems(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// inboundMessage correlates, publishes and acts on one inbound message.
func (c *Client) inboundMessage(f *Frame, p parsed) {
	switch f.Kind {
	case KindResponse, KindErrorResponse:
		c.inboundResponse(f, p)
	case KindRequest:
		c.publish(FrameEvent{Frame: f})
		c.inboundRequest(f, p)
	case KindNotification:
		c.publish(FrameEvent{Frame: f})
		c.inboundNotification(f, p)
	default:
		c.publish(FrameEvent{Frame: f})
	}
}

func (c *Client) inboundResponse(f *Frame, p parsed) {
	if p.errObj != nil {
		f.ErrorCode, f.ErrorMessage = p.errObj.Code, p.errObj.Message
	}
	c.pubMu.Lock()
	c.mu.Lock()
	pd, ok := c.pending[f.ID]
	if ok {
		delete(c.pending, f.ID)
		for tok, q := range c.progress {
			if q == pd {
				delete(c.progress, tok)
			}
		}
		c.finished[f.ID] = finished{seq: pd.seq, method: pd.method}
		f.Time = c.clockLocked(f.Time) // before the latency is measured from it
		f.ReplyTo, f.ReplyToMethod, f.Latency = pd.seq, pd.method, f.Time.Sub(pd.sent)
		f.Probe = pd.probe
		f.ByView = pd.byView
	} else if done, was := c.finished[f.ID]; was {
		f.ReplyTo, f.ReplyToMethod = done.seq, done.method
		if done.abandoned {
			f.Problem = joinProblems(f.Problem, "late answer to a request mcpscope had given up on")
		} else {
			f.Duplicate = true
			f.Problem = joinProblems(f.Problem, "a second answer to the same id")
		}
	} else {
		f.UnknownID = true
		if unq, err := strconv.Unquote(string(f.ID)); err == nil {
			if _, drift := c.pending[ID(unq)]; drift {
				f.Problem = joinProblems(f.Problem, fmt.Sprintf("id %s answers request %s with a different JSON type", f.ID, unq))
			}
		}
		if f.Problem == "" {
			f.Problem = "answers no request mcpscope sent"
		}
		for _, q := range c.pending {
			if q.method == MethodInitialize || q.method == MethodServerDiscover {
				select {
				case q.strayCh <- f.ID:
				default:
				}
			}
		}
	}
	c.mu.Unlock()
	c.publishLocked(FrameEvent{Frame: f})
	c.pubMu.Unlock()
	if ok {
		pd.ch <- &Response{Frame: f, Result: p.result, Error: p.errObj}
	}
}

func (c *Client) inboundNotification(f *Frame, p parsed) {
	switch f.Method {
	case NotifyProgress:
		n, err := ParseProgress(p.params)
		if err != nil {
			return
		}
		tok := n.Token
		c.mu.Lock()
		pd := c.progress[tok]
		c.mu.Unlock()
		if pd == nil {
			return
		}
		if pd.onProgress != nil {
			pd.onProgress(n)
		}
		select {
		case pd.progressCh <- struct{}{}:
		default:
		}
	case NotifyCancelled:
		var n struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(p.params, &n) != nil {
			return
		}
		c.mu.Lock()
		cancel := c.inbound[ID(compactJSON(n.RequestID))]
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// inboundRequest answers the server's requests: ping at once, the rest
// through the handler on a goroutine of its own so the read loop never waits
// for a person.
func (c *Client) inboundRequest(f *Frame, p parsed) {
	if f.Problem != "" && f.ID == "null" {
		return // a request with a null id cannot be answered
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	if c.closeErr != nil {
		c.mu.Unlock()
		cancel()
		return
	}
	if c.modern {
		// 2026-07-28 clients never send responses: a server request
		// (even a ping) goes unanswered, and the doctor flags it
		// (modern/server-request).
		c.mu.Unlock()
		cancel()
		return
	}
	c.inbound[f.ID] = cancel
	h := c.handler
	c.wg.Add(1)
	c.mu.Unlock()
	// Answers are written from their own goroutine, pings included: the read
	// loop must never wait on a write, or a server blocked writing to its
	// stdout and a client blocked writing to its stdin would wait forever.
	go func() {
		defer c.wg.Done()
		defer cancel()
		if f.Method == MethodPing {
			c.mu.Lock()
			delete(c.inbound, f.ID)
			c.mu.Unlock()
			c.respond(f, json.RawMessage(`{}`), nil)
			return
		}
		res, err := h.HandleServerRequest(ctx, &ServerRequest{Method: f.Method, Params: p.params, Frame: f})
		c.mu.Lock()
		delete(c.inbound, f.ID)
		c.mu.Unlock()
		if ctx.Err() != nil {
			return // the server cancelled it: the spec says not to answer
		}
		c.respond(f, res, err)
	}()
}

// respond answers a server request, echoing its id token byte for byte.
func (c *Client) respond(req *Frame, result json.RawMessage, err error) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.WriteString(string(req.ID))
	kind := KindResponse
	f := &Frame{Dir: Outbound, Transport: c.transport.Name(), ReplyTo: req.Seq, ReplyToMethod: req.Method, ID: req.ID}
	if err != nil {
		var rpcErr *RPCError
		if !errors.As(err, &rpcErr) {
			rpcErr = &RPCError{Code: CodeInternalError, Message: err.Error()}
		}
		e, _ := json.Marshal(rpcErr)
		b.WriteString(`,"error":`)
		b.Write(e)
		kind = KindErrorResponse
		f.ErrorCode, f.ErrorMessage = rpcErr.Code, rpcErr.Message
	} else {
		if len(result) == 0 {
			result = json.RawMessage(`{}`)
		}
		b.WriteString(`,"result":`)
		b.WriteString(compactJSON(result))
	}
	b.WriteString("}")
	f.Raw, f.Kind = []byte(b.String()), kind
	// Queued, not awaited: a write failure ends the connection, which the
	// timeline shows.
	_, _ = c.send(context.Background(), f, func(f *Frame) { f.Latency = f.Time.Sub(req.Time) })
}
