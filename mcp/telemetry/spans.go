package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
)

// The attributes' names: the semantic conventions for MCP, and
// mcpscope's own under mcpscope.*.
const (
	attrMethod          = "mcp.method.name"
	attrRequestID       = "jsonrpc.request.id"
	attrProtocol        = "mcp.protocol.version"
	attrSessionID       = "mcp.session.id"
	attrToolName        = "gen_ai.tool.name"
	attrPromptName      = "gen_ai.prompt.name"
	attrResourceURI     = "mcp.resource.uri"
	attrOperation       = "gen_ai.operation.name"
	attrErrorType       = "error.type"
	attrStatusCode      = "rpc.response.status_code"
	attrTransport       = "network.transport"
	attrProtocolName    = "network.protocol.name"
	attrServerAddress   = "server.address"
	attrServerPort      = "server.port"
	attrArguments       = "gen_ai.tool.call.arguments"
	attrResult          = "gen_ai.tool.call.result"
	attrServerName      = "mcp.server.name"
	attrServerVersion   = "mcp.server.version"
	attrClientName      = "mcp.client.name"
	attrProbe           = "mcpscope.probe"
	attrByTap           = "mcpscope.by_tap"
	attrRule            = "mcpscope.doctor.rule"
	attrSeverity        = "mcpscope.doctor.severity"
	attrMessage         = "mcpscope.doctor.message"
	attrFrameSeq        = "mcpscope.frame.seq"
	attrDetail          = "mcpscope.detail"
	errorTypeTool       = "tool_error"
	errorTypeUnanswered = "unanswered"
)

// Options describe the connection a Conversation watches.
type Options struct {
	// Transport is the frames' transport ("stdio", "http", "sse",
	// "websocket").
	Transport string
	// URL is the server's URL for the network transports (server.address
	// and server.port come from it).
	URL string
	// Server is the server's name as the user knows it (a tap's name in
	// the client's config), a resource attribute; the server's own
	// serverInfo name is an attribute of the connection span.
	Server string
	// Tap says the frames are a real client's, watched: the service is
	// named after the client's clientInfo, and a request carrying
	// traceparent in params._meta is a child of the client's span.
	Tap bool
}

// Conversation turns one connection's ordered events into spans: a
// connection span from its first event to End, each request a child span
// from its frame to its answer's, with the frames' own times. It is safe
// for concurrent use: the TUI ends a replaced connection's conversation
// while its client may still be delivering its last events.
type Conversation struct {
	mu   sync.Mutex
	e    *Exporter
	opt  Options
	p    *provider
	addr string
	port int

	traceID   trace.TraceID
	conn      trace.Span
	connCtx   context.Context
	start     time.Time
	last      time.Time
	version   string
	sessionID string
	modern    bool
	ended     bool

	// early holds a tap's events until the client's initialize names the
	// service (bounded: after earlyMax the client stays unnamed).
	early []mcp.Event

	pending map[reqKey]*request
	bySeq   map[int64]*request
	// progress maps a request's progress token to it.
	progress map[string]*request
	// held are answered requests whose spans wait for the doctor's
	// findings about their answer (published right after it).
	held []*request
}

type reqKey struct {
	dir mcp.Direction
	id  mcp.ID
}

type request struct {
	span   trace.Span
	key    reqKey
	seq    int64
	method string
	tool   string
	prompt string
	start  time.Time
	token  string
	// errType is the answer's error.type, for the duration metric.
	errType string
	end     time.Time
	// answer is the Seq of the answer's frame.
	answer int64
}

// modernVersion is the first protocol version without sessions.
const modernVersion = "2026-07-28"

// earlyMax bounds the events a tap holds before the client's initialize.
const earlyMax = 64

// Conversation starts following one connection.
func (e *Exporter) Conversation(opt Options) *Conversation {
	c := &Conversation{e: e, opt: opt, traceID: randomTraceID(),
		pending: map[reqKey]*request{}, bySeq: map[int64]*request{}, progress: map[string]*request{}}
	if opt.URL != "" {
		if u, err := url.Parse(opt.URL); err == nil {
			c.addr = u.Hostname()
			if p, err := strconv.Atoi(u.Port()); err == nil {
				c.port = p
			} else if u.Scheme == "https" || u.Scheme == "wss" {
				c.port = 443
			} else {
				c.port = 80
			}
		}
	}
	if !opt.Tap {
		c.p = e.providerFor(e.cfg.Service, opt.Server)
	}
	return c
}

