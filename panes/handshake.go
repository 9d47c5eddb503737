package panes

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// Handshake shows how the connection was set up: the protocol version
// offered against the one answered, the client capabilities offered against
// the server capabilities granted, serverInfo, instructions, time taken and,
// in the modern era, the discover result and the _meta sent. The ui shows
// it as a modal.
type Handshake struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	hs    *mcp.Handshake
	lines []string // rendered at the current width
	// body scrolls the lines (panes/list): paging, g/G, the wheel, W to
	// wrap the long JSON lines of the result, ←/→ to scroll them sideways.
	body *list.Model
}

// NewHandshake makes an empty handshake view.
func NewHandshake(t *themes.Theme, k keymap.KeyMap) *Handshake {
	p := &Handshake{theme: t, keys: k}
	p.body = list.New(resultScroll(k), func(i int) string { return p.lines[i] })
	return p
}

// SetTheme switches the theme.
func (p *Handshake) SetTheme(t *themes.Theme) { p.theme = t; p.render() }

// SetHandshake shows a handshake (nil: none yet).
func (p *Handshake) SetHandshake(h *mcp.Handshake) {
	p.hs = h
	p.render()
	p.body.Reset()
}

func (p *Handshake) Title() string { return "Handshake" }

func (p *Handshake) SetSize(w, h int) {
	changed := w != p.w
	p.w, p.h = w, h
	if changed {
		p.render()
	}
	p.body.SetSize(max(w-2, 0), p.rows())
}

func (p *Handshake) Focus() { p.focused = true }
func (p *Handshake) Blur()  { p.focused = false }

func (p *Handshake) rows() int { return max(p.h-2, 0) }

func (p *Handshake) Update(msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, p.keys.Result.Close) {
		return func() tea.Msg { return CloseMsg{} }
	}
	p.body.Update(msg)
	return nil
}

func (p *Handshake) ShortHelp() []key.Binding {
	k := p.keys.Result
	return []key.Binding{k.Up, k.Down, k.PageDown, p.keys.Scroll.Left, p.keys.Scroll.Wrap, k.Close}
}

func (p *Handshake) FullHelp() [][]key.Binding {
	return [][]key.Binding{p.body.FullHelp(), {p.keys.Result.Close}}
}

func (p *Handshake) View() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	tail := ""
	if pos := p.body.Position(); pos != "" {
		tail = " · " + pos
	}
	return Box(p.theme, TitleKeeping(p.Title(), tail, p.w), p.focused, p.w, p.h, p.body.Render())
}

