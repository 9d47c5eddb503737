package doctor_test

// Precision: each test here stages a case where the doctor once reported a
// finding on a correct server (a false finding seen in use), and checks
// it no longer does, next to the case where the finding is right.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func (s *session) count(rule string) int {
	n := 0
	for _, d := range s.diags {
		if d.Rule == rule {
			n++
		}
	}
	return n
}

func (s *session) find(rule string) *mcp.Diagnostic {
	for _, d := range s.diags {
		if d.Rule == rule {
			return d
		}
	}
	return nil
}

// An empty probed list hides nothing: go-sdk servers answer prompts/list
// and resources/list with empty lists whatever they declare.
func TestUndeclaredEmptyListIsNoFinding(t *testing.T) {
	probeAll := func(ctx context.Context, c *mcp.Client) {
		for _, m := range []string{"tools/list", "prompts/list", "resources/list"} {
			_, _, _ = c.ListAll(ctx, m, mcp.AsProbe())
		}
	}
	empty := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string]lines{
		"tools/list":     {{tools(tool("a", ""))}},
		"prompts/list":   {{res(`{"prompts":[]}`)}},
		"resources/list": {{res(`{"resources":[]}`)}},
	}}
	if s := run(t, scripted(empty), mcp.Options{}, doctor.Options{}, probeAll); s.fired("capabilities/undeclared-method") {
		t.Errorf("empty undeclared lists reported:\n  %s", strings.Join(s.rules(), "\n  "))
	}
	full := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string]lines{
		"tools/list":   {{tools(tool("a", ""))}},
		"prompts/list": {{res(`{"prompts":[{"name":"p"}]}`)}},
	}}
	s := run(t, scripted(full), mcp.Options{}, doctor.Options{}, probeAll)
	d := s.find("capabilities/undeclared-method")
	if d == nil || !strings.Contains(d.Message, "prompts/list with 1 item") {
		t.Errorf("a non-empty undeclared prompts list was not reported with its count: %v", s.rules())
	}
}

