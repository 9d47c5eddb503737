package telemetry

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config says where spans go and what they carry.
type Config struct {
	// Endpoint is --otlp: the collector's OTLP HTTP base URL
	// (http://127.0.0.1:4318); /v1/traces and /v1/metrics are added unless
	// the path already names them. Empty: the OTEL_EXPORTER_OTLP_*
	// variables say where, as the SDK reads them.
	Endpoint string
	// Content adds tool arguments and results (--otlp-content), redacted.
	Content bool
	// Service is the service name when neither OTEL_SERVICE_NAME nor a
	// tapped client's clientInfo gives one; "mcpscope" when empty.
	Service string
	// JSON, when set, receives the spans as OTLP/JSON, one
	// ExportTraceServiceRequest a line, instead of a collector (export
	// --format otlp). Nothing is dropped then: the queue waits.
	JSON io.Writer
	// OnFailure, when set, is told of the first export that failed, once,
	// from the exporter's goroutine (the TUI's log row); Close says the
	// count.
	OnFailure func(error)
	// Getenv reads the environment (tests); os.Getenv when nil.
	Getenv func(string) string
}

// Requested says whether export was asked for: --otlp, or an OTLP
// endpoint variable, unless OTEL_SDK_DISABLED is true.
func Requested(endpoint string, getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	if Disabled(getenv) {
		return false
	}
	return endpoint != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Disabled is OTEL_SDK_DISABLED=true, which the specification makes turn
// every signal off. The Go SDK does not read it itself.
func Disabled(getenv func(string) string) bool {
	return strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true")
}

// The conventions' histogram buckets, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Exporter owns the SDK's providers (one per service: a tap names its
// service after the client) and the bounded queue in front of the OTLP
// exporter. It is safe for concurrent use.
type Exporter struct {
	cfg     Config
	getenv  func(string) string
	started time.Time
	q       *queue
	ids     *idGenerator

	metricExp sdkmetric.Exporter // nil when metrics are off

	mu        sync.Mutex
	providers map[string]*provider
	closed    bool
	// probed is closed when the probe of the collector has its answer.
	probed chan struct{}
	// metricErr is the first failure the SDK reported outside a span
	// export (a metric export); said once at Close.
	metricErr error
}

type provider struct {
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	tracer trace.Tracer
	opDur  metric.Float64Histogram
	sesDur metric.Float64Histogram
}

// New makes an exporter. It connects to nothing yet: the first span
// exported does.
func New(ctx context.Context, cfg Config) (*Exporter, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if cfg.Service == "" {
		cfg.Service = "mcpscope"
	}
	e := &Exporter{cfg: cfg, getenv: getenv, started: time.Now(), ids: newIDGenerator(), providers: map[string]*provider{}}
	// The SDK says its failures through a global handler and logger that
	// print to stderr, which must stay quiet while the TUI runs: the
	// queue counts what a failed export lost, and Close says it once.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(e.sdkError))
	otel.SetLogger(logr.Discard())

	opts := []otlptracehttp.Option{
		// A refused export fails at once instead of retrying for a minute
		// behind the queue: what it carried is counted as dropped.
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
	}
	if cfg.JSON != nil {
		opts = append(opts, otlptracehttp.WithEndpointURL("http://otlp-json.invalid/v1/traces"),
			otlptracehttp.WithCompression(otlptracehttp.NoCompression),
			otlptracehttp.WithHTTPClient(jsonClient(cfg.JSON)))
	} else if cfg.Endpoint != "" {
		u, err := signalURL(cfg.Endpoint, "traces")
		if err != nil {
			return nil, err
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	e.q = newQueue(exp, cfg.JSON != nil)
	e.q.onFailure = cfg.OnFailure
	if cfg.JSON == nil {
		e.probed = make(chan struct{})
		go e.probe(cfg.Endpoint)
	}

	if cfg.JSON == nil && !strings.EqualFold(getenv("OTEL_METRICS_EXPORTER"), "none") {
		mopts := []otlpmetrichttp.Option{otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false})}
		if cfg.Endpoint != "" {
			u, err := signalURL(cfg.Endpoint, "metrics")
			if err != nil {
				return nil, err
			}
			mopts = append(mopts, otlpmetrichttp.WithEndpointURL(u))
		}
		mexp, err := otlpmetrichttp.New(ctx, mopts...)
		if err != nil {
			return nil, fmt.Errorf("OTLP metric exporter: %w", err)
		}
		e.metricExp = mexp
	}
	return e, nil
}

// probe asks the collector, once at the start, whether it answers at all:
// an empty export, whose answer (any HTTP status: a collector that wants
// credentials is there too) tells Close that the last spans are worth
// waiting for. A collector that is down or silent is not waited for.
func (e *Exporter) probe(endpoint string) {
	defer close(e.probed)
	target := ""
	switch {
	case endpoint != "":
		target, _ = signalURL(endpoint, "traces")
	case e.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "":
		target = e.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	case e.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "":
		target, _ = signalURL(e.getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "traces")
	}
	if target == "" {
		return
	}
	ctx, cancel := context.WithTimeout(e.q.runCtx, flushWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, http.NoBody)
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	_ = resp.Body.Close()
	e.q.answered.Store(true)
}

// Probed is closed once the probe of the collector has its answer (or
// gave up): tests of quick commands wait for it, so that a loaded machine
// does not make a healthy collector look silent.
func (e *Exporter) Probed() <-chan struct{} {
	if e.probed == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return e.probed
}

// signalURL is the URL a signal is sent to for a base URL given with
// --otlp.
func signalURL(base, signal string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--otlp %q: want the collector's OTLP HTTP URL, such as http://127.0.0.1:4318", base)
	}
	path := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(path, "/v1/traces") && !strings.HasSuffix(path, "/v1/metrics") {
		path += "/v1/" + signal
	} else {
		path = path[:strings.LastIndex(path, "/")+1] + signal
	}
	u.Path = path
	return u.String(), nil
}