// render lays the handshake out at the current width, once per change.
func (p *Handshake) render() {
	th := p.theme
	w := max(p.w-2, 1)
	if p.hs == nil {
		p.lines = []string{th.Log.Empty.Render("no handshake yet")}
		p.body.SetLen(len(p.lines))
		return
	}
	h := p.hs
	label := func(s string) string { return th.Handshake.Label.Render(fmt.Sprintf("%-12s", s)) }
	section := func(s string) string { return th.Handshake.Section.Render(s) }
	var out []string

	out = append(out, section("Protocol"))
	version := th.Handshake.Granted.Render(termsafe.String(h.ProtocolVersion))
	note := ""
	if h.OfferedVersion != "" && h.ProtocolVersion != h.OfferedVersion {
		note = "  " + th.Handshake.Differ.Render("the server answered another version")
	}
	out = append(out,
		label("offered")+th.Handshake.Offered.Render(termsafe.String(orDash(h.OfferedVersion))),
		label("answered")+version+note,
		label("era")+th.Detail.Value.Render(h.Era.String()),
		label("took")+th.Detail.Value.Render(h.Duration.Round(time.Millisecond).String()),
	)
	if h.ProbeOutcome != "" {
		out = append(out, label("auto probe")+th.Detail.Value.Render(termsafe.String(h.ProbeOutcome)))
	}
	if len(h.SupportedVersions) > 0 {
		out = append(out, label("supported")+th.Handshake.Granted.Render(termsafe.String(strings.Join(h.SupportedVersions, ", "))))
	}

	if ci := h.ClientInfo; ci.Name != "" && ci.Name != "mcpscope" {
		// A real client's handshake (a tap, a capture): who it was matters
		// as much as who answered. mcpscope's own clientInfo is no news.
		out = append(out, "", section("Client"),
			label("name")+th.Header.Name.Render(termsafe.String(ci.Name))+" "+th.Detail.Value.Render(termsafe.String(ci.Version)))
		if ci.Title != "" {
			out = append(out, label("title")+th.Detail.Value.Render(termsafe.String(ci.Title)))
		}
	}

	out = append(out, "", section("Server"))
	si := h.ServerInfo
	out = append(out, label("name")+th.Header.Name.Render(termsafe.String(orDash(si.Name)))+" "+th.Detail.Value.Render(termsafe.String(si.Version)))
	if si.Title != "" {
		out = append(out, label("title")+th.Detail.Value.Render(termsafe.String(si.Title)))
	}
	if si.Description != "" {
		desc := wrapBlock(si.Description, w-12, 0)
		for i, l := range desc {
			prefix := strings.Repeat(" ", 12)
			if i == 0 {
				prefix = label("description")
			}
			out = append(out, prefix+th.Detail.Value.Render(l))
		}
	}
	if si.WebsiteURL != "" {
		out = append(out, label("website")+th.Detail.Value.Render(termsafe.String(si.WebsiteURL)))
	}
	for i, ic := range si.Icons {
		desc := ic.Src
		if len(desc) > 80 {
			desc = desc[:80] + "…" // data: URIs are long and say nothing
		}
		extra := strings.TrimSpace(strings.Join([]string{ic.MimeType, strings.Join(ic.Sizes, " "), ic.Theme}, " "))
		if extra != "" {
			desc += " (" + extra + ")"
		}
		l := label("")
		if i == 0 {
			l = label("icons")
		}
		out = append(out, l+th.Detail.Value.Render(termsafe.String(desc)))
	}

	out = append(out, "", section("Capabilities"))
	out = append(out, p.capabilityColumns(w)...)

	if strings.TrimSpace(h.Instructions) != "" {
		out = append(out, "", section("Instructions"))
		out = append(out, wrapBlock(h.Instructions, w, 2)...)
	}
	if len(h.Meta) > 0 {
		out = append(out, "", section("_meta sent on every request"))
		out = append(out, highlightJSON(th, h.Meta, 2)...)
	}
	if len(h.Result) > 0 {
		name := "initialize result"
		if h.Era == mcp.EraModern {
			name = "server/discover result"
		}
		out = append(out, "", section(name))
		out = append(out, highlightJSON(th, h.Result, 2)...)
	}
	p.lines = out
	p.body.SetLen(len(p.lines))
}

// capabilityColumns puts what the client offered beside what the server
// granted (one under the other when narrow).
func (p *Handshake) capabilityColumns(w int) []string {
	th := p.theme
	client := flattenCaps(p.hs.ClientCapabilities)
	server := flattenCaps(p.hs.ServerCapabilities)
	left := append([]string{th.Handshake.Label.Render("client offered")}, styleAll(th.Handshake.Offered.Render, client)...)
	right := append([]string{th.Handshake.Label.Render("server granted")}, styleAll(th.Handshake.Granted.Render, server)...)
	if len(client) == 0 {
		left = append(left, th.Caps.Missing.Render("(none)"))
	}
	if len(server) == 0 {
		right = append(right, th.Caps.Missing.Render("(none)"))
	}
	if w < 60 {
		return append(append(left, ""), right...)
	}
	col := w / 2
	var out []string
	for i := 0; i < max(len(left), len(right)); i++ {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out = append(out, Fit("  "+l, col)+r)
	}
	return out
}

func styleAll(render func(...string) string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "  " + render(s)
	}
	return out
}

// flattenCaps lists a capabilities object as dotted paths, leaves with
// their value when it is not an empty object: "roots.listChanged: true".
func flattenCaps(raw json.RawMessage) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	var out []string
	var walk func(prefix string, o map[string]json.RawMessage)
	walk = func(prefix string, o map[string]json.RawMessage) {
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			path := prefix + k
			var sub map[string]json.RawMessage
			if json.Unmarshal(o[k], &sub) == nil && sub != nil {
				if len(sub) == 0 {
					out = append(out, termsafe.String(path))
					continue
				}
				walk(path+".", sub)
				continue
			}
			out = append(out, termsafe.String(path+": "+compactRaw(o[k])))
		}
	}
	walk("", obj)
	return out
}

var _ Pane = (*Handshake)(nil)
