package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// WebSocketTransport speaks MCP over a WebSocket: ws:// or wss://, the
// `mcp` subprotocol, one JSON-RPC message per text frame. The spec does not
// define it, but the design notes name it and some servers offer it.
type WebSocketTransport struct {
	// URL is ws://host/path or wss://host/path.
	URL string
	// Header is sent with the opening handshake (the user's --header flags).
	Header http.Header
	// Authorizer, when set, supplies credentials for the handshake and
	// handles a 401 or 403 answer to it.
	Authorizer Authorizer
	// HTTPClient carries the opening handshake; a private one when nil.
	HTTPClient *http.Client
}

// Name is the short name frames carry: "websocket".
func (t *WebSocketTransport) Name() string { return "websocket" }

// wsSubprotocol is the subprotocol mcpscope asks for.
const wsSubprotocol = "mcp"

// Start performs the opening handshake.
func (t *WebSocketTransport) Start(ctx context.Context, sink Sink) (Conn, error) {
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return nil, fmt.Errorf("%q: expected a ws:// or wss:// URL", redactURL(t.URL))
	}
	c := &wsConn{sink: sink, done: make(chan struct{})}
	b := &httpBase{sink: sink} // for event delivery only
	for attempt := 0; ; attempt++ {
		hdr := http.Header{}
		for k, vs := range t.Header {
			hdr[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
		if t.Authorizer != nil {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL, nil)
			if err != nil {
				return nil, fmt.Errorf("WebSocket: %w", err)
			}
			req.Header = hdr
			if err := t.Authorizer.Authorize(ctx, req); err != nil {
				return nil, &AuthorizationError{Err: fmt.Errorf("could not get credentials for %s: %w", redactURL(t.URL), err)}
			}
			hdr = req.Header
		}
		start := time.Now()
		//nolint:bodyclose // websocket.Dial closes resp.Body itself ("You never need to close resp.Body yourself")
		conn, resp, err := websocket.Dial(ctx, t.URL, &websocket.DialOptions{
			HTTPClient:   t.HTTPClient,
			HTTPHeader:   hdr,
			Subprotocols: []string{wsSubprotocol},
		})
		ev := wsHandshakeEvent(u, hdr, resp, time.Since(start), conn)
		if err != nil {
			if resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
				req := &http.Request{Method: http.MethodGet, URL: u, Header: hdr}
				if t.Authorizer == nil {
					err = authError(req, resp)
					ev.Err = err
					b.event(ev)
					return nil, err
				}
				b.event(ev)
				if attempt < maxChallenges {
					retry, cerr := t.Authorizer.Challenge(ctx, resp, b.event)
					if cerr != nil {
						return nil, &AuthorizationError{Err: fmt.Errorf("authorization for %s failed: %w", redactURL(t.URL), cerr)}
					}
					if retry {
						continue
					}
				}
				return nil, authError(req, resp)
			}
			err = fmt.Errorf("WebSocket handshake with %s failed: %w (is the server running, and does it speak WebSocket at this path?)", redactURL(t.URL), err)
			ev.Err = err
			b.event(ev)
			return nil, err
		}
		b.event(ev)
		conn.SetReadLimit(maxJSONBody)
		c.conn = conn
		go c.read()
		return c, nil
	}
}

// wsHandshakeEvent describes the opening handshake for the timeline.
func wsHandshakeEvent(u *url.URL, hdr http.Header, resp *http.Response, elapsed time.Duration, conn *websocket.Conn) TransportEvent {
	req := &http.Request{Method: http.MethodGet, URL: u, Header: hdr}
	ev := TransportEvent{Kind: "websocket", Fields: requestFields(req)}
	status := "failed"
	if resp != nil {
		status = fmt.Sprint(resp.StatusCode)
		ev.Fields = append(ev.Fields, Field{"status", resp.Status})
		if v := resp.Header.Get("WWW-Authenticate"); v != "" {
			ev.Fields = append(ev.Fields, Field{"WWW-Authenticate", v})
		}
	}
	ev.Summary = fmt.Sprintf("GET %s (WebSocket) → %s %s", pathOf(u), status, roundElapsed(elapsed))
	if conn != nil {
		proto := conn.Subprotocol()
		ev.Fields = append(ev.Fields, Field{"subprotocol", proto})
		if proto != wsSubprotocol {
			ev.Summary += fmt.Sprintf("; the server did not accept the %q subprotocol", wsSubprotocol)
		} else {
			ev.Summary += ", subprotocol " + proto
		}
	}
	ev.Fields = append(ev.Fields, Field{"elapsed", roundElapsed(elapsed).String()})
	return ev
}

// wsConn is an open WebSocket connection.
type wsConn struct {
	conn *websocket.Conn
	sink Sink
	done chan struct{}

	mu      sync.Mutex
	closing bool
}

// read delivers every frame until the connection ends, then reports why.
func (c *wsConn) read() {
	defer close(c.done)
	var err error
	for {
		var typ websocket.MessageType
		var data []byte
		typ, data, err = c.readMessage()
		if err != nil {
			break
		}
		problem := ""
		if typ == websocket.MessageBinary {
			problem = "a binary WebSocket frame: MCP messages are sent as text frames"
		}
		c.sink.Receive(data, problem, "websocket")
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	cause := ErrClosed
	if !closing {
		status := websocket.CloseStatus(err)
		switch {
		case status == websocket.StatusNormalClosure || status == websocket.StatusGoingAway:
			cause = fmt.Errorf("the server closed the WebSocket (%d %s)", int(status), status)
		case status != -1:
			cause = fmt.Errorf("the server closed the WebSocket with status %d %s: %w", int(status), status, err)
		default:
			cause = fmt.Errorf("the WebSocket connection broke: %w", err)
		}
		c.sink.Transport(TransportEvent{Time: time.Now(), Kind: "websocket", Summary: "WebSocket closed by the server", Err: cause})
	}
	c.sink.Closed(cause)
}

// readMessage reads one message in pieces that grow as it does and joins
// them once: reading it into one buffer that grows by doubling (as
// websocket.Conn.Read does) held up to three times a big message at
// once, a piece list and the joined message hold twice it.
func (c *wsConn) readMessage() (websocket.MessageType, []byte, error) {
	typ, r, err := c.conn.Reader(context.Background())
	if err != nil {
		return 0, nil, err
	}
	var pieces [][]byte
	size, next := 0, 32<<10
	for {
		piece := make([]byte, next)
		n, err := io.ReadFull(r, piece)
		if n > 0 {
			pieces = append(pieces, piece[:n])
			size += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return 0, nil, err
		}
		next = min(2*next, 1<<20)
	}
	return typ, join(pieces, size), nil
}

// Write sends one message as one text frame.
func (c *wsConn) Write(ctx context.Context, raw []byte) error {
	if err := c.conn.Write(ctx, websocket.MessageText, raw); err != nil {
		return fmt.Errorf("WebSocket write: %w", err)
	}
	return nil
}

// Close performs the closing handshake and waits for the reader to end.
func (c *wsConn) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	if err := c.conn.Close(websocket.StatusNormalClosure, "mcpscope is done"); err != nil {
		_ = c.conn.CloseNow() // the server did not complete the closing handshake
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		_ = c.conn.CloseNow()
		<-c.done
		return nil
	}
}
