package panes

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

const fixtureServerCaps = `{
	"weirdCap": {"a": 1},
	"tools": {"listChanged": true},
	"resources": {"subscribe": true, "listChanged": false},
	"prompts": {},
	"logging": {},
	"completions": {},
	"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
	"experimental": {"x-foo": {"bar": 1}},
	"extensions": {"io.modelcontextprotocol/tasks": {}}
}`

func toolsRaw() []json.RawMessage {
	var out []json.RawMessage
	for _, t := range fixtureTools() {
		out = append(out, t.Raw)
	}
	return out
}

func newFixtureCaps(dark bool, w, h int) *Caps {
	c := NewCaps(themes.Default(dark), keymap.Default())
	c.SetSize(w, h)
	c.Focus()
	c.SetHandshake(&mcp.Handshake{ServerCapabilities: json.RawMessage(fixtureServerCaps)})
	c.SetList("tools/list", toolsRaw())
	c.SetList("prompts/list", []json.RawMessage{json.RawMessage(`{"name":"summarize","arguments":[{"name":"text","required":true}]}`)})
	c.SetList("resources/list", []json.RawMessage{json.RawMessage(`{"uri":"file:///readme.md","name":"readme"}`)})
	c.SetList("resources/templates/list", []json.RawMessage{})
	return c
}

func TestCapsView(t *testing.T) {
	goldenViews(t, func(dark bool, w, h int) interface{ View() string } {
		return newFixtureCaps(dark, w, h)
	})
}

func capsText(c *Caps) string {
	var rows []string
	for i := range c.rows {
		rows = append(rows, ansi.Strip(c.renderRow(i)))
	}
	return strings.Join(rows, "\n")
}

func TestCapsTreeContent(t *testing.T) {
	c := newFixtureCaps(true, 120, 35)
	text := capsText(c)
	for _, want := range []string{
		"▾ tools  the client may list tools",
		"listChanged: true  the server sends notifications/tools/list_changed",
		"subscribe: true",
		"listChanged: false",
		"▸ 4 tools",
		"▸ 1 resources",
		"  0 templates  discovered with resources/templates/list",
		"▸ 1 prompts",
		"call: {}  tools/call may carry params.task",
		"x-foo: {\"bar\":1}  experimental capability",
		"io.modelcontextprotocol/tasks: {}  the tasks extension",
		`weirdCap: {"a":1}  (unknown to mcpscope)`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("tree lacks %q:\n%s", want, text)
		}
	}
	// Known capabilities come in the spec's order, unknown ones last.
	if strings.Index(text, "tools") > strings.Index(text, "resources") || strings.Index(text, "weirdCap") < strings.Index(text, "extensions") {
		t.Errorf("unexpected order:\n%s", text)
	}
}

func TestCapsKeys(t *testing.T) {
	c := newFixtureCaps(true, 120, 35)
	// Move to "4 tools" (tools, listChanged, 4 tools) and open it.
	c.cur = 0
	c.Update(press("down"))
	c.Update(press("down"))
	if c.rows[c.cur].label != "4 tools" {
		t.Fatalf("cursor on %q", c.rows[c.cur].label)
	}
	before := len(c.rows)
	c.Update(press("enter"))
	if len(c.rows) != before+4 {
		t.Fatalf("enter opened %d rows, want 4", len(c.rows)-before)
	}
	if !strings.Contains(capsText(c), "Weather lookup") {
		t.Error("the tools are not listed under tools")
	}
	c.Update(press("down"))
	c.Update(press("left")) // on a leaf: go to the parent
	if c.rows[c.cur].label != "4 tools" {
		t.Fatalf("left on a leaf moved to %q, want its parent", c.rows[c.cur].label)
	}
	c.Update(press("left")) // on an open node: close it
	if len(c.rows) != before {
		t.Fatalf("left did not collapse: %d rows, want %d", len(c.rows), before)
	}
	c.Update(press("right"))
	if len(c.rows) != before+4 {
		t.Fatal("right did not expand")
	}
	// A new list keeps the expansion and the cursor.
	c.SetList("tools/list", toolsRaw()[:2])
	if c.rows[c.cur].label != "2 tools" || len(c.rows) != before+2 {
		t.Errorf("after refresh: cursor on %q, %d rows", c.rows[c.cur].label, len(c.rows))
	}
}

