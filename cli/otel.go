package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/telemetry"
)

// otelFlags are the OpenTelemetry export's flags (docs/otel.md), the same
// on every command that talks to a server or watches one.
type otelFlags struct {
	endpoint  string
	content   bool
	propagate bool
}

func (f *otelFlags) register(fs *pflag.FlagSet, own bool) {
	fs.StringVar(&f.endpoint, "otlp", "", "send the session's spans and metrics to this OpenTelemetry collector's OTLP HTTP URL (e.g. http://127.0.0.1:4318; the OTEL_EXPORTER_OTLP_* variables work too, OTEL_SDK_DISABLED=true turns export off)")
	fs.BoolVar(&f.content, "otlp-content", false, "with --otlp: add tool arguments and results to the spans (gen_ai.tool.call.arguments and .result), secrets redacted")
	if own {
		fs.BoolVar(&f.propagate, "propagate", false, "with --otlp: put a W3C traceparent into params._meta of every request mcpscope sends, so a server that traces joins the trace")
	}
}

// waitForCollector makes every export wait, before the command connects,
// for the collector's answer to the exporter's probe. Tests set it: a
// command on the demo server takes a few milliseconds, less than a loaded
// machine may take to hear from a healthy collector, whose spans would
// then be given up as a silent one's.
var waitForCollector = false

func newExporter(ctx context.Context, cfg telemetry.Config) (*telemetry.Exporter, error) {
	e, err := telemetry.New(ctx, cfg)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if waitForCollector {
		<-e.Probed()
	}
	return e, nil
}

// otelRun is one command's export: nil when none was asked for.
type otelRun struct {
	e       *telemetry.Exporter
	c       *telemetry.Conversation
	started time.Time
}

// start begins the export for a command's connection to t, when --otlp or
// an OTLP endpoint variable asks for one.
func (f *otelFlags) start(ctx context.Context, t *target) (*otelRun, error) {
	if !telemetry.Requested(f.endpoint, nil) {
		return nil, nil
	}
	e, err := newExporter(ctx, telemetry.Config{Endpoint: f.endpoint, Content: f.content})
	if err != nil {
		return nil, err
	}
	return &otelRun{e: e, c: e.Conversation(conversationOptions(t)), started: time.Now()}, nil
}

func conversationOptions(t *target) telemetry.Options {
	o := telemetry.Options{Transport: t.transport.Name()}
	switch tr := t.transport.(type) {
	case *mcp.HTTPTransport:
		o.URL = tr.URL
	case *mcp.SSETransport:
		o.URL = tr.URL
	case *mcp.WebSocketTransport:
		o.URL = tr.URL
	}
	return o
}

// hook makes the client's events go to the export too (after whatever
// OnEvent already does), and with --propagate its requests carry the
// trace.
func (r *otelRun) hook(opts *mcp.Options, propagate bool) {
	if r == nil {
		return
	}
	prev := opts.OnEvent
	opts.OnEvent = func(ev mcp.Event) {
		if prev != nil {
			prev(ev)
		}
		r.c.Observe(ev)
	}
	if propagate {
		opts.TraceMeta = func() map[string]string {
			return map[string]string{"traceparent": r.c.Traceparent()}
		}
	}
}

// finish ends the export once the client has closed (every event seen)
// and says on stderr, in one line, what a collector lost.
func (r *otelRun) finish(stderr io.Writer) {
	if r == nil {
		return
	}
	r.c.End(time.Time{})
	if line := r.e.Close().Line(); line != "" {
		_, _ = fmt.Fprintln(stderr, "mcpscope: "+termsafe.String(line))
	}
}

// tuiExport is the TUI's export: one conversation per connection, the
// previous one ended when a reconnect makes the next.
type tuiExport struct {
	e   *telemetry.Exporter
	t   *target
	cur *otelRun
}

// startTUI begins the TUI's export (nil without one). The first failed
// export is a row of the log, through notices; the count of dropped spans
// is said after the UI ends.
func (f *otelFlags) startTUI(ctx context.Context, t *target, notices chan<- mcp.TransportEvent) (*tuiExport, error) {
	if !telemetry.Requested(f.endpoint, nil) {
		return nil, nil
	}
	e, err := newExporter(ctx, telemetry.Config{Endpoint: f.endpoint, Content: f.content, OnFailure: func(err error) {
		select {
		case notices <- mcp.TransportEvent{Time: time.Now(), Kind: "otlp",
			Summary: "OpenTelemetry export failed (spans are dropped; the count is said at exit): " + err.Error(), Err: err}:
		default:
		}
	}})
	if err != nil {
		return nil, err
	}
	return &tuiExport{e: e, t: t}, nil
}

// next is the export of a new connection (nil without export).
func (x *tuiExport) next() *otelRun {
	if x == nil {
		return nil
	}
	if x.cur != nil {
		x.cur.c.End(time.Time{})
	}
	x.cur = &otelRun{e: x.e, c: x.e.Conversation(conversationOptions(x.t)), started: time.Now()}
	return x.cur
}

