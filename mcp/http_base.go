package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
)

// ErrSessionExpired means the server answered 404 to a request carrying its
// Mcp-Session-Id (or its HTTP+SSE session): the session is gone and the spec
// says the client must start a new one with a fresh initialize. The
// connection ends with an error wrapping it; the UI can offer to reconnect.
var ErrSessionExpired = errors.New("the server's session expired (it no longer knows the session mcpscope sent); reconnect to start a new session")

// ErrStreamBroken means a response stream ended before it carried the
// answer to its request and could not be resumed. The request will get no
// answer on this stream; sending it again (under a new id) is the way on.
var ErrStreamBroken = errors.New("the response stream ended before the answer and cannot be resumed")

// Limits on what is read into memory.
const (
	maxJSONBody  = 256 << 20 // a JSON response body (one message or a batch)
	maxErrorBody = 1 << 20   // the body of an HTTP error answer
)

// httpBase is what the HTTP transports share: the HTTP client, the
// connection's lifetime, ordered delivery to the sink, and the log of
// exchanges that joins the timeline.
type httpBase struct {
	client     *http.Client
	ownsClient bool
	header     http.Header // the user's extra headers, sent on every request
	auth       Authorizer
	sink       Sink

	// deliverMu makes every call into the sink (messages and transport
	// events) one at a time and in order, however many streams are open.
	deliverMu sync.Mutex

	ctx    context.Context // the connection's lifetime; cancelled at shutdown
	cancel context.CancelFunc
	// wg counts every goroutine reading or sending for the connection,
	// Writes included, so the sink hears nothing after Closed.
	wg      sync.WaitGroup
	lifeMu  sync.Mutex
	stopped bool // shutdown began: nothing new may start

	endOnce sync.Once
	done    chan struct{} // closed after sink.Closed
}

func newHTTPBase(hc *http.Client, header http.Header, auth Authorizer, sink Sink) *httpBase {
	b := &httpBase{client: hc, header: header, auth: auth, sink: sink, done: make(chan struct{})}
	if b.client == nil {
		// A client of our own, so shutdown can close its idle connections
		// and leave no goroutine behind.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.client, b.ownsClient = &http.Client{Transport: tr}, true
	} else {
		c := *hc // the caller's client stays as it was
		b.client = &c
	}
	// send follows redirects itself (see there).
	b.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	b.ctx, b.cancel = context.WithCancel(context.Background())
	return b
}

// StandaloneStream ends the name of the GET stream a legacy server uses
// for messages outside any request ("GET /mcp (server messages)"), as
// Frame.Stream carries it.
const StandaloneStream = "(server messages)"

// receive hands one inbound message to the sink, naming its stream.
func (b *httpBase) receive(raw []byte, problem, stream string) {
	b.deliverMu.Lock()
	defer b.deliverMu.Unlock()
	b.sink.Receive(raw, problem, stream)
}

// event adds a transport event to the timeline.
func (b *httpBase) event(ev TransportEvent) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	b.deliverMu.Lock()
	defer b.deliverMu.Unlock()
	b.sink.Transport(ev)
}

// failRequest tells the client that a request's answer will never come.
func (b *httpBase) failRequest(id string, err error) {
	if id == "" {
		return
	}
	b.deliverMu.Lock()
	defer b.deliverMu.Unlock()
	b.sink.RequestFailed(ID(id), err)
}

// ended reports whether the connection is shutting down.
func (b *httpBase) ended() bool { return b.ctx.Err() != nil }

// shutdown ends the connection once: it stops every stream, waits for the
// goroutines, then reports cause to the sink. It does not wait itself.
func (b *httpBase) shutdown(cause error) {
	b.endOnce.Do(func() {
		b.lifeMu.Lock()
		b.stopped = true
		b.lifeMu.Unlock()
		b.cancel()
		go func() {
			b.wg.Wait()
			b.client.CloseIdleConnections()
			b.deliverMu.Lock()
			b.sink.Closed(cause)
			b.deliverMu.Unlock()
			close(b.done)
		}()
	})
}

// waitDone waits for shutdown to finish, or for ctx.
func (b *httpBase) waitDone(ctx context.Context) error {
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the connection did not finish closing: %w", ctx.Err())
	}
}