// jsonAnswerServer is a legacy Streamable HTTP server that answers requests
// with JSON (so the tools/call POST's headers come only when the tool
// finishes) and, during tools/call, sends a ping on the GET stream and
// finishes the tool only once the client's answer to it arrived. Its
// answer to the client's response POST is badResponseStatus when set.
func jsonAnswerServer(t *testing.T, badResponseStatus int) *httptest.Server {
	answered := make(chan struct{}, 1)
	streams := make(chan chan string, 1)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ch := make(chan string, 4)
			select {
			case streams <- ch:
			default:
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				select {
				case msg := <-ch:
					_, _ = fmt.Fprintf(w, "data: %s\n\n", msg)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		switch {
		case msg.Method == "" && msg.ID != nil: // the client's response
			select {
			case answered <- struct{}{}:
			default:
			}
			if badResponseStatus != 0 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(badResponseStatus)
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","result":{}}`)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			return
		case msg.ID == nil:
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := `{}`
		switch msg.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"j","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			var ch chan string
			select {
			case ch = <-streams:
			case <-r.Context().Done(): // the client gave up (its 20 s timeout) or closed
			}
			if ch != nil {
				ch <- `{"jsonrpc":"2.0","id":"srv-ping","method":"ping"}`
				select {
				case <-answered:
				case <-r.Context().Done():
				}
			}
			result = `{"content":[{"type":"text","text":"done"}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}))
}

// The 200 of a tools/call POST must not be pinned on the response POST
// that overlapped it (server-everything, the mcp-go conformance server).
func TestAcceptedStatusJudgedByItsOwnPOST(t *testing.T) {
	for _, bad := range []int{0, http.StatusOK} {
		t.Run(fmt.Sprintf("response-status=%d", bad), func(t *testing.T) {
			srv := jsonAnswerServer(t, bad)
			defer srv.Close()
			// The server finishes the tool once it has read the client's
			// response, which can be before the client has read the status
			// of that response's POST: the client is closed only once that
			// status is on the stream, or there would be nothing to judge.
			answerStatusSeen := make(chan struct{})
			var once sync.Once
			onEvent := func(ev mcp.Event) {
				if te, ok := ev.(mcp.TransportEvent); ok && te.Kind == "http" && hasField(te, "Message-Kind", "response") && hasField(te, "Message-Id", `"srv-ping"`) {
					once.Do(func() { close(answerStatusSeen) })
				}
			}
			act := func(ctx context.Context, c *mcp.Client) {
				_, _, _ = c.ListAll(ctx, "tools/list")
				_, _ = c.Call(ctx, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}}, mcp.WithTimeout(20*time.Second))
				select {
				case <-answerStatusSeen:
				case <-ctx.Done():
					t.Error("the status of the POST carrying the answer to srv-ping never reached the stream")
				}
			}
			s := run(t, &mcp.HTTPTransport{URL: srv.URL + "/mcp", NoSSEFallback: true}, mcp.Options{ProtocolVersion: mcp.Version20251125, OnEvent: onEvent}, doctor.Options{}, act)
			d := s.find("http/accepted-status")
			if bad == 0 {
				if d != nil {
					t.Errorf("a 202 answer reported: %s", d.Message)
				}
				return
			}
			if d == nil {
				t.Fatalf("a 200 answer to the response POST was not reported:\n  %s", strings.Join(s.rules(), "\n  "))
			}
			if !strings.Contains(d.Message, "a response (to id \"srv-ping\")") || strings.Contains(d.Message, "a error") || len(d.Frames) == 0 {
				t.Errorf("finding does not name the response it judged, or has no frame: %q frames %v", d.Message, d.Frames)
			}
		})
	}
}

// hasField says whether a transport event carries key with value.
func hasField(e mcp.TransportEvent, key, value string) bool {
	for _, f := range e.Fields {
		if f.Key == key && f.Value == value {
			return true
		}
	}
	return false
}

// goSDKHTTP serves a go-sdk 1.8.0 server over its stateful Streamable HTTP
// handler, the one that answers server/discover and mints session ids.
func goSDKHTTP(t *testing.T) *httptest.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "gosdk", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct {
		S string `json:"s"`
	}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.S}}}, nil, nil
	})
	return httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
}

// Under --era auto the session id on the legacy initialize answer is
// legitimate, even though the discover probe before it was modern.
func TestSessionIDJudgedByItsExchangeEra(t *testing.T) {
	srv := goSDKHTTP(t)
	defer srv.Close()
	s := run(t, &mcp.HTTPTransport{URL: srv.URL, NoSSEFallback: true}, mcp.Options{Era: mcp.EraAuto}, doctor.Options{}, listAll("tools/list"))
	if s.connectErr != nil {
		t.Fatalf("connect: %v", s.connectErr)
	}
	if s.fired("http/modern-session-id") {
		t.Errorf("session id on a legacy exchange reported as modern:\n  %s", strings.Join(s.rules(), "\n  "))
	}
	// The same server's discover answer leaves out the version asked for:
	// that is the -32022 MUST, and it is reported.
	if !s.fired("modern/discover-version-unsupported") {
		t.Errorf("discover result without the requested version not reported:\n  %s", strings.Join(s.rules(), "\n  "))
	}
	// A genuinely modern exchange that carries a session id still is.
	l := doctor.New(doctor.Options{})
	var diags []*mcp.Diagnostic
	for _, ev := range []mcp.Event{
		mcp.HandshakeEvent{Handshake: &mcp.Handshake{Era: mcp.EraModern, ProtocolVersion: mcp.Version20260728}},
		httpEv("POST", "200", "application/json", "MCP-Protocol-Version", mcp.Version20260728, "response Mcp-Session-Id", "s1"),
	} {
		diags = append(diags, l.Observe(ev)...)
	}
	if len(diags) != 1 || diags[0].Rule != "http/modern-session-id" {
		t.Errorf("modern exchange with a session id: %v", diags)
	}
}

// The TypeScript SDK answers the discover probe over HTTP with 400 and
// "id": null; on the probe's own POST that is the answer to the probe.
func TestNullIDAnswerToProbeIsNoFinding(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case msg.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"ts","version":"1"}}}`, msg.ID)
		case msg.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case r.Header.Get("Mcp-Session-Id") == "":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)
		default:
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
		}
	}))
	defer srv.Close()
	s := run(t, &mcp.HTTPTransport{URL: srv.URL, NoSSEFallback: true}, mcp.Options{Era: mcp.EraAuto}, doctor.Options{}, nil)
	if s.connectErr != nil {
		t.Fatalf("connect: %v", s.connectErr)
	}
	if s.fired("framing/null-id-error") || s.fired("framing/unknown-id") {
		t.Errorf("the probe's answer was judged as a stray response:\n  %s", strings.Join(s.rules(), "\n  "))
	}
}

