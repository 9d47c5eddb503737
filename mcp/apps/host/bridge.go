package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// maxMessage bounds one message from the page: a view's tools/call
// arguments or a report. A view's HTML travels the other way.
const maxMessage = 8 << 20

// ProtocolVersion is the MCP Apps version the host speaks.
const ProtocolVersion = "2026-01-26"

// JSON-RPC error codes the host answers with.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeReadOnly       = -32000
)

// bridge is one connection of the host page for one view.
type bridge struct {
	s *Server
	v *View
	c *websocket.Conn

	writeMu sync.Mutex // one writer on c; events are published under it, in order

	mu          sync.Mutex
	nextID      int
	pending     map[string]chan json.RawMessage // host→view requests awaiting answers
	initialized bool                            // ui/initialize arrived
	resultSent  bool
	displayMode string
	done        chan struct{}
}

// envelope is a message between the host page and mcpscope.
type envelope struct {
	From   string          `json:"from,omitempty"` // "view" or "sandbox"
	Via    string          `json:"via,omitempty"`  // "window.openai" when the shim sent it
	Msg    json.RawMessage `json:"msg,omitempty"`
	Report json.RawMessage `json:"report,omitempty"`
}

// rpc is the part of a JSON-RPC message the host routes by.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// run serves one connection until the page goes or the server closes.
func (s *Server) run(ctx context.Context, v *View, c *websocket.Conn) {
	b := &bridge{s: s, v: v, c: c, pending: map[string]chan json.RawMessage{}, displayMode: "inline", done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.Close(websocket.StatusGoingAway, "mcpscope closed the preview")
		return
	}
	s.conns[v.ID] = b
	s.mu.Unlock()
	defer func() {
		close(b.done)
		s.mu.Lock()
		if s.conns[v.ID] == b {
			delete(s.conns, v.ID)
		}
		s.mu.Unlock()
		c.CloseNow() //nolint:errcheck // already closing
	}()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var e envelope
		if err := json.Unmarshal(data, &e); err != nil {
			b.problem(RuleBridge, fmt.Sprintf("the host page sent what mcpscope cannot read: %v", err))
			continue
		}
		switch {
		case len(e.Report) > 0:
			var r pageReport
			if json.Unmarshal(e.Report, &r) != nil {
				b.problem(RuleBridge, "the sandbox sent an unreadable report")
				continue
			}
			b.publish(Event{Kind: r.kind(), FromView: true, Raw: e.Report, Text: r.text()})
		case len(e.Msg) > 0:
			via := e.Via
			if e.From == "sandbox" {
				via = "sandbox"
			}
			b.fromView(ctx, e.Msg, via)
		}
	}
}

// publish hands an event to OnEvent, stamped.
func (b *bridge) publish(e Event) {
	e.View = b.v
	e.Time = time.Now()
	if e.Text == "" && e.Kind == KindBridge {
		e.Text = summary(e.Raw)
	}
	b.v.tl.add(e)
	if b.s.opts.OnEvent != nil {
		b.s.opts.OnEvent(e)
	}
}

// problem publishes the host's own finding about the view.
func (b *bridge) problem(rule, text string) {
	raw, _ := json.Marshal(map[string]string{"rule": rule, "problem": text})
	b.publish(Event{Kind: KindProblem, Raw: raw, Text: termsafe.String(text), Rule: rule})
}

// send publishes msg as the host's and posts it to the view. A message
// that cannot be encoded (a server's result that is not JSON) is a problem
// row instead.
func (b *bridge) send(v any) {
	msg, err := json.Marshal(v)
	if err != nil {
		b.problem(RuleBridge, "mcpscope could not encode a message for the view: "+err.Error())
		return
	}
	b.writeMu.Lock()
	defer b.writeMu.Unlock()
	b.publish(Event{Kind: KindBridge, Raw: msg})
	b.write(map[string]json.RawMessage{"post": msg})
}

