package ui

import (
	"encoding/json"
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/themes"
)

// simplePane is a stand-in for the capabilities, tools and handshake panes
// until their full implementations are wired in: a titled list of lines.
type simplePane struct {
	theme   *themes.Theme
	title   string
	w, h    int
	focused bool
	lines   []string
	top     int

	hs    *mcp.Handshake
	lists map[string]int
	tools []mcp.Tool
	kind  focus
}

// kindHandshake marks the handshake stand-in (it is a modal, not a focus).
const kindHandshake focus = 100

func newSimplePane(t *themes.Theme, title string, kind focus) *simplePane {
	return &simplePane{theme: t, title: title, kind: kind, lists: map[string]int{}}
}

func (p *simplePane) SetTheme(t *themes.Theme)      { p.theme = t }
func (p *simplePane) Title() string                 { return p.title }
func (p *simplePane) SetSize(w, h int)              { p.w, p.h = w, h }
func (p *simplePane) Focus()                        { p.focused = true }
func (p *simplePane) Blur()                         { p.focused = false }
func (p *simplePane) ShortHelp() []key.Binding      { return nil }
func (p *simplePane) FullHelp() [][]key.Binding     { return nil }
func (p *simplePane) SetHandshake(h *mcp.Handshake) { p.hs = h; p.rebuild() }
func (p *simplePane) SetTools(t []mcp.Tool)         { p.tools = t; p.rebuild() }
func (p *simplePane) SetList(method string, items []json.RawMessage) {
	p.lists[method] = len(items)
	p.rebuild()
}

func (p *simplePane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "up", "k":
			p.top = max(p.top-1, 0)
		case "down", "j":
			p.top = min(p.top+1, max(len(p.lines)-1, 0))
		}
	}
	return nil
}

func (p *simplePane) rebuild() {
	p.lines = p.lines[:0]
	switch p.kind {
	case focusCaps:
		if p.hs == nil {
			return
		}
		var caps map[string]json.RawMessage
		_ = json.Unmarshal(p.hs.ServerCapabilities, &caps)
		names := make([]string, 0, len(caps))
		for k := range caps {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			p.lines = append(p.lines, "▸ "+termsafe.String(k)+"  "+termsafe.String(string(caps[k])))
		}
		methods := make([]string, 0, len(p.lists))
		for m := range p.lists {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			p.lines = append(p.lines, fmt.Sprintf("  %s: %d", m, p.lists[m]))
		}
	case kindHandshake:
		h := p.hs
		if h == nil {
			return
		}
		add := func(label, v string) {
			p.lines = append(p.lines, p.theme.Handshake.Label.Render(label)+" "+termsafe.String(v))
		}
		add("server     ", h.ServerInfo.Name+" "+h.ServerInfo.Version)
		add("era        ", h.Era.String())
		add("offered    ", h.OfferedVersion)
		add("answered   ", h.ProtocolVersion)
		add("took       ", h.Duration.String())
		add("client caps", string(h.ClientCapabilities))
		add("server caps", string(h.ServerCapabilities))
		if h.Instructions != "" {
			add("instructions", h.Instructions)
		}
	case focusTools:
		for _, t := range p.tools {
			p.lines = append(p.lines, termsafe.String(t.Name)+"  "+p.theme.Tools.Description.Render(termsafe.String(t.Description)))
		}
	}
}

func (p *simplePane) View() string {
	body := p.lines
	if p.top < len(body) {
		body = body[p.top:]
	}
	if p.kind == focusCaps && p.hs == nil || p.kind == focusTools && len(p.tools) == 0 {
		body = []string{p.theme.Log.Empty.Render("waiting for the server…")}
	}
	return panes.Box(p.theme, p.title, p.focused, p.w, p.h, body)
}

// The constructors the root model uses; they switch to the full panes as
// those land in package panes.
func newCapsPane(t *themes.Theme, k keymap.KeyMap) capsPane {
	return panes.NewCaps(t, k)
}

func newToolsPane(t *themes.Theme, k keymap.KeyMap) toolsPane {
	return panes.NewTools(t, k)
}

func newHandshakePane(t *themes.Theme, _ keymap.KeyMap) handshakePane {
	return newSimplePane(t, "Handshake", kindHandshake)
}
