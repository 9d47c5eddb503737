package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// jaegerConfig runs Jaeger all-in-one with in-memory storage, its OTLP
// HTTP receiver and its query API on loopback ports of the test's choice
// (no other port is opened).
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: []
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:%s
    grpc:
      endpoint: 127.0.0.1:%s
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%s
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`

// startJaeger runs the Jaeger binary until the test ends; it returns the
// OTLP HTTP URL and the query API's.
func startJaeger(t *testing.T, bin string) (otlp, query string) {
	t.Helper()
	qp, gp, op := freePort(t), freePort(t), freePort(t)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, jaegerConfig, qp, gp, op), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", cfg)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	query = "http://127.0.0.1:" + qp
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(query + "/api/services")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger did not start:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://127.0.0.1:" + op, query
}

// jaegerSpan is a span as Jaeger's query API gives it.
type jaegerSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	StartTime int64 `json:"startTime"` // µs
	Duration  int64 `json:"duration"`  // µs
	Tags      []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	ProcessID string `json:"processID"`
	service   string
}

func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// jaegerTraces is every trace of a service, by trace id.
func jaegerTraces(t *testing.T, query, service string) map[string][]jaegerSpan {
	t.Helper()
	resp, err := http.Get(query + "/api/traces?limit=1000&lookback=1h&service=" + service)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Data []struct {
			TraceID   string       `json:"traceID"`
			Spans     []jaegerSpan `json:"spans"`
			Processes map[string]struct {
				ServiceName string `json:"serviceName"`
			} `json:"processes"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	out := map[string][]jaegerSpan{}
	for _, tr := range body.Data {
		for _, s := range tr.Spans {
			s.service = tr.Processes[s.ProcessID].ServiceName
			out[tr.TraceID] = append(out[tr.TraceID], s)
		}
	}
	return out
}