func (x *tuiExport) finish(stderr io.Writer) {
	if x == nil {
		return
	}
	if x.cur != nil {
		x.cur.c.End(time.Time{})
	}
	if line := x.e.Close().Line(); line != "" {
		_, _ = fmt.Fprintln(stderr, "mcpscope: "+termsafe.String(line))
	}
}

// tapExport is a tap's export: each client session its own conversation
// (an HTTP tap serves one client after another, or several at once), its
// service named after that client's clientInfo.
type tapExport struct {
	e     *telemetry.Exporter
	opt   telemetry.Options
	convs map[int]*telemetry.Conversation
}

// startTap begins a tap's export (nil without one). server names the
// tapped server (--name, or the command's base name); url is an HTTP
// tap's upstream.
func (f *otelFlags) startTap(server, transport, url string) (*tapExport, error) {
	if !telemetry.Requested(f.endpoint, nil) {
		return nil, nil
	}
	e, err := newExporter(context.Background(), telemetry.Config{Endpoint: f.endpoint, Content: f.content})
	if err != nil {
		return nil, err
	}
	return &tapExport{e: e, convs: map[int]*telemetry.Conversation{},
		opt: telemetry.Options{Transport: transport, URL: url, Server: server, Tap: true}}, nil
}

// event is the tap recorder's OnEvent (nil without export).
func (x *tapExport) onEvent() func(mcp.Event) {
	if x == nil {
		return nil
	}
	return func(ev mcp.Event) {
		n := 0
		switch ev := ev.(type) {
		case mcp.FrameEvent:
			n = ev.Frame.ClientSession
		case mcp.TransportEvent:
			n = ev.ClientSession
		}
		c, ok := x.convs[n]
		if !ok {
			opt := x.opt
			if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Transport != "" {
				opt.Transport = fe.Frame.Transport
			}
			c = x.e.Conversation(opt)
			x.convs[n] = c
		}
		c.Observe(ev)
	}
}

// finish ends every conversation once the tap's recorder has stopped and
// says in one line on stderr what a collector lost.
func (x *tapExport) finish(stderr io.Writer) {
	if x == nil {
		return
	}
	for _, c := range x.convs {
		c.End(time.Time{})
	}
	if line := x.e.Close().Line(); line != "" {
		_, _ = fmt.Fprintln(stderr, "mcpscope tap: "+termsafe.String(line))
	}
}

// exportOTLP sends a session file's events as spans with their recorded
// times: to out as OTLP/JSON lines, or (out nil) to --otlp URL. A capture
// of an HTTP tap is one trace per client session, as the live tap sends
// it.
func exportOTLP(f *exportFlags, h record.Entry, events []mcp.Event, out io.Writer, stderr io.Writer) error {
	cfg := telemetry.Config{Endpoint: f.otel.endpoint, Content: f.otel.content}
	if out != nil {
		cfg.JSON = out
	}
	e, err := telemetry.New(context.Background(), cfg)
	if err != nil {
		return withCode(exitUsage, err)
	}
	// A file has no time budget: the collector's answer to the probe is
	// waited for (up to its timeout), so that a collector that is there
	// gets every span.
	<-e.Probed()
	opt := telemetry.Options{URL: h.URL}
	for _, ev := range events {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			opt.Transport = fe.Frame.Transport
			break
		}
	}
	if h.Recorder == record.RecorderTap {
		opt.Tap = true
		opt.Server = recordedTapName(h)
	}
	x := &tapExport{e: e, convs: map[int]*telemetry.Conversation{}, opt: opt}
	observe := x.onEvent()
	for _, ev := range events {
		observe(ev)
	}
	for _, c := range x.convs {
		c.End(time.Time{})
	}
	r := e.Close()
	if line := r.Line(); line != "" {
		if out != nil {
			return withCode(exitUsage, errors.New(line))
		}
		_, _ = fmt.Fprintln(stderr, "mcpscope: "+termsafe.String(line))
		return withCode(exitConnection, errors.New("the collector did not take every span"))
	}
	return nil
}

// recordedTapName is the tapped server's name as a live tap gives it
// (tapServerName), from a capture's header.
func recordedTapName(h record.Entry) string {
	name := h.Target
	if h.URL != "" && name == h.URL || len(h.Command) > 0 && name == strings.Join(h.Command, " ") {
		name = ""
	}
	return tapServerName(name, h.URL, h.Command)
}

// tapServerName is the tapped server's name in a tap's spans: --name, or
// the URL's host, or the command's base name.
func tapServerName(name, target string, command []string) string {
	switch {
	case name != "":
		return name
	case target != "":
		if u, err := url.Parse(target); err == nil && u.Host != "" {
			return u.Host
		}
		return target
	case len(command) > 0:
		return filepath.Base(command[0])
	}
	return ""
}
