package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// SSETransport speaks the deprecated HTTP+SSE transport of protocol version
// 2024-11-05 (spec §3.4): it GETs an event stream, waits for the `endpoint`
// event naming where to POST, POSTs every client message there, and reads
// every server message, responses included, as `message` events on the
// stream. Many servers still only speak this.
//
// [HTTPTransport] falls back to it by itself when a server refuses
// Streamable HTTP's initialize; use SSETransport to skip that probe.
type SSETransport struct {
	// URL is the event stream's URL, often ending in /sse.
	URL string
	// Header is sent on every request (the user's --header flags).
	Header http.Header
	// Authorizer, when set, supplies credentials and handles 401 and 403.
	Authorizer Authorizer
	// HTTPClient is used for every request; a private one when nil.
	HTTPClient *http.Client
	// EndpointTimeout bounds the wait for the `endpoint` event; 30 s when zero.
	EndpointTimeout time.Duration
}

// Name is the short name frames carry: "sse".
func (t *SSETransport) Name() string { return "sse" }

// Start opens the event stream and waits for the endpoint event.
func (t *SSETransport) Start(ctx context.Context, sink Sink) (Conn, error) {
	if err := checkHTTPURL(t.URL); err != nil {
		return nil, err
	}
	b := newHTTPBase(t.HTTPClient, t.Header, t.Authorizer, sink)
	timeout := t.EndpointTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := b.openSSE(wctx, t.URL)
	if err != nil {
		b.cancel()
		b.client.CloseIdleConnections()
		return nil, err
	}
	return &sseConn{httpBase: b, s: s}, nil
}

// sseConn is an open HTTP+SSE connection.
type sseConn struct {
	*httpBase
	s *sseSession
}

func (c *sseConn) Write(ctx context.Context, raw []byte) error {
	if !c.enter() {
		return ErrClosed
	}
	defer c.wg.Done()
	return c.s.post(ctx, raw)
}

// Close ends the event stream; the 2024-11-05 transport has no explicit
// session termination.
func (c *sseConn) Close(ctx context.Context) error {
	c.shutdown(ErrClosed)
	return c.waitDone(ctx)
}

// sseSession is one HTTP+SSE session: the open event stream and the
// endpoint it named.
type sseSession struct {
	b         *httpBase
	streamURL string
	endpoint  string

	mu      sync.Mutex
	expired bool
}

// openSSE GETs the event stream and waits (bounded by ctx) for its endpoint
// event; the stream is then read on a goroutine until the connection ends.
// When the server ends the stream, the connection ends: this transport has
// no way to resume.
func (b *httpBase) openSSE(ctx context.Context, streamURL string) (*sseSession, error) {
	streamCtx, stopStream := context.WithCancel(b.ctx)
	// Until the endpoint arrives, giving up on ctx also drops the stream.
	detach := context.AfterFunc(ctx, stopStream)
	hdr := http.Header{"Accept": {"text/event-stream"}}
	resp, err := b.send(streamCtx, http.MethodGet, streamURL, nil, hdr)
	if err != nil {
		stopStream()
		detach()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer from the HTTP+SSE stream at %s: %w", redactURL(streamURL), ctx.Err())
		}
		return nil, fmt.Errorf("HTTP+SSE: %w", err)
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header) != "text/event-stream" {
		stopStream()
		detach()
		body, _, _ := readBody(resp.Body, maxErrorBody)
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return nil, authError(resp.Request, resp)
		}
		return nil, fmt.Errorf("GET %s → %s %s: not an HTTP+SSE event stream (expected 200 text/event-stream) %s",
			redactURL(streamURL), resp.Status, mediaType(resp.Header), snippet(body))
	}
	s := &sseSession{b: b, streamURL: streamURL}
	stream := "GET " + pathOf(resp.Request.URL) + " (HTTP+SSE)"
	r := newSSEReader(resp.Body)
	ka := newKeepAlives(stream, b.event)
	for s.endpoint == "" {
		ev, err := r.next()
		if err != nil {
			stopStream()
			detach()
			_ = resp.Body.Close()
			ka.end(time.Now())
			if ctx.Err() != nil {
				return nil, fmt.Errorf("the HTTP+SSE stream at %s sent no endpoint event in time: %w", redactURL(streamURL), ctx.Err())
			}
			return nil, fmt.Errorf("the HTTP+SSE stream at %s ended before its endpoint event: %w", redactURL(streamURL), err)
		}
		if ev.isKeepAlive() {
			ka.add(ev, time.Now())
			continue
		}
		ka.end(time.Now())
		if ev.Type() != "endpoint" {
			s.handle(stream, ev)
			continue
		}
		b.event(sseEndpointRow(stream, ev.Data))
		endpoint, err := resolveEndpoint(streamURL, strings.TrimSpace(string(ev.Data)))
		if err != nil {
			stopStream()
			detach()
			_ = resp.Body.Close()
			return nil, err
		}
		s.endpoint = endpoint
	}
	if !detach() || !b.goSafe(func() { s.read(stream, r, ka, resp.Body, stopStream) }) {
		stopStream()
		_ = resp.Body.Close()
		return nil, fmt.Errorf("HTTP+SSE: %w", errors.Join(ctx.Err(), ErrClosed))
	}
	return s, nil
}

