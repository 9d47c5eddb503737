package doctor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/errline"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
)

// ExplainConnectError turns a failed connection into a cause in plain words
// and a likely fix. events are what the client published before the failure
// (frames, stderr lines, transport events); they refine the diagnosis, e.g.
// a log line on stdout explains a handshake that never got an answer. It
// never returns an empty cause.
func ExplainConnectError(err error, events []mcp.Event) (cause, fix string) {
	if err == nil {
		return "", ""
	}
	// An error that knows its cause and fix (an OAuth flow's, mcp/auth)
	// says them itself.
	var own interface{ Explain() (cause, fix string) }
	if errors.As(err, &own) {
		return own.Explain()
	}
	ev := summarize(events)
	msg := err.Error()

	var exit *mcp.ExitError
	var rpcErr *mcp.RPCError
	var hs *mcp.HandshakeError
	var unmatched *mcp.UnmatchedAnswerError
	switch {
	case errors.As(err, &unmatched):
		return fmt.Sprintf("The server answered with id %s, but mcpscope sent %s with id %s: the answer matches no request, so the handshake never completes.", unmatched.Received, unmatched.Method, unmatched.Sent),
			`Echo each request's id unchanged in its response (same value, same JSON type): "Responses MUST include the same ID as the request". Clients drop the answer and time out.`
	case strings.Contains(msg, "command not found in PATH"):
		cmd := quotedName(msg)
		return fmt.Sprintf("The server command %s was not found on PATH.", cmd),
			"Install it, or give its absolute path (find it with `which`). GUI clients such as Claude Desktop start servers with a shorter PATH than your shell, so absolute paths are safer there too."
	case strings.Contains(msg, "no such file"):
		return fmt.Sprintf("The server command %s does not exist.", quotedName(msg)),
			"Check the path; relative paths are resolved from the working directory (set it with --cwd)."
	case strings.Contains(msg, "not executable"):
		return fmt.Sprintf("The server command %s is not executable.", quotedName(msg)),
			"Make it executable (chmod +x), or run it through its interpreter (node, python, uv run)."
	case errors.As(err, &exit):
		return exitCause(exit, ev)
	case errors.As(err, &rpcErr):
		return rpcCause(rpcErr, ev)
	case mcp.IsTimeout(err) || strings.Contains(msg, "no answer to"):
		return timeoutCause(ev)
	case errors.As(err, &hs) && strings.Contains(hs.Reason, "has no protocolVersion"):
		return "The server's answer to initialize has no protocolVersion, so no version was agreed.",
			`Return "protocolVersion" in the initialize result: the version the client offered if the server supports it, else the latest one it supports.`
	case errors.As(err, &hs) && strings.Contains(hs.Reason, "protocolVersion"):
		return "The server answered with a protocol version mcpscope does not speak: " + hs.Reason + ".",
			"Pick a version both sides speak with --protocol-version, or update the server's MCP SDK. Clients must disconnect on an unknown version, so every client fails the same way."
	case errors.As(err, &hs) && strings.Contains(hs.Reason, "initialize result"):
		return "The server's answer to initialize is not a valid initialize result: " + hs.Reason + ".",
			"Return {protocolVersion, capabilities, serverInfo} from initialize; run `mcpscope check` for the details."
	}
	var unreachable *mcp.UnreachableError
	if x := ev.exit; x != nil && ev.stdio() && x.Forced == "" && (!x.Expected || errors.As(err, &unreachable)) {
		// The handshake's write or read failed because the server had
		// exited on its own (a write to its closed stdin fails before
		// its exit is collected): how it exited is the cause.
		return exitCause(x, ev)
	}
	if c, f, ok := httpCause(msg, ev); ok {
		return c, f
	}
	cause = "The connection failed: " + msg
	fix = "Run the server command by hand to see what it prints, and check that it speaks MCP over stdio."
	if !ev.stdio() {
		cause = fmt.Sprintf("The connection %s failed: %s", ev.over(), msg)
		fix = fmt.Sprintf("Check that the URL is the server's MCP endpoint and that it speaks MCP %s; --transport picks another (streamable, sse, ws).", ev.over())
	}
	if ev.nonJSON > 0 {
		cause += fmt.Sprintf(" The server also wrote %d line(s) to stdout that are not JSON-RPC, first: %s.", ev.nonJSON, ev.firstNonJSON)
	}
	return cause, fix
}

// eventSummary is what the events before a failure tell.
type eventSummary struct {
	inbound      int      // frames from the server
	nonJSON      int      // of which not JSON-RPC
	firstNonJSON string   // a preview of the first
	stderr       []string // the last lines, as shown
	recent       []string // more of them, for errline.Pick
	exit         *mcp.ExitError
	httpStatus   int
	httpSummary  string
	transport    string // the transport actually used (Frame.Transport)
	modern       bool   // the handshake sent was server/discover
	legacy       bool   // the handshake sent was initialize
}

// stdio reports whether the failed connection was over stdio (or unknown).
func (s eventSummary) stdio() bool { return s.transport == "" || s.transport == "stdio" }

