// Package demo is mcpscope's built-in demo MCP server.
//
// It exists so that mcpscope always has something to debug: `mcpscope` with no
// target and `mcpscope demo-server` run it, and the interop tests use it as a
// real peer. It is built on the official go-sdk (not on mcpscope's own client
// code), so it is an independent implementation, and it deliberately exercises
// everything a debugger has to display: rich tool schemas (nested objects,
// arrays, oneOf, nullable types, defaults, $ref/$defs), structured output,
// progress, cancellation, logging, elicitation, sampling, roots, error results,
// image and resource-link content, static resources, a resource template with
// completions, subscriptions, and prompts.
//
// # Protocol eras
//
// The go-sdk v1.8.0 server answers both protocol eras on one connection: a
// request whose params carry `_meta["io.modelcontextprotocol/protocolVersion"]`
// >= 2026-07-28 (plus the required `clientCapabilities`) is handled as the
// modern, handshake-less protocol; a plain `initialize` gets the legacy
// handshake. See [HTTPHandler] for how the HTTP transport is split by era.
//
// # Server input (elicitation, sampling, roots)
//
// ask_user, ask_model and list_roots are written once, in the multi round-trip
// (MRTR, SEP-2322) style: the first invocation returns a CallToolResult with
// InputRequests (and a signed RequestState); a retry carrying InputResponses
// produces the final answer. The SDK then does the right thing per era:
//
//   - Modern (2026-07-28): tools/call returns
//     {"resultType":"input_required","inputRequests":{"<key>":{"method":"elicitation/create","params":{...}}},"requestState":"..."}
//     and the client retries tools/call (new id) with "inputResponses" and the
//     echoed "requestState". The SDK forbids real server->client requests in
//     this era (ServerSession.Elicit etc. return an error), so MRTR is the only
//     way.
//   - Legacy (<= 2025-11-25): the SDK's server-side MRTR middleware sends a real
//     elicitation/create (sampling/createMessage, roots/list) request to the
//     client, waits for the answer, and re-invokes the handler with
//     InputResponses filled in, so the client sees a classic server->client
//     request and a normal tool result.
//
// # go-sdk v1.8.0 behaviour worth knowing when reading traces
//
//   - An input_required tools/call result is written with "content": null
//     (CallToolResult.Content has no omitempty); the demo cannot avoid it.
//   - The era sticks to the connection: the first modern request stores its
//     _meta as the session's "initialize params", after which an initialize
//     fails with `duplicate "initialize" received` (JSON-RPC code 0), and
//     requests without _meta are served as if initialized. The demo therefore
//     reads client capabilities from each modern request's own _meta.
//   - Legacy elicitation answers are validated against requestedSchema and
//     get its defaults filled in by the SDK; modern inputResponses are passed
//     through unvalidated.
//   - notifications/message is only sent once the client chose a level
//     (logging/setLevel, or _meta io.modelcontextprotocol/logLevel).
package demo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity of the demo server, as shown in the handshake / discover views.
const (
	serverName    = "mcpscope-demo"
	serverTitle   = "mcpscope demo server"
	serverVersion = "1.0.0"
	// modernVersion is the first protocol version without a handshake.
	modernVersion = "2026-07-28"
	// cacheTTLMs is the ttlMs of every cacheable result except demo://clock.
	cacheTTLMs = 60_000
)

const instructions = `This is mcpscope's built-in demo server. It exists to be debugged.
Tools: book_trip (rich input schema), add (structured output), echo, slow_count (progress and cancellation),
log_burst (log notifications; set a log level first), ask_user (elicitation), ask_model (sampling),
list_roots (roots), fail (isError result), image (image and resource_link content).
Resources: demo://readme, demo://logo.png, demo://clock (subscribe to get updates), demo://notes/{id} (template with completions).
Prompts: greet (with completions for style), review_code.`

// options are the knobs tests need; production code uses defaultOptions.
type options struct {
	// clockInterval is how often demo://clock reports an update while someone
	// is subscribed. A few seconds is visible without flooding the log.
	clockInterval time.Duration
	// addOffset is added to every sum the add tool returns: a build of
	// the demo server whose one tool answers differently, for the tests of
	// mcpscope replay (set by AddOffsetEnv; never in normal use).
	addOffset float64
}

// AddOffsetEnv names a variable that, set to a number N in the demo
// server's environment, makes the add tool return a+b+N: the "next build that changed one
// tool's output" that replay's tests need. Only tests set it.
const AddOffsetEnv = "MCPSCOPE_DEMO_ADD_OFFSET"