// command tells the host page to do something to the frame (resize).
func (b *bridge) command(name string, v any) {
	raw, _ := json.Marshal(v)
	b.writeMu.Lock()
	defer b.writeMu.Unlock()
	b.write(map[string]json.RawMessage{name: raw})
}

func (b *bridge) write(v any) {
	data, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b.c.Write(ctx, websocket.MessageText, data) //nolint:errcheck // a gone page ends the read loop
}

func (b *bridge) notify(method string, params any) {
	b.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (b *bridge) answer(id json.RawMessage, result any) {
	b.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (b *bridge) fail(id json.RawMessage, code int, message string, data json.RawMessage) {
	e := map[string]any{"code": code, "message": message}
	if len(data) > 0 {
		e["data"] = data
	}
	b.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
}

// request sends a host→view request and waits for its answer.
func (b *bridge) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := strconv.Itoa(b.nextID)
	ch := make(chan json.RawMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	defer func() { b.mu.Lock(); delete(b.pending, id); b.mu.Unlock() }()
	b.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	select {
	case r := <-ch:
		return r, nil
	case <-b.done:
		return nil, errors.New("the page closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// teardown asks the view to tear down, waits for its answer (or ctx) and
// closes the connection.
func (b *bridge) teardown(ctx context.Context) {
	if _, err := b.request(ctx, "ui/resource-teardown", map[string]any{}); err != nil {
		b.problem(RuleBridge, "ui/resource-teardown was not answered: "+err.Error())
	}
	b.c.Close(websocket.StatusNormalClosure, "mcpscope closed the preview") //nolint:errcheck // closing anyway
}

// fromView logs and handles one message of the view's side.
func (b *bridge) fromView(ctx context.Context, raw json.RawMessage, via string) {
	b.writeMu.Lock()
	b.publish(Event{Kind: KindBridge, FromView: true, Via: via, Raw: raw})
	b.writeMu.Unlock()
	var m rpc
	if err := json.Unmarshal(raw, &m); err != nil {
		b.problem(RuleBridge, "the view sent a message that is not JSON: "+err.Error())
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method == "" && hasID: // an answer to the host's request
		b.mu.Lock()
		ch := b.pending[string(m.ID)]
		b.mu.Unlock()
		if ch == nil {
			b.problem(RuleBridge, "the view answered request "+termsafe.String(string(m.ID))+", which the host never sent")
			return
		}
		ch <- raw
	case m.Method != "" && hasID:
		go b.handleRequest(ctx, m)
	case m.Method != "":
		b.handleNotification(ctx, m)
	default:
		b.problem(RuleBridge, "the view sent a message that is neither a request, a notification nor an answer")
	}
}

func (b *bridge) handleNotification(ctx context.Context, m rpc) {
	switch m.Method {
	case "ui/notifications/sandbox-proxy-ready":
		b.loadResource(ctx)
	case "ui/notifications/initialized":
		go b.deliverCall(ctx)
	case "ui/notifications/size-changed":
		var p struct {
			Width  *float64 `json:"width"`
			Height *float64 `json:"height"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			b.command("resize", p)
		}
	case "ui/notifications/request-teardown":
		go b.teardown(context.Background())
	}
	// notifications/message, openai/setWidgetState and others are rows only.
}

// loadResource hands the sandbox the view's HTML and starts the wait for
// ui/initialize.
func (b *bridge) loadResource(ctx context.Context) {
	v := b.v
	params := map[string]any{"html": v.Resource.HTML, "sandbox": "allow-scripts allow-same-origin allow-forms"}
	if len(v.Resource.CSPDomains) > 0 {
		params["csp"] = v.Resource.CSPDomains
	}
	if len(v.Resource.Permissions) > 0 {
		params["permissions"] = v.Resource.Permissions
	}
	if v.Resource.Skybridge() {
		params["openai"] = b.openaiGlobals()
	}
	b.notify("ui/notifications/sandbox-resource-ready", params)
	go func() {
		t := time.NewTimer(b.s.opts.InitTimeout)
		defer t.Stop()
		select {
		case <-t.C:
		case <-b.done:
			return
		case <-ctx.Done():
			return
		}
		b.mu.Lock()
		ok := b.initialized
		b.mu.Unlock()
		if !ok {
			b.problem(RuleNoInitialize, fmt.Sprintf("the view sent no ui/initialize within %s of loading", b.s.opts.InitTimeout))
		}
	}()
}

// openaiGlobals are window.openai's values for a skybridge widget, set
// before its scripts run, as ChatGPT does.
func (b *bridge) openaiGlobals() map[string]any {
	v := b.v
	g := map[string]any{"toolInput": args(v.Arguments), "theme": b.theme(), "locale": b.s.opts.Locale,
		"displayMode": "inline", "maxHeight": 800, "widgetState": nil}
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		Meta              json.RawMessage `json:"_meta"`
	}
	if v.Result != nil && json.Unmarshal(v.Result, &r) == nil {
		g["toolOutput"], g["toolResponseMetadata"] = orNull(r.StructuredContent), orNull(r.Meta)
	} else {
		g["toolOutput"], g["toolResponseMetadata"] = nil, nil
	}
	return g
}

// deliverCall sends tool-input, then tool-result or tool-cancelled once
// the call has settled.
func (b *bridge) deliverCall(ctx context.Context) {
	b.mu.Lock()
	if b.resultSent {
		b.mu.Unlock()
		return
	}
	b.resultSent = true
	b.mu.Unlock()
	b.notify("ui/notifications/tool-input", map[string]any{"arguments": args(b.v.Arguments)})
	select {
	case <-b.v.settled:
	case <-b.done:
		return
	case <-ctx.Done():
		return
	}
	if b.v.Result != nil {
		b.notify("ui/notifications/tool-result", b.v.Result)
	} else {
		b.notify("ui/notifications/tool-cancelled", map[string]any{"reason": b.v.Cancelled})
	}
}

func (b *bridge) theme() string {
	if b.s.opts.Theme == "light" {
		return "light"
	}
	return "dark"
}

// hostContext is what ui/initialize answers about the host.
func (b *bridge) hostContext() map[string]any {
	ctx := map[string]any{
		"theme":                 b.theme(),
		"displayMode":           b.displayMode,
		"availableDisplayModes": []string{"inline", "fullscreen", "pip"},
		"containerDimensions":   map[string]any{"maxHeight": 6000, "width": 760},
		"locale":                b.s.opts.Locale,
		"timeZone":              b.s.opts.TimeZone,
		"platform":              "web",
		"userAgent":             "mcpscope",
		"deviceCapabilities":    map[string]any{"touch": false, "hover": true},
	}
	if len(b.v.Tool.Definition) > 0 {
		ctx["toolInfo"] = map[string]any{"tool": b.v.Tool.Definition}
	}
	return ctx
}

func (b *bridge) handleRequest(ctx context.Context, m rpc) {
	switch m.Method {
	case "ui/initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.ProtocolVersion == "" {
			b.fail(m.ID, codeInvalidParams, "ui/initialize needs params.protocolVersion", nil)
			return
		}
		b.mu.Lock()
		b.initialized = true
		b.mu.Unlock()
		caps := map[string]any{"openLinks": map[string]any{}, "logging": map[string]any{},
			"message": map[string]any{"text": map[string]any{}}, "updateModelContext": map[string]any{"text": map[string]any{}}}
		if b.s.opts.Forward != nil {
			caps["serverTools"] = map[string]any{}
			caps["serverResources"] = map[string]any{}
		}
		if len(b.v.Resource.CSPDomains) > 0 {
			caps["sandbox"] = map[string]any{"csp": b.v.Resource.CSPDomains}
		}
		b.answer(m.ID, map[string]any{
			"protocolVersion":  ProtocolVersion,
			"hostInfo":         map[string]any{"name": "mcpscope", "version": b.s.opts.Version},
			"hostCapabilities": caps,
			"hostContext":      b.hostContext(),
		})
	case "tools/call", "resources/read":
		b.forward(ctx, m)
	case "ui/open-link":
		var p struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.URL == "" {
			b.fail(m.ID, codeInvalidParams, "ui/open-link needs params.url", nil)
			return
		}
		if _, err := openurl.Check(p.URL); err != nil {
			b.answer(m.ID, map[string]any{"isError": true})
			b.problem(RuleOpenLink, "ui/open-link refused: "+err.Error())
			return
		}
		opened := b.s.opts.OpenLink != nil && b.s.opts.OpenLink(ctx, b.v, p.URL)
		if opened {
			b.answer(m.ID, map[string]any{})
		} else {
			b.answer(m.ID, map[string]any{"isError": true})
		}
	case "ui/message", "ui/update-model-context", "ping":
		// The row shows what the model would receive; the host accepts it.
		b.answer(m.ID, map[string]any{})
	case "ui/request-display-mode":
		var p struct {
			Mode string `json:"mode"`
		}
		json.Unmarshal(m.Params, &p) //nolint:errcheck // an unreadable mode keeps the current one
		b.mu.Lock()
		switch p.Mode {
		case "inline", "fullscreen", "pip":
			b.displayMode = p.Mode
		}
		mode := b.displayMode
		b.mu.Unlock()
		b.answer(m.ID, map[string]any{"mode": mode})
		b.notify("ui/notifications/host-context-changed", map[string]any{"displayMode": mode})
		b.command("mode", map[string]string{"mode": mode})
	default:
		b.fail(m.ID, codeMethodNotFound, "mcpscope's host does not offer "+m.Method, nil)
	}
}

// hiddenFromApps is the reason a view may not call the tool its tools/call
// names: the tool's visibility excludes "app" ("" when it may, or when
// the host does not know the tool).
func (b *bridge) hiddenFromApps(m rpc) string {
	if m.Method != "tools/call" || b.s.opts.Tools == nil {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	for _, entry := range b.s.opts.Tools() {
		var t struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(entry, &t) == nil && t.Name == p.Name {
			if tv := apps.ParseTool(entry); !tv.VisibleToApp() {
				return fmt.Sprintf("the tool %s is not visible to apps (visibility %s)", termsafe.String(p.Name), tv.VisibilityLabel())
			}
			return ""
		}
	}
	return ""
}

// forward sends a view's server request through the session.
func (b *bridge) forward(ctx context.Context, m rpc) {
	// The problem is published before the view hears the refusal, so
	// whoever waits for the answer finds the problem already recorded.
	if why := b.hiddenFromApps(m); why != "" {
		b.problem(RuleHiddenTool, "the view called a tool hidden from it: "+why)
		b.fail(m.ID, codeInvalidParams, "mcpscope: tools/call not sent: "+why, nil)
		return
	}
	if b.s.opts.Forward == nil {
		why := b.s.opts.ReadOnly
		if why == "" {
			why = "the source is read-only"
		}
		msg := "mcpscope: " + m.Method + " not sent: " + why
		b.problem(RuleReadOnly, msg)
		b.fail(m.ID, codeReadOnly, msg, nil)
		return
	}
	result, rpcErr, err := b.s.opts.Forward(ctx, b.v, m.Method, m.Params)
	switch {
	case rpcErr != nil:
		b.fail(m.ID, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		b.problem(RuleRequestFailed, fmt.Sprintf("the view's %s failed: the server answered %d %s", m.Method, rpcErr.Code, rpcErr.Message))
	case errors.Is(err, ErrReadOnly):
		msg := "mcpscope: " + m.Method + " not sent: " + err.Error()
		b.fail(m.ID, codeReadOnly, msg, nil)
		b.problem(RuleReadOnly, msg)
	case err != nil:
		msg := "mcpscope could not send " + m.Method + ": " + err.Error()
		b.fail(m.ID, codeInternal, msg, nil)
		b.problem(RuleRequestFailed, msg)
	default:
		b.answer(m.ID, result)
	}
}

func args(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`)
	}
	return raw
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`null`)
	}
	return raw
}
