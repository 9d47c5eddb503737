package panes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// manyTools is n tools named tool-0000 ... with a short schema each.
func manyTools(n int) []mcp.Tool {
	raw := make([]json.RawMessage, n)
	for i := range raw {
		raw[i] = json.RawMessage(fmt.Sprintf(`{"name":"tool-%04d","description":"Tool number %d.","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`, i, i))
	}
	return mcp.ParseTools(raw)
}

func newManyTools(n, w, h int) *Tools {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(w, h)
	p.Focus()
	p.SetTools(manyTools(n))
	return p
}

func selectedName(p *Tools) string {
	t, _ := p.Selected()
	return t.Name
}

// The tools list once kept its own cursor with only ↑ and ↓; g, G,
// PgUp, PgDn did nothing to it (PgDn scrolled the details) and the wheel
// moved one row. On panes/list every scroll key moves it, and what is
// selected is always on screen.
func TestToolsListScrollKeys(t *testing.T) {
	p := newManyTools(300, 120, 35)
	onScreen := func(name string) bool { return strings.Contains(ansi.Strip(p.View()), "▸ "+name) }
	p.Update(press("G"))
	if got := selectedName(p); got != "tool-0299" || !onScreen("tool-0299") {
		t.Fatalf("G selected %q (on screen: %t), want the last tool, tool-0299", got, onScreen(got))
	}
	if title := ansi.Strip(p.View()); !strings.Contains(title, "300/300") {
		t.Errorf("the title does not say where the cursor is:\n%s", strings.SplitN(title, "\n", 2)[0])
	}
	p.Update(press("g"))
	if got := selectedName(p); got != "tool-0000" || !onScreen("tool-0000") {
		t.Fatalf("g selected %q, want tool-0000", got)
	}
	p.Update(press("pgdown"))
	page := p.list.Rows() - 1
	if got, want := selectedName(p), fmt.Sprintf("tool-%04d", page); got != want || !onScreen(want) {
		t.Fatalf("pgdn selected %q, want %q (a page of %d rows)", got, want, page)
	}
	p.Update(press("pgup"))
	if got := selectedName(p); got != "tool-0000" {
		t.Fatalf("pgup selected %q, want tool-0000", got)
	}
	p.SetOrigin(10, 5)
	wheel := func(b tea.MouseButton, x int) {
		p.Update(tea.MouseWheelMsg(tea.Mouse{X: 10 + x, Y: 5 + 3, Button: b}))
	}
	wheel(tea.MouseWheelDown, 3)
	wheel(tea.MouseWheelDown, 3)
	if got := selectedName(p); got != "tool-0006" {
		t.Fatalf("two notches of the wheel over the list selected %q, want tool-0006", got)
	}
	wheel(tea.MouseWheelUp, 3)
	if got := selectedName(p); got != "tool-0003" {
		t.Fatalf("the wheel up selected %q, want tool-0003", got)
	}
	p.Update(press("end"))
	p.Update(press("up"))
	if got := selectedName(p); got != "tool-0298" || !onScreen("tool-0298") {
		t.Fatalf("end, up selected %q, want tool-0298", got)
	}
	// A click on a row selects it: row 1 is the first row of the list.
	p.Update(tea.MouseClickMsg(tea.Mouse{X: 10 + 4, Y: 5 + 1, Button: tea.MouseLeft}))
	if got := selectedName(p); got != fmt.Sprintf("tool-%04d", p.list.Top()) {
		t.Fatalf("a click on the first row selected %q, want the first shown, tool-%04d", got, p.list.Top())
	}
}

// The selection stays on the tool of the same name across a
// tools/list_changed refresh, however far down it is, and on screen.
func TestToolsSelectionKeptAcrossRefreshFarDown(t *testing.T) {
	p := newManyTools(300, 120, 35)
	p.Select("tool-0250")
	tools := append(manyTools(0), mcp.Tool{Name: "aaa-first", InputSchema: json.RawMessage(`{"type":"object"}`)})
	tools = append(tools, manyTools(300)...)
	p.SetTools(tools)
	if got := selectedName(p); got != "tool-0250" {
		t.Fatalf("after the refresh %q is selected, want tool-0250", got)
	}
	if !strings.Contains(ansi.Strip(p.View()), "▸ tool-0250") {
		t.Fatal("the selected tool is not on screen after the refresh")
	}
}