// Traceparent is a W3C traceparent for a request mcpscope is about to send
// (--propagate): the conversation's trace and a new span id, which the
// request's span takes when its frame carries it.
func (c *Conversation) Traceparent() string {
	return fmt.Sprintf("00-%s-%s-01", c.traceID, randomSpanID())
}

// Observe takes the connection's next event.
func (c *Conversation) Observe(ev mcp.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if c.p == nil {
		if !c.name(ev) {
			return
		}
	}
	c.observe(ev)
}

// name holds a tap's events until the client's initialize (or
// server/discover) names it; it reports whether ev is to be observed now.
func (c *Conversation) name(ev mcp.Event) bool {
	client := ""
	fe, ok := ev.(mcp.FrameEvent)
	if ok && fe.Frame.Dir == mcp.Outbound && fe.Frame.Kind == mcp.KindRequest &&
		(fe.Frame.Method == mcp.MethodInitialize) {
		var p struct {
			ClientInfo struct{ Name string } `json:"clientInfo"`
		}
		_ = json.Unmarshal(paramsOf(fe.Frame.Raw), &p)
		client = p.ClientInfo.Name
	}
	if client == "" && ev != nil && len(c.early) < earlyMax {
		c.early = append(c.early, ev)
		return false
	}
	if client == "" {
		client = "mcp-client"
	}
	c.p = c.e.providerFor(client, c.opt.Server)
	for _, e := range c.early {
		c.observe(e)
	}
	c.early = nil
	return ev != nil
}

func (c *Conversation) observe(ev mcp.Event) {
	at := ev.At()
	if c.conn == nil {
		c.begin(at)
	}
	if at.After(c.last) {
		c.last = at
	}
	if _, ok := ev.(mcp.DiagnosticEvent); !ok {
		c.release()
	}
	switch ev := ev.(type) {
	case mcp.FrameEvent:
		c.frame(ev.Frame)
	case mcp.DiagnosticEvent:
		c.finding(ev)
	case mcp.LocalErrorEvent:
		c.localError(ev)
	case mcp.HandshakeEvent:
		if h := ev.Handshake; h != nil {
			if h.ProtocolVersion != "" {
				c.version = h.ProtocolVersion
			}
			c.modern = h.Era == mcp.EraModern
			c.conn.SetAttributes(attribute.String(attrServerName, h.ServerInfo.Name))
		}
	case mcp.TransportEvent:
		id := ev.Field("response Mcp-Session-Id")
		if id == "" {
			id = ev.Field("Mcp-Session-Id")
		}
		if id != "" && c.sessionID == "" && !c.modern {
			c.sessionID = id
			c.conn.SetAttributes(attribute.String(attrSessionID, id))
		}
	case mcp.StateEvent:
		c.conn.AddEvent("state "+ev.State.String(), trace.WithTimestamp(at),
			trace.WithAttributes(attribute.String(attrDetail, ev.Detail)))
		if ev.State == mcp.StateFailed {
			c.conn.SetStatus(codes.Error, ev.Detail)
		}
	case mcp.ExitEvent:
		if ev.Exit != nil {
			c.conn.AddEvent("server exited", trace.WithTimestamp(at),
				trace.WithAttributes(attribute.String(attrDetail, ev.Exit.Error())))
		}
	}
}

// begin starts the connection span at the first event.
func (c *Conversation) begin(at time.Time) {
	c.start, c.last = at, at
	ctx := withIDs(context.Background(), c.traceID, trace.SpanID{})
	attrs := []attribute.KeyValue{attribute.String(attrTransport, transportOf(c.opt.Transport)),
		attribute.String(attrProtocolName, protocolOf(c.opt.Transport))}
	attrs = append(attrs, c.serverAttrs()...)
	name := "mcp connection"
	if c.opt.Server != "" {
		name += " " + c.opt.Server
	}
	c.connCtx, c.conn = c.p.tracer.Start(ctx, name, trace.WithTimestamp(at), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs...), trace.WithNewRoot())
}

func (c *Conversation) serverAttrs() []attribute.KeyValue {
	if c.addr == "" {
		return nil
	}
	return []attribute.KeyValue{attribute.String(attrServerAddress, c.addr), attribute.Int(attrServerPort, c.port)}
}

