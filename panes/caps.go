package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// capInfo explains one capability: what granting it allows the client to
// do (wording from the spec's capability tables, mcp-protocol.md §2).
type capInfo struct {
	explain string
	// children are the sub-capabilities the spec defines, in display order.
	children []string
}

// knownCaps maps a capability path ("resources.subscribe") to its meaning.
var knownCaps = map[string]capInfo{
	"tools":                     {"the client may list tools (tools/list) and call them (tools/call)", []string{"listChanged"}},
	"tools.listChanged":         {explain: "the server sends notifications/tools/list_changed when its tools change"},
	"resources":                 {"the client may list resources and templates (resources/list, resources/templates/list) and read them (resources/read)", []string{"subscribe", "listChanged"}},
	"resources.subscribe":       {explain: "the client may subscribe to a resource (resources/subscribe) and get notifications/resources/updated"},
	"resources.listChanged":     {explain: "the server sends notifications/resources/list_changed when its resources change"},
	"prompts":                   {"the client may list prompt templates (prompts/list) and get them (prompts/get)", []string{"listChanged"}},
	"prompts.listChanged":       {explain: "the server sends notifications/prompts/list_changed when its prompts change"},
	"logging":                   {explain: "the server sends log messages (notifications/message); the client may set the level (logging/setLevel)"},
	"completions":               {explain: "the client may ask for argument completions (completion/complete) for prompts and resource templates"},
	"tasks":                     {"the server can run requests as tasks the client polls (tasks/get, tasks/result)", []string{"list", "cancel", "requests"}},
	"tasks.list":                {explain: "the client may list the server's tasks (tasks/list)"},
	"tasks.cancel":              {explain: "the client may cancel a task (tasks/cancel)"},
	"tasks.requests":            {"the requests the server accepts as tasks", []string{"tools"}},
	"tasks.requests.tools":      {"tool requests the server accepts as tasks", []string{"call"}},
	"tasks.requests.tools.call": {explain: "tools/call may carry params.task and return a task instead of a result"},
	"experimental":              {explain: "non-standard capabilities; what each means is up to the server"},
	"extensions":                {explain: "protocol extensions the server supports, by identifier"},
	"extensions.io.modelcontextprotocol/tasks":        {explain: "the tasks extension: tools/call may return a task (tasks/get, tasks/update, tasks/cancel)"},
	"extensions.io.modelcontextprotocol/ui":           {"MCP Apps: a tool may name a view (_meta.ui.resourceUri, a ui:// resource of type text/html;profile=mcp-app) that a host renders in a sandboxed iframe; servers need not declare it, the tools' _meta is what counts", []string{"mimeTypes"}},
	"extensions.io.modelcontextprotocol/ui.mimeTypes": {explain: "the view types the server serves; text/html;profile=mcp-app is MCP Apps"},
}

// topLevelOrder is the order known capabilities are shown in.
var topLevelOrder = []string{"tools", "resources", "prompts", "logging", "completions", "tasks", "experimental", "extensions"}

// capNode is one row of the tree.
type capNode struct {
	path     string // "resources.subscribe"; list nodes use "#items:<method>"
	label    string // sanitised
	value    string // sanitised display of the raw value ("true", "{}", …)
	explain  string
	unknown  bool
	warn     string
	isItem   bool
	children []*capNode
	depth    int
}

// Caps shows the server's capabilities as an expandable tree, each node
// explained in a line, with the discovered tools, prompts and resources
// under their capability.
type Caps struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	hs     *mcp.Handshake
	failed string                       // why the handshake failed, when it did before any handshake
	lists  map[string][]json.RawMessage // by list method
	// listFailed is a list method's failed listing, by method: shown as
	// a failure under its capability, never as 0 items.
	listFailed map[string]*Failure

	roots    []*capNode
	expanded map[string]bool // by path; survives rebuilds
	rows     []*capNode      // the visible rows, flattened
	cur      int             // the selected row
	// list scrolls the rows (panes/list): paging, g/G, the wheel, W to
	// wrap and shift+←/→ to scroll a long raw value sideways.
	list *list.Model
}

