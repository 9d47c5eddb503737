package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/panes"
)

// onFrame reacts to inbound notifications: progress moves bars, log
// messages go to the server log, resource updates are counted, task
// statuses update the tasks view, and list_changed re-lists (coalesced).
func (m *Model) onFrame(f *mcp.Frame) tea.Cmd {
	if f.Dir != mcp.Inbound || f.Kind != mcp.KindNotification {
		return nil
	}
	var env struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(f.Raw, &env)
	if lists := mcp.ListsChangedBy(f.Method); len(lists) > 0 {
		cmds := make([]tea.Cmd, 0, len(lists))
		for _, l := range lists {
			cmds = append(cmds, m.relist(l.Method))
		}
		return tea.Batch(cmds...)
	}
	switch f.Method {
	case mcp.NotifyProgress:
		if p, err := mcp.ParseProgress(env.Params); err == nil {
			m.activity.SetNow(f.Time)
			m.activity.Progress(p.Token, p.Progress, p.Total, p.Message)
		}
	case mcp.NotifyMessage:
		m.serverLog.Append(f.Time, env.Params)
	case mcp.NotifyResourcesUpdated:
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(env.Params, &p) == nil {
			m.resources.Updated(p.URI)
		}
	case mcp.NotifyTasksStatus:
		poll, _ := m.applyTask(env.Params)
		return poll
	case mcp.NotifyElicitationComplete:
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		_ = json.Unmarshal(env.Params, &p)
		if _, ok := m.urlElicitations[p.ElicitationID]; ok {
			delete(m.urlElicitations, p.ElicitationID)
			m.setNote("URL elicitation "+p.ElicitationID+" completed", true)
		} else {
			m.setNote("notifications/elicitation/complete for an unknown elicitation "+p.ElicitationID, false)
		}
	}
	return nil
}

// applyGates tells each explorer pane what the server declared: a correct
// client never calls what the server did not declare, so a pane whose
// capability is missing says so, and offers to send anyway.
func (m *Model) applyGates() {
	hs := m.handshake
	completes := hs.HasCapability("completions") || hs.ProtocolVersion == mcp.Version20241105
	gate := func(capability, what string) panes.Gate {
		if hs.HasCapability(capability) {
			return panes.Gate{OK: true}
		}
		return panes.Gate{Why: fmt.Sprintf("the server did not declare the %q capability, so it offers no %s", capability, what)}
	}
	m.resources.SetGate(gate("resources", "resources"), hs.HasCapability("resources", "subscribe"), completes)
	m.prompts.SetGate(gate("prompts", "prompts"), completes)
	m.serverLog.SetGate(gate("logging", "log messages (logging/setLevel)"), hs.Era == mcp.EraModern)
}

// relist re-reads a list after the server said it changed: at most one
// request in flight per list, and one more after it when another change
// arrived meanwhile (server-everything sends five tools/list_changed in a
// row right after initialized).
func (m *Model) relist(method string) tea.Cmd {
	// A correct client never calls what the server did not declare; the
	// protocol doctor flags the notification itself. The user can still
	// list by hand ("send anyway" in the pane).
	if l, _ := mcp.LookupList(method); m.handshake != nil && !m.handshake.HasCapability(l.Capability) {
		cap := l.Capability
		m.logPane.AppendNote(time.Now(), "ignored a list_changed for "+cap+": the server did not declare the "+cap+" capability")
		return nil
	}
	if m.listing[method] {
		m.relistAgain[method] = true
		return nil
	}
	c, gen, ctx := m.client, m.gen, m.ctx
	if c == nil {
		return nil
	}
	m.listing[method] = true
	return func() tea.Msg {
		items, _, err := c.ListAll(ctx, method)
		return listedMsg{gen: gen, method: method, items: items, err: err}
	}
}