// transportOf is network.transport for an mcpscope transport: pipe for
// stdio, tcp for the rest.
func transportOf(t string) string {
	if t == "stdio" || t == "" {
		return "pipe"
	}
	return "tcp"
}

func protocolOf(t string) string {
	switch t {
	case "http", "sse":
		return "http"
	case "websocket":
		return "websocket"
	}
	return "jsonrpc"
}

func (c *Conversation) frame(f *mcp.Frame) {
	switch f.Kind {
	case mcp.KindRequest:
		c.request(f)
	case mcp.KindResponse, mcp.KindErrorResponse:
		c.answer(f)
	case mcp.KindNotification:
		c.notification(f)
	case mcp.KindInvalid:
		c.conn.AddEvent("invalid frame", trace.WithTimestamp(f.Time), trace.WithAttributes(
			attribute.Int64(attrFrameSeq, f.Seq), attribute.String(attrDetail, f.Problem)))
	}
}

// reqParams is what a span needs of a request's params.
type reqParams struct {
	Name      string          `json:"name"`
	URI       string          `json:"uri"`
	Arguments json.RawMessage `json:"arguments"`
	Version   string          `json:"protocolVersion"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Traceparent   string          `json:"traceparent"`
		Tracestate    string          `json:"tracestate"`
		Baggage       string          `json:"baggage"`
	} `json:"_meta"`
}

func paramsOf(raw []byte) []byte {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m.Params
}

func (c *Conversation) request(f *mcp.Frame) {
	var p reqParams
	_ = json.Unmarshal(paramsOf(f.Raw), &p)
	r := &request{key: reqKey{f.Dir, f.ID}, seq: f.Seq, method: f.Method, start: f.Time}
	name := f.Method
	attrs := []attribute.KeyValue{
		attribute.String(attrMethod, f.Method),
		attribute.String(attrRequestID, idText(f.ID)),
		attribute.String(attrTransport, transportOf(c.opt.Transport)),
		attribute.Int64(attrFrameSeq, f.Seq),
	}
	attrs = append(attrs, c.serverAttrs()...)
	switch f.Method {
	case "tools/call":
		r.tool = p.Name
		name += " " + p.Name
		attrs = append(attrs, attribute.String(attrToolName, p.Name), attribute.String(attrOperation, "execute_tool"))
		if c.e.cfg.Content && len(p.Arguments) > 0 {
			out, _ := redact.JSON(p.Arguments)
			attrs = append(attrs, attribute.String(attrArguments, string(out)))
		}
	case "prompts/get":
		r.prompt = p.Name
		name += " " + p.Name
		attrs = append(attrs, attribute.String(attrPromptName, p.Name))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		attrs = append(attrs, attribute.String(attrResourceURI, p.URI))
	case mcp.MethodInitialize:
		if c.version == "" {
			c.version = p.Version
		}
	}
	if c.version != "" {
		attrs = append(attrs, attribute.String(attrProtocol, c.version))
	}
	if c.sessionID != "" && !c.modern {
		attrs = append(attrs, attribute.String(attrSessionID, c.sessionID))
	}
	if f.Probe {
		attrs = append(attrs, attribute.Bool(attrProbe, true))
	}
	if f.ByTap {
		attrs = append(attrs, attribute.Bool(attrByTap, true))
	}
	kind := trace.SpanKindClient
	if f.Dir == mcp.Inbound {
		// A server's request of the client (sampling, elicitation,
		// roots): the client serves it.
		kind = trace.SpanKindServer
	}
	opts := []trace.SpanStartOption{trace.WithTimestamp(f.Time), trace.WithSpanKind(kind), trace.WithAttributes(attrs...)}
	ctx := c.connCtx
	if p.Meta.Traceparent != "" {
		carrier := propagation.MapCarrier{"traceparent": p.Meta.Traceparent, "tracestate": p.Meta.Tracestate}
		remote := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
		switch {
		case remote.IsValid() && remote.TraceID() == c.traceID && f.Dir == mcp.Outbound && !c.opt.Tap:
			// mcpscope's own request sent with --propagate: its span takes
			// the id the server was told.
			ctx = withIDs(ctx, c.traceID, remote.SpanID())
		case remote.IsValid() && c.opt.Tap:
			// The client traces: the tap's span is a child of the
			// client's, in the client's trace, linked to the connection.
			ctx = trace.ContextWithRemoteSpanContext(ctx, remote)
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: c.conn.SpanContext()}))
		}
	}
	_, r.span = c.p.tracer.Start(ctx, name, opts...)
	if len(p.Meta.ProgressToken) > 0 {
		r.token = string(p.Meta.ProgressToken)
		c.progress[r.token] = r
	}
	if old, ok := c.pending[r.key]; ok {
		// A second request with an id still pending: the first can no
		// longer be told apart from it.
		old.span.AddEvent("id reused by a later request", trace.WithTimestamp(f.Time))
		c.finish(old, f.Time, errorTypeUnanswered, "its id was reused before an answer")
	}
	if len(c.pending) >= maxPending {
		// A peer that never answers must not grow the memory: one of the
		// waiting requests (any) is given up.
		for _, old := range c.pending {
			c.finish(old, f.Time, errorTypeUnanswered, "more requests were waiting than the export follows")
			break
		}
	}
	c.pending[r.key] = r
	c.bySeq[f.Seq] = r
}

// maxPending bounds the requests a conversation follows at once.
const maxPending = 4096

// idText is a JSON-RPC id as jsonrpc.request.id writes it: a string id
// without its quotes.
func idText(id mcp.ID) string {
	var s string
	if json.Unmarshal([]byte(id), &s) == nil {
		return s
	}
	return string(id)
}

type answer struct {
	Result struct {
		IsError         bool   `json:"isError"`
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	} `json:"result"`
}

func (c *Conversation) answer(f *mcp.Frame) {
	key := reqKey{other(f.Dir), f.ID}
	r, ok := c.pending[key]
	if ok {
		r.answer = f.Seq
	}
	if !ok {
		c.conn.AddEvent("answer to no pending request", trace.WithTimestamp(f.Time), trace.WithAttributes(
			attribute.Int64(attrFrameSeq, f.Seq), attribute.String(attrRequestID, idText(f.ID))))
		return
	}
	if f.Kind == mcp.KindErrorResponse {
		code := strconv.Itoa(f.ErrorCode)
		r.span.SetAttributes(attribute.String(attrStatusCode, code))
		c.finish(r, f.Time, code, f.ErrorMessage)
		return
	}
	var a answer
	_ = json.Unmarshal(f.Raw, &a)
	if r.method == mcp.MethodInitialize || r.method == mcp.MethodServerDiscover {
		if a.Result.ProtocolVersion != "" {
			c.version = a.Result.ProtocolVersion
			// The 2026-07-28 protocol has no session, so no mcp.session.id.
			c.modern = c.version >= modernVersion
			r.span.SetAttributes(attribute.String(attrProtocol, c.version))
			c.conn.SetAttributes(attribute.String(attrProtocol, c.version))
		}
		if a.Result.ServerInfo.Name != "" {
			c.conn.SetAttributes(attribute.String(attrServerName, a.Result.ServerInfo.Name),
				attribute.String(attrServerVersion, a.Result.ServerInfo.Version))
		}
	}
	if c.e.cfg.Content && r.method == "tools/call" {
		var m struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(f.Raw, &m) == nil && len(m.Result) > 0 {
			out, _ := redact.JSON(m.Result)
			r.span.SetAttributes(attribute.String(attrResult, string(out)))
		}
	}
	if a.Result.IsError {
		c.finish(r, f.Time, errorTypeTool, "the tool reported an error (isError)")
		return
	}
	c.finish(r, f.Time, "", "")
}

// finish ends a request's span at its answer (held for the doctor's
// findings about that answer) with its error type, if any.
func (c *Conversation) finish(r *request, at time.Time, errType, msg string) {
	delete(c.pending, r.key)
	delete(c.bySeq, r.seq)
	if r.token != "" {
		delete(c.progress, r.token)
	}
	if at.Before(r.start) {
		at = r.start
	}
	r.end, r.errType = at, errType
	if errType != "" {
		r.span.SetAttributes(attribute.String(attrErrorType, errType))
		r.span.SetStatus(codes.Error, msg)
	}
	c.held = append(c.held, r)
}

// release ends the held spans: the findings about their answers, which
// follow the answer at once, have come.
func (c *Conversation) release() {
	for _, r := range c.held {
		r.span.End(trace.WithTimestamp(r.end))
		if r.key.dir == mcp.Outbound {
			attrs := []attribute.KeyValue{attribute.String(attrMethod, r.method),
				attribute.String(attrTransport, transportOf(c.opt.Transport))}
			if c.version != "" {
				attrs = append(attrs, attribute.String(attrProtocol, c.version))
			}
			if r.tool != "" {
				attrs = append(attrs, attribute.String(attrToolName, r.tool))
			}
			if r.prompt != "" {
				attrs = append(attrs, attribute.String(attrPromptName, r.prompt))
			}
			if r.errType != "" {
				attrs = append(attrs, attribute.String(attrErrorType, r.errType))
			}
			attrs = append(attrs, c.serverAttrs()...)
			c.p.opDur.Record(context.Background(), r.end.Sub(r.start).Seconds(), metric.WithAttributes(attrs...))
		}
	}
	clear(c.held)
	c.held = c.held[:0]
}

func other(d mcp.Direction) mcp.Direction {
	if d == mcp.Outbound {
		return mcp.Inbound
	}
	return mcp.Outbound
}

type noteParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	RequestID     json.RawMessage `json:"requestId"`
	Reason        string          `json:"reason"`
	Message       string          `json:"message"`
}

// notification is an event of the request it belongs to (progress by its
// token, cancelled by its id), or of the connection.
func (c *Conversation) notification(f *mcp.Frame) {
	var p noteParams
	_ = json.Unmarshal(paramsOf(f.Raw), &p)
	span := c.conn
	switch f.Method {
	case "notifications/progress":
		if r, ok := c.progress[string(p.ProgressToken)]; ok {
			span = r.span
		}
	case "notifications/cancelled":
		if r, ok := c.pending[reqKey{f.Dir, mcp.ID(p.RequestID)}]; ok {
			span = r.span
		}
	}
	attrs := []attribute.KeyValue{attribute.String(attrMethod, f.Method), attribute.Int64(attrFrameSeq, f.Seq)}
	if f.Dir == mcp.Inbound {
		attrs = append(attrs, attribute.String(attrDetail, "from the server"))
	} else {
		attrs = append(attrs, attribute.String(attrDetail, "from the client"))
	}
	span.AddEvent(f.Method, trace.WithTimestamp(f.Time), trace.WithAttributes(attrs...))
}

// localError ends a request mcpscope gave up on (a timeout, a cancel, a
// lost connection) with its kind as error.type.
func (c *Conversation) localError(ev mcp.LocalErrorEvent) {
	r, ok := c.bySeq[ev.Err.ReqSeq]
	if !ok {
		return
	}
	kind := strings.ReplaceAll(ev.Err.Kind.String(), " ", "_")
	c.finish(r, ev.Time, kind, ev.Err.Error())
}

// finding is a doctor's finding as an event of the span of the first
// frame it names, or of the connection.
func (c *Conversation) finding(ev mcp.DiagnosticEvent) {
	d := ev.Diagnostic
	if d == nil {
		return
	}
	span := c.conn
	for _, seq := range d.Frames {
		if r := c.spanOfSeq(seq); r != nil {
			span = r.span
			break
		}
	}
	span.AddEvent("doctor "+d.Rule, trace.WithTimestamp(ev.Time), trace.WithAttributes(
		attribute.String(attrRule, d.Rule), attribute.String(attrSeverity, d.Severity.String()),
		attribute.String(attrMessage, d.Message)))
}

func (c *Conversation) spanOfSeq(seq int64) *request {
	if r, ok := c.bySeq[seq]; ok {
		return r
	}
	for _, r := range c.held {
		if r.seq == seq || r.answer == seq {
			return r
		}
	}
	return nil
}

// End ends the connection at at (the last event's time when zero):
// requests still waiting end there unanswered.
func (c *Conversation) End(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if c.p == nil && len(c.early) > 0 {
		c.name(nil)
	}
	c.ended = true
	if c.conn == nil {
		return
	}
	if at.IsZero() || at.Before(c.last) {
		at = c.last
	}
	c.release()
	for _, r := range c.pending {
		c.finish(r, at, errorTypeUnanswered, "no answer before the connection ended")
	}
	c.release()
	c.conn.End(trace.WithTimestamp(at))
	attrs := []attribute.KeyValue{attribute.String(attrTransport, transportOf(c.opt.Transport))}
	if c.version != "" {
		attrs = append(attrs, attribute.String(attrProtocol, c.version))
	}
	attrs = append(attrs, c.serverAttrs()...)
	c.p.sesDur.Record(context.Background(), at.Sub(c.start).Seconds(), metric.WithAttributes(attrs...))
}