// over names the transport in advice: "over Streamable HTTP".
func (s eventSummary) over() string { return "over " + mcp.TransportLabel(s.transport) }

func summarize(events []mcp.Event) eventSummary {
	var s eventSummary
	for _, e := range events {
		switch ev := e.(type) {
		case mcp.FrameEvent:
			if ev.Frame == nil {
				continue
			}
			if s.transport == "" {
				s.transport = ev.Frame.Transport
			}
			if ev.Frame.Dir == mcp.Outbound {
				switch ev.Frame.Method {
				case mcp.MethodServerDiscover:
					s.modern = true
				case mcp.MethodInitialize:
					s.legacy = true
				}
				continue
			}
			s.inbound++
			if ev.Frame.Kind == mcp.KindInvalid {
				if s.nonJSON == 0 {
					s.firstNonJSON = preview(ev.Frame.Raw)
				}
				s.nonJSON++
			}
		case mcp.ExitEvent:
			s.exit = ev.Exit
		case mcp.StderrEvent:
			line := ev.Line
			if len(line) > errline.MaxLine {
				line = line[:errline.MaxLine]
			}
			s.recent = append(s.recent, line)
			if len(s.recent) > errline.Window {
				s.recent = s.recent[1:]
			}
			s.stderr = s.recent[max(0, len(s.recent)-8):]
		case mcp.TransportEvent:
			if v, ok := field(ev, "status"); ok {
				_, _ = fmt.Sscanf(v, "%d", &s.httpStatus) // not a number: the status stays unknown (0)
				s.httpSummary = ev.Summary
			}
		}
	}
	return s
}

func quotedName(msg string) string {
	if i := strings.IndexByte(msg, '"'); i >= 0 {
		if j := strings.IndexByte(msg[i+1:], '"'); j >= 0 {
			return msg[i : i+j+2]
		}
	}
	return "(unknown)"
}

func exitCause(exit *mcp.ExitError, ev eventSummary) (string, string) {
	stderr := exit.LastStderr
	headline := exit.Headline()
	if len(stderr) == 0 {
		stderr, headline = ev.stderr, errline.Pick(ev.recent)
	}
	how := fmt.Sprintf("with status %d", exit.Code)
	if exit.Signal != "" {
		how = "killed by " + exit.Signal
	}
	cause := "The server exited " + how + " before the handshake finished"
	if ev.inbound == 0 {
		cause = "The server exited at once (" + how + "), before answering anything"
	}
	switch {
	case len(stderr) > 0:
		cause += "; its last stderr lines:\n  " + strings.Join(stderr, "\n  ")
		if headline != "" {
			// The error first and whole: the status line shows the start
			// of the cause, and Node's error is often above the tail.
			cause = headline + " — t" + strings.TrimPrefix(cause, "T")
		}
	case exit.Code == 127:
		cause += ", and wrote nothing to stderr."
	case ev.nonJSON > 0:
		// Something that is not an MCP server over stdio, or one that
		// printed its usage: what it printed is the clue, not stderr.
		return cause + fmt.Sprintf("; it wrote nothing to stderr, and on stdout only text that is not JSON-RPC (%s, first: %s).",
				plural.S(ev.nonJSON, "line"), ev.firstNonJSON),
			"Check that the command starts an MCP server on stdio: that output may be a usage message (some servers need an argument such as `stdio`), " +
				"or a log line on stdout before it exited (send logs to stderr). Run the command by hand to see it whole."
	default:
		cause += ", and wrote nothing to stderr or stdout."
		return cause, "Run the command by hand with the same arguments and environment (-e KEY=VALUE, --cwd): it exits without a word, " +
			"so its exit status is the clue (a wrapper script that ends early, a missing argument)."
	}
	joined := strings.ToLower(strings.Join(append([]string{headline}, stderr...), "\n"))
	fix := "Read the stderr above; run the command by hand with the same arguments and environment (-e KEY=VALUE, --cwd) to reproduce."
	switch {
	case exit.Code == 127:
		fix = "Status 127 means a command the server runs was not found (often npx, uvx or node missing from PATH)."
	case strings.Contains(joined, "cannot find module") || strings.Contains(joined, "err_module_not_found"):
		fix = "Node cannot find a module: run npm install (and the build step) in the server's directory, or check the path to its entry file."
	case strings.Contains(joined, "modulenotfounderror") || strings.Contains(joined, "no module named"):
		fix = "Python cannot import a module: install the server's dependencies in the interpreter you run (pip install, uv sync), or run it with uv run."
	case strings.Contains(strings.ToLower(headline), "syntaxerror"):
		fix = "The server's code does not parse: fix the syntax error where the error says (when it is a build's output, run the build again)."
	case strings.Contains(joined, "eaddrinuse") || strings.Contains(joined, "address already in use"):
		fix = "The server tried to listen on a port that is taken: it may be starting an HTTP server instead of speaking stdio."
	case strings.Contains(joined, "api key") || strings.Contains(joined, "api_key") || strings.Contains(joined, "token") || strings.Contains(joined, "environment variable"):
		fix = "The server seems to need configuration from the environment: pass it with -e KEY=VALUE."
	}
	if ev.nonJSON > 0 {
		cause += fmt.Sprintf("\nIt also printed non-JSON on stdout (first: %s).", ev.firstNonJSON)
	}
	return cause, fix
}