// relisted applies a re-list, marks in the timeline what changed, and runs
// the one coalesced re-list if another change came meanwhile.
func (m *Model) relisted(msg listedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.listing[msg.method] = false
	prev, known := m.lists[msg.method]
	switch d := diffLists(msg.method, prev, msg.items); {
	case msg.err != nil:
	case !known:
		m.logPane.AppendNote(time.Now(), fmt.Sprintf("%s after list_changed: %d item(s)", msg.method, len(msg.items)))
	case d != "":
		m.logPane.AppendNote(time.Now(), msg.method+" changed: "+d)
	default:
		m.logPane.AppendNote(time.Now(), msg.method+" re-listed after list_changed: no change")
	}
	m.applyList(msg.method, msg.items, msg.err)
	if m.relistAgain[msg.method] {
		m.relistAgain[msg.method] = false
		return m.relist(msg.method)
	}
	return nil
}

// itemKey is what identifies a list item: a tool's or prompt's name, a
// resource's URI, a template's uriTemplate.
func itemKey(method string, raw json.RawMessage) string {
	var it struct {
		Name        string `json:"name"`
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
	}
	_ = json.Unmarshal(raw, &it)
	switch method {
	case mcp.MethodResourcesList:
		return it.URI
	case mcp.MethodResourceTemplatesList:
		return it.URITemplate
	}
	return it.Name
}

// diffLists says what changed between two versions of a list: added,
// removed, and changed items (for tools: "schema changed" when
// inputSchema or outputSchema differ).
func diffLists(method string, old, cur []json.RawMessage) string {
	before := map[string]json.RawMessage{}
	for _, raw := range old {
		before[itemKey(method, raw)] = raw
	}
	var added, removed, changed []string
	seen := map[string]bool{}
	for _, raw := range cur {
		k := itemKey(method, raw)
		seen[k] = true
		prev, ok := before[k]
		switch {
		case !ok:
			added = append(added, k)
		case !sameJSON(prev, raw):
			what := ""
			if method == mcp.MethodToolsList {
				what = " (" + toolChange(prev, raw) + ")"
			}
			changed = append(changed, k+what)
		}
	}
	for k := range before {
		if !seen[k] {
			removed = append(removed, k)
		}
	}
	sort.Strings(removed)
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+strings.Join(removed, ", "))
	}
	if len(changed) > 0 {
		parts = append(parts, "changed "+strings.Join(changed, ", "))
	}
	return strings.Join(parts, "; ")
}

func toolChange(a, b json.RawMessage) string {
	var x, y struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	if !sameJSON(x.InputSchema, y.InputSchema) || !sameJSON(x.OutputSchema, y.OutputSchema) {
		return "schema changed"
	}
	return "description or annotations changed"
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// setLevel applies a logging level: logging/setLevel in the legacy era;
// in the modern era (no setLevel) every later request carries it in _meta.
func (m *Model) setLevel(level string) tea.Cmd {
	if m.handshake != nil && m.handshake.Era == mcp.EraModern {
		m.logLevel = level
		m.serverLog.SetLevel(level)
		m.setNote("log level "+level+" will be sent in each request's _meta (2026-07-28 has no logging/setLevel)", true)
		return nil
	}
	return m.startOp(&op{kind: opSetLevel, label: "logging/setLevel " + level, method: mcp.MethodLoggingSetLevel, params: map[string]any{"level": level}, level: level})
}

// rootsChanged tells the server its roots changed (legacy era only: the
// modern era removed notifications/roots/list_changed).
func (m *Model) rootsChanged() tea.Cmd {
	c := m.client
	if c == nil || m.handshake == nil {
		return nil
	}
	if m.handshake.Era == mcp.EraModern {
		m.roots.SetNote("roots changed; 2026-07-28 has no roots/list_changed: the next input request gets the new list")
		return nil
	}
	ctx := m.ctx
	m.roots.SetNote("sent notifications/roots/list_changed")
	return func() tea.Msg {
		if err := c.Notify(ctx, mcp.NotifyRootsListChanged, nil); err != nil {
			return notedMsg{text: "notifications/roots/list_changed: " + err.Error()}
		}
		return notedMsg{text: "roots changed: sent notifications/roots/list_changed", ok: true}
	}
}
