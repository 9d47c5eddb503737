package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// HTTPTransport speaks Streamable HTTP (spec §3.2, §3.3) in both eras, and
// falls back to the 2024-11-05 HTTP+SSE transport when the server refuses
// Streamable HTTP's initialize with 400, 404 or 405 (§3.4).
//
// The client above it only writes raw messages, so the transport reads what
// it carries to learn what the HTTP shape needs:
//
//   - legacy era: the protocol version from the initialize result passing
//     through (then MCP-Protocol-Version on every later request), the
//     Mcp-Session-Id the server hands out (then sent on every request, and a
//     DELETE on Close), the standalone GET stream once initialized, and
//     resumption of a broken response stream with Last-Event-ID after the
//     server's retry delay;
//   - modern era: a request whose _meta names a protocol version is sent
//     with MCP-Protocol-Version, Mcp-Method and Mcp-Name and no session.
//
// Every exchange and every SSE id, retry, comment and priming event is
// reported to the sink as a [TransportEvent] ("http", "sse", "reconnect"),
// before the messages it carried. Authorization values never appear in them.
type HTTPTransport struct {
	// URL is the MCP endpoint, e.g. https://host/mcp.
	URL string
	// Header is sent on every request (the user's --header flags).
	Header http.Header
	// Authorizer, when set, supplies credentials and handles 401 and 403.
	Authorizer Authorizer
	// HTTPClient is used for every request; a private one when nil. Its
	// Timeout must be zero: response streams live as long as the session.
	HTTPClient *http.Client
	// NoSSEFallback keeps to Streamable HTTP even when the server refuses
	// it (--transport streamable).
	NoSSEFallback bool
}

// Name is the short name frames carry: "http".
func (t *HTTPTransport) Name() string { return "http" }

// Start checks the URL. Nothing is sent until the client's first message.
func (t *HTTPTransport) Start(ctx context.Context, sink Sink) (Conn, error) {
	if err := checkHTTPURL(t.URL); err != nil {
		return nil, err
	}
	return &streamableConn{
		httpBase:  newHTTPBase(t.HTTPClient, t.Header, t.Authorizer, sink),
		t:         t,
		streams:   map[string]context.CancelFunc{},
		getOpened: make(chan struct{}),
	}, nil
}

// getOpenWait bounds how long the write of notifications/initialized waits
// for the standalone GET stream to be answered. Opening it before the next
// request keeps a server from routing that request's answer to a stream
// that is not there yet (the conformance suite's sse-retry server does).
const getOpenWait = time.Second

// responseHeaderWait bounds how long Write waits for a request's response
// headers. Most servers answer at once (an SSE stream, or a quick JSON
// reply), and waiting lets a refused request fail at once with the reason.
// A server that holds its headers until a slow result is ready must not
// stall the client's other writes, so after this long the exchange carries
// on in the background and its outcome joins the timeline when it comes.
const responseHeaderWait = 2 * time.Second

// defaultRetry is the reconnect delay when the server named none.
const defaultRetry = time.Second

// maxResumes bounds reconnects of one response stream that make no progress.
const maxResumes = 5

// streamableConn is an open Streamable HTTP connection.
type streamableConn struct {
	*httpBase
	t *HTTPTransport

	mu              sync.Mutex
	sessionID       string
	legacyVersion   string        // negotiated by initialize
	modernVersion   string        // from the last modern request's _meta
	initID          string        // the initialize request awaiting its answer
	listening       bool          // the standalone GET stream was started
	getGaveUp       bool          // listen stopped after repeated failures; the next answered POST reopens it
	getOpened       chan struct{} // closed once the first GET was answered (or failed)
	expired         bool
	expiredErr      error
	closing         bool                          // Close has begun: ended streams are not reopened
	streams         map[string]context.CancelFunc // open request streams by request id
	fallback        *sseSession                   // set once fallen back to HTTP+SSE
	toolListIDs     map[string]bool               // tools/list requests awaiting their answer
	paramHeaders    map[string][]paramHeader      // x-mcp-header bindings by tool name
	sessionMismatch bool
	getOpen         bool // the standalone GET stream is open: its end tells when the server goes
}

// outbound is what the transport needs to know about a message it sends.
type outbound struct {
	raw      []byte
	id       string // compact JSON id; empty for a notification
	method   string // empty for a response
	version  string // _meta protocol version (modern era)
	name     string // params.name or params.uri for Mcp-Name
	hasName  bool
	cancelID string // notifications/cancelled: the request it cancels
}

