package host

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// View is one tool call's view: the tool, its call, and the template
// resource that renders it.
type View struct {
	ID  string // set by Add
	URL string // the host page's URL for this view, set by Add

	Tool      Tool
	Arguments json.RawMessage // the call's arguments (an object); {} when nil
	Result    json.RawMessage // the CallToolResult; nil while the call runs
	Cancelled string          // why the call ended without a result, when it did

	Resource Resource

	settled chan struct{} // closed once Result or Cancelled is set
	tl      *timeline     // the view's own copy of its events
}

// maxTimeline bounds the events a view keeps for Events and WaitFor (the
// OnEvent callback sees them all).
const maxTimeline = 10000

// timeline is a view's events, and a broadcast when one is added.
type timeline struct {
	mu      sync.Mutex
	events  []Event
	dropped int
	changed chan struct{}
}

func (t *timeline) add(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.events) < maxTimeline {
		t.events = append(t.events, e)
	} else {
		t.dropped++
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// Events is what the view's bridge and page did so far, in order (the
// first 10000 events).
func (v *View) Events() []Event {
	v.tl.mu.Lock()
	defer v.tl.mu.Unlock()
	return append([]Event(nil), v.tl.events...)
}

// WaitFor waits until an event satisfies cond and returns it.
func (v *View) WaitFor(ctx context.Context, cond func(Event) bool) (Event, error) {
	seen := 0
	for {
		v.tl.mu.Lock()
		events, changed := v.tl.events[seen:], v.tl.changed
		seen = len(v.tl.events)
		v.tl.mu.Unlock()
		for _, e := range events {
			if cond(e) {
				return e, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Method is a bridge message's method ("" for an answer or another kind).
func (e Event) Method() string {
	if e.Kind != KindBridge {
		return ""
	}
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(e.Raw, &m)
	return m.Method
}

// Tool is the tool a view belongs to.
type Tool struct {
	Name       string
	Definition json.RawMessage // the tool as tools/list gave it (hostContext.toolInfo.tool)
	Visibility []string        // _meta.ui.visibility; ["model","app"] when empty
}

// Resource is a view's template as resources/read returned it.
type Resource struct {
	URI  string
	MIME string // apps.MIMEType or apps.MIMETypeSkybridge
	HTML string
	// CSP is the Content-Security-Policy header the view runs under: the
	// one built from the resource's _meta.ui.csp, or the spec's default.
	CSP string
	// CSPDomains and Permissions are the resource's _meta.ui.csp and
	// .permissions, passed to the sandbox as the spec's
	// sandbox-resource-ready carries them (nil when absent).
	CSPDomains  json.RawMessage
	Permissions json.RawMessage
}

// Skybridge reports whether the view is a ChatGPT widget (window.openai).
func (r Resource) Skybridge() bool { return r.MIME == apps.MIMETypeSkybridge }

// Kind is what an Event is.
type Kind string

// The kinds of Event.
const (
	KindBridge  Kind = "bridge"  // a JSON-RPC message between the view and the host
	KindCSP     Kind = "csp"     // a securitypolicyviolation in the view
	KindConsole Kind = "console" // console.error or an uncaught exception in the view
	KindLoad    Kind = "load"    // a script, style, image or frame that failed to load
	KindProblem Kind = "problem" // the host's own finding: no ui/initialize, a request that failed
)

// Event is one row of the view's timeline.
type Event struct {
	View *View
	Time time.Time
	Kind Kind
	// FromView is true for what the view (or its sandbox) sent, false for
	// what the host sent it.
	FromView bool
	// Via says who sent a bridge message on the view's side when it was
	// not the view's own code: "sandbox" (the sandbox page) or
	// "window.openai" (the ChatGPT shim, for a skybridge widget).
	Via string
	// Raw is the message exactly as serialised on the page (bridge), the
	// page's report (csp, console, load), or the host's problem as JSON.
	Raw json.RawMessage
	// Text is a one-line summary, terminal controls neutralised.
	Text string
	// Rule names a KindProblem's finding (RuleNoInitialize, ...).
	Rule string
}

// The host's findings about a view (Event.Rule of a KindProblem); the
// names are check's rules (report.PreviewRules) where check judges them.
const (
	RuleNoInitialize  = "apps/view-no-initialize"     // no ui/initialize within InitTimeout of loading
	RuleRequestFailed = "apps/view-request-failed"    // a view's request the server or mcpscope failed
	RuleBridge        = "apps/view-bridge-error"      // a message the host cannot use, a request not answered
	RuleReadOnly      = "apps/view-read-only"         // a view's request on a read-only source
	RuleOpenLink      = "apps/view-open-link-refused" // a link that is not http(s)
	RuleHiddenTool    = "apps/view-calls-hidden-tool" // a tools/call of a tool whose visibility excludes apps
)

// pageReport is what the sandbox page tells the host besides bridge messages.
type pageReport struct {
	Type        string `json:"type"` // csp, console, error, load
	Level       string `json:"level,omitempty"`
	Text        string `json:"text,omitempty"`
	BlockedURI  string `json:"blockedURI,omitempty"`
	Directive   string `json:"directive,omitempty"`
	Disposition string `json:"disposition,omitempty"`
	SourceFile  string `json:"sourceFile,omitempty"`
	Line        int    `json:"line,omitempty"`
	URL         string `json:"url,omitempty"`
	Tag         string `json:"tag,omitempty"`
}

// summary is a bridge message's one line: its method, or that it answers one.
func summary(raw json.RawMessage) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return "not JSON-RPC"
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		return termsafe.String(m.Method) + " #" + termsafe.String(string(m.ID))
	case m.Method != "":
		return termsafe.String(m.Method)
	case m.Error != nil:
		return fmt.Sprintf("error #%s %d %s", termsafe.String(string(m.ID)), m.Error.Code, termsafe.String(m.Error.Message))
	case len(m.ID) > 0:
		return "result #" + termsafe.String(string(m.ID))
	}
	return "not JSON-RPC"
}

// text is a pageReport's one line.
func (r pageReport) text() string {
	switch r.Type {
	case "csp":
		return termsafe.String(fmt.Sprintf("CSP blocked %s (%s)", r.BlockedURI, r.Directive))
	case "load":
		return termsafe.String(fmt.Sprintf("failed to load %s <%s>", r.URL, strings.ToLower(r.Tag)))
	case "error":
		where := ""
		if r.SourceFile != "" {
			where = fmt.Sprintf(" (%s:%d)", r.SourceFile, r.Line)
		}
		return termsafe.String("uncaught " + r.Text + where)
	}
	return termsafe.String("console." + r.Level + ": " + r.Text)
}

func (r pageReport) kind() Kind {
	switch r.Type {
	case "csp":
		return KindCSP
	case "load":
		return KindLoad
	}
	return KindConsole
}

// maxHTML bounds a view's HTML: well above what a host accepts, so that a
// template mcpscope refuses is one no host would render either.
const maxHTML = 16 << 20

// NewView builds the view of one call from the wire: the tool's tools/list
// entry, the call's arguments and result (nil while it runs), the
// template's resources/list entry (nil when the server does not list it)
// and the resources/read result of the template. The template is the one
// the tool names (apps.ToolView.URI); its content item is the one of that
// URI, or the only one. An error says what is missing, never a blank view.
func NewView(toolEntry, arguments, result, listing, read json.RawMessage) (View, error) {
	tv := apps.ParseTool(toolEntry)
	if !tv.HasView() {
		return View{}, errors.New("the tool names no template (_meta.ui.resourceUri or openai/outputTemplate)")
	}
	var tool struct {
		Name string `json:"name"`
	}
	json.Unmarshal(toolEntry, &tool) //nolint:errcheck // ParseTool read it already
	uri := tv.URI()
	var rr struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(read, &rr); err != nil {
		return View{}, fmt.Errorf("the resources/read result of %s is not readable: %w", termsafe.String(uri), err)
	}
	var item json.RawMessage
	for _, c := range rr.Contents {
		var head struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(c, &head) == nil && head.URI == uri {
			item = c
			break
		}
	}
	if item == nil && len(rr.Contents) == 1 {
		item = rr.Contents[0]
	}
	if item == nil {
		return View{}, fmt.Errorf("resources/read of %s returned no content for that URI", termsafe.String(uri))
	}
	var c struct {
		MIME string  `json:"mimeType"`
		Text *string `json:"text"`
		Blob *string `json:"blob"`
	}
	if err := json.Unmarshal(item, &c); err != nil {
		return View{}, fmt.Errorf("the content of %s is not readable: %w", termsafe.String(uri), err)
	}
	var html string
	switch {
	case c.Text != nil:
		html = *c.Text
	case c.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*c.Blob)
		if err != nil {
			return View{}, fmt.Errorf("the blob of %s is not base64: %w", termsafe.String(uri), err)
		}
		html = string(b)
	default:
		return View{}, fmt.Errorf("the content of %s has neither text nor blob", termsafe.String(uri))
	}
	if len(html) > maxHTML {
		return View{}, fmt.Errorf("the HTML of %s is %d bytes, more than the %d mcpscope renders", termsafe.String(uri), len(html), maxHTML)
	}
	mime := c.MIME
	if mime == "" {
		mime = tv.Dialect().MIMEType()
	}
	meta := apps.Effective(apps.ParseResource(listing), apps.ParseResource(item))
	v := View{
		Tool:      Tool{Name: tool.Name, Definition: toolEntry, Visibility: tv.Visibility},
		Arguments: arguments,
		Result:    result,
		Resource:  Resource{URI: uri, MIME: mime, HTML: html, CSP: meta.CSP.Header()},
	}
	if meta.Raw != nil {
		var ui struct {
			CSP         json.RawMessage `json:"csp"`
			Permissions json.RawMessage `json:"permissions"`
		}
		if json.Unmarshal(meta.Raw, &ui) == nil {
			v.Resource.CSPDomains, v.Resource.Permissions = ui.CSP, ui.Permissions
		}
	}
	return v, nil
}

// Row is the event as a row of mcpscope's timeline (mcp.Client.Note): a
// TransportEvent of kind "app" whose summary names the view and the
// message, with the message exactly as sent in the "message" field. A
// report or a problem carries its text as the row's error.
func (e Event) Row() mcp.TransportEvent {
	arrow := "host → view: "
	if e.FromView {
		arrow = "view → host: "
	}
	who := termsafe.String(e.View.Tool.Name)
	tr := mcp.TransportEvent{Time: e.Time, Kind: "app"}
	switch e.Kind {
	case KindBridge:
		tr.Summary = who + " " + arrow + e.Text
		if e.Via != "" {
			tr.Summary += " (via " + e.Via + ")"
		}
	case KindProblem:
		tr.Summary = who + " view: mcpscope's host"
		tr.Err = errors.New(e.Text)
	default:
		tr.Summary = who + " view: " + string(e.Kind)
		tr.Err = errors.New(e.Text)
	}
	tr.Fields = []mcp.Field{{Key: "view", Value: e.View.Resource.URI}, {Key: "kind", Value: string(e.Kind)}}
	if e.Via != "" {
		tr.Fields = append(tr.Fields, mcp.Field{Key: "via", Value: e.Via})
	}
	if e.Rule != "" {
		tr.Fields = append(tr.Fields, mcp.Field{Key: "rule", Value: e.Rule})
	}
	tr.Fields = append(tr.Fields, mcp.Field{Key: "message", Value: string(e.Raw)})
	return tr
}