func TestCapsUndeclaredList(t *testing.T) {
	c := NewCaps(themes.Default(true), keymap.Default())
	c.SetSize(100, 20)
	c.SetHandshake(&mcp.Handshake{ServerCapabilities: json.RawMessage(`{}`)})
	c.SetList("tools/list", toolsRaw())
	if !strings.Contains(ansi.Strip(c.View()), "answered but not declared") {
		t.Errorf("a tools list without the tools capability is not flagged:\n%s", ansi.Strip(c.View()))
	}
}

func TestCapsSecurity(t *testing.T) {
	c := NewCaps(themes.Default(true), keymap.Default())
	c.SetSize(120, 35)
	c.SetHandshake(&mcp.Handshake{ServerCapabilities: json.RawMessage(`{"\u001b]0;pwned\u0007":{"\u001b[2J":1},"experimental":{"x\u001b]52;c;aGk=\u0007":true}}`)})
	c.SetList("tools/list", []json.RawMessage{json.RawMessage(`{"name":"evil\u001b[2J","inputSchema":{}}`)})
	c.SetExpanded(true)
	for i := 0; i < len(c.rows); i++ {
		c.cur = i
		c.SetExpanded(true)
	}
	v := c.View()
	assertPaneSize(t, v, 120, 35)
	assertNoRawEscapes(t, v, `\x1b]0;pwned\x07`, `x\x1b]52;c;aGk=\x07`, `evil\x1b[2J`)
}

// The capabilities tree is a panes/list list: a raw JSON value longer
// than the pane scrolls sideways (shift+→) or wraps (W), PgDn pages and G
// reaches the last row, while ← and → still fold and unfold.
func TestCapsLongValueScrollsAndPages(t *testing.T) {
	long := `{"x-big":{"setting":"` + strings.Repeat("v", 150) + `-TAIL"}}`
	caps := strings.Replace(fixtureServerCaps, `"experimental": {"x-foo": {"bar": 1}}`, `"experimental": `+long, 1)
	c := NewCaps(themes.Dark(), keymap.Default())
	c.SetSize(60, 15)
	c.Focus()
	c.SetHandshake(&mcp.Handshake{ServerCapabilities: json.RawMessage(caps)})
	view := func() string { return ansi.Strip(c.View()) }
	if v := view(); strings.Contains(v, "x-big") {
		t.Fatalf("the last rows are on screen at once:\n%s", v)
	}
	c.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	c.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	if v := view(); !strings.Contains(v, "x-big") {
		t.Fatalf("pgdown twice did not page to the experimental value:\n%s", v)
	}
	c.Update(keyPress("G"))
	if c.cur != len(c.rows)-1 || !strings.Contains(view(), "weirdCap") {
		t.Fatalf("G: cursor %d of %d rows:\n%s", c.cur, len(c.rows), view())
	}
	for c.rows[c.cur].label != "x-big" {
		c.Update(keyPress("k"))
	}
	if v := view(); strings.Contains(v, "-TAIL") {
		t.Fatalf("the long value was not cut:\n%s", v)
	}
	for range 10 {
		c.Update(tea.KeyPressMsg{Code: tea.KeyRight, Mod: tea.ModShift})
	}
	if v := view(); !strings.Contains(v, "-TAIL") {
		t.Fatalf("shift+→ did not scroll the long value sideways:\n%s", v)
	}
	for range 10 {
		c.Update(tea.KeyPressMsg{Code: tea.KeyLeft, Mod: tea.ModShift})
	}
	c.Update(keyPress("W"))
	if v := view(); !strings.Contains(v, "-TAIL") || !strings.Contains(v, "wrap") {
		t.Fatalf("W did not wrap the long value:\n%s", v)
	}
	c.Update(keyPress("h")) // a leaf: to its parent, as before
	if c.rows[c.cur].label != "experimental" {
		t.Fatalf("h on a leaf went to %q", c.rows[c.cur].label)
	}
}
