package cli

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// fakeCollector is an OTLP HTTP receiver keeping the spans it is sent.
type fakeCollector struct {
	srv   *httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
	hits  int
}

func newFakeCollector(t *testing.T) *fakeCollector {
	// A healthy collector answers the probe before the test's command ends
	// (see waitForCollector).
	waitForCollector = true
	t.Cleanup(func() { waitForCollector = false })
	c := &fakeCollector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.hits++
		if r.URL.Path == "/v1/traces" {
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					c.spans = append(c.spans, ss.Spans...)
				}
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *fakeCollector) byName() map[string]*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := map[string]*tracepb.Span{}
	for _, s := range c.spans {
		m[s.Name] = s
	}
	return m
}

func TestCallSendsItsSpans(t *testing.T) {
	col := newFakeCollector(t)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "--tool-arg", "b=2",
		"--otlp", col.srv.URL, "--propagate", "--record", rec)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if strings.Contains(out, "OpenTelemetry") {
		t.Errorf("a healthy collector is reported: %s", out)
	}
	spans := col.byName()
	conn := spans["mcp connection"]
	if conn == nil {
		t.Fatalf("no connection span among %v", keys(spans))
	}
	for _, name := range []string{"initialize", "tools/list", "tools/call add"} {
		s := spans[name]
		if s == nil {
			t.Errorf("no span %q among %v", name, keys(spans))
			continue
		}
		if string(s.ParentSpanId) != string(conn.SpanId) || string(s.TraceId) != string(conn.TraceId) {
			t.Errorf("%q is not the connection's child", name)
		}
	}
	// --propagate: the frame carries the very span id the collector holds.
	data, rerr := os.ReadFile(rec)
	if rerr != nil {
		t.Fatal(rerr)
	}
	call := spans["tools/call add"]
	if call == nil {
		return
	}
	want := "00-" + hex.EncodeToString(call.TraceId) + "-" + hex.EncodeToString(call.SpanId) + "-01"
	if !strings.Contains(string(data), `\"traceparent\":\"`+want+`\"`) {
		t.Errorf("the recorded tools/call does not carry traceparent %s", want)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCallWithoutPropagateSendsNoTraceparent(t *testing.T) {
	col := newFakeCollector(t)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	if out, err, code := runCLI(t, "call", "--method", "tools/list", "--otlp", col.srv.URL, "--record", rec); code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	data, _ := os.ReadFile(rec)
	if strings.Contains(string(data), "traceparent") {
		t.Error("traceparent sent without --propagate")
	}
	if len(col.byName()) == 0 {
		t.Error("no spans")
	}
}

var (
	droppedLine    = regexp.MustCompile(`(?m)^mcpscope: OpenTelemetry export: (\d+) of (\d+) spans? dropped: .+$`)
	droppedTapLine = regexp.MustCompile(`(?m)^mcpscope tap: OpenTelemetry export: (\d+) of (\d+) spans? dropped: .+$`)
)

func TestCallWithACollectorThatIsDownOrSilent(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String()
	_ = closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = silent.Close() }()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range held {
			_ = c.Close()
		}
		mu.Unlock()
	}()
	for name, url := range map[string]string{"closed port": closedURL, "never answers": "http://" + silent.Addr().String()} {
		t.Run(name, func(t *testing.T) {
			out, err, code := runCLI(t, "call", "--method", "tools/list", "--otlp", url)
			if code != exitOK {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
			m := droppedLine.FindAllStringSubmatch(out, -1)
			if len(m) != 1 || m[0][1] != m[0][2] || m[0][1] == "0" {
				t.Errorf("want one line saying every span was dropped:\n%s", out)
			}
			if !strings.Contains(out, `"tools"`) {
				t.Errorf("the answer is not printed:\n%s", out)
			}
		})
	}
}