func defaultOptions() options {
	return options{clockInterval: 3 * time.Second}
}

// NewServer returns the configured demo server. Each call returns a new,
// independent server; one server may serve many sessions.
func NewServer() *sdkmcp.Server {
	return newServer(defaultOptions())
}

func newServer(o options) *sdkmcp.Server {
	d := &demo{
		clock:     newClock(o.clockInterval),
		addOffset: o.addOffset,
	}
	// The requestState signing key only has to survive the lifetime of this
	// process: a retry always comes back to the same server.
	if _, err := rand.Read(d.stateKey[:]); err != nil {
		// crypto/rand never fails on supported platforms; a zero key would
		// still work, only less privately.
		d.stateKey = [32]byte{}
	}
	s := sdkmcp.NewServer(&sdkmcp.Implementation{
		Name:        serverName,
		Title:       serverTitle,
		Version:     serverVersion,
		Description: "A demo MCP server that exercises every feature mcpscope can show.",
		WebsiteURL:  "https://github.com/mcpscope/mcpscope",
	}, &sdkmcp.ServerOptions{
		Instructions: instructions,
		// Capabilities are spelled out rather than inferred so the handshake
		// view shows exactly this set, independent of SDK inference rules.
		Capabilities: &sdkmcp.ServerCapabilities{
			Tools:       &sdkmcp.ToolCapabilities{ListChanged: true},
			Resources:   &sdkmcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
			Prompts:     &sdkmcp.PromptCapabilities{ListChanged: true},
			Logging:     &sdkmcp.LoggingCapabilities{},
			Completions: &sdkmcp.CompletionCapabilities{},
		},
		// Everything but the clock is static, so results may be cached for a
		// while; a non-zero ttlMs also gives the debugger something to show.
		SetCacheable: func(_ context.Context, req sdkmcp.Request, c *sdkmcp.Cacheable) {
			if rr, ok := req.(*sdkmcp.ReadResourceRequest); ok && rr.Params.URI == clockURI {
				return
			}
			c.TTLMs = cacheTTLMs
		},
		CompletionHandler:  d.complete,
		SubscribeHandler:   d.subscribe,
		UnsubscribeHandler: d.unsubscribe,
	})
	d.clock.server = s
	d.addTools(s)
	d.addResources(s)
	d.addPrompts(s)
	return s
}

// demo holds the state shared by the handlers of one server.
type demo struct {
	stateKey  [32]byte
	clock     *clock
	addOffset float64
}

// RunStdio serves the demo server on os.Stdin/os.Stdout until stdin closes or
// ctx ends. Both are normal ends and return nil.
//
// Only MCP messages are written to stdout; a single readiness line goes to
// stderr so a human starting it by hand knows it is waiting for input.
func RunStdio(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "mcpscope demo server ready")
	o := defaultOptions()
	if v := os.Getenv(AddOffsetEnv); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%s=%q: not a number", AddOffsetEnv, v)
		}
		o.addOffset = n
	}
	return serve(ctx, newServer(o), &sdkmcp.StdioTransport{})
}

// serve runs s on t until the peer goes away or ctx ends.
func serve(ctx context.Context, s *sdkmcp.Server, t sdkmcp.Transport) error {
	err := s.Run(ctx, t)
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, sdkmcp.ErrConnectionClosed):
		return nil
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil
	default:
		return fmt.Errorf("demo server: %w", err)
	}
}

// HTTPHandler returns an http.Handler serving the demo server over HTTP:
//
//   - /mcp: Streamable HTTP. The go-sdk serves the modern protocol only on a
//     stateless handler and the legacy one (with sessions, the GET stream and
//     server->client requests) only on a stateful handler, so requests are
//     routed by their MCP-Protocol-Version header: >= 2026-07-28 goes to the
//     stateless handler, anything else (including an initialize without the
//     header) to the stateful one.
//   - /sse: the deprecated 2024-11-05 HTTP+SSE transport (legacy era only).
//
// All three share one server, so a subscription or tool list is the same
// whichever way a client comes in.
func HTTPHandler() http.Handler {
	s := NewServer()
	get := func(*http.Request) *sdkmcp.Server { return s }
	legacy := sdkmcp.NewStreamableHTTPHandler(get, nil)
	modern := sdkmcp.NewStreamableHTTPHandler(get, &sdkmcp.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("MCP-Protocol-Version") >= modernVersion {
			modern.ServeHTTP(w, r)
			return
		}
		legacy.ServeHTTP(w, r)
	}))
	mux.Handle("/sse", sdkmcp.NewSSEHandler(get, nil))
	return mux
}