// The "why" must fit: a text block is there, it just is not the JSON.
func TestMissingTextFallbackFitsTheCase(t *testing.T) {
	out := `"outputSchema":{"type":"object","properties":{"content":{"type":"string"}}}`
	withText := run(t, scripted(toolCall(tool("read", out), res(`{"content":[{"type":"text","text":"hello"}],"structuredContent":{"content":"hello\n"}}`))), mcp.Options{}, doctor.Options{}, callTool("read"))
	d := withText.find("tools/missing-text-fallback")
	if d == nil {
		t.Fatalf("not reported: %v", withText.rules())
	}
	if strings.Contains(d.Why, "empty result") || strings.Contains(d.Message, "without a text block") {
		t.Errorf("text block present, but the finding says otherwise: %q / %q", d.Message, d.Why)
	}
	noText := run(t, scripted(toolCall(tool("read", out), res(`{"content":[],"structuredContent":{"content":"x"}}`))), mcp.Options{}, doctor.Options{}, callTool("read"))
	if d := noText.find("tools/missing-text-fallback"); d == nil || !strings.Contains(d.Message, "empty result") {
		t.Errorf("no text block: %v", noText.rules())
	}
}

// One tool-name problem is one finding, whatever the profile.
func TestToolNameReportedOnce(t *testing.T) {
	s := run(t, scripted(toolList(tool("my tool!", ""))), mcp.Options{}, doctor.Options{Profile: doctor.ProfileClaude}, listAll("tools/list"))
	if n := s.count("tools/name-characters") + s.count("profile/claude-tool-name"); n != 1 {
		t.Errorf("the name was reported %d times:\n  %s", n, strings.Join(s.rules(), "\n  "))
	}
	// A name the spec allows but the Anthropic API does not is still the
	// profile's finding.
	dot := run(t, scripted(toolList(tool("files.read", ""))), mcp.Options{}, doctor.Options{Profile: doctor.ProfileClaude}, listAll("tools/list"))
	if !dot.fired("profile/claude-tool-name") || dot.fired("tools/name-characters") {
		t.Errorf("dotted name under the claude profile: %v", dot.rules())
	}
}

// A server that ignores the cursor sends the first page again: the
// listing cannot complete (an error), and the page fetched twice makes no
// duplicate-name findings.
func TestRepeatedCursorIsAnErrorWithoutEchoes(t *testing.T) {
	sc := mcptest.Script{Capabilities: json.RawMessage(toolsCaps), On: map[string]lines{
		"tools/list": {{res(`{"tools":[` + tool("a", "") + `,` + tool("b", "") + `],"nextCursor":"p2"}`)}},
	}}
	s := run(t, scripted(sc), mcp.Options{}, doctor.Options{}, listAll("tools/list"))
	d := s.find("pagination/repeated-cursor")
	if d == nil || d.Severity != mcp.SeverityError {
		t.Fatalf("repeated cursor not an error: %v", s.rules())
	}
	if s.fired("tools/duplicate-name") {
		t.Errorf("the page fetched twice produced duplicate names:\n  %s", strings.Join(s.rules(), "\n  "))
	}
}

// A structuredContent mismatch is told as a JSON pointer and what was
// expected, not as a Go value, in the words the form and call use.
func TestStructuredMismatchInPlainWords(t *testing.T) {
	out := `"outputSchema":{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`
	s := run(t, scripted(toolCall(tool("add", out), res(`{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`))), mcp.Options{}, doctor.Options{}, callTool("add"))
	d := s.find("tools/structured-content-mismatch")
	if d == nil {
		t.Fatalf("not reported: %v", s.rules())
	}
	if strings.Contains(d.Message, "&{") || !strings.Contains(d.Message, "/sum is required") {
		t.Errorf("message is not plain: %q", d.Message)
	}
}