// TestJaeger runs call, check, test and three taps at once (two stdio, one
// tap --listen with the TypeScript SDK's client) against server-everything,
// exporting to a real Jaeger, and checks what Jaeger holds against the
// session files. .ci/run sets MCPSCOPE_JAEGER to the binary it built.
func TestJaeger(t *testing.T) {
	jaeger := os.Getenv("MCPSCOPE_JAEGER")
	if jaeger == "" {
		t.Skip("set MCPSCOPE_JAEGER to a Jaeger all-in-one binary (.ci/run builds one)")
	}
	se := os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
	if se == "" {
		t.Fatal("MCPSCOPE_JAEGER is set but MCPSCOPE_SERVER_EVERYTHING is not")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	modules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(se))))
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	otlp, query := startJaeger(t, jaeger)
	dir := t.TempDir()
	rt, err := os.MkdirTemp("", "otel")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_RUNTIME_DIR="+rt, "OTEL_METRICS_EXPORTER=none",
		"NODE_PATH="+modules)
	callsFile := filepath.Join(dir, "calls.json")
	if err := os.WriteFile(callsFile, []byte(`{"calls": [{"name": "echo", "method": "tools/call",
		"params": {"name": "echo", "arguments": {"message": "hi"}}, "expect": {"isError": false}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	file := func(name string) string { return filepath.Join(dir, name) }
	tsclient, _ := filepath.Abs(filepath.Join("..", "mcp", "tap", "testdata", "tsclient.cjs"))
	const clientTrace, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"

	var wg sync.WaitGroup
	run := func(name string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}()
	}
	command := func(argv ...string) error {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v\n%s", err, out)
		}
		if strings.Contains(string(out), "OpenTelemetry") {
			return fmt.Errorf("the export was not whole:\n%s", out)
		}
		return nil
	}
	run("call", func() error {
		return command(bin, "call", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi",
			"--otlp", otlp, "--propagate", "--record", file("call.jsonl"), "--", node, se)
	})
	var echoed string
	run("call-echo-meta", func() error {
		cmd := exec.Command(bin, append([]string{"call", "--method", "tools/call", "--tool-name", "echo", "--no-validate",
			"--otlp", otlp, "--propagate"}, scriptArgs(echoMeta)...)...)
		cmd.Env = env
		out, err := cmd.Output()
		echoed = string(out)
		return err
	})
	run("check", func() error {
		return command(bin, "check", "--otlp", otlp, "--record", file("check.jsonl"), "--", node, se)
	})
	run("test", func() error {
		return command(bin, "test", "--calls", callsFile, "--otlp", otlp, "--record", file("test.jsonl"), "--", node, se)
	})
	run("tap-a", func() error { return scriptedTap(env, bin, otlp, node, se, clientTrace, clientSpan) })
	run("tap-b", func() error {
		return command(node, tsclient, bin, "tap", "--name", "tap-b", "--otlp", otlp, "--", node, se)
	})
	run("tap-c", func() error { return listenTap(t, env, bin, otlp, node, se, tsclient) })
	wg.Wait()
	if t.Failed() {
		return
	}

	// Jaeger stores what it is sent at once; the exports ended with the
	// commands.
	mine := jaegerTraces(t, query, "mcpscope")
	if len(mine) != 4 {
		t.Errorf("service mcpscope has %d traces, want 4 (two calls, check, test)", len(mine))
	}
	// --propagate: a server that echoes _meta got the ids Jaeger holds.
	traceID, spanID := echoedTraceparent(t, echoed)
	if s := findName(mine[traceID], "tools/call echo"); s == nil || s.SpanID != spanID {
		t.Errorf("the server was sent %s/%s; Jaeger's trace %s holds %+v", traceID, spanID, traceID, s)
	}
	for _, name := range []string{"call.jsonl", "check.jsonl", "test.jsonl"} {
		checkSessionAgainstJaeger(t, file(name), mine)
	}

	// --propagate: the call's frames carry the ids Jaeger holds.
	sf := readSession(t, file("call.jsonl"))
	tp := regexp.MustCompile(`"traceparent":"00-([0-9a-f]{32})-([0-9a-f]{16})-01"`)
	propagated, callTrace := 0, ""
	for _, ev := range sf.Events {
		fe, ok := ev.(mcp.FrameEvent)
		if !ok || fe.Frame.Kind != mcp.KindRequest || fe.Frame.Dir != mcp.Outbound {
			continue
		}
		m := tp.FindSubmatch(fe.Frame.Raw)
		if m == nil {
			t.Errorf("--propagate: request #%d carries no traceparent: %s", fe.Frame.Seq, fe.Frame.Raw)
			continue
		}
		callTrace = string(m[1])
		s := findSpan(mine[callTrace], fe.Frame.Seq)
		if s == nil || s.SpanID != string(m[2]) {
			t.Errorf("request #%d's traceparent names %s/%s, which Jaeger does not hold as its span", fe.Frame.Seq, m[1], m[2])
		}
		propagated++
	}
	if propagated < 3 {
		t.Errorf("%d requests propagated, want initialize, tools/list and tools/call", propagated)
	}

	// export --format otlp of the call's file: the names and count Jaeger has.
	out, err := exec.Command(bin, "export", file("call.jsonl"), "--format", "otlp").Output()
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct{ Spans []struct{ Name string } }
			}
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatalf("export: %v", err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					exported = append(exported, s.Name)
				}
			}
		}
	}
	if got, want := sortedNames(exported), sortedNames(spanNames(mine[callTrace])); got != want {
		t.Errorf("export --format otlp gives %s; Jaeger holds %s", got, want)
	}

	// The taps: three traces, each named after its client, the tapped
	// server as a resource attribute.
	conns := map[string]jaegerSpan{}
	for _, service := range []string{"scripted-client", "tap-test-ts-client"} {
		for _, spans := range jaegerTraces(t, query, service) {
			for _, s := range spans {
				if strings.HasPrefix(s.OperationName, "mcp connection ") {
					conns[strings.TrimPrefix(s.OperationName, "mcp connection ")] = s
				}
			}
		}
	}
	traces := map[string]bool{}
	for _, name := range []string{"tap-a", "tap-b", "tap-c"} {
		c, ok := conns[name]
		if !ok {
			t.Errorf("no connection span for %s among %v", name, keys(conns))
			continue
		}
		traces[c.TraceID] = true
	}
	if len(traces) != 3 {
		t.Errorf("the three taps are %d traces, want 3", len(traces))
	}
	// The scripted client's traceparent: the tap's tools/call span is the
	// child of the client's span, in the client's trace.
	var child *jaegerSpan
	for _, spans := range jaegerTraces(t, query, "scripted-client") {
		for i, s := range spans {
			if s.OperationName == "tools/call echo" {
				child = &spans[i]
			}
		}
	}
	if child == nil || child.TraceID != clientTrace || child.parent() != clientSpan {
		t.Errorf("the tap's tools/call span is %+v: want trace %s under span %s", child, clientTrace, clientSpan)
	}
	for _, name := range []string{"tap-a", "tap-b", "tap-c"} {
		if c, ok := conns[name]; ok && c.tag("mcp.server.name") == "" {
			t.Errorf("%s's connection has no mcp.server.name", name)
		}
	}
	// Streamable HTTP in the legacy era has a session: its id is on the
	// connection and on the requests after the handshake.
	if c, ok := conns["tap-c"]; ok {
		if c.tag("mcp.session.id") == "" || c.tag("network.transport") != "tcp" || c.tag("server.port") == "" {
			t.Errorf("tap --listen's connection attributes: %+v", c.Tags)
		}
	}
}

func readSession(t *testing.T, path string) *record.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sf, err := record.ReadEvents(f, false)
	if err != nil {
		t.Fatal(err)
	}
	return sf
}

func findSpan(spans []jaegerSpan, seq int64) *jaegerSpan {
	for i, s := range spans {
		if s.tag("mcpscope.frame.seq") == strconv.FormatInt(seq, 10) {
			return &spans[i]
		}
	}
	return nil
}

func findName(spans []jaegerSpan, name string) *jaegerSpan {
	for i, s := range spans {
		if s.OperationName == name {
			return &spans[i]
		}
	}
	return nil
}

func spanNames(spans []jaegerSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.OperationName)
	}
	return out
}

func sortedNames(names []string) string {
	s := append([]string(nil), names...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return strings.Join(s, ", ")
}

// checkSessionAgainstJaeger finds the trace of a session file among the
// service's and checks each request against its span: name, parent,
// attributes, status, and times to the millisecond.
func checkSessionAgainstJaeger(t *testing.T, path string, traces map[string][]jaegerSpan) {
	t.Helper()
	sf := readSession(t, path)
	type req struct {
		f      *mcp.Frame
		answer *mcp.Frame
		tool   string
	}
	var reqs []*req
	pending := map[mcp.ID]*req{}
	for _, ev := range sf.Events {
		fe, ok := ev.(mcp.FrameEvent)
		if !ok {
			continue
		}
		f := fe.Frame
		switch {
		case f.Kind == mcp.KindRequest && f.Dir == mcp.Outbound:
			r := &req{f: f}
			var p struct {
				Params struct{ Name string } `json:"params"`
			}
			_ = json.Unmarshal(f.Raw, &p)
			if f.Method == "tools/call" || f.Method == "prompts/get" {
				r.tool = p.Params.Name
			}
			reqs = append(reqs, r)
			pending[f.ID] = r
		case (f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse) && f.Dir == mcp.Inbound:
			if r, ok := pending[f.ID]; ok {
				r.answer = f
				delete(pending, f.ID)
			}
		}
	}
	if len(reqs) == 0 {
		t.Fatalf("%s: no requests", path)
	}
	// The session's trace: of those whose span for the first request
	// starts at its frame, the one whose spans start nearest the frames of
	// all the requests. The commands run side by side, so two of them can
	// send their first request in the same millisecond.
	var spans []jaegerSpan
	best := int64(-1)
	for _, tr := range traces {
		if s := findSpan(tr, reqs[0].f.Seq); s == nil || abs(s.StartTime-reqs[0].f.Time.UnixMicro()) > 1000 || s.OperationName != reqs[0].f.Method {
			continue
		}
		var off int64
		for _, r := range reqs {
			if s := findSpan(tr, r.f.Seq); s != nil && s.OperationName == strings.TrimSpace(r.f.Method+" "+r.tool) {
				off += abs(s.StartTime - r.f.Time.UnixMicro())
			} else {
				off += int64(time.Hour / time.Microsecond)
			}
		}
		if best < 0 || off < best {
			spans, best = tr, off
		}
	}
	if spans == nil {
		t.Errorf("%s: no trace in Jaeger starts with its first request", path)
		return
	}
	var conn *jaegerSpan
	for i, s := range spans {
		if s.OperationName == "mcp connection" {
			conn = &spans[i]
		}
	}
	if conn == nil {
		t.Errorf("%s: no connection span", path)
		return
	}
	for _, r := range reqs {
		s := findSpan(spans, r.f.Seq)
		name := strings.TrimSpace(r.f.Method + " " + r.tool)
		switch {
		case s == nil:
			t.Errorf("%s: request #%d %s is no span", path, r.f.Seq, name)
			continue
		case s.OperationName != name:
			t.Errorf("%s: request #%d is span %q, want %q", path, r.f.Seq, s.OperationName, name)
		case s.parent() != conn.SpanID:
			t.Errorf("%s: %s's parent is %s, want the connection %s", path, name, s.parent(), conn.SpanID)
		case s.tag("mcp.method.name") != r.f.Method || s.tag("jsonrpc.request.id") != strings.Trim(string(r.f.ID), `"`) ||
			s.tag("network.transport") != "pipe":
			t.Errorf("%s: %s's attributes %+v", path, name, s.Tags)
		}
		if d := s.StartTime - r.f.Time.UnixMicro(); abs(d) > 1000 {
			t.Errorf("%s: %s starts %d µs from its frame", path, name, d)
		}
		if r.answer == nil {
			continue
		}
		if d := s.StartTime + s.Duration - r.answer.Time.UnixMicro(); abs(d) > 1000 {
			t.Errorf("%s: %s ends %d µs from its answer", path, name, d)
		}
		isErr := s.tag("otel.status_code") == "ERROR"
		wantErr := r.answer.Kind == mcp.KindErrorResponse || mcp.IsToolError(answerResult(r.answer.Raw))
		if isErr != wantErr {
			t.Errorf("%s: %s's status error=%v, its answer %s", path, name, isErr, r.answer.Raw)
		}
		if r.answer.Kind == mcp.KindErrorResponse && s.tag("error.type") != strconv.Itoa(r.answer.ErrorCode) {
			t.Errorf("%s: %s's error.type %q, want the code %d", path, name, s.tag("error.type"), r.answer.ErrorCode)
		}
	}
}