func rpcCause(e *mcp.RPCError, ev eventSummary) (string, string) {
	switch e.Code {
	case mcp.CodeMethodNotFound:
		fix := "It may speak the other protocol era: try --era auto (it probes server/discover and falls back to initialize) or --era modern."
		if ev.modern && !ev.legacy {
			fix = "It may speak the legacy era (initialize): try --era legacy, or --era auto (it probes server/discover and falls back to initialize)."
		}
		return fmt.Sprintf("The server does not know the handshake method (-32601: %s).", e.Message), fix
	case mcp.CodeUnsupportedProtocolVersion:
		return fmt.Sprintf("The server does not support the protocol version offered (-32022: %s).", e.Message),
			"Pick one of the versions the server lists with --protocol-version."
	case mcp.CodeInvalidParams:
		return fmt.Sprintf("The server rejected the handshake's parameters (-32602: %s).", e.Message),
			"Often a protocol version it does not know: try --protocol-version with an older version (e.g. 2025-06-18), or update the server's SDK."
	}
	return fmt.Sprintf("The server answered the handshake with error %d: %s.", e.Code, e.Message),
		"Check the server's logs (stderr) for why it refused."
}

func timeoutCause(ev eventSummary) (string, string) {
	if !ev.stdio() {
		if ev.inbound == 0 {
			return fmt.Sprintf("The server never answered the handshake %s.", ev.over()),
				fmt.Sprintf("Check that the URL is the MCP endpoint (often /mcp, or /sse for HTTP+SSE) and that the server speaks MCP %s; raise --timeout if it is slow.", ev.over())
		}
		return fmt.Sprintf("The server answered something %s, but not the handshake, before the timeout.", ev.over()),
			"Look at the frames it sent in the TUI (mcpscope URL) or with --log-file; the answer may carry another id, or come on another stream."
	}
	switch {
	case ev.nonJSON > 0 && ev.nonJSON == ev.inbound:
		return fmt.Sprintf("The server never answered the handshake; it printed only non-JSON on stdout (%d line(s), first: %s).", ev.nonJSON, ev.firstNonJSON),
			"Its stdout carries logs instead of JSON-RPC: send logs to stderr. If the output is a usage message, the server may need an argument such as `stdio`."
	case ev.inbound == 0 && len(ev.stderr) > 0:
		cause := "The server never answered the handshake and wrote nothing on stdout; its last stderr lines:\n  " + strings.Join(ev.stderr, "\n  ")
		if h := errline.Pick(ev.recent); h != "" {
			cause = h + " — t" + strings.TrimPrefix(cause, "T")
		}
		return cause,
			"It may be serving HTTP or SSE instead of stdio (use its URL), waiting for input, or stuck on start-up (the stderr above may say why)."
	case ev.inbound == 0:
		return "The server never answered the handshake and wrote nothing at all.",
			"Check that the command starts an MCP server on stdio (some need a `stdio` argument); raise --timeout if it is slow to start."
	}
	return "The server answered something, but not the handshake, before the timeout.",
		"Look at the frames it sent in the TUI, or with --log-file; the answer may carry another id."
}

// httpCause explains HTTP failures from the error text and the transport
// events, as far as they tell.
func httpCause(msg string, ev eventSummary) (string, string, bool) {
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "x509") || strings.Contains(lower, "certificate") || strings.Contains(lower, "tls"):
		return "The TLS handshake with the server failed: " + msg,
			"Check the certificate (expired, self-signed, wrong host name); for a local server use http://localhost.", true
	case strings.Contains(lower, "connection refused"):
		return "Nothing is listening at the server's address: " + msg,
			"Start the server, and check the host and port in the URL.", true
	case strings.Contains(lower, "no such host"):
		return "The server's host name does not resolve: " + msg,
			"Check the URL for typos.", true
	}
	switch ev.httpStatus {
	case 401:
		return "The server requires authorization (HTTP 401).", "Sign in (OAuth), or pass a token; the server should name its authorization server in WWW-Authenticate resource_metadata.", true
	case 403:
		return "The server refused the request (HTTP 403): a forbidden Origin, or a token without the needed scope.", "Check the token's scopes, and the server's allowed origins.", true
	case 404:
		return "The URL answered 404 Not Found: " + ev.httpSummary, "Check the endpoint path (often /mcp, or /sse for the legacy transport).", true
	case 405, 400:
		return fmt.Sprintf("The server rejected the request with HTTP %d: %s.", ev.httpStatus, ev.httpSummary), "It may speak another transport or protocol era: try --era auto, or the legacy SSE URL.", true
	}
	return "", "", false
}