func (o outbound) isRequest() bool { return o.id != "" && o.method != "" }

func inspectOutbound(raw []byte) outbound {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta      map[string]json.RawMessage `json:"_meta"`
			Name      json.RawMessage            `json:"name"`
			URI       json.RawMessage            `json:"uri"`
			RequestID json.RawMessage            `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return outbound{}
	}
	o := outbound{raw: raw, method: m.Method}
	if len(m.ID) > 0 && string(m.ID) != "null" {
		o.id = compactJSON(m.ID)
	}
	if v, ok := m.Params.Meta[MetaProtocolVersion]; ok {
		_ = json.Unmarshal(v, &o.version)
	}
	nameField := m.Params.Name
	if m.Method == MethodResourcesRead {
		nameField = m.Params.URI
	}
	switch m.Method {
	case MethodToolsCall, MethodPromptsGet, MethodResourcesRead:
		o.hasName = json.Unmarshal(nameField, &o.name) == nil
	case NotifyCancelled:
		if len(m.Params.RequestID) > 0 {
			o.cancelID = compactJSON(m.Params.RequestID)
		}
	}
	return o
}

// paramsOf returns a message's params.
func paramsOf(raw []byte) json.RawMessage {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Params
}

// headerValue encodes a header value the modern way: a value that is not
// plain visible ASCII, has leading or trailing whitespace, or looks like the
// sentinel itself is sent as =?base64?...?=.
func headerValue(s string) string {
	const prefix, suffix = "=?base64?", "?="
	needs := s != "" && (s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' ||
		(strings.HasPrefix(s, prefix) && strings.HasSuffix(s, suffix)))
	for i := 0; i < len(s) && !needs; i++ {
		needs = s[i] < 0x20 || s[i] > 0x7e
	}
	if !needs {
		return s
	}
	return prefix + base64.StdEncoding.EncodeToString([]byte(s)) + suffix
}

// headersFor builds the MCP headers of a POST carrying msg, and says whether
// it is sent in the modern shape.
func (c *streamableConn) headersFor(msg outbound) (http.Header, bool) {
	hdr := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if msg.method == MethodInitialize {
		// A new legacy handshake: whatever a probe left behind is moot.
		c.modernVersion, c.legacyVersion, c.initID = "", "", msg.id
	}
	version := msg.version
	if version != "" {
		c.modernVersion = version
	} else if c.legacyVersion == "" && c.modernVersion != "" && msg.method != MethodInitialize {
		version = c.modernVersion // a modern notification (cancelled) carries no _meta
	}
	if version != "" {
		hdr.Set("MCP-Protocol-Version", version)
		if msg.method != "" {
			hdr.Set("Mcp-Method", msg.method)
		}
		if msg.hasName {
			hdr.Set("Mcp-Name", headerValue(msg.name))
		}
		switch msg.method {
		case MethodToolsList:
			if c.toolListIDs == nil {
				c.toolListIDs = map[string]bool{}
			}
			c.toolListIDs[msg.id] = true
		case MethodToolsCall:
			if b := c.paramHeaders[msg.name]; len(b) > 0 {
				for k, v := range paramHeaderValues(b, paramsOf(msg.raw)) {
					hdr.Set(k, v)
				}
			}
		}
		return hdr, true
	}
	if c.legacyVersion != "" {
		hdr.Set("MCP-Protocol-Version", c.legacyVersion)
	}
	if c.sessionID != "" {
		hdr.Set("Mcp-Session-Id", c.sessionID)
	}
	return hdr, false
}

// noteSession keeps the session id a legacy server hands out.
func (c *streamableConn) noteSession(resp *http.Response, modern bool) {
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" || modern {
		return
	}
	c.mu.Lock()
	old := c.sessionID
	if old == "" {
		c.sessionID = id
	}
	changed := old != "" && old != id && !c.sessionMismatch
	if changed {
		c.sessionMismatch = true
	}
	c.mu.Unlock()
	if changed {
		c.event(TransportEvent{Kind: "http", Summary: "the server sent a different Mcp-Session-Id mid-session; mcpscope keeps the first",
			Fields: []Field{{"kept", old}, {"received", id}}})
	}
}

// noteInbound watches messages going to the client for the initialize
// result, whose protocolVersion every later request must name, and for
// tools/list results, whose x-mcp-header annotations name the Mcp-Param-*
// headers of later tools/call requests.
func (c *streamableConn) noteInbound(raw []byte) {
	c.mu.Lock()
	initID := c.initID
	for id := range c.toolListIDs {
		if answers(raw, id) {
			delete(c.toolListIDs, id)
			if c.paramHeaders == nil {
				c.paramHeaders = map[string][]paramHeader{}
			}
			for name, b := range paramHeadersOf(raw) {
				c.paramHeaders[name] = b
			}
		}
	}
	c.mu.Unlock()
	if initID == "" || !answers(raw, initID) {
		return
	}
	var m struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	_ = json.Unmarshal(trimBody(raw), &m)
	c.mu.Lock()
	c.initID = ""
	c.legacyVersion = m.Result.ProtocolVersion
	c.mu.Unlock()
}

// deliver hands an inbound message to the client after noting what the
// transport needs from it.
func (c *streamableConn) deliver(raw []byte, problem, stream string) {
	c.noteInbound(raw)
	c.receive(raw, problem, stream)
}

// TransportInUse names the transport the connection speaks now: "http",
// or "sse (fallback)" once the server refused Streamable HTTP and the
// session moved to the 2024-11-05 HTTP+SSE transport.
func (c *streamableConn) TransportInUse() string {
	if c.sse() != nil {
		return "sse (fallback)"
	}
	return "http"
}

func (c *streamableConn) sse() *sseSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fallback
}

// Write POSTs one message. For a request it returns once the response
// headers arrived (or after responseHeaderWait); the response is read on a
// goroutine. For a notification or response it returns with the status.
func (c *streamableConn) Write(ctx context.Context, raw []byte) error {
	wait, err := c.writeStart(ctx, raw)
	if err != nil || wait == nil {
		return err
	}
	return wait()
}

// writeStart is the client's split write (see splitWriter): a request's
// POST is started on a goroutine of its own and the wait for its response
// headers is returned, so that the messages queued behind it are not held
// up. A JSON-mode server sends those headers only when the tool finishes,
// and an answer to the server's own question during that tool is one of
// the messages behind it. Notifications and responses are POSTed in line:
// 202 comes at once, and what follows them may depend on their order.
func (c *streamableConn) writeStart(ctx context.Context, raw []byte) (func() error, error) {
	if !c.enter() {
		return nil, c.explain(ErrClosed)
	}
	defer c.wg.Done()
	if s := c.sse(); s != nil {
		return nil, s.post(ctx, raw)
	}
	msg := inspectOutbound(raw)
	if !msg.isRequest() {
		return nil, c.explain(c.write(ctx, raw, msg))
	}
	hdr, modern := c.headersFor(msg)
	out := &postOutcome{ch: make(chan error, 1)}
	if !c.goSafe(func() { c.exchange(carryClock(c.ctx, ctx), raw, msg, hdr, modern, out) }) {
		return nil, c.explain(ErrClosed)
	}
	return func() error { return c.explain(awaitHeaders(ctx, out)) }, nil
}

// explain replaces the error of a write that failed because the session
// expired meanwhile (noticed on another stream) with that reason.
func (c *streamableConn) explain(err error) error {
	if err == nil {
		return nil
	}
	c.mu.Lock()
	expiredErr := c.expiredErr
	c.mu.Unlock()
	if expiredErr != nil && !errors.Is(err, ErrSessionExpired) {
		return expiredErr
	}
	return err
}

// write POSTs a notification or a response.
func (c *streamableConn) write(ctx context.Context, raw []byte, msg outbound) error {
	hdr, modern := c.headersFor(msg)
	if modern && msg.cancelID != "" {
		// In the modern shape, closing the response stream is the
		// cancellation; the notification is still sent as written.
		c.mu.Lock()
		cancel := c.streams[msg.cancelID]
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
	return c.postMessage(ctx, raw, msg, hdr, modern)
}

// awaitHeaders waits for the outcome of a request's POST: its response
// headers, at most responseHeaderWait (the answer itself is read by the
// POST's goroutine and can take as long as the tool runs).
func awaitHeaders(ctx context.Context, out *postOutcome) error {
	wait := time.NewTimer(responseHeaderWait)
	defer wait.Stop()
	select {
	case err := <-out.ch:
		return err
	case <-ctx.Done():
		if came, err := out.abandon(); came {
			return err
		}
		return ctx.Err()
	case <-wait.C:
		if came, err := out.abandon(); came {
			return err
		}
		return nil
	}
}

// postOutcome carries the outcome of a request's POST from the goroutine
// running it to Write, which may stop waiting before it comes.
type postOutcome struct {
	ch        chan error
	mu        sync.Mutex
	abandoned bool
}

// abandon records that Write stopped waiting; it returns the outcome if it
// came meanwhile.
func (o *postOutcome) abandon() (came bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.abandoned = true
	select {
	case err := <-o.ch:
		return true, err
	default:
		return false, nil
	}
}

// report delivers the outcome; it says whether nobody is waiting for it
// any more, in which case a failure must be told in the timeline.
func (o *postOutcome) report(err error) (unheard bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ch <- err
	return o.abandoned
}

// postMessage sends a notification or a response and waits for the answer:
// 202 with no body is the rule.
func (c *streamableConn) postMessage(ctx context.Context, raw []byte, msg outbound, hdr http.Header, modern bool) error {
	pctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	resp, err := c.send(pctx, http.MethodPost, c.t.URL, raw, hdr)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // closing only frees the connection; what was read is what counts
	c.noteSession(resp, modern)
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return c.refused(ctx, resp, msg, raw, hdr)
	}
	c.relisten()
	body, _, _ := readBody(resp.Body, maxErrorBody)
	if len(trimBody(body)) > 0 {
		problem := fmt.Sprintf("the server answered a %s with %s and a body; the spec asks for 202 Accepted with no body", kindOfOutbound(msg), resp.Status)
		if looksLikeJSON(body) {
			c.deliver(trimBody(body), problem, "POST "+pathOf(resp.Request.URL)+" "+kindOfOutbound(msg))
		} else {
			c.event(TransportEvent{Kind: "http", Summary: problem, Fields: []Field{{"body", snippet(body)}}})
		}
	}
	if msg.method == NotifyInitialized && !modern {
		c.startListening()
	}
	return nil
}

func kindOfOutbound(msg outbound) string {
	if msg.method == "" {
		return "response"
	}
	return "notification"
}

// exchange POSTs one request and reads its answer: JSON, or an SSE stream
// that is resumed with Last-Event-ID when it breaks in the legacy shape.
// out gets the outcome of the POST itself, once.
func (c *streamableConn) exchange(base context.Context, raw []byte, msg outbound, hdr http.Header, modern bool, out *postOutcome) {
	sctx, cancel := context.WithCancel(base)
	c.mu.Lock()
	c.streams[msg.id] = cancel
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.streams, msg.id)
		c.mu.Unlock()
		cancel()
	}()
	resp, err := c.send(sctx, http.MethodPost, c.t.URL, raw, hdr)
	if err != nil {
		if out.report(err) && sctx.Err() == nil {
			// Write stopped waiting (a sign-in outlasts responseHeaderWait):
			// the request ends now, with this reason, not at its timeout.
			c.event(TransportEvent{Kind: "http", Summary: msg.method + " (id " + msg.id + ") failed", Err: err})
			c.failRequest(msg.id, err)
		}
		return
	}
	defer func() { _ = resp.Body.Close() }() // closing only frees the connection; what was read is what counts
	c.noteSession(resp, modern)
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		err := c.refused(sctx, resp, msg, raw, hdr)
		if out.report(err) && err != nil {
			// Write stopped waiting: the timeline says it, and the request
			// ends with it.
			c.event(TransportEvent{Kind: "http", Summary: msg.method + " (id " + msg.id + ") failed", Err: err})
			c.failRequest(msg.id, err)
		}
		return
	}
	out.report(nil)
	c.relisten()
	stream := "POST " + pathOf(resp.Request.URL) + " " + msg.method + " (id " + msg.id + ")"
	switch ct := mediaType(resp.Header); {
	case resp.StatusCode == http.StatusAccepted || ct == "application/json" || ct != "text/event-stream":
		body, cut, err := readBody(resp.Body, maxJSONBody)
		body = trimBody(body)
		problem := ""
		switch {
		case cut:
			problem = fmt.Sprintf("body longer than %d bytes: cut", maxJSONBody)
		case err != nil && sctx.Err() == nil:
			problem = "the body was cut off: " + err.Error()
		case ct != "application/json" && len(body) > 0:
			problem = fmt.Sprintf("Content-Type %q: a request must be answered with application/json or text/event-stream", ct)
		}
		if len(body) > 0 {
			c.deliver(body, problem, stream)
		} else if resp.StatusCode != http.StatusAccepted && sctx.Err() == nil {
			c.event(TransportEvent{Kind: "http", Summary: stream + ": an empty body where the answer belonged", Err: ErrStreamBroken})
			c.failRequest(msg.id, fmt.Errorf("%s: %w", stream, ErrStreamBroken))
		}
	default:
		c.readStream(sctx, resp.Body, stream, msg, modern)
	}
}

// refused handles a non-2xx answer to a POST: an expired session, an
// authorization failure, the fall back to HTTP+SSE, or a JSON-RPC error in
// the body. It returns nil when the body answered the request (the client
// then has its error response).
func (c *streamableConn) refused(ctx context.Context, resp *http.Response, msg outbound, raw []byte, hdr http.Header) error {
	body, _, _ := readBody(resp.Body, maxErrorBody)
	body = trimBody(body)
	status := resp.StatusCode
	if status == http.StatusNotFound && hdr.Get("Mcp-Session-Id") != "" {
		return c.expire(resp, "")
	}
	if forgotSession(status, hdr.Get("Mcp-Session-Id"), body) {
		if looksLikeJSON(body) {
			c.deliver(body, "", "POST "+pathOf(resp.Request.URL)+" "+msg.method+" ("+resp.Status+")")
		}
		return c.expire(resp, "the server answered 400 where the spec says 404 (a client waiting for 404 keeps sending into the dead session): "+snippet(body))
	}
	refusedStream := "POST " + pathOf(resp.Request.URL) + " " + msg.method + " (" + resp.Status + ")"
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		if looksLikeJSON(body) {
			c.deliver(body, "", refusedStream)
		}
		return authError(resp.Request, resp)
	}
	if msg.method == MethodInitialize && !c.t.NoSSEFallback &&
		(status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed) &&
		!isModernErrorBody(status, body) {
		return c.fallBack(resp.Status, raw)
	}
	if looksLikeJSON(body) {
		c.deliver(body, "", refusedStream)
		if msg.id != "" && answers(body, msg.id) {
			return nil
		}
	}
	detail := snippet(body)
	if detail == "" {
		detail = "no body"
	}
	return fmt.Errorf("POST %s → %s: %s", pathOf(resp.Request.URL), resp.Status, detail)
}

// isModernErrorBody reports a body holding a JSON-RPC error only a modern
// server sends; such a server must not be treated as a legacy one.
func isModernErrorBody(status int, body []byte) bool {
	e := rpcErrorIn(body)
	if e == nil {
		return false
	}
	switch e.Code {
	case CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedProtocolVersion:
		return true
	case CodeMethodNotFound:
		return status == http.StatusNotFound
	}
	return false
}

// forgotSession reports a 400 answer to a request that carried a session id
// whose body says the server does not know that session: "Bad Request: No
// valid session ID provided" is what server-everything and the Python SDK
// send after a restart. The spec's answer is 404; either way the session is
// gone, and every later request would get the same answer.
func forgotSession(status int, sentSession string, body []byte) bool {
	if status != http.StatusBadRequest || sentSession == "" {
		return false
	}
	text := strings.ToLower(snippet(body))
	if !strings.Contains(text, "session") {
		return false
	}
	for _, word := range []string{"no valid", "not found", "invalid", "unknown", "expired", "does not exist"} {
		if strings.Contains(text, word) {
			return true
		}
	}
	return false
}

// expire records that the server forgot the session, says so, and ends the
// connection with ErrSessionExpired. note adds what was unusual about the
// answer, if anything.
func (c *streamableConn) expire(resp *http.Response, note string) error {
	c.mu.Lock()
	already := c.expired
	c.expired = true
	id := c.sessionID
	c.mu.Unlock()
	err := fmt.Errorf("%w: %s %s → %s for Mcp-Session-Id %s", ErrSessionExpired, resp.Request.Method, pathOf(resp.Request.URL), resp.Status, id)
	if !already {
		c.mu.Lock()
		c.expiredErr = err
		c.mu.Unlock()
		fields := []Field{{"Mcp-Session-Id", id}, {"status", resp.Status}}
		if note != "" {
			fields = append(fields, Field{"note", note})
		}
		c.event(TransportEvent{Kind: "http", Summary: "session expired: the server no longer knows Mcp-Session-Id " + id,
			Fields: fields, Err: err})
		c.shutdown(err)
	}
	return err
}

// fallBack switches the connection to the 2024-11-05 HTTP+SSE transport at
// the same URL and sends the initialize there (spec §3.4).
func (c *streamableConn) fallBack(status string, raw []byte) error {
	c.event(TransportEvent{Kind: "http",
		Summary: "Streamable HTTP initialize refused (" + status + "): falling back to the 2024-11-05 HTTP+SSE transport at the same URL",
		Fields:  []Field{{"url", redactURL(c.t.URL)}, {"status", status}}})
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	s, err := c.openSSE(ctx, c.t.URL)
	if err != nil {
		return fmt.Errorf("the server refused Streamable HTTP (POST → %s) and the HTTP+SSE fallback failed too: %w", status, err)
	}
	c.mu.Lock()
	c.fallback = s
	c.mu.Unlock()
	return s.post(ctx, raw)
}

// streamState is what a response stream needs to be resumed.
type streamState struct {
	lastEventID string
	retry       time.Duration
	hasRetry    bool
	answered    bool
	progress    bool // an event arrived since the last reconnect
}

// consume reads one SSE body, reporting and delivering its events. reqID,
// when set, is the request whose answer ends the stream's purpose; with
// stopOnAnswer, reading stops there (a resumption GET a server may keep
// open forever must not pile up).
//
// Keep-alives (comment-only events) are reported as runs, one row each
// (keepAlives). On a request's stream, a run past sseMaxKeepAlives bytes
// ends the reading with ErrKeepAliveLimit.
func (c *streamableConn) consume(stream string, body io.Reader, reqID string, st *streamState, stopOnAnswer bool) error {
	r := newSSEReader(body)
	ka := newKeepAlives(stream, c.event)
	defer ka.end(time.Now())
	for {
		ev, err := r.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		st.progress = true
		if ev.isKeepAlive() {
			if n := ka.add(ev, time.Now()); reqID != "" && n > sseMaxKeepAlives {
				return fmt.Errorf("%w: %s bytes of keep-alives in a row and no answer (the limit is %s)", ErrKeepAliveLimit, groupDigits(n), byteCount(sseMaxKeepAlives))
			}
			continue
		}
		ka.end(time.Now())
		if ev.HasID {
			st.lastEventID = ev.ID
		}
		if ev.HasRetry {
			st.retry, st.hasRetry = ev.Retry, true
		}
		rows, deliver := sseClassify(stream, ev, false)
		for _, te := range rows {
			c.event(te)
		}
		if !deliver {
			continue
		}
		c.deliver(ev.Data, ev.Problem(), stream)
		if reqID != "" && answers(ev.Data, reqID) {
			st.answered = true
			if stopOnAnswer {
				return nil
			}
		}
	}
}

// readStream reads a request's SSE answer. When the stream ends before the
// answer, a legacy stream with an event id is resumed by GET with
// Last-Event-ID after exactly the server's retry delay; a modern stream
// cannot be resumed, which is reported.
func (c *streamableConn) readStream(ctx context.Context, body io.ReadCloser, stream string, msg outbound, modern bool) {
	st := &streamState{}
	err := c.consume(stream, body, msg.id, st, false)
	_ = body.Close()
	for resumes := 0; !st.answered && ctx.Err() == nil; {
		if errors.Is(err, ErrKeepAliveLimit) {
			// Resuming or sending again would only bring more of them.
			c.event(TransportEvent{Kind: "sse", Summary: stream + ": stopped reading: " + err.Error(),
				Fields: []Field{{"stream", stream}, {"request id", msg.id}}, Err: fmt.Errorf("%s (id %s): %w", msg.method, msg.id, err)})
			c.failRequest(msg.id, fmt.Errorf("%s: %w", stream, err))
			return
		}
		how := "closed by the server"
		if err != nil {
			how = "broken (" + err.Error() + ")"
		}
		if modern || st.lastEventID == "" {
			why := "the server gave no event id to resume from"
			if modern {
				why = "the modern protocol has no stream resumption"
			}
			c.event(TransportEvent{Kind: "http", Summary: stream + ": stream " + how + " before the answer; " + why + "; send the request again (it will get a new id)",
				Fields: []Field{{"stream", stream}, {"request id", msg.id}}, Err: fmt.Errorf("%s (id %s): %w", msg.method, msg.id, ErrStreamBroken)})
			c.failRequest(msg.id, fmt.Errorf("%s: stream %s before the answer: %w", stream, how, ErrStreamBroken))
			return
		}
		if st.progress {
			resumes = 0
		}
		if resumes++; resumes > maxResumes {
			c.event(TransportEvent{Kind: "reconnect", Summary: fmt.Sprintf("%s: gave up resuming after %d reconnects without progress", stream, maxResumes),
				Err: fmt.Errorf("%s (id %s): %w", msg.method, msg.id, ErrStreamBroken)})
			c.failRequest(msg.id, fmt.Errorf("%s: gave up resuming: %w", stream, ErrStreamBroken))
			return
		}
		st.progress = false
		delay := defaultRetry
		if st.hasRetry {
			delay = st.retry
		}
		c.event(TransportEvent{Kind: "reconnect", Summary: fmt.Sprintf("%s: stream %s before the answer; reconnecting in %s with Last-Event-ID %s", stream, how, delay, st.lastEventID),
			Fields: []Field{{"stream", stream}, {"delay", delay.String()}, {"Last-Event-ID", st.lastEventID}, {"retry from server", fmt.Sprint(st.hasRetry)}}})
		if !c.sleep(ctx, delay) {
			return
		}
		resp, gerr := c.resumeGET(ctx, st.lastEventID)
		if gerr != nil {
			err = gerr
			continue
		}
		switch {
		case resp.StatusCode == http.StatusOK && mediaType(resp.Header) == "text/event-stream":
			err = c.consume("GET "+pathOf(resp.Request.URL)+" resuming "+msg.method+" (id "+msg.id+")", resp.Body, msg.id, st, true)
			_ = resp.Body.Close()
		case resp.StatusCode == http.StatusNotFound && resp.Request.Header.Get("Mcp-Session-Id") != "":
			drainClose(resp)
			_ = c.expire(resp, "")
			return
		default:
			drainClose(resp)
			c.event(TransportEvent{Kind: "reconnect", Summary: fmt.Sprintf("%s: the server refused to resume (%s)", stream, resp.Status),
				Err: fmt.Errorf("%s (id %s): %w", msg.method, msg.id, ErrStreamBroken)})
			c.failRequest(msg.id, fmt.Errorf("%s: the server refused to resume (%s): %w", stream, resp.Status, ErrStreamBroken))
			return
		}
	}
}

// resumeGET opens a GET stream, with Last-Event-ID when resuming.
func (c *streamableConn) resumeGET(ctx context.Context, lastEventID string) (*http.Response, error) {
	hdr := http.Header{"Accept": {"text/event-stream"}}
	if lastEventID != "" {
		hdr.Set("Last-Event-ID", lastEventID)
	}
	c.mu.Lock()
	if c.sessionID != "" {
		hdr.Set("Mcp-Session-Id", c.sessionID)
	}
	if c.legacyVersion != "" {
		hdr.Set("MCP-Protocol-Version", c.legacyVersion)
	}
	c.mu.Unlock()
	return c.send(ctx, http.MethodGet, c.t.URL, nil, hdr)
}

func (c *streamableConn) setGetOpen(open bool) {
	c.mu.Lock()
	c.getOpen = open
	c.mu.Unlock()
}

// needsKeepAlive reports whether only a ping would notice the server
// going away: no standalone GET stream is open (the server offers none,
// or it stopped reopening) and the session did not fall back to HTTP+SSE,
// whose stream ends with the server.
func (c *streamableConn) needsKeepAlive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.getOpen && c.fallback == nil
}

func (c *streamableConn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing || c.ended()
}

// startListening opens the standalone GET stream once, for the messages a
// legacy server sends outside any request.
func (c *streamableConn) startListening() {
	c.mu.Lock()
	start := !c.listening
	c.listening = true
	c.mu.Unlock()
	if !start {
		return
	}
	if !c.goSafe(func() { c.listen(c.getOpened) }) {
		return
	}
	t := time.NewTimer(getOpenWait)
	defer t.Stop()
	select {
	case <-c.getOpened:
	case <-t.C:
	case <-c.ctx.Done():
	}
}

// relisten reopens the standalone GET stream listen gave up on, now that
// a POST was answered again: without it, a server that was unreachable
// for a few seconds would never again deliver what it sends outside a
// request (list_changed, log messages), and nothing would say so.
func (c *streamableConn) relisten() {
	c.mu.Lock()
	again := c.getGaveUp
	c.getGaveUp = false
	c.mu.Unlock()
	if !again || c.isClosing() {
		return
	}
	c.event(TransportEvent{Kind: "reconnect", Summary: "a request was answered again: reopening the standalone GET stream"})
	c.goSafe(func() { c.listen(nil) })
}

// listen keeps the standalone GET stream open, reconnecting after the
// server's retry delay when it ends. A 405 (or a 404 without a session)
// means the server offers no such stream, which is normal. openedCh, if
// not nil, is closed once the first GET was answered or failed.
func (c *streamableConn) listen(openedCh chan struct{}) {
	st := &streamState{}
	failures := 0
	var opened sync.Once
	signal := func() {
		opened.Do(func() {
			if openedCh != nil {
				close(openedCh)
			}
		})
	}
	defer signal()
	for !c.isClosing() {
		resp, err := c.resumeGET(c.ctx, st.lastEventID)
		signal()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			failures++
		} else {
			switch {
			case resp.StatusCode == http.StatusOK && mediaType(resp.Header) == "text/event-stream":
				st.progress = false
				c.setGetOpen(true)
				_ = c.consume("GET "+pathOf(resp.Request.URL)+" "+StandaloneStream, resp.Body, "", st, false)
				c.setGetOpen(false)
				_ = resp.Body.Close()
				if st.progress {
					failures = 0
				} else {
					failures++
				}
			case resp.StatusCode == http.StatusMethodNotAllowed || (resp.StatusCode == http.StatusNotFound && resp.Request.Header.Get("Mcp-Session-Id") == ""):
				drainClose(resp)
				return // no standalone stream: server messages come on request streams only
			case resp.StatusCode == http.StatusNotFound:
				drainClose(resp)
				_ = c.expire(resp, "")
				return
			default:
				body, _, _ := readBody(resp.Body, maxErrorBody)
				_ = resp.Body.Close()
				if forgotSession(resp.StatusCode, resp.Request.Header.Get("Mcp-Session-Id"), body) {
					_ = c.expire(resp, "the server answered 400 where the spec says 404: "+snippet(body))
					return
				}
				failures++
			}
		}
		if c.isClosing() {
			return
		}
		if failures >= 3 {
			c.mu.Lock()
			c.getGaveUp = true
			c.mu.Unlock()
			c.event(TransportEvent{Kind: "reconnect", Summary: "the standalone GET stream keeps failing; stopped reopening it until a request is answered again (server messages still arrive on request streams)"})
			return
		}
		delay := defaultRetry
		if st.hasRetry {
			delay = st.retry
		}
		fields := []Field{{"delay", delay.String()}}
		if st.lastEventID != "" {
			fields = append(fields, Field{"Last-Event-ID", st.lastEventID})
		}
		c.event(TransportEvent{Kind: "reconnect", Summary: "standalone GET stream ended; reopening in " + delay.String(), Fields: fields})
		if !c.sleep(c.ctx, delay) {
			return
		}
	}
}

// Close ends the session: a DELETE when the server gave a session id (a
// 405 answer is fine), then every stream is closed.
func (c *streamableConn) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closing = true
	id, expired, fallback := c.sessionID, c.expired, c.fallback
	c.mu.Unlock()
	if id != "" && !expired && fallback == nil && !c.ended() {
		// The DELETE is a courtesy: it gets at most half of what is left
		// of ctx, so the streams still have time to end within it.
		wait := 2 * time.Second
		if deadline, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(deadline)/2)
		}
		dctx, cancel := context.WithTimeout(ctx, wait)
		hdr, _ := c.headersFor(outbound{})
		hdr.Del("Content-Type")
		hdr.Del("Accept")
		if resp, err := c.send(dctx, http.MethodDelete, c.t.URL, nil, hdr); err == nil {
			drainClose(resp)
		}
		cancel()
	}
	c.shutdown(ErrClosed)
	return c.waitDone(ctx)
}