func (e *Exporter) sdkError(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.metricErr == nil && err != nil {
		e.metricErr = err
	}
}

// providerFor is the providers of one service (created on first use),
// with the tapped server's name as a resource attribute when known.
func (e *Exporter) providerFor(service, server string) *provider {
	key := service + "\x00" + server
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.providers[key]; ok {
		return p
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", service)}
	if server != "" {
		attrs = append(attrs, attribute.String(attrServerName, server))
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the names
	// mcpscope picks, as the SDK's own detector orders them.
	res, err := resource.New(context.Background(), resource.WithTelemetrySDK(), resource.WithAttributes(attrs...), resource.WithFromEnv())
	if err != nil {
		// A malformed OTEL_RESOURCE_ATTRIBUTES still leaves what parsed.
		e.metricErr = errors.Join(e.metricErr, fmt.Errorf("resource: %w", err))
	}
	p := &provider{tp: sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(e.q),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(e.ids),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
	)}
	p.tracer = p.tp.Tracer("github.com/mcpscope/mcpscope/mcp/telemetry")
	var meter metric.Meter
	if e.metricExp != nil {
		p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exporterOnce{e.metricExp})))
		meter = p.mp.Meter("github.com/mcpscope/mcpscope/mcp/telemetry")
	} else {
		meter = noop.NewMeterProvider().Meter("")
	}
	p.opDur, _ = meter.Float64Histogram("mcp.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	p.sesDur, _ = meter.Float64Histogram("mcp.client.session.duration", metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP session as observed on the MCP client."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	e.providers[key] = p
	return p
}

// Report is what an export came to, for the one line said at the end.
type Report struct {
	Spans    int64 // spans ended
	Exported int64 // spans the collector accepted (or written as JSON)
	Dropped  int64 // spans lost: the queue was full, or the export failed or was still waiting
	// Err is the first failed export's error, or why the last ones were
	// abandoned (the collector never answered).
	Err error
	// MetricsErr is the first failure of the metrics' export.
	MetricsErr error
}