// resolveEndpoint resolves the endpoint event's URI against the stream's
// URL and refuses another origin: mcpscope's credentials must not be sent
// to a host the user did not name.
func resolveEndpoint(streamURL, ref string) (string, error) {
	base, err := url.Parse(streamURL)
	if err != nil {
		return "", fmt.Errorf("HTTP+SSE: bad stream URL: %w", err)
	}
	u, err := base.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("HTTP+SSE: the endpoint event's data %q is not a URI: %w", ref, err)
	}
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return "", fmt.Errorf("HTTP+SSE: the endpoint event names %s, another origin than %s; mcpscope refuses to send messages there", u.Redacted(), base.Scheme+"://"+base.Host)
	}
	return u.String(), nil
}

// read delivers the stream's message events until it ends, which ends the
// connection.
func (s *sseSession) read(stream string, r *sseReader, ka *keepAlives, body io.ReadCloser, stop context.CancelFunc) {
	defer stop()
	defer func() { _ = body.Close() }() // the stream has ended; closing frees the connection
	var err error
	for {
		var ev *sseEvent
		ev, err = r.next()
		if err != nil {
			break
		}
		if ev.isKeepAlive() {
			ka.add(ev, time.Now())
			continue
		}
		ka.end(time.Now())
		s.handle(stream, ev)
	}
	ka.end(time.Now())
	if s.b.ended() {
		return
	}
	cause := fmt.Errorf("the server ended the HTTP+SSE event stream (%v); the 2024-11-05 transport cannot resume: reconnect to start a new session", err)
	if errors.Is(err, io.EOF) {
		cause = errors.New("the server closed the HTTP+SSE event stream; the 2024-11-05 transport cannot resume: reconnect to start a new session")
	}
	s.b.event(TransportEvent{Kind: "sse", Summary: "HTTP+SSE stream ended", Fields: []Field{{"stream", stream}}, Err: cause})
	s.b.shutdown(cause)
}

// handle reports one event and delivers the message it carries.
func (s *sseSession) handle(stream string, ev *sseEvent) {
	rows, deliver := sseClassify(stream, ev, true)
	for _, te := range rows {
		s.b.event(te)
	}
	if deliver {
		s.b.receive(ev.Data, ev.Problem(), stream)
	}
}

// post sends one message to the endpoint. Answers arrive on the stream; the
// POST itself is normally answered 202 (some servers answer 200).
func (s *sseSession) post(ctx context.Context, raw []byte) error {
	s.mu.Lock()
	expired := s.expired
	s.mu.Unlock()
	if expired {
		return ErrSessionExpired
	}
	if s.b.ended() {
		return ErrClosed
	}
	pctx, cancel := context.WithCancel(s.b.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	resp, err := s.b.send(pctx, http.MethodPost, s.endpoint, raw, hdr)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // closing only frees the connection
	body, _, _ := readBody(resp.Body, maxErrorBody)
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if mediaType(resp.Header) == "application/json" && looksLikeJSON(body) {
			s.b.receive(trimBody(body), "HTTP+SSE servers answer on the event stream; this one also put a message in the POST's answer", "POST "+pathOf(resp.Request.URL))
		}
		return nil
	case resp.StatusCode == http.StatusNotFound:
		s.mu.Lock()
		s.expired = true
		s.mu.Unlock()
		err := fmt.Errorf("%w: POST %s → %s", ErrSessionExpired, pathOf(resp.Request.URL), resp.Status)
		s.b.event(TransportEvent{Kind: "http", Summary: "HTTP+SSE session expired", Err: err})
		s.b.shutdown(err)
		return err
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return authError(resp.Request, resp)
	}
	if looksLikeJSON(body) {
		s.b.receive(trimBody(body), "", "POST "+pathOf(resp.Request.URL)+" ("+resp.Status+")")
	}
	return fmt.Errorf("POST %s → %s: %s", pathOf(resp.Request.URL), resp.Status, snippet(body))
}

// checkHTTPURL makes sure a URL is one an HTTP transport can use.
func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: expected an http:// or https:// URL", u.Redacted())
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host", u.Redacted())
	}
	return nil
}
