package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/apps/host"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes"
)

// previewer is the MCP Apps preview: one host page server, started on the
// first preview and closed with the model. A view of a live session sends
// its requests through that session's client and its rows onto the
// client's stream (so a --record file keeps them); a view of a read-only
// source gets the read-only error, and its rows come to the log here.
type previewer struct {
	srv *host.Server

	mu      sync.Mutex
	clients map[string]*mcp.Client // by view ID; absent: a read-only source
	rows    []mcp.TransportEvent   // read-only views' rows, not yet in the log
	tools   []json.RawMessage      // the tools/list entries at the last preview
	signal  chan struct{}          // a row is waiting (capacity 1)
}

// appRowsMsg brings read-only views' rows into Update.
type appRowsMsg struct{ rows []mcp.TransportEvent }

// previewMsg says where a preview is, or why there is none.
type previewMsg struct {
	tool, url, opener string
	err               error
	noOpen            bool
}

// startPreviewer starts the host; confirm asks the person before a view's
// ui/open-link is opened (Model.ConfirmOpen, the ask modal).
func startPreviewer(ctx context.Context, dark bool, confirm func(context.Context, string) (bool, error)) (*previewer, error) {
	p := &previewer{clients: map[string]*mcp.Client{}, signal: make(chan struct{}, 1)}
	theme := "light"
	if dark {
		theme = "dark"
	}
	openLink := func(ctx context.Context, _ *host.View, url string) bool {
		if ok, err := confirm(ctx, url); !ok || err != nil {
			return false
		}
		_, err := openurl.Open(url)
		return err == nil
	}
	srv, err := host.Start(host.Options{Theme: theme, Version: mcp.ClientVersion, Forward: p.forward, OnEvent: p.onEvent, OpenLink: openLink, Tools: p.toolList})
	if err != nil {
		return nil, err
	}
	p.srv = srv
	go func() {
		<-ctx.Done()
		closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Close(closeCtx)
	}()
	return p, nil
}

// toolList is the tools the views may call, as the session listed them
// when the last preview started (the bridge judges visibility by them).
func (p *previewer) toolList() []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tools
}

func (p *previewer) client(v *host.View) *mcp.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clients[v.ID]
}

func (p *previewer) forward(ctx context.Context, v *host.View, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError, error) {
	c := p.client(v)
	if c == nil {
		return nil, nil, fmt.Errorf("%w: the view is shown from a capture or a recording, which cannot send", host.ErrReadOnly)
	}
	return host.ClientForwarder(c)(ctx, v, method, params)
}