func answerResult(raw []byte) json.RawMessage {
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Result
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// scriptedTap is a client that traces: its tools/call carries traceparent.
func scriptedTap(env []string, bin, otlp, node, se, traceID, spanID string) error {
	cmd := exec.Command(bin, "tap", "--name", "tap-a", "--otlp", otlp, "--", node, se)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	out := bufio.NewReader(outPipe)
	await := func(id string) error {
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				return fmt.Errorf("waiting for id %s: %w\n%s", id, err, stderr.String())
			}
			if strings.Contains(line, `"id":`+id+`,`) || strings.Contains(line, `"id":`+id+`}`) {
				if strings.Contains(line, `"method"`) {
					continue // a request of the server's with the same id
				}
				return nil
			}
		}
	}
	send := func(s string) { _, _ = io.WriteString(in, s+"\n") }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scripted-client","version":"1"}}}`)
	if err := await("1"); err != nil {
		return err
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"traced"},"_meta":{"traceparent":"00-` + traceID + `-` + spanID + `-01"}}}`)
	if err := await("2"); err != nil {
		return err
	}
	_ = in.Close()
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if err := cmd.Wait(); err != nil && !strings.Contains(err.Error(), "signal") {
		return fmt.Errorf("%w\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "OpenTelemetry") {
		return fmt.Errorf("the export was not whole:\n%s", stderr.String())
	}
	return nil
}

// listenTap runs server-everything over Streamable HTTP behind tap
// --listen, and the TypeScript SDK's client through it.
func listenTap(t *testing.T, env []string, bin, otlp, node, se, tsclient string) error {
	port := freePort(t)
	server := exec.Command(node, se, "streamableHttp")
	server.Env = append(append([]string(nil), env...), "PORT="+port)
	serr, _ := server.StderrPipe()
	if err := server.Start(); err != nil {
		return err
	}
	defer func() { _ = server.Process.Kill(); _ = server.Wait() }()
	if err := waitLine(serr, "listening"); err != nil {
		return fmt.Errorf("server-everything over HTTP: %w", err)
	}
	tap := exec.Command(bin, "tap", "--name", "tap-c", "--listen", "127.0.0.1:"+freePort(t), "--otlp", otlp,
		"http://127.0.0.1:"+port+"/mcp")
	tap.Env = env
	terr, _ := tap.StderrPipe()
	if err := tap.Start(); err != nil {
		return err
	}
	lines := bufio.NewScanner(terr)
	local := ""
	for lines.Scan() {
		if m := regexp.MustCompile(`point the client at (\S+) `).FindStringSubmatch(lines.Text()); m != nil {
			local = m[1]
			break
		}
	}
	if local == "" {
		_ = tap.Process.Kill()
		return fmt.Errorf("tap --listen said no address")
	}
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()
	client := exec.Command(node, tsclient, local)
	client.Env = env
	if out, err := client.CombinedOutput(); err != nil {
		_ = tap.Process.Kill()
		return fmt.Errorf("the TypeScript client through tap --listen: %v\n%s", err, out)
	}
	_ = tap.Process.Signal(os.Interrupt)
	if err := tap.Wait(); err != nil {
		return fmt.Errorf("tap --listen: %w\n%s", err, <-rest)
	}
	if said := <-rest; strings.Contains(said, "OpenTelemetry") {
		return fmt.Errorf("the export was not whole:\n%s", said)
	}
	return nil
}

func waitLine(r io.Reader, want string) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return nil
		}
	}
	return fmt.Errorf("ended before %q", want)
}