// longTool has a description of long words and a schema whose lines are
// wider than the details column.
func longTool() []mcp.Tool {
	return mcp.ParseTools([]json.RawMessage{json.RawMessage(`{"name":"long",
		"description":"Fetches the documentation page for a package and summarises its installation instructions, configuration options and troubleshooting sections in plain language.\nSecond paragraph: unbreakable tokens follow.",
		"inputSchema":{"type":"object","properties":{"url":{"type":"string","description":"The address of the documentation page to fetch, for example https://example.com/docs/getting-started/installation"}}}}`)})
}

// The details column must not cut words in two ("Messag" / "e to echo",
// "http://json-sc" / "hema.org"). Folded at word boundaries, every
// row ends at a space, a '-', '/' or ',', or the end of its line, and
// nothing is lost.
func TestToolsDetailsWrapAtWordBoundaries(t *testing.T) {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(60, 40)
	p.Focus()
	p.SetTools(longTool())
	_, dw := p.columns()
	if dw == 0 || dw > 50 {
		t.Fatalf("the details column is %d wide; the test wants it beside the list and narrow", dw)
	}
	rows := p.details.Render()
	var text []string
	for _, r := range rows {
		text = append(text, strings.TrimSpace(ansi.Strip(r)))
	}
	joined := strings.Join(text, " ")
	for _, phrase := range []string{
		"Fetches the documentation page for a package and summarises its installation instructions, configuration options and troubleshooting sections in plain language.",
		`"description": "The address of the documentation page to fetch, for example https://example.com/docs/getting-started/installation"`,
	} {
		// Rejoined with spaces (or nothing after a joint), the rows give
		// the text back: no word was split and none dropped.
		if !strings.Contains(strings.NewReplacer("/ ", "/", "- ", "-").Replace(joined), phrase) {
			t.Errorf("the folded details do not give back %q:\n%s", phrase, strings.Join(text, "\n"))
		}
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(strings.NewReplacer("/", " ", "-", " ", ",", " ").Replace(joined)) {
		words[w] = true
	}
	for _, w := range []string{"documentation", "installation", "troubleshooting", "configuration", "summarises"} {
		if !words[w] {
			t.Errorf("%q is not whole on any row:\n%s", w, strings.Join(text, "\n"))
		}
	}
	for i, r := range rows {
		if w := ansi.StringWidth(r); w > dw {
			t.Errorf("row %d is %d cells, wider than the column's %d: %q", i, w, dw, ansi.Strip(r))
		}
	}
	// The rows after a schema line's first hang under it.
	for i, r := range text {
		if strings.HasPrefix(r, `"description":`) && i+1 < len(rows) {
			lead := func(s string) int { s = ansi.Strip(s); return len(s) - len(strings.TrimLeft(s, " ")) }
			if lead(rows[i+1]) != lead(rows[i])+2 {
				t.Errorf("the continuation row is indented %d, want %d:\n%s\n%s", lead(rows[i+1]), lead(rows[i])+2, ansi.Strip(rows[i]), ansi.Strip(rows[i+1]))
			}
		}
	}
}

// The details scroll on their own keys, never moving the list: ctrl+d and
// ctrl+u by a page, J and K by a line, the wheel over them; W cuts the
// lines instead of folding them and → scrolls them sideways.
func TestToolsDetailsScroll(t *testing.T) {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(80, 14)
	p.Focus()
	p.SetTools(append(longTool(), fixtureTools()...))
	first := func() string { return strings.TrimSpace(ansi.Strip(p.details.Render()[0])) }
	if got := first(); got != "long" {
		t.Fatalf("the details start with %q, want the tool's name", got)
	}
	p.Update(press("ctrl+d"))
	if first() == "long" || selectedName(p) != "long" {
		t.Fatalf("ctrl+d: details start %q, tool %q", first(), selectedName(p))
	}
	if !strings.Contains(ansi.Strip(p.View()), "details ") {
		t.Error("the title does not say the details are scrolled")
	}
	p.Update(press("ctrl+u"))
	if got := first(); got != "long" {
		t.Fatalf("ctrl+u: the details start with %q", got)
	}
	p.Update(press("J"))
	p.Update(press("J"))
	afterJ := first()
	p.Update(press("K"))
	if afterJ == "long" || first() == afterJ {
		t.Fatalf("J, J then K: %q then %q", afterJ, first())
	}
	p.Update(press("g"))
	p.SetOrigin(0, 0)
	_, dw := p.columns()
	listW, _ := p.columns()
	if dw == 0 {
		t.Fatal("no details beside the list at 80 columns")
	}
	p.Update(tea.MouseWheelMsg(tea.Mouse{X: listW + 5, Y: 3, Button: tea.MouseWheelDown}))
	if selectedName(p) != "long" || first() == "long" {
		t.Fatalf("the wheel over the details: tool %q, details start %q", selectedName(p), first())
	}
	p.Update(tea.MouseWheelMsg(tea.Mouse{X: listW + 5, Y: 3, Button: tea.MouseWheelUp}))

	// W: lines cut at the edge, → shows what was cut. A description
	// rendered as Markdown is laid out at the width already: m shows its
	// source, whose long line W cuts.
	p.Update(press("m"))
	p.Update(press("W"))
	if p.details.Wrapping() {
		t.Fatal("W did not turn the details' wrap off")
	}
	var desc string
	for _, r := range p.details.Render() {
		if s := ansi.Strip(r); strings.Contains(s, "Fetches") {
			desc = s
		}
	}
	if !strings.HasSuffix(desc, "…") || strings.Contains(desc, "plain language") {
		t.Fatalf("wrap off, the description's row is %q: not cut", desc)
	}
	p.Update(press("right"))
	p.Update(press("right"))
	p.Update(press("right"))
	if p.details.Left() == 0 {
		t.Fatal("→ did not scroll the details sideways")
	}
	if !strings.Contains(ansi.Strip(p.View()), fmt.Sprintf("→%d", p.details.Left())) {
		t.Error("the title does not say the details are scrolled sideways")
	}
	p.Update(press("W"))
	if !p.details.Wrapping() || p.details.Left() != 0 {
		t.Fatal("W again did not fold the details")
	}
	// The list did not move through any of it.
	if selectedName(p) != "long" {
		t.Fatalf("the details' keys moved the list to %q", selectedName(p))
	}
	// Moving to another tool shows its details from the top.
	p.Update(press("ctrl+d"))
	p.Update(press("down"))
	if got := first(); got != "Weather lookup" {
		t.Fatalf("the next tool's details start with %q", got)
	}
}

// foldLine keeps every character, in order, and styles across a break.
func TestFoldLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w, h int
		want []string
	}{
		{"short", 10, 2, []string{"short"}},
		{"one two three four", 9, 0, []string{"one two", "three", "four"}},
		{"    \"key\": \"a value that is long\"", 20, 6, []string{`    "key": "a value`, `      that is long"`}},
		{"http://json-schema.org/draft-07/schema#", 16, 0, []string{"http://json-", "schema.org/", "draft-07/schema#"}},
		{"abcdefghijklmnopqrstuvwxyz", 10, 2, []string{"abcdefghij", "  klmnopqr", "  stuvwxyz"}},
		{"日本語のテキストです", 8, 0, []string{"日本語の", "テキスト", "です"}},
		// A token that fits a row moves whole to the next: a path argument,
		// an error code with its sign.
		{`args: "/home/me/project/repo" x`, 28, 0, []string{"args:", `"/home/me/project/repo" x`}},
		{"server error -32601: Method not found", 16, 0, []string{"server error", "-32601: Method", "not found"}},
		{"a THE-END", 7, 0, []string{"a", "THE-END"}},
	} {
		got := foldLine(tc.in, tc.w, tc.h)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("foldLine(%q, %d, %d) = %q, want %q", tc.in, tc.w, tc.h, got, tc.want)
		}
	}
	styled := "\x1b[31mred words that wrap\x1b[m"
	rows := foldLine(styled, 10, 0)
	if len(rows) != 2 || !strings.HasPrefix(rows[1], "\x1b[31m") || ansi.Strip(rows[1]) != "that wrap" {
		t.Fatalf("styled fold: %q", rows)
	}
	if !strings.HasSuffix(rows[0], "\x1b[m") {
		t.Errorf("the first row leaves its style open: %q", rows[0])
	}
}

// BenchmarkToolsView draws the tools pane at 120×35 over 10,000 tools,
// the cursor moving a row each time (so the details are rebuilt too): the
// cost is what is on screen, not the list's length.
func BenchmarkToolsView(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := newManyTools(n, 120, 35)
			p.Select(fmt.Sprintf("tool-%04d", n/2))
			down := press("down")
			up := press("up")
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					p.Update(down)
				} else {
					p.Update(up)
				}
				_ = p.View()
			}
		})
	}
}