func (p *previewer) onEvent(e host.Event) {
	if c := p.client(e.View); c != nil {
		c.Note(e.Row())
		return
	}
	p.mu.Lock()
	p.rows = append(p.rows, e.Row())
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

// waitRows is the pump of read-only views' rows; it takes them all at once.
func (p *previewer) waitRows() tea.Cmd {
	return func() tea.Msg {
		<-p.signal
		p.mu.Lock()
		rows := p.rows
		p.rows = nil
		p.mu.Unlock()
		return appRowsMsg{rows: rows}
	}
}

// templateOf is the view a tool names ("" when none).
func (m *Model) templateOf(name string) string {
	if raw := m.toolEntry(name); raw != nil {
		return apps.ParseTool(raw).URI()
	}
	return ""
}

// toolEntry is a tool's tools/list entry as the Tools pane holds it, or
// nil when it lists no such tool.
func (m *Model) toolEntry(name string) json.RawMessage {
	for _, t := range m.tools.Tools() {
		if t.Name == name {
			return t.Raw
		}
	}
	return nil
}

// callOf is the tools/call a frame of the log belongs to (the request or
// its answer), as a result the preview can open: name, arguments, the
// result when it succeeded (only withResult: the help bar asks on every
// draw, and an answer may be megabytes), the template when the tool names
// one. ok is false for any other frame.
func (m *Model) callOf(f *mcp.Frame, withResult bool) (res panes.ToolResultMsg, ok bool) {
	if f == nil {
		return res, false
	}
	req, resp := f, m.logPane.Paired(f)
	if f.Kind != mcp.KindRequest {
		req, resp = resp, f
	}
	call, ok := host.ReadCapturedCall(req, resp, withResult)
	if !ok {
		return res, false
	}
	res = panes.ToolResultMsg{Name: call.Name, Args: call.Arguments, Result: call.Result, Template: m.templateOf(call.Name)}
	if call.Result != nil {
		res.Seq, res.Response = resp.Seq, resp
	}
	return res, true
}

// previewable says whether the preview key applies to a frame of the log.
func (m *Model) previewable(f *mcp.Frame) bool {
	res, ok := m.callOf(f, false)
	return ok && res.Template != ""
}

// previewFrame opens the view of the tools/call a frame's detail shows.
// Each reason there is none is said, so the key never does nothing.
func (m *Model) previewFrame(f *mcp.Frame) tea.Cmd {
	res, ok := m.callOf(f, true)
	switch {
	case !ok:
		m.previewNote("no view to preview: this frame is not a tools/call or its answer", false)
		return nil
	case res.Template == "":
		m.previewNote("no view to preview: the listed tools name no view for "+termsafe.String(res.Name)+" (_meta.ui.resourceUri or openai/outputTemplate)", false)
		return nil
	case res.Result == nil:
		m.previewNote("no view to preview: this call of "+termsafe.String(res.Name)+" has no successful answer in the log", false)
		return nil
	}
	return m.preview(res)
}

// previewResult opens the last tool result's view: the host page is
// served on loopback, and the browser opened on it (or, with --no-open,
// its URL shown).
func (m *Model) previewResult() tea.Cmd { return m.preview(m.lastTool) }

// preview opens the view of one tool result, from the TUI's call or from
// a tools/call the log holds.
func (m *Model) preview(res panes.ToolResultMsg) tea.Cmd {
	if res.Template == "" || res.Result == nil {
		m.previewNote("this result's tool names no view (_meta.ui.resourceUri or openai/outputTemplate)", false)
		return nil
	}
	toolRaw := m.toolEntry(res.Name)
	var client *mcp.Client
	if s, ok := m.src.(interface{ Client() *mcp.Client }); ok {
		client = s.Client()
	}
	var captured json.RawMessage
	if client == nil {
		// A capture cannot read the template again: the client's own read
		// of it, if the capture holds one, is the view.
		if captured = host.CapturedRead(m.logPane.Store(), res.Template); captured == nil {
			m.previewNote("no preview: the source is read-only and holds no resources/read of "+termsafe.String(res.Template), false)
			return nil
		}
	}
	var first tea.Cmd
	if m.previewer == nil {
		p, err := startPreviewer(m.ctx, m.theme.IsDark, m.ConfirmOpen)
		if err != nil {
			m.previewNote("no preview: "+err.Error(), false)
			return nil
		}
		m.previewer = p
		first = p.waitRows()
	}
	p, ctx, noOpen := m.previewer, m.ctx, m.cfg.NoOpen
	var entries []json.RawMessage
	for _, t := range m.tools.Tools() {
		entries = append(entries, t.Raw)
	}
	p.mu.Lock()
	p.tools = entries
	p.mu.Unlock()
	m.previewNote("opening the view of "+termsafe.String(res.Name)+"…", true)
	return tea.Batch(first, func() tea.Msg {
		var v host.View
		var err error
		if client != nil {
			v, err = host.ReadView(ctx, client, toolRaw, res.Args, res.Result, nil)
		} else {
			v, err = host.NewView(toolRaw, res.Args, res.Result, nil, captured)
		}
		if err != nil {
			return previewMsg{tool: res.Name, err: err}
		}
		view := p.srv.Add(v)
		if client != nil {
			p.mu.Lock()
			p.clients[view.ID] = client
			p.mu.Unlock()
		}
		if noOpen {
			return previewMsg{tool: res.Name, url: view.URL, noOpen: true}
		}
		opener, err := openurl.Open(view.URL)
		return previewMsg{tool: res.Name, url: view.URL, opener: opener, err: err}
	})
}

// previewNote answers the preview key in the status line; the answer
// shows over how a recorded server ended, as the key was just pressed.
func (m *Model) previewNote(s string, ok bool) {
	m.setNote(s, ok)
	m.noteOverExit = true
}

// showPreview says where the view is.
func (m *Model) showPreview(msg previewMsg) {
	name := termsafe.String(msg.tool)
	switch {
	case msg.url == "" && msg.err != nil:
		m.previewNote("no preview of "+name+": "+msg.err.Error(), false)
	case msg.err != nil:
		m.previewNote("the view of "+name+" is at "+msg.url+" (not opened: "+msg.err.Error()+")", false)
	case msg.noOpen:
		m.previewNote("the view of "+name+" is at "+msg.url, true)
	default:
		m.previewNote("the view of "+name+" is open in the browser ("+msg.opener+") at "+msg.url, true)
	}
}
