package doctor_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

func TestExplainConnectError(t *testing.T) {
	garbage := []mcp.Event{mcp.FrameEvent{Frame: &mcp.Frame{Seq: 2, Dir: mcp.Inbound, Kind: mcp.KindInvalid, Raw: []byte("Listening on port 3000")}}}
	stderr := []mcp.Event{mcp.StderrEvent{Line: "Error: Cannot find module '/srv/build/index.js'"}}
	timeout := &mcp.HandshakeError{Reason: "no answer to initialize within 5s", Err: &mcp.LocalError{Kind: mcp.Timeout, Method: "initialize"}}
	for _, tc := range []struct {
		name       string
		err        error
		events     []mcp.Event
		cause, fix string
	}{
		{"not found", errors.New(`cannot start "uvx": command not found in PATH`), nil, `"uvx" was not found on PATH`, "absolute path"},
		{"no such file", errors.New(`cannot start "./srv": no such file`), nil, "does not exist", "--cwd"},
		{"not executable", errors.New(`cannot start "./srv": not executable (check its permissions: chmod +x)`), nil, "not executable", "chmod +x"},
		{"exit with stderr", &mcp.HandshakeError{Reason: "the server ended during the handshake", Err: &mcp.ExitError{Code: 1, LastStderr: []string{"Error: Cannot find module '/srv/build/index.js'"}}}, nil, "Cannot find module", "npm install"},
		{"exit 127", &mcp.ExitError{Code: 127}, nil, "status 127", "not found"},
		{"timeout after garbage", timeout, garbage, "only non-JSON on stdout", "stderr"},
		{"timeout with stderr only", timeout, stderr, "wrote nothing on stdout", "HTTP"},
		{"timeout silent", timeout, nil, "wrote nothing at all", "stdio"},
		{"unknown method", &mcp.HandshakeError{Reason: "the server answered initialize with an error", Err: &mcp.RPCError{Code: -32601, Message: "Method not found"}}, nil, "does not know the handshake", "--era auto"},
		{"version", &mcp.HandshakeError{Reason: `the server answered protocolVersion "1999-01-01"`}, nil, "protocol version mcpscope does not speak", "--protocol-version"},
		{"tls", fmt.Errorf("post: %w", errors.New("x509: certificate signed by unknown authority")), nil, "TLS", "certificate"},
		{"http 401", errors.New("unauthorized"), []mcp.Event{mcp.TransportEvent{Kind: "http", Fields: []mcp.Field{{Key: "status", Value: "401"}}}}, "authorization", "token"},
		{"other", errors.New("something odd"), garbage, "something odd", "by hand"},
		// A failed OAuth flow says what happened itself, even after a 401.
		{"explained", &mcp.HandshakeError{Reason: "the connection ended during initialize", Err: &mcp.LocalError{Kind: mcp.WriteFailed,
			Err: fmt.Errorf("authorization failed: %w", explained{"The server refused the token it was just issued.", "Check its token validation."})}},
			[]mcp.Event{mcp.TransportEvent{Kind: "http", Fields: []mcp.Field{{Key: "status", Value: "401"}}}}, "refused the token it was just issued", "token validation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cause, fix := doctor.ExplainConnectError(tc.err, tc.events)
			if !strings.Contains(cause, tc.cause) || !strings.Contains(fix, tc.fix) {
				t.Errorf("cause %q\nfix %q\nwant %q / %q", cause, fix, tc.cause, tc.fix)
			}
		})
	}
	if c, f := doctor.ExplainConnectError(nil, nil); c != "" || f != "" {
		t.Errorf("nil error explained: %q %q", c, f)
	}
}

// explained is an error that knows its cause and fix, as an OAuth
// failure (mcp/auth) does.
type explained struct{ cause, fix string }

func (e explained) Error() string                { return e.cause }
func (e explained) Explain() (cause, fix string) { return e.cause, e.fix }

// TestBoundedMemory: a long flood of notifications keeps the linter's state
// small (it keeps no frames) and the per-rule cap limits diagnostics.
func TestBoundedMemory(t *testing.T) {
	l := doctor.New(doctor.Options{MaxPerRule: 5})
	total := 0
	for i := int64(1); i <= 20000; i++ {
		f := &mcp.Frame{Seq: i, Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/cancelled",
			Raw: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, i))}
		total += len(l.Observe(mcp.FrameEvent{Frame: f}))
	}
	if total != 5 {
		t.Errorf("%d diagnostics, want the cap of 5", total)
	}
}

// Every connection-failure message names the transport actually used: no
// stdio advice for a URL target.
func TestConnectAdviceNamesTheTransport(t *testing.T) {
	sent := func(transport, method string) mcp.Event {
		return mcp.FrameEvent{Frame: &mcp.Frame{Seq: 1, Dir: mcp.Outbound, Transport: transport, Kind: mcp.KindRequest, Method: method, ID: "1"}}
	}
	timeout := &mcp.HandshakeError{Reason: "no answer", Err: &mcp.LocalError{Kind: mcp.Timeout, Method: "initialize", ID: "1"}}
	for _, tc := range []struct {
		transport, want string
		err             error
	}{
		{"http", "Streamable HTTP", errors.New("stream broke")},
		{"sse", "HTTP+SSE", errors.New("endpoint refused")},
		{"http", "Streamable HTTP", timeout},
		{"websocket", "WebSocket", timeout},
	} {
		cause, fix := doctor.ExplainConnectError(tc.err, []mcp.Event{sent(tc.transport, "initialize")})
		if strings.Contains(cause+fix, "stdio") || !strings.Contains(cause+fix, tc.want) {
			t.Errorf("%s %v:\ncause: %s\nfix:   %s", tc.transport, tc.err, cause, fix)
		}
	}
	// --era modern against a legacy server: the advice is the other era.
	_, fix := doctor.ExplainConnectError(&mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "Method not found"}, []mcp.Event{sent("stdio", "server/discover")})
	if strings.Contains(fix, "--era modern") || !strings.Contains(fix, "--era legacy") {
		t.Errorf("modern handshake refused: fix %q", fix)
	}
	// A result without protocolVersion: nothing to pick.
	_, fix = doctor.ExplainConnectError(&mcp.HandshakeError{Reason: "the initialize result has no protocolVersion"}, []mcp.Event{sent("stdio", "initialize")})
	if strings.Contains(fix, "--protocol-version") || !strings.Contains(fix, `"protocolVersion"`) {
		t.Errorf("no protocolVersion: fix %q", fix)
	}
}
