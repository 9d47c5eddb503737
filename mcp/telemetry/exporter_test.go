package telemetry

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
)

// collector is a fake OTLP HTTP receiver counting the spans it accepts.
type collector struct {
	srv   *httptest.Server
	spans atomic.Int64
	mu    sync.Mutex
	paths []string
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.paths = append(c.paths, r.URL.Path)
		c.mu.Unlock()
		if r.URL.Path == "/v1/traces" {
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					c.spans.Add(int64(len(ss.Spans)))
				}
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func noEnv(string) string { return "" }

// conversation feeds one initialize and n tool calls through an exporter.
func conversation(e *Exporter, n int) {
	s := newScript("stdio")
	s.send(0, mcp.Outbound, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"c"}}}`)
	s.send(1, mcp.Inbound, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}`)
	for i := 1; i <= n; i++ {
		s.send(1, mcp.Outbound, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}`, i))
		s.send(1, mcp.Inbound, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, i))
	}
	c := e.Conversation(Options{Transport: "stdio"})
	for _, ev := range s.evs {
		c.Observe(ev)
	}
	c.End(time.Time{})
}

func TestExportToACollector(t *testing.T) {
	col := newCollector(t)
	e, err := New(context.Background(), Config{Endpoint: col.srv.URL, Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	<-e.probed // a command's run is longer than the probe's round trip
	conversation(e, 3)
	r := e.Close()
	if r.Spans != 5 || r.Exported != 5 || r.Dropped != 0 || r.Line() != "" {
		t.Fatalf("report %+v line %q: want 5 spans all exported", r, r.Line())
	}
	if got := col.spans.Load(); got != 5 {
		t.Errorf("the collector has %d spans, want 5", got)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if !strings.Contains(strings.Join(col.paths, " "), "/v1/metrics") {
		t.Errorf("no metrics were sent: %v", col.paths)
	}
}

func TestEnvironmentNamesTheCollectorAndService(t *testing.T) {
	col := newCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.srv.URL, "OTEL_METRICS_EXPORTER": "none"}
	getenv := func(k string) string { return env[k] }
	if !Requested("", getenv) {
		t.Fatal("OTEL_EXPORTER_OTLP_ENDPOINT alone does not ask for export")
	}
	env["OTEL_SDK_DISABLED"] = "TRUE"
	if Requested("http://x", getenv) {
		t.Fatal("OTEL_SDK_DISABLED=true does not turn export off")
	}
	delete(env, "OTEL_SDK_DISABLED")
	// The SDK reads the variables from the process's environment.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.srv.URL)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	e, err := New(context.Background(), Config{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	<-e.probed
	conversation(e, 1)
	if r := e.Close(); r.Exported != 3 {
		t.Fatalf("report %+v", r)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if strings.Contains(strings.Join(col.paths, " "), "/v1/metrics") {
		t.Errorf("OTEL_METRICS_EXPORTER=none still sent metrics: %v", col.paths)
	}
}

// closedPort is a loopback address nobody listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

// silentCollector accepts connections and never answers.
func silentCollector(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return "http://" + l.Addr().String()
}

func TestACollectorThatIsDownOrSilentCostsNothingAndIsSaidOnce(t *testing.T) {
	for name, endpoint := range map[string]string{"closed port": closedPort(t), "never answers": silentCollector(t)} {
		t.Run(name, func(t *testing.T) {
			e, err := New(context.Background(), Config{Endpoint: endpoint, Getenv: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			conversation(e, 50)
			time.Sleep(20 * time.Millisecond) // a run of some length: Close may wait a twentieth of it
			run := time.Since(start)
			t0 := time.Now()
			r := e.Close()
			took := time.Since(t0)
			if took > run/lateShare+50*time.Millisecond {
				t.Errorf("Close took %s after a %s run", took, run)
			}
			if r.Spans != 52 || r.Dropped != 52 || r.Exported != 0 {
				t.Errorf("report %+v: want all 52 spans counted dropped", r)
			}
			line := r.Line()
			if !strings.HasPrefix(line, "OpenTelemetry export: 52 of 52 spans dropped: ") || strings.Contains(line, "\n") {
				t.Errorf("line %q", line)
			}
			t.Log(line)
		})
	}
}

// A flood of notifications and requests with a collector that never
// answers: the heap (garbage between collections included) stays within
// what the queue and one batch hold, where keeping the 40,002 spans would
// take several times as much. The real program's bound, 10 MiB of private
// memory above a run without export, is cli's
// TestTapFloodWithABadCollectorStaysBounded.
func TestAFloodWithASilentCollectorStaysBounded(t *testing.T) {
	e, err := New(context.Background(), Config{Endpoint: silentCollector(t), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	c := e.Conversation(Options{Transport: "stdio", Tap: true})
	obs := mcp.NewObserver("stdio")
	at := time.Now()
	feed := func(dir mcp.Direction, raw string) {
		for _, f := range obs.Frames(dir, []byte(raw), "", "", at) {
			c.Observe(mcp.FrameEvent{Frame: f})
		}
	}
	feed(mcp.Outbound, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"flood"}}}`)
	feed(mcp.Inbound, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}`)
	const n = 200_000
	peak, took := heappeak.Of(func() {
		for i := range n {
			feed(mcp.Inbound, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"line `+fmt.Sprint(i)+`"}}`)
			if i%5 == 0 {
				feed(mcp.Outbound, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1))
				feed(mcp.Inbound, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i+1))
			}
		}
	})
	c.End(time.Time{})
	r := e.Close()
	t.Logf("%d notifications and %d pings: heap rose %.1f MiB in %s; %s", n, n/5, float64(peak)/(1<<20), took, r.Line())
	if peak > 20<<20 {
		t.Errorf("the heap rose %d bytes, want under 20 MiB", peak)
	}
	if r.Dropped != r.Spans || r.Spans != n/5+2 {
		t.Errorf("report %+v", r)
	}
}

func TestSignalURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:4318":            "http://127.0.0.1:4318/v1/traces",
		"http://127.0.0.1:4318/":           "http://127.0.0.1:4318/v1/traces",
		"https://c.example/otlp":           "https://c.example/otlp/v1/traces",
		"http://127.0.0.1:4318/v1/traces":  "http://127.0.0.1:4318/v1/traces",
		"http://127.0.0.1:4318/v1/metrics": "http://127.0.0.1:4318/v1/traces",
	} {
		if got, err := signalURL(in, "traces"); got != want || err != nil {
			t.Errorf("signalURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"127.0.0.1:4318", "ftp://x", "http://"} {
		if _, err := signalURL(bad, "traces"); err == nil || !strings.Contains(err.Error(), "--otlp") {
			t.Errorf("signalURL(%q) error %v", bad, err)
		}
	}
}