// Line is the one line to say about a report, "" when every span went.
func (r Report) Line() string {
	var parts []string
	if r.Dropped > 0 {
		s := "spans"
		if r.Dropped == 1 {
			s = "span"
		}
		msg := fmt.Sprintf("OpenTelemetry export: %d of %d %s dropped", r.Dropped, r.Spans, s)
		if r.Err != nil {
			msg += ": " + r.Err.Error()
		}
		parts = append(parts, msg)
	}
	if r.MetricsErr != nil {
		parts = append(parts, "OpenTelemetry metrics not exported (OTEL_METRICS_EXPORTER=none turns them off): "+r.MetricsErr.Error())
	}
	return strings.Join(parts, "; ")
}

// flushWait is how long Close waits for a collector that has answered
// before; lateShare the share of the run it waits for one that has not
// answered yet (down, refusing or silent), so that such a collector costs
// a command at most a fiftieth of its time, well inside the 5% it may.
const (
	flushWait = 5 * time.Second
	lateShare = 50
)

// Close ends the export: the spans still queued are sent, waiting as long
// as the collector deserves (flushWait for one that answered before, a
// fiftieth of the run for one that never did), and the rest counted as
// dropped. Conversations must have ended
// first.
func (e *Exporter) Close() Report {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return Report{}
	}
	e.closed = true
	providers := make([]*provider, 0, len(e.providers))
	for _, p := range e.providers {
		providers = append(providers, p)
	}
	e.mu.Unlock()

	wait := e.q.patience(time.Since(e.started))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r := e.q.shutdown(ctx)
	for _, p := range providers {
		if p.mp == nil {
			continue
		}
		mctx := ctx
		if !e.q.answered.Load() {
			// Metrics go where spans go: a collector that never took a
			// span gets no wait for them either.
			c, cancel := context.WithCancel(ctx)
			cancel()
			mctx = c
		}
		if err := p.mp.Shutdown(mctx); err != nil && e.q.answered.Load() {
			e.sdkError(err)
		}
	}
	e.mu.Lock()
	if e.q.answered.Load() || e.cfg.JSON != nil {
		r.MetricsErr = e.metricErr
	}
	e.mu.Unlock()
	return r
}

// exporterOnce keeps a metric exporter alive across the providers'
// shutdowns: each provider shuts its reader down, and the exporter is
// shared.
type exporterOnce struct{ sdkmetric.Exporter }

func (exporterOnce) Shutdown(context.Context) error { return nil }

// idGenerator makes random ids, or the ones a context asks for: a
// conversation's trace id chosen before its first span, a request's span
// id already sent in its traceparent (--propagate).
type idGenerator struct{}

func newIDGenerator() *idGenerator { return &idGenerator{} }

type wantIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

type wantKey struct{}

func withIDs(ctx context.Context, t trace.TraceID, s trace.SpanID) context.Context {
	return context.WithValue(ctx, wantKey{}, wantIDs{t, s})
}

func (g *idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	w, _ := ctx.Value(wantKey{}).(wantIDs)
	if !w.trace.IsValid() {
		w.trace = randomTraceID()
	}
	if !w.span.IsValid() {
		w.span = randomSpanID()
	}
	return w.trace, w.span
}

func (g *idGenerator) NewSpanID(ctx context.Context, t trace.TraceID) trace.SpanID {
	if w, ok := ctx.Value(wantKey{}).(wantIDs); ok && w.span.IsValid() && w.trace == t {
		return w.span
	}
	return randomSpanID()
}

func randomTraceID() (t trace.TraceID) {
	for !t.IsValid() {
		_, _ = rand.Read(t[:])
	}
	return t
}

func randomSpanID() (s trace.SpanID) {
	for !s.IsValid() {
		_, _ = rand.Read(s[:])
	}
	return s
}
