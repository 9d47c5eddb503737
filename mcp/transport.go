package mcp

import (
	"context"
	"net/http"
)

// Transport starts a connection to one server. A Transport may be started
// again after its connection ended (that is how reconnect works).
type Transport interface {
	// Name is the transport's short name for frames: "stdio", "http", ...
	Name() string
	// Start connects and returns the open connection. Inbound messages and
	// side events are delivered to sink from the transport's goroutines.
	Start(ctx context.Context, sink Sink) (Conn, error)
}

// Sink receives what a connection reads. Calls for one connection are made
// from the transport's goroutines; Receive calls are made in wire order from
// one goroutine.
type Sink interface {
	// Receive is one inbound message, exactly as read. problem is non-empty
	// when the transport saw something odd in the framing itself (a final
	// line without a newline, a line cut at the size limit). stream names
	// the stream it came on where a transport has several (HTTP), e.g.
	// "POST /mcp tools/call (id 3)" or "GET /mcp (server messages)" (see
	// StandaloneStream); it is empty for stdio.
	Receive(raw []byte, problem, stream string)
	// Stderr is one line the server wrote to its standard error.
	Stderr(line string)
	// Transport reports something the transport itself did or saw that is
	// not a JSON-RPC message: an HTTP exchange, an SSE event, a reconnect,
	// an OAuth step. It joins the timeline in order with the frames.
	Transport(ev TransportEvent)
	// RequestFailed says the answer to one request will never arrive (its
	// HTTP stream broke and cannot be resumed). The client fails that
	// request at once instead of waiting for its timeout; in the modern era
	// it sends the request again under a new id, as the spec asks.
	RequestFailed(id ID, err error)
	// Closed is called once, after the last Receive, when the connection
	// ends for any reason. err describes why (an *ExitError for stdio).
	Closed(err error)
}

// Conn is an open connection. Write may be called concurrently with the
// transport's reads; Writes are serialised by the caller.
type Conn interface {
	// Write sends one message; raw must not contain a newline.
	Write(ctx context.Context, raw []byte) error
	// Close shuts the connection down in the orderly way the transport
	// defines and waits for it to end. Sink.Closed is called before Close
	// returns.
	Close(ctx context.Context) error
}

// Authorizer supplies credentials to HTTP transports and runs the
// authorization flow when a server asks for it (mcp-protocol.md §3.5).
// Package mcp/auth implements it with OAuth 2.1.
type Authorizer interface {
	// Authorize sets credentials on an outgoing request (normally the
	// Authorization header). It must not block on a person.
	Authorize(ctx context.Context, req *http.Request) error
	// Challenge handles a 401 or 403 answer: it runs whatever flow the
	// answer calls for, reporting each step through note, and says whether
	// the request should be retried with fresh credentials.
	Challenge(ctx context.Context, resp *http.Response, note func(TransportEvent)) (retry bool, err error)
}