// enter registers work the shutdown must wait for; it reports false when
// the connection is already ending. Each true must be matched by wg.Done.
func (b *httpBase) enter() bool {
	b.lifeMu.Lock()
	defer b.lifeMu.Unlock()
	if b.stopped {
		return false
	}
	b.wg.Add(1)
	return true
}

// goSafe runs f on a goroutine the shutdown waits for; it does nothing when
// the connection is already ending.
func (b *httpBase) goSafe(f func()) bool {
	if !b.enter() {
		return false
	}
	go func() {
		defer b.wg.Done()
		f()
	}()
	return true
}

// sleep waits d, or less if the connection ends; it reports whether the
// full delay passed.
func (b *httpBase) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// maxChallenges bounds how often one exchange is retried after the
// Authorizer handled a 401 or 403 (a step-up may need a second round).
const maxChallenges = 3

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 10

// send performs one HTTP exchange and logs it in the timeline. With an
// Authorizer, a 401 or 403 answer runs its Challenge and the request is sent
// again when the Authorizer says so. The caller owns the returned body.
//
// Redirects are followed here, not by net/http, so that each one is a row
// in the timeline (and the recording) and so that credentials never leave
// the origin the user named: a redirect to another origin is followed
// without the Authorization header, the user's --header values or the
// Authorizer, and a redirect from https to anything else is refused.
func (b *httpBase) send(ctx context.Context, method, target string, body []byte, hdr http.Header) (*http.Response, error) {
	startOrigin := originOf(target)
	auth, userHeaders := b.auth, true
	challenges, redirects := 0, 0
	for {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, rd)
		if err != nil {
			return nil, fmt.Errorf("cannot build the %s request for %s: %w", method, redactURL(target), err)
		}
		if userHeaders {
			for k, vs := range b.header {
				req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
			}
		}
		for k, vs := range hdr {
			req.Header[k] = vs
		}
		if auth != nil {
			if err := auth.Authorize(ctx, req); err != nil {
				b.event(TransportEvent{Kind: "http", Summary: method + " " + pathOf(req.URL) + ": no credentials", Fields: requestFields(req), Err: err})
				return nil, &AuthorizationError{Err: fmt.Errorf("could not get credentials for %s: %w", redactURL(target), err)}
			}
		}
		start := time.Now()
		resp, err := b.client.Do(req)
		elapsed := time.Since(start)
		if err != nil {
			if ctx.Err() != nil {
				ev := exchangeEvent(req, nil, elapsed, nil)
				ev.Summary = fmt.Sprintf("%s %s → abandoned after %s (cancelled or closing)", method, pathOf(req.URL), roundElapsed(elapsed))
				b.event(ev)
				return nil, ctx.Err()
			}
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // it repeats the method and the URL
			}
			err = &UnreachableError{Op: method + " " + redactURL(target), Err: fmt.Errorf("%s %s: %w (is the server running, and is the URL right?)", method, redactURL(target), err)}
			b.event(exchangeEvent(req, nil, elapsed, err))
			return nil, err
		}
		var evErr error
		if (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && auth == nil {
			evErr = authError(req, resp)
		}
		b.event(withCarried(exchangeEvent(req, resp, elapsed, evErr), body))
		if next, ok := redirectTarget(req, resp); ok {
			drainClose(resp)
			if redirects >= maxRedirects {
				err := fmt.Errorf("%s %s: more than %d redirects; not following", method, redactURL(target), maxRedirects)
				b.event(TransportEvent{Kind: "http", Summary: "redirect not followed: too many", Fields: redirectFields(req.URL, next), Err: err})
				return nil, err
			}
			if err := redirectAllowed(req.URL, next); err != nil {
				b.event(TransportEvent{Kind: "http", Summary: "redirect refused: " + err.Error(), Fields: redirectFields(req.URL, next), Err: err})
				return nil, fmt.Errorf("%s %s → %d: %w", method, redactURL(target), resp.StatusCode, err)
			}
			redirects++
			summary := fmt.Sprintf("redirect %d → %s", resp.StatusCode, redactURL(next.String()))
			if originOf(next.String()) != startOrigin {
				if userHeaders || auth != nil {
					summary += " (another origin: followed without Authorization or your --header values)"
				} else {
					summary += " (another origin)"
				}
				auth, userHeaders = nil, false
			}
			if resp.StatusCode != http.StatusTemporaryRedirect && resp.StatusCode != http.StatusPermanentRedirect &&
				method != http.MethodGet && method != http.MethodHead {
				// 301, 302 and 303 turn the request into a GET without a
				// body, as browsers and net/http do.
				summary += fmt.Sprintf(" (%s becomes GET without a body)", method)
				method, body = http.MethodGet, nil
			}
			b.event(TransportEvent{Kind: "http", Summary: summary, Fields: redirectFields(req.URL, next)})
			target = next.String()
			continue
		}
		if (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) || auth == nil || challenges >= maxChallenges {
			return resp, nil
		}
		challenges++
		retry, err := auth.Challenge(ctx, resp, b.event)
		if err != nil {
			drainClose(resp)
			err = fmt.Errorf("authorization for %s failed: %w", redactURL(target), err)
			if ctx.Err() != nil {
				return nil, err // given up on, not failed
			}
			return nil, &AuthorizationError{Err: err}
		}
		if !retry {
			return resp, nil
		}
		drainClose(resp)
	}
}

