package list

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
)

func press(s string) tea.KeyPressMsg {
	switch s {
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(s)[0]
	if r >= 'A' && r <= 'Z' {
		return tea.KeyPressMsg{Code: r, Text: s, Mod: tea.ModShift}
	}
	return tea.KeyPressMsg{Code: r, Text: s}
}

func lines(n int, f func(i int) string) (*Model, *int) {
	calls := 0
	m := New(keymap.Default().Scroll, func(i int) string {
		calls++
		return f(i)
	})
	m.SetLen(n)
	return m, &calls
}

func numbered(i int) string { return fmt.Sprintf("line %d", i) }

func TestPlainViewKeys(t *testing.T) {
	m, _ := lines(100, numbered)
	m.SetSize(20, 10)
	first := func() string { return m.Render()[0] }
	steps := []struct {
		key, want string
	}{
		{"j", "line 1"}, {"k", "line 0"}, {"k", "line 0"},
		{"pgdown", "line 9"}, {"pgup", "line 0"},
		{"G", "line 90"}, {"j", "line 90"}, {"g", "line 0"},
	}
	for _, s := range steps {
		if !m.Update(press(s.key)) {
			t.Fatalf("%s not handled", s.key)
		}
		if got := first(); got != s.want {
			t.Fatalf("after %s the first row is %q, want %q", s.key, got, s.want)
		}
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if got := first(); got != "line 3" {
		t.Fatalf("wheel down: %q", got)
	}
	if p := m.Position(); p != "4-13 of 100" {
		t.Fatalf("position %q", p)
	}
	if m.Update(press("x")) {
		t.Fatal("x is not a scroll key")
	}
}

func TestListCursorFollowsAndStaysInView(t *testing.T) {
	m, _ := lines(5, numbered)
	m.SetSelecting(true)
	m.SetFollow(true)
	m.SetSize(20, 3)
	m.End()
	m.SetLen(50)
	if m.Cursor() != 49 || m.Render()[2] != "line 49" {
		t.Fatalf("following: cursor %d, rows %q", m.Cursor(), m.Render())
	}
	m.Update(press("k"))
	m.SetLen(60)
	if m.Cursor() != 48 {
		t.Fatalf("moved up, yet the cursor followed to %d", m.Cursor())
	}
	m.Update(press("g"))
	if m.Cursor() != 0 || m.Render()[0] != "line 0" {
		t.Fatalf("g: cursor %d rows %q", m.Cursor(), m.Render())
	}
	for range 4 {
		m.Update(press("j"))
	}
	if r := m.Render(); m.Cursor() != 4 || r[2] != "line 4" {
		t.Fatalf("cursor %d not on the last row: %q", m.Cursor(), r)
	}
	if got := m.ItemAt(1); got != 3 {
		t.Fatalf("ItemAt(1) = %d", got)
	}
	if p := m.Position(); p != "5/60" {
		t.Fatalf("position %q", p)
	}
}

func TestSidewaysAndWrap(t *testing.T) {
	long := strings.Repeat("abcdefghij", 10) // 100 cells
	m, _ := lines(3, func(i int) string {
		if i == 1 {
			return long
		}
		return numbered(i)
	})
	m.SetSize(20, 5)
	r := m.Render()
	if r[1] != long[:19]+"…" {
		t.Fatalf("a long line is cut with an ellipsis: %q", r[1])
	}
	m.Update(press("right"))
	r = m.Render()
	if r[1] != "…"+long[11:29]+"…" || ansi.StringWidth(r[1]) != 20 {
		t.Fatalf("scrolled right by half the width: %q", r[1])
	}
	for range 20 {
		m.Update(press("right"))
	}
	m.Render()
	if m.Left() != 80 {
		t.Fatalf("right stops where the widest line ends: left %d", m.Left())
	}
	m.Update(press("left"))
	if m.Left() != 70 {
		t.Fatalf("left: %d", m.Left())
	}
	m.Update(press("W"))
	r = m.Render()
	if !m.Wrapping() || m.Left() != 0 || len(r) != 5 || r[1] != long[:20] || r[5-1] != long[60:80] {
		t.Fatalf("wrapped: %q", r)
	}
	m.Update(press("G"))
	r = m.Render()
	if r[len(r)-1] != "line 2" || len(r) != 5 {
		t.Fatalf("G in wrap mode ends on the last item: %q", r)
	}
	m.Update(press("k"))
	if r := m.Render(); r[len(r)-1] != long[80:] {
		t.Fatalf("up one row in wrap mode: %q", r)
	}
}

func TestWrappedCursorKeepsItemVisible(t *testing.T) {
	m, _ := lines(20, func(i int) string { return strings.Repeat(fmt.Sprint(i%10), 25) }) // 2 rows at width 20
	m.SetSelecting(true)
	m.SetWrap(true)
	m.SetSize(20, 5)
	for range 3 {
		m.Update(press("j"))
	}
	r := m.Render()
	if m.Cursor() != 3 || r[len(r)-1] != strings.Repeat("3", 5) {
		t.Fatalf("cursor 3's last row is not on screen: %q", r)
	}
	if m.ItemAt(4) != 3 {
		t.Fatalf("ItemAt(4) = %d", m.ItemAt(4))
	}
}

// The window asks only for what it draws: the cost of a draw is the
// window's, whatever the number of items.
func TestRenderAsksOnlyForVisibleItems(t *testing.T) {
	for _, wrap := range []bool{false, true} {
		m, calls := lines(1_000_000, numbered)
		m.SetSelecting(true)
		m.SetWrap(wrap)
		m.SetSize(80, 30)
		m.End()
		*calls = 0
		m.Render()
		m.Position()
		m.Update(press("k"))
		m.Update(press("g"))
		m.Render()
		if *calls > 200 {
			t.Fatalf("wrap=%t: %d item calls for a 30-row window", wrap, *calls)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		for _, wrap := range []bool{false, true} {
			b.Run(fmt.Sprintf("lines=%d/wrap=%t", n, wrap), func(b *testing.B) {
				m, _ := lines(n, func(i int) string { return fmt.Sprintf("%d %s", i, strings.Repeat("x", 150)) })
				m.SetWrap(wrap)
				m.SetSize(118, 30)
				m.Update(press("G"))
				b.ReportAllocs()
				for b.Loop() {
					m.Update(press("k"))
					_ = m.Render()
				}
			})
		}
	}
}

// An item put in above the cursor keeps the cursor, and the window, on
// the items they were on; following, the cursor stays on the last item.
func TestInsertKeepsCursorOnItsItem(t *testing.T) {
	items := make([]string, 40)
	for i := range items {
		items[i] = numbered(i)
	}
	m := New(keymap.Default().Scroll, func(i int) string { return items[i] })
	m.SetSelecting(true)
	m.SetSize(20, 5)
	m.SetLen(len(items))
	insert := func(at int, s string) {
		items = append(items[:at], append([]string{s}, items[at:]...)...)
		m.Insert(at, 1)
	}
	m.Select(20)
	top := m.Render()[0]
	insert(3, "new above")
	if got := items[m.Cursor()]; got != "line 20" {
		t.Fatalf("after an insert above, the cursor is on %q, want line 20", got)
	}
	if got := m.Render()[0]; got != top {
		t.Fatalf("after an insert above the window, its first row is %q, want %q", got, top)
	}
	insert(30, "new below")
	if got := items[m.Cursor()]; got != "line 20" || m.Render()[0] != top {
		t.Fatalf("after an insert below, the cursor is on %q, first row %q", got, m.Render()[0])
	}
	insert(m.Cursor(), "new at the cursor")
	if got := items[m.Cursor()]; got != "line 20" {
		t.Fatalf("after an insert at the cursor, the cursor is on %q, want line 20", got)
	}

	m.SetFollow(true)
	m.End()
	insert(10, "new while following")
	if m.Cursor() != len(items)-1 || m.Len() != len(items) {
		t.Fatalf("following: cursor %d of %d items", m.Cursor(), m.Len())
	}
	insert(len(items), "appended while following")
	if m.Cursor() != len(items)-1 || items[m.Cursor()] != "appended while following" {
		t.Fatalf("following: an item appended by Insert is not selected (cursor %d of %d)", m.Cursor(), len(items))
	}

	empty := New(keymap.Default().Scroll, func(i int) string { return "only" })
	empty.SetSelecting(true)
	empty.SetSize(20, 5)
	empty.Insert(0, 1)
	if empty.Cursor() != 0 || empty.Len() != 1 || empty.Render()[0] != "only" {
		t.Fatalf("insert into an empty list: cursor %d, len %d", empty.Cursor(), empty.Len())
	}
}

// An owner's fold replaces the default one while wrapping, and rows,
// heights, paging and the position follow it; with wrap off it is unused.
func TestWrapFuncFoldsItemsItsOwnWay(t *testing.T) {
	m, _ := lines(50, func(i int) string { return fmt.Sprintf("item %d aaaa bbbb", i) })
	m.SetSize(8, 6)
	folds := 0
	m.SetWrapFunc(func(i, width int) string {
		folds++
		if width != 8 {
			t.Errorf("fold asked for width %d, want 8", width)
		}
		// Three rows an item, the later ones hanging two cells in.
		return fmt.Sprintf("item %d\n  aaaa\n  bbbb", i)
	})
	if got := m.Render()[0]; got != "item 0 …" {
		// Wrap off: the item itself, cut at the width.
		t.Fatalf("wrap off, first row %q", got)
	}
	if folds != 0 {
		t.Fatalf("the fold was called %d times with wrap off", folds)
	}
	m.SetWrap(true)
	got := m.Render()
	want := []string{"item 0", "  aaaa", "  bbbb", "item 1", "  aaaa", "  bbbb"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("wrapped rows %q, want %q", got, want)
	}
	m.Update(press("j"))
	if got := m.Render()[0]; got != "  aaaa" {
		t.Fatalf("one row down the first row is %q", got)
	}
	m.Update(press("G"))
	if r := m.Render(); r[len(r)-1] != "  bbbb" || r[len(r)-3] != "item 49" {
		t.Fatalf("G: the last rows are %q", r)
	}
	m.SetWrapFunc(nil)
	m.Update(press("g"))
	if got := m.Render()[0]; got != "item 0" {
		t.Fatalf("default fold again, first row %q", got)
	}
	if got := m.Render()[1]; got != "aaaa" {
		t.Fatalf("default fold again, second row %q", got)
	}
}

// A styled line folded onto several rows keeps its style on every row:
// each row is drawn on its own, so the style must be opened again on the
// rows after the first (ansi.Wrap left them plain).
func TestWrappedRowsKeepTheirStyle(t *testing.T) {
	red := "\x1b[31m"
	m, _ := lines(1, func(int) string { return "log " + red + strings.Repeat("error ", 10) + "\x1b[m" })
	m.SetWrap(true)
	m.SetSize(20, 10)
	r := m.Render()
	if len(r) < 3 {
		t.Fatalf("expected the line folded onto 3 or more rows: %q", r)
	}
	for i, row := range r {
		if !strings.Contains(row, red) {
			t.Fatalf("row %d lost its colour: %q (all rows %q)", i, row, r)
		}
		if strings.LastIndex(row, red) > strings.LastIndex(row, "\x1b[m") {
			t.Fatalf("row %d leaves its style open: %q", i, row)
		}
	}
}

// An owner's fold (SetWrapFunc) gets its styles carried across its line
// breaks too.
func TestOwnerFoldKeepsItsStyle(t *testing.T) {
	red := "\x1b[31m"
	m, _ := lines(1, func(int) string { return red + "one two three\x1b[m" })
	m.SetWrapFunc(func(i, w int) string { return red + "one\ntwo\nthree\x1b[m" })
	m.SetWrap(true)
	m.SetSize(20, 10)
	for i, row := range m.Render() {
		if !strings.HasPrefix(row, red) || !strings.HasSuffix(row, "\x1b[m") {
			t.Fatalf("row %d of an owner's fold lost its colour: %q", i, row)
		}
	}
}