// NewCaps makes an empty capabilities tree.
func NewCaps(t *themes.Theme, k keymap.KeyMap) *Caps {
	c := &Caps{theme: t, keys: k, lists: map[string][]json.RawMessage{}, listFailed: map[string]*Failure{}, expanded: map[string]bool{}}
	sc := k.Scroll.ForTree()
	sc.Up, sc.Down = k.Caps.Up, k.Caps.Down
	c.list = list.New(sc, func(i int) string { return c.renderRow(i) })
	c.list.SetSelecting(true)
	return c
}

// SetTheme switches the theme.
func (c *Caps) SetTheme(t *themes.Theme) { c.theme = t }

// SetHandshake shows the capabilities the server granted. Nodes keep their
// expansion across reconnects.
// SetFailed says the handshake failed (why, in words) so the pane stops
// waiting for it; a later SetHandshake (after a reconnect) clears it.
func (c *Caps) SetFailed(why string) { c.failed = why }

func (c *Caps) SetHandshake(h *mcp.Handshake) {
	c.hs, c.failed = h, ""
	c.lists = map[string][]json.RawMessage{}
	c.listFailed = map[string]*Failure{}
	c.rebuild()
}

// SetList shows the items of a list result (tools/list, prompts/list,
// resources/list, resources/templates/list) under their capability.
func (c *Caps) SetList(method string, items []json.RawMessage) {
	if l, ok := mcp.LookupList(method); !ok || !l.Discover {
		return
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	c.lists[method] = items
	delete(c.listFailed, method)
	c.rebuild()
}

// SetListFailed shows a list method's failed listing under its capability
// (the items of a page read before it stay).
func (c *Caps) SetListFailed(f Failure) {
	if l, ok := mcp.LookupList(f.Method); !ok || !l.Discover {
		return
	}
	c.listFailed[f.Method] = &f
	c.rebuild()
}

func (c *Caps) Title() string { return "Capabilities" }

func (c *Caps) SetSize(w, h int) {
	c.w, c.h = w, h
	c.list.SetSize(max(w-2, 0), c.bodyRows())
	c.clamp()
}

func (c *Caps) Focus() { c.focused = true }
func (c *Caps) Blur()  { c.focused = false }

func (c *Caps) rebuild() {
	var selected string
	if c.cur >= 0 && c.cur < len(c.rows) {
		selected = c.rows[c.cur].path
	}
	c.roots = nil
	var caps map[string]json.RawMessage
	if c.hs != nil {
		_ = json.Unmarshal(c.hs.ServerCapabilities, &caps) // a non-object shows as no capabilities
	}
	keys := make([]string, 0, len(caps))
	seen := map[string]bool{}
	for _, k := range topLevelOrder {
		if _, ok := caps[k]; ok {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var unknown []string
	for k := range caps {
		if !seen[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	keys = append(keys, unknown...)
	for _, k := range keys {
		c.roots = append(c.roots, c.buildNode(k, k, caps[k], 0))
	}
	// Lists that arrived for a capability the server did not declare are
	// shown too: that is a server mistake worth seeing.
	for _, capName := range []string{"tools", "prompts", "resources"} {
		if _, ok := caps[capName]; ok {
			continue
		}
		items := c.itemNodes(capName, 1)
		if len(items) == 0 {
			continue
		}
		n := &capNode{path: capName, label: capName, warn: "answered but not declared in capabilities", children: items}
		if _, set := c.expanded[capName]; !set {
			c.expanded[capName] = true
		}
		c.roots = append(c.roots, n)
	}
	c.flatten()
	for i, r := range c.rows {
		if r.path == selected {
			c.cur = i
		}
	}
	c.clamp()
}

func (c *Caps) buildNode(path, key string, raw json.RawMessage, depth int) *capNode {
	info, known := knownCaps[path]
	underFree := strings.HasPrefix(path, "experimental.") || strings.HasPrefix(path, "extensions.")
	n := &capNode{path: path, label: termsafe.String(key), explain: info.explain, depth: depth}
	if !known && !underFree {
		n.unknown = true
		n.explain = "unknown to mcpscope: not in any MCP version it knows; raw value shown"
	}
	if !known && underFree {
		if strings.HasPrefix(path, "experimental.") {
			n.explain = "experimental capability, defined by the server"
		} else {
			n.explain = "extension, defined by its specification"
		}
	}
	var obj map[string]json.RawMessage
	isObj := json.Unmarshal(raw, &obj) == nil && obj != nil
	// Known containers open their object; unknown values and the contents
	// of experimental/extensions entries are shown as raw JSON.
	if isObj && (known || path == "experimental" || path == "extensions") && (!underFree || known) {
		ordered := append([]string(nil), info.children...)
		var extra []string
		for k := range obj {
			if !slices.Contains(ordered, k) {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range append(ordered, extra...) {
			v, ok := obj[k]
			if !ok {
				continue
			}
			n.children = append(n.children, c.buildNode(path+"."+k, k, v, depth+1))
		}
	} else {
		n.value = compactRaw(raw)
	}
	if (path == "tools" || path == "prompts" || path == "resources") && depth == 0 {
		n.children = append(n.children, c.itemNodes(path, depth+1)...)
	}
	if isObj && len(obj) == 0 && len(n.children) == 0 {
		n.value = "{}" // granted with no sub-capabilities
	}
	// Capabilities start open (there are few); discovered lists start
	// closed (there may be hundreds).
	if _, set := c.expanded[path]; !set {
		c.expanded[path] = true
	}
	return n
}

// itemNodes are the discovered items of a capability's lists.
func (c *Caps) itemNodes(capName string, depth int) []*capNode {
	var out []*capNode
	for _, l := range mcp.DiscoveryLists() {
		if l.Capability != capName {
			continue
		}
		method := l.Method
		items, ok := c.lists[method]
		if f := c.listFailed[method]; f != nil {
			group := &capNode{path: "#items:" + method, label: method + " failed", warn: termsafe.String(errText(f.Err)), explain: f.Try(), isItem: true, depth: depth}
			for i, raw := range items {
				group.children = append(group.children, &capNode{path: fmt.Sprintf("#items:%s:%d", method, i), label: itemLabel(method, raw), isItem: true, depth: depth + 1})
			}
			out = append(out, group)
			continue
		}
		if !ok {
			continue
		}
		noun := l.Noun
		group := &capNode{
			path:    "#items:" + method,
			label:   fmt.Sprintf("%d %s", len(items), noun),
			explain: "discovered with " + method,
			isItem:  true,
			depth:   depth,
		}
		views := 0
		for i, raw := range items {
			n := &capNode{
				path:   fmt.Sprintf("#items:%s:%d", method, i),
				label:  itemLabel(method, raw),
				isItem: true,
				depth:  depth + 1,
			}
			if method == mcp.MethodToolsList {
				if explain := toolViewExplain(raw); explain != "" {
					n.label += " ▣"
					n.explain = explain
					views++
				}
			}
			group.children = append(group.children, n)
		}
		if views > 0 {
			group.label += fmt.Sprintf(" (%d with a view)", views)
			group.explain += "; ▣ marks a tool with an MCP Apps or ChatGPT view"
		}
		out = append(out, group)
	}
	return out
}

// toolViewExplain says which view a tool renders and who sees it, ""
// for a tool without one.
func toolViewExplain(raw json.RawMessage) string {
	v := apps.ParseTool(raw)
	if !v.HasView() {
		return ""
	}
	return termsafe.String(fmt.Sprintf("renders the view %s (%s); visibility [%s]; enter on the tools pane to call it",
		v.URI(), v.Dialect(), v.VisibilityLabel()))
}

// itemLabel names a list item: its display name, and the URI for resources.
func itemLabel(method string, raw json.RawMessage) string {
	var it struct {
		Name        string `json:"name"`
		Title       string `json:"title"`
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return "(undecodable entry)"
	}
	name := it.Name
	if it.Title != "" {
		name = it.Title
	}
	switch method {
	case mcp.MethodResourcesList:
		return termsafe.String(name + "  " + it.URI)
	case mcp.MethodResourceTemplatesList:
		return termsafe.String(name + "  " + it.URITemplate)
	case mcp.MethodToolsList:
		t := mcp.ParseTools([]json.RawMessage{raw})[0]
		return termsafe.String(t.DisplayName())
	}
	return termsafe.String(name)
}

func compactRaw(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return termsafe.String(string(raw))
	}
	return termsafe.String(b.String())
}

func (c *Caps) flatten() {
	c.rows = c.rows[:0]
	var walk func(ns []*capNode, depth int)
	walk = func(ns []*capNode, depth int) {
		for _, n := range ns {
			n.depth = depth
			c.rows = append(c.rows, n)
			if len(n.children) > 0 && c.expanded[n.path] {
				walk(n.children, depth+1)
			}
		}
	}
	walk(c.roots, 0)
}

func (c *Caps) bodyRows() int {
	inner := c.h - 2
	if inner >= 8 {
		// A separator and the lines explaining the selected node: two, or
		// as many as its text needs up to half the pane.
		return inner - 1 - max(2, min(len(c.explanation()), inner/2))
	}
	return max(inner, 0)
}

// explanation is the selected node's explanation, wrapped to the pane:
// a failed list's error and what to try, a warning, or what the node means.
func (c *Caps) explanation() []string {
	if c.cur >= len(c.rows) || c.cur < 0 {
		return nil
	}
	n := c.rows[c.cur]
	text := n.explain
	switch {
	case n.warn != "" && n.isItem && n.explain != "":
		text = n.warn + ". " + n.explain
	case n.warn != "":
		text = n.warn
	case text == "" && n.isItem:
		text = "enter on the tools pane to call a tool"
	}
	return wrapBlock(text, c.w-2, 0)
}

// clamp keeps the cursor on a row and the list's window on the cursor.
func (c *Caps) clamp() {
	c.cur = max(0, min(c.cur, len(c.rows)-1))
	c.list.SetLen(len(c.rows))
	c.list.Select(c.cur)
}

// MoveBy moves the cursor n rows.
func (c *Caps) MoveBy(n int) {
	c.cur += n
	c.clamp()
}

// SetExpanded opens or closes the node under the cursor.
func (c *Caps) SetExpanded(open bool) {
	if c.cur >= len(c.rows) {
		return
	}
	n := c.rows[c.cur]
	if len(n.children) == 0 {
		return
	}
	c.expanded[n.path] = open
	c.flatten()
	c.clamp()
}

func (c *Caps) collapseOrParent() {
	if c.cur >= len(c.rows) {
		return
	}
	n := c.rows[c.cur]
	if len(n.children) > 0 && c.expanded[n.path] {
		c.SetExpanded(false)
		return
	}
	for i := c.cur - 1; i >= 0; i-- {
		if c.rows[i].depth < n.depth {
			c.cur = i
			c.clamp()
			return
		}
	}
}

func (c *Caps) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k := c.keys.Caps
		switch {
		case key.Matches(msg, k.Up):
			c.MoveBy(-1)
		case key.Matches(msg, k.Down):
			c.MoveBy(1)
		case key.Matches(msg, k.Toggle):
			if c.cur < len(c.rows) {
				c.SetExpanded(!c.expanded[c.rows[c.cur].path])
			}
		case key.Matches(msg, k.Expand):
			c.SetExpanded(true)
		case key.Matches(msg, k.Collapse):
			c.collapseOrParent()
		default:
			c.scroll(msg)
		}
	case tea.MouseWheelMsg:
		c.scroll(msg)
	}
	return nil
}

// scroll lets the list move for a scroll key or the wheel.
func (c *Caps) scroll(msg tea.Msg) {
	c.clamp()
	if c.list.Update(msg) {
		c.cur = c.list.Cursor()
	}
}

func (c *Caps) ShortHelp() []key.Binding {
	k := c.keys.Caps
	sc := c.list.Keys()
	left := sc.Left
	left.SetEnabled(c.list.CanScrollSideways())
	return []key.Binding{k.Up, k.Down, k.Toggle, k.Collapse, sc.PageDown, left, sc.Wrap}
}

func (c *Caps) FullHelp() [][]key.Binding {
	k := c.keys.Caps
	return [][]key.Binding{c.list.FullHelp(), {k.Toggle, k.Expand, k.Collapse}}
}

// View draws the visible rows only, then the selected node's explanation.
func (c *Caps) View() string {
	if c.w <= 0 || c.h <= 0 {
		return ""
	}
	inner := c.w - 2
	th := c.theme
	var body []string
	switch {
	case c.hs == nil && c.failed != "":
		body = append(body, th.Form.Warn.Render("⚠ the handshake failed, so no capabilities were agreed:"), th.Log.Empty.Render(termsafe.String(c.failed)))
	case c.hs == nil:
		body = append(body, th.Log.Empty.Render("waiting for the handshake…"))
	case len(c.rows) == 0:
		body = append(body, th.Log.Empty.Render("the server granted no capabilities"))
	}
	c.clamp()
	rows := c.bodyRows()
	c.list.SetSize(max(c.w-2, 0), rows)
	for _, r := range c.list.RenderRows() {
		row := r.Text
		if r.Item == c.cur {
			st := th.Caps.Selected
			if !c.focused && !th.Plain {
				st = st.Faint(true)
			}
			row = highlightRow(st, Fit(row, inner))
		}
		body = append(body, row)
	}
	if c.h-2 >= 8 {
		for len(body) < rows {
			body = append(body, "")
		}
		body = append(body, th.Caps.Missing.Render(strings.Repeat("─", max(inner, 0))))
		for _, l := range c.explanation() {
			body = append(body, th.Caps.Explanation.Render(l))
		}
	}
	tail := ""
	if p := c.list.Position(); p != "" && len(c.rows) > 0 {
		tail = " · " + p
	}
	return Box(th, TitleKeeping(c.Title(), tail, c.w), c.focused, c.w, c.h, body)
}

// renderRow is row i whole: the list cuts it to the width or scrolls it.
func (c *Caps) renderRow(i int) string {
	th := c.theme
	n := c.rows[i]
	var b strings.Builder
	b.WriteString(strings.Repeat("  ", n.depth))
	switch {
	case len(n.children) == 0:
		b.WriteString("  ")
	case c.expanded[n.path]:
		b.WriteString("▾ ")
	default:
		b.WriteString("▸ ")
	}
	labelStyle := th.Caps.Node
	switch {
	case n.unknown:
		labelStyle = th.Caps.Unknown
	case n.isItem && n.depth > 1:
		labelStyle = th.Caps.Leaf
	case n.isItem:
		labelStyle = th.Caps.Count
	case len(n.children) == 0 && n.depth > 0:
		labelStyle = th.Caps.Leaf
	}
	b.WriteString(labelStyle.Render(n.label))
	if n.value != "" {
		vs := th.Caps.Granted
		if n.value == "false" || n.value == "null" {
			vs = th.Caps.Missing
		}
		if n.unknown {
			vs = th.Caps.Unknown
		}
		b.WriteString(th.Caps.Explanation.Render(": ") + vs.Render(n.value))
	}
	switch {
	case n.warn != "":
		b.WriteString("  " + th.Caps.Unknown.Render(n.warn))
	case n.unknown:
		b.WriteString("  " + th.Caps.Unknown.Render("(unknown to mcpscope)"))
	case n.explain != "" && c.w-2 >= 60:
		b.WriteString("  " + th.Caps.Explanation.Render(n.explain))
	}
	return b.String()
}

var _ Pane = (*Caps)(nil)
