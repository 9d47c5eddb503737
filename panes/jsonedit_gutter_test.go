package panes

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// The raw JSON editor's line numbers keep one gutter width: once they
// reach two digits, line 10 was drawn one column right of line 9, its text
// out of line with the rest.
func TestJSONEditGutterLinesUp(t *testing.T) {
	var args []string
	for i := range 14 {
		args = append(args, `"k`+string(rune('a'+i))+`": 1`)
	}
	initial := json.RawMessage("{" + strings.Join(args, ",") + "}")
	e := NewJSONEdit(themes.Default(true), keymap.Default(), mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, initial)
	e.SetSize(60, 30)
	e.Focus()
	col := map[int]int{}
	for _, l := range strings.Split(ansi.Strip(e.View()), "\n") {
		i := strings.Index(l, `"k`)
		if i < 0 {
			continue
		}
		col[ansi.StringWidth(l[:i])]++
	}
	if len(col) != 1 {
		t.Errorf("the members start at columns %v, want one column:\n%s", col, ansi.Strip(e.View()))
	}
}

// Typed past line 99 the gutter widens by one for every line at once, and
// nothing typed is refused.
func TestJSONEditGutterGrowsWithTheText(t *testing.T) {
	e := NewJSONEdit(themes.Default(true), keymap.Default(), mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, json.RawMessage(`{}`))
	e.SetSize(60, 20)
	e.Focus()
	e.SetValue("[\n" + strings.Repeat("1,\n", 97) + "1]")
	e.area.MoveToEnd()
	for range 5 {
		e.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	}
	if n := e.area.LineCount(); n != 104 {
		t.Fatalf("%d lines after five enters on 99, want 104", n)
	}
	lines := strings.Split(ansi.Strip(e.View()), "\n")
	col := map[int]bool{}
	for _, l := range lines {
		f := strings.Fields(strings.Trim(l, "│"))
		if len(f) == 0 || f[0] == "" {
			continue
		}
		if _, err := strconv.Atoi(f[0]); err == nil {
			col[strings.Index(l, f[0])+len(f[0])] = true
		}
	}
	if len(col) != 1 {
		t.Errorf("the line numbers end at columns %v:\n%s", col, strings.Join(lines, "\n"))
	}
}