// A stream that ends after mcpscope cancelled its request owes no retry
// field: the server may stop there (server-everything after a timeout).
func TestNoRetryNotOwedAfterCancel(t *testing.T) {
	l := doctor.New(doctor.Options{})
	var diags []*mcp.Diagnostic
	cancel := mcp.FrameEvent{Frame: &mcp.Frame{Seq: 5, Dir: mcp.Outbound, Transport: "http", Kind: mcp.KindNotification, Method: "notifications/cancelled",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":21}}`)}}
	ended := func(id string) mcp.Event {
		return mcp.TransportEvent{Kind: "reconnect", Summary: "stream closed", Fields: []mcp.Field{{Key: "stream", Value: "POST /mcp tools/call (id " + id + ")"}, {Key: "retry from server", Value: "false"}}}
	}
	for _, ev := range []mcp.Event{legacy1125(), cancel, ended("21")} {
		diags = append(diags, l.Observe(ev)...)
	}
	if len(diags) != 0 {
		t.Errorf("cancelled stream reported: %v", diags[0].Message)
	}
	if d := l.Observe(ended("22")); len(d) != 1 || d[0].Rule != "http/sse-no-retry" {
		t.Errorf("a stream not cancelled that ends without retry: %v", d)
	}
}

// In the 2026-07-28 era mcpscope answers no server request, a ping
// included; the doctor flags the request.
func TestModernServerPingIsNotAnswered(t *testing.T) {
	sc := mcptest.Script{On: map[string]lines{"server/discover": {{discover(toolsCaps), `{"jsonrpc":"2.0","id":"srv-ping","method":"ping"}`}}, "tools/list": {{modernList("tools", "")}}}}
	s := run(t, scripted(sc), mcp.Options{Era: mcp.EraModern}, doctor.Options{}, listAll("tools/list"))
	if !s.fired("modern/server-request") {
		t.Errorf("server ping not flagged: %v", s.rules())
	}
	for _, ev := range s.events {
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Outbound && fe.Frame.ID == `"srv-ping"` {
			t.Errorf("mcpscope answered the modern server's ping: %s", fe.Frame.Raw)
		}
	}
}

// HTTP findings point at the frame their POST carried, so the text report
// lists it (it listed none).
func TestHTTPFindingsHaveFrames(t *testing.T) {
	l := doctor.New(doctor.Options{})
	req := mcp.FrameEvent{Frame: &mcp.Frame{Seq: 7, Dir: mcp.Outbound, Transport: "http", Kind: mcp.KindRequest, Method: "tools/list", ID: "3",
		Raw: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)}}
	var diags []*mcp.Diagnostic
	for _, ev := range []mcp.Event{req, httpEv("POST", "200", "text/html", "Message-Kind", "request", "Message-Method", "tools/list", "Message-Id", "3", "response Mcp-Session-Id", "a b")} {
		diags = append(diags, l.Observe(ev)...)
	}
	if len(diags) != 2 {
		t.Fatalf("want content-type and session-id-characters, got %v", diags)
	}
	for _, d := range diags {
		if len(d.Frames) != 1 || d.Frames[0] != 7 {
			t.Errorf("%s: frames %v, want [7]", d.Rule, d.Frames)
		}
	}
}

// The spec's stdio shutdown is stdin closed, then SIGTERM, then SIGKILL: a
// server that keeps running after its stdin ends (server-everything with a
// timer started) but exits on SIGTERM did nothing wrong. Only a server that
// outlives SIGTERM too is reported, and not when mcpscope's own deadline
// cut SIGTERM's grace short.
func TestExitOnSIGTERMIsNoFinding(t *testing.T) {
	onTerm := mcptest.Script{OnEOF: []string{"@sleep:20s"}}
	s := run(t, scripted(onTerm), mcp.Options{}, doctor.Options{}, nil)
	if s.fired("stdio/forced-exit") {
		t.Errorf("a server that exits on SIGTERM was reported:\n  %s", strings.Join(s.rules(), "\n  "))
	}
	var exit *mcp.ExitError
	for _, ev := range s.events {
		if x, ok := ev.(mcp.ExitEvent); ok {
			exit = x.Exit
		}
	}
	if exit == nil || exit.Forced != "SIGTERM" {
		t.Fatalf("the staged server was not stopped by SIGTERM: %+v", exit)
	}

	l := doctor.New(doctor.Options{})
	if d := l.Observe(mcp.ExitEvent{Exit: &mcp.ExitError{Code: -1, Signal: "SIGKILL", Forced: "SIGKILL", Hurried: true, Expected: true}}); len(d) != 0 {
		t.Errorf("a SIGKILL in mcpscope's own hurry was reported: %+v", d[0])
	}
	l = doctor.New(doctor.Options{})
	d := l.Observe(mcp.ExitEvent{Exit: &mcp.ExitError{Code: -1, Signal: "SIGKILL", Forced: "SIGKILL", Expected: true}})
	if len(d) != 1 || d[0].Rule != "stdio/forced-exit" || !strings.Contains(d[0].Message, "SIGTERM") {
		t.Errorf("a server that outlived SIGTERM: %+v", d)
	}
}

// opencode and Copilot CLI close the server's stdin, then SIGTERM the
// server themselves (found with pgrep -P under the tap): the client's
// shutdown, not an abnormal exit. A SIGTERM before stdin closed still is.
func TestClientsSIGTERMAfterStdinClosedIsNoFinding(t *testing.T) {
	l := doctor.New(doctor.Options{})
	if d := l.Observe(mcp.ExitEvent{Exit: &mcp.ExitError{Code: -1, Signal: "SIGTERM", Expected: true}}); len(d) != 0 {
		t.Errorf("the client's SIGTERM after closing stdin was blamed on the server: %+v", d[0])
	}
	l = doctor.New(doctor.Options{})
	d := l.Observe(mcp.ExitEvent{Exit: &mcp.ExitError{Code: -1, Signal: "SIGTERM"}})
	if len(d) != 1 || d[0].Rule != "stdio/abnormal-exit" {
		t.Errorf("a server killed by SIGTERM out of the blue: %+v", d)
	}
}

// A tool call that was still reporting progress when mcpscope's maximum ran
// out is not a slow tool; one that never reported anything is.
func TestCallTimeoutAtTheMaximumIsNoFinding(t *testing.T) {
	timeout := func(le mcp.LocalError) []*mcp.Diagnostic {
		le.Kind, le.Method, le.ID, le.Elapsed = mcp.Timeout, "tools/call", "4", time.Minute
		return doctor.New(doctor.Options{}).Observe(mcp.LocalErrorEvent{Err: &le})
	}
	if d := timeout(mcp.LocalError{Progressed: true, AtMax: true, Silent: time.Second}); len(d) != 0 {
		t.Errorf("a call still reporting progress at the maximum was reported: %s", d[0].Message)
	}
	if d := timeout(mcp.LocalError{Silent: time.Minute}); len(d) != 1 || d[0].Rule != "tools/call-timeout" || !strings.Contains(d[0].Message, "no progress") {
		t.Errorf("a call with neither answer nor progress: %+v", d)
	}
}

// A log line on stdout is explained once and plainly: no brackets inside
// brackets, and the specific fix instead of the general one after it
// ("write it to stderr instead (…). Write logs to stderr (…)").
func TestNonJSONStdoutSaysItOnce(t *testing.T) {
	s := run(t, scripted(mcptest.Script{Start: []string{"Server listening on stdio"}}), mcp.Options{}, doctor.Options{}, nil)
	d := s.find("framing/non-json-stdout")
	if d == nil {
		t.Fatalf("not reported:\n  %s", strings.Join(s.rules(), "\n  "))
	}
	if strings.Contains(d.Message, "((") || strings.Contains(d.Message, "(not JSON (") {
		t.Errorf("nested brackets: %s", d.Message)
	}
	if strings.Count(strings.ToLower(d.Fix), "to stderr") != 1 {
		t.Errorf("the fix repeats itself: %s", d.Fix)
	}
}