// redirectTarget is where a 301, 302, 303, 307 or 308 answer with a
// Location points, resolved against the request's URL.
func redirectTarget(req *http.Request, resp *http.Response) (*url.URL, bool) {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil, false
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, false
	}
	next, err := req.URL.Parse(loc)
	if err != nil {
		return nil, false
	}
	return next, true
}

// redirectAllowed refuses a redirect off the web (file:, ...) and a
// downgrade from https, where what follows would travel in clear.
func redirectAllowed(from, to *url.URL) error {
	switch strings.ToLower(to.Scheme) {
	case "http", "https":
	default:
		return fmt.Errorf("the redirect to %s leaves http(s); not following", redactURL(to.String()))
	}
	if strings.EqualFold(from.Scheme, "https") && !strings.EqualFold(to.Scheme, "https") {
		return fmt.Errorf("the redirect from https to %s would downgrade to plain http; not following", redactURL(to.String()))
	}
	return nil
}

func redirectFields(from, to *url.URL) []Field {
	return []Field{{"from", from.Redacted()}, {"to", to.Redacted()}}
}

// originOf is scheme://host:port, lower-cased; "" when s is not a URL.
func originOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// authError explains a 401 or 403 to a user who gave no credentials, or
// whose credentials were refused.
func authError(req *http.Request, resp *http.Response) error {
	what := "the server requires authorization"
	if resp.StatusCode == http.StatusForbidden {
		what = "the server refused access"
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	detail := "it sent no WWW-Authenticate header"
	if challenge != "" {
		detail = "WWW-Authenticate: " + challenge
	}
	hint := "pass --bearer TOKEN (or --bearer-env VAR), or --header \"Authorization: ...\""
	if req.Header.Get("Authorization") != "" {
		hint = "the credentials sent were refused: check the token and its scopes"
	}
	return fmt.Errorf("%s %s → %s: %s (%s); %s", req.Method, pathOf(req.URL), resp.Status, what, detail, hint)
}

// drainClose reads a little of an unwanted body so the connection can be
// reused, then closes it.
func drainClose(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// readBody reads a body up to limit bytes; cut reports a longer body.
// The body is read in chunks joined once at the end, so a 100 MB answer
// costs its size and one join, not io.ReadAll's repeated growth, which
// copies the body several times over; past longLineBytes it goes into a
// mapping instead (mappedLine), copied to the heap a MiB at a time at the
// end, so it is never held twice.
func readBody(r io.Reader, limit int64) (body []byte, cut bool, err error) {
	const chunkSize = 1 << 20
	var chunks [][]byte
	var long *mappedLine
	mapped := false // a mapping was tried (it may have failed)
	var size int64
	var buf []byte
	for {
		want := int64(chunkSize)
		if size < 64<<10 {
			want = 64 << 10 // most bodies are small
		}
		want = min(want, limit+1-size)
		if want <= 0 {
			break
		}
		if long == nil || int64(len(buf)) < want {
			buf = make([]byte, want)
		}
		n, rerr := io.ReadFull(r, buf[:want])
		if n > 0 {
			if !mapped && size+int64(n) > longLineBytes && limit < math.MaxInt {
				mapped = true
				if long = newMappedLine(int(limit + 1)); long != nil {
					for _, c := range chunks {
						long.write(c)
					}
					chunks = nil
				}
			}
			if long != nil {
				long.write(buf[:n]) // buf is read into again
			} else {
				chunks = append(chunks, buf[:n:n])
			}
			size += int64(n)
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) && !errors.Is(rerr, io.ErrUnexpectedEOF) {
				err = rerr
			}
			break
		}
	}
	switch {
	case long != nil:
		body = long.copied()
	case len(chunks) == 1 && len(chunks[0]) < 64<<10:
		// A small body keeps its size, not the 64 KiB buffer it was read into.
		body = bytes.Clone(chunks[0])
	default:
		body = join(chunks, int(size))
	}
	if size > limit {
		return body[:limit], true, err
	}
	return body, false, err
}

// mediaType is the Content-Type without parameters, lower-cased.
func mediaType(h http.Header) string {
	ct := h.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// pathOf is the part of a URL the timeline shows: path and query.
func pathOf(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// redactURL hides a password in the URL's user info and the values of
// its secret query parameters (?api_key=...): a URL shown on the screen,
// in an error or in the timeline never carries a credential.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		s = u.Redacted()
	}
	return redact.URLs(s)
}

// Request headers worth showing, in display order.
var shownRequestHeaders = []string{"Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-ID", "Accept"}

// Response headers worth showing, in display order.
var shownResponseHeaders = []string{"Content-Type", "Mcp-Session-Id", "WWW-Authenticate", "Retry-After", "Location"}

func requestFields(req *http.Request) []Field {
	fields := []Field{{"method", req.Method}, {"url", redactURL(req.URL.String())}}
	for _, h := range shownRequestHeaders {
		if v := req.Header.Get(h); v != "" {
			fields = append(fields, Field{h, v})
		}
	}
	if v := req.Header.Get("Authorization"); v != "" {
		fields = append(fields, Field{"Authorization", redact.Authorization(v)})
	}
	return fields
}

// exchangeEvent describes one HTTP request and its answer (or failure) for
// the timeline. Authorization values never appear in it.
func exchangeEvent(req *http.Request, resp *http.Response, elapsed time.Duration, err error) TransportEvent {
	ev := TransportEvent{Kind: "http", Fields: requestFields(req), Err: err}
	ms := roundElapsed(elapsed)
	if resp == nil {
		ev.Summary = fmt.Sprintf("%s %s → failed %s", req.Method, redact.URLs(pathOf(req.URL)), ms)
		return ev
	}
	ev.Fields = append(ev.Fields, Field{"status", resp.Status})
	for _, h := range shownResponseHeaders {
		if v := resp.Header.Get(h); v != "" {
			key := h
			if h == "Mcp-Session-Id" {
				key = "response Mcp-Session-Id"
			}
			ev.Fields = append(ev.Fields, Field{key, redact.Header(h, v)})
		}
	}
	ev.Fields = append(ev.Fields, Field{"elapsed", ms.String()})
	ct := mediaType(resp.Header)
	if ct != "" {
		ct = " " + ct
	}
	ev.Summary = fmt.Sprintf("%s %s → %d%s %s", req.Method, redact.URLs(pathOf(req.URL)), resp.StatusCode, ct, ms)
	return ev
}

// withCarried adds what a POST carried (Message-Kind: request,
// notification or response; Message-Method; Message-Id), so that a status
// is judged against the message it answered even when POSTs overlap.
func withCarried(ev TransportEvent, body []byte) TransportEvent {
	if len(body) == 0 {
		return ev
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ev
	}
	kind := "response"
	switch {
	case m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null":
		kind = "request"
	case m.Method != "":
		kind = "notification"
	}
	ev.Fields = append(ev.Fields, Field{"Message-Kind", kind})
	if m.Method != "" {
		ev.Fields = append(ev.Fields, Field{"Message-Method", m.Method})
	}
	if len(m.ID) > 0 {
		ev.Fields = append(ev.Fields, Field{"Message-Id", compactJSON(m.ID)})
	}
	return ev
}

// roundElapsed keeps a duration readable: whole milliseconds, or
// microseconds under one.
func roundElapsed(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

// sseTransportEvent describes what an SSE event carried besides a message:
// its id, a retry delay, comments, a priming event. ok is false for a plain
// message event, which needs no entry of its own.
func sseTransportEvent(stream string, ev *sseEvent) (TransportEvent, bool) {
	if !ev.HasID && !ev.HasRetry && len(ev.Comments) == 0 && ev.HasData && !ev.Incomplete && ev.Cut == "" && (ev.Event == "" || ev.Event == "message") {
		return TransportEvent{}, false
	}
	var parts []string
	fields := []Field{{"stream", stream}}
	switch {
	case ev.Priming():
		parts = append(parts, "priming event")
	case !ev.HasData && len(ev.Comments) > 0 && !ev.HasID && !ev.HasRetry:
		parts = append(parts, "comment")
	}
	if ev.Event != "" {
		fields = append(fields, Field{"event", ev.Event})
		if ev.Event != "message" {
			parts = append(parts, "event "+ev.Event)
		}
	}
	if ev.HasID {
		fields = append(fields, Field{"id", ev.ID})
		parts = append(parts, "id "+ev.ID)
	}
	if ev.HasRetry {
		fields = append(fields, Field{"retry", ev.Retry.String()})
		parts = append(parts, "retry "+ev.Retry.String())
	}
	for _, c := range ev.Comments {
		fields = append(fields, Field{"comment", c})
	}
	if ev.CommentCount > len(ev.Comments) {
		fields = append(fields, Field{"comments", fmt.Sprintf("%s, %s (the first %d shown)", plural.S(ev.CommentCount, "line"), plural.S(ev.CommentBytes, "byte"), len(ev.Comments))})
		parts = append(parts, fmt.Sprintf("%s (%s)", plural.S(ev.CommentCount, "comment line"), plural.S(ev.CommentBytes, "byte")))
	} else if len(ev.Comments) > 0 {
		parts = append(parts, fmt.Sprintf("%q", strings.Join(ev.Comments, " ")))
	}
	if ev.Cut != "" {
		parts = append(parts, "cut: "+ev.Cut)
	}
	if ev.Incomplete {
		parts = append(parts, "cut off by the end of the stream")
	}
	return TransportEvent{Kind: "sse", Summary: "SSE " + strings.Join(parts, ", ") + " on " + stream, Fields: fields}, true
}

// answers reports whether raw (a message or a batch) holds the response to
// the request with the given id (compact JSON).
func answers(raw []byte, id string) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || id == "" {
		return false
	}
	if raw[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(raw, &batch) != nil {
			return false
		}
		for _, m := range batch {
			if answers(m, id) {
				return true
			}
		}
		return false
	}
	// Read in place: decoding the message into a struct copied its
	// result, a third copy of a 200 MB answer at the moment the stream
	// holds two. Keys match as json.Unmarshal matches a struct's fields.
	if !jsonview.Valid(raw) {
		return false
	}
	var msgID json.RawMessage
	request, answer := false, false
	isObject := jsonview.Each(raw, func(k []byte, v json.RawMessage) bool {
		switch key := jsonview.Key(k); {
		case strings.EqualFold(key, "id"):
			msgID = v
		case strings.EqualFold(key, "method"):
			request = string(v) != "null"
		case strings.EqualFold(key, "result"), strings.EqualFold(key, "error"):
			answer = true
		}
		return true
	})
	if !isObject || request || !answer {
		return false
	}
	return compactJSON(msgID) == id
}

// rpcErrorIn returns the JSON-RPC error object of a single error response,
// or nil.
func rpcErrorIn(raw []byte) *RPCError {
	var m struct {
		JSONRPC string    `json:"jsonrpc"`
		Error   *RPCError `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(raw), &m) != nil || m.Error == nil {
		return nil
	}
	return m.Error
}

// looksLikeJSON reports whether a body is worth handing to the client as a
// message: it starts like a JSON object or array.
func looksLikeJSON(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
}

// trimBody removes the whitespace around a JSON body (a trailing newline is
// framing, not part of the message).
func trimBody(raw []byte) []byte { return bytes.TrimSpace(raw) }

// snippet is the start of a body, for an error message.
func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