func TestOTELSDKDisabledTurnsTheExportOff(t *testing.T) {
	col := newFakeCollector(t)
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if out, err, code := runCLI(t, "call", "--method", "tools/list", "--otlp", col.srv.URL); code != exitOK || strings.Contains(out, "OpenTelemetry") {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if col.hits != 0 {
		t.Errorf("the collector was reached %d times with OTEL_SDK_DISABLED=true", col.hits)
	}
}

// TestExportOTLPGivesTheLiveSpans exports the session file of a call that
// sent its spans live: the same names, the same count, the recorded times.
func TestExportOTLPGivesTheLiveSpans(t *testing.T) {
	col := newFakeCollector(t)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	dir := t.TempDir()
	rec := filepath.Join(dir, "s.jsonl")
	if out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "--tool-arg", "b=2",
		"--otlp", col.srv.URL, "--record", rec); code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	live := col.byName()
	otlp := filepath.Join(dir, "s.otlp.json")
	if out, err, code := runCLI(t, "export", rec, "--format", "otlp", "-o", otlp); code != exitOK {
		t.Fatalf("export: exit %d: %v\n%s", code, err, out)
	}
	data, err := os.ReadFile(otlp)
	if err != nil {
		t.Fatal(err)
	}
	type jsonSpan struct {
		Name              string
		TraceID           string `json:"traceId"`
		SpanID            string `json:"spanId"`
		StartTimeUnixNano string
		EndTimeUnixNano   string
	}
	var exported []jsonSpan
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct{ Spans []jsonSpan }
			}
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatalf("not OTLP/JSON: %v\n%s", err, line)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				exported = append(exported, ss.Spans...)
			}
		}
	}
	// Sent with --otlp instead: the same spans reach the collector.
	col2 := newFakeCollector(t)
	if out, err, code := runCLI(t, "export", rec, "--format", "otlp", "--otlp", col2.srv.URL); code != exitOK {
		t.Fatalf("export --otlp: exit %d: %v\n%s", code, err, out)
	}
	if sent := col2.byName(); len(sent) != len(live) {
		t.Errorf("export --otlp sent %v; live %v", keys(sent), keys(live))
	}
	if len(exported) != len(live) || len(live) < 4 {
		t.Fatalf("exported %d spans, live %d (%v)", len(exported), len(live), keys(live))
	}
	for _, s := range exported {
		l := live[s.Name]
		if l == nil {
			t.Errorf("exported %q, which the live run did not send", s.Name)
			continue
		}
		if len(s.TraceID) != 32 || len(s.SpanID) != 16 {
			t.Errorf("ids %q %q are not hex", s.TraceID, s.SpanID)
		}
		if s.StartTimeUnixNano != strconv.FormatUint(l.StartTimeUnixNano, 10) || s.EndTimeUnixNano != strconv.FormatUint(l.EndTimeUnixNano, 10) {
			t.Errorf("%q: exported %s-%s, live %d-%d", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano, l.StartTimeUnixNano, l.EndTimeUnixNano)
		}
	}
}

// echoMeta is a server whose tools/call answers with the _meta it was sent.
var echoMeta = mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string][][]string{
	"tools/call": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"content":[],"structuredContent":{"meta":{{meta}}}}}`}},
}}

// echoedTraceparent is the traceparent a call's printed echoMeta answer holds.
func echoedTraceparent(t *testing.T, out string) (traceID, spanID string) {
	t.Helper()
	m := regexp.MustCompile(`"traceparent": "00-([0-9a-f]{32})-([0-9a-f]{16})-01"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the server echoed no traceparent:\n%s", out)
	}
	return m[1], m[2]
}

// With --propagate, a server that echoes _meta gets the trace and span id
// the collector holds for the request.
func TestPropagateReachesTheServer(t *testing.T) {
	col := newFakeCollector(t)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	args := append([]string{"call", "--method", "tools/call", "--tool-name", "echo", "--no-validate", "--otlp", col.srv.URL, "--propagate"}, scriptArgs(echoMeta)...)
	out, err, code := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	traceID, spanID := echoedTraceparent(t, out)
	s := col.byName()["tools/call echo"]
	if s == nil || hex.EncodeToString(s.TraceId) != traceID || hex.EncodeToString(s.SpanId) != spanID {
		t.Errorf("the server got %s/%s; the collector holds %+v", traceID, spanID, s)
	}
}

// check, test and replay export their connection too.
func TestCheckTestAndReplayExport(t *testing.T) {
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	dir := t.TempDir()
	rec := filepath.Join(dir, "s.jsonl")
	if out, err, code := runCLI(t, "call", "--method", "tools/list", "--record", rec); code != exitOK {
		t.Fatalf("call: exit %d: %v\n%s", code, err, out)
	}
	callsFile := filepath.Join(dir, "calls.json")
	if err := os.WriteFile(callsFile, []byte(`{"calls": [{"name": "add", "method": "tools/call",
		"params": {"name": "add", "arguments": {"a": 1, "b": 2}}, "expect": {"isError": false}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"check":  {"check"},
		"test":   {"test", "--calls", callsFile},
		"replay": {"replay", rec},
	} {
		t.Run(name, func(t *testing.T) {
			col := newFakeCollector(t)
			out, err, code := runCLI(t, append(args, "--otlp", col.srv.URL)...)
			if code != exitOK {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
			spans := col.byName()
			if spans["mcp connection"] == nil || spans["initialize"] == nil {
				t.Errorf("spans %v: want the connection and its handshake", keys(spans))
			}
			if name == "test" && spans["tools/call add"] == nil {
				t.Errorf("spans %v: want the saved call", keys(spans))
			}
		})
	}
}
