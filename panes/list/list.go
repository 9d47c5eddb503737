// Package list is mcpscope's one scrolling view: a window over n items
// (text lines, log entries, rows of a list) that asks for and draws only
// the items on screen. It keeps the first item shown, an optional cursor,
// the horizontal offset and the wrap toggle, and moves them with the keys
// of keymap.Scroll and the mouse wheel.
//
// The items come from a function, so the owner keeps its data as it likes
// (a slice of frames, lazily highlighted lines) and styles an item only
// when it is drawn. Every operation costs what the window holds, never n:
// a view of 100,000 lines draws as fast as one of 100 (BenchmarkRender).
package list

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
)

// wheelStep is how far one notch of the mouse wheel moves.
const wheelStep = 3

// Model is the scrolling window. The zero value is not usable: make one
// with New.
type Model struct {
	keys keymap.Scroll
	item func(i int) string
	fold func(i, width int) string // SetWrapFunc; nil folds with the default

	n      int
	width  int // cells per row
	rows   int // rows on screen
	top    int // first item shown
	skip   int // rows of item top hidden above the window (wrap only)
	cursor int
	left   int // cells hidden to the left (no wrap)

	wrap      bool
	selecting bool // a list with a cursor, not a plain view
	follow    bool // the cursor stays on the last item as items arrive
}

// New makes a window over items drawn by item(i), one styled line each
// (no newline). item is only called for 0 <= i < Len().
func New(keys keymap.Scroll, item func(i int) string) *Model {
	return &Model{keys: keys, item: item}
}

// SetWrapFunc says how item i is folded to width cells while wrapping
// (rows separated by "\n"), for an owner whose items fold their own way: a
// JSON line whose continuation rows hang under its key, a paragraph kept
// at its indent. It is called only for items on screen, often: cache in
// it what is dear. nil restores the default fold.
func (m *Model) SetWrapFunc(fold func(i, width int) string) {
	m.fold, m.skip = fold, 0
	m.settle()
}

// SetKeys replaces the bindings (a pane whose up and down keys differ).
func (m *Model) SetKeys(k keymap.Scroll) { m.keys = k }

// Keys are the bindings in use, for the owner's help.
func (m *Model) Keys() keymap.Scroll { return m.keys }

// SetSelecting makes the view a list with a cursor (enter opens the
// cursor's item, which the owner reads with Cursor).
func (m *Model) SetSelecting(on bool) { m.selecting = on }

// SetFollow keeps the cursor on the last item while it is there, as tail
// -f does: new items scroll into view until the user moves up.
func (m *Model) SetFollow(on bool) { m.follow = on }

// SetSize sets the window: width cells by rows rows.
func (m *Model) SetSize(width, rows int) {
	if width != m.width {
		m.skip = 0
	}
	m.width, m.rows = max(width, 0), max(rows, 0)
	m.settle()
}

// Width and Rows are the window's size.
func (m *Model) Width() int { return m.width }
func (m *Model) Rows() int  { return m.rows }

// SetLen says how many items there are. Following, a cursor on the last
// item moves to the new last one.
func (m *Model) SetLen(n int) {
	atEnd := m.cursor >= m.n-1
	m.n = max(n, 0)
	if m.follow && m.selecting && atEnd {
		m.cursor = max(m.n-1, 0)
	}
	m.settle()
}

// Insert says count items were put in before item at (at == Len()
// appends them): the cursor and the window stay on the items they were
// on, so an item that arrives above the cursor does not move the
// selection. Following, a cursor on the last item stays on the last.
func (m *Model) Insert(at, count int) {
	if count <= 0 {
		return
	}
	at = max(min(at, m.n), 0)
	atEnd := m.cursor >= m.n-1
	if m.n > 0 {
		if at <= m.cursor {
			m.cursor += count
		}
		// An item put in at the first row shows there, unless that row
		// is partly scrolled off (wrapped): then the window keeps its
		// place.
		if at < m.top || (at == m.top && m.skip > 0) {
			m.top += count
		}
	}
	m.n += count
	if m.follow && m.selecting && atEnd {
		m.cursor = m.n - 1
	}
	m.settle()
}

// Len is the number of items.
func (m *Model) Len() int { return m.n }

// Reset goes back to the first item, unwrapped offset cleared.
func (m *Model) Reset() {
	m.top, m.skip, m.cursor, m.left = 0, 0, 0, 0
	m.settle()
}

// Cursor is the selected item (a list), or the first item shown.
func (m *Model) Cursor() int {
	if m.selecting {
		return m.cursor
	}
	return m.top
}

// Top is the first item shown.
func (m *Model) Top() int { return m.top }

// Left is how many cells are scrolled off to the left.
func (m *Model) Left() int { return m.left }

// Wrapping reports whether long lines are folded.
func (m *Model) Wrapping() bool { return m.wrap }

// SetWrap folds long lines (on) or cuts them, scrolled by Left (off).
func (m *Model) SetWrap(on bool) {
	m.wrap, m.left, m.skip = on, 0, 0
	m.settle()
}

// Select puts the cursor on item i and brings it into view.
func (m *Model) Select(i int) {
	m.cursor = i
	m.settle()
}

// AtBottom reports whether the last item is on screen.
func (m *Model) AtBottom() bool {
	return m.n == 0 || m.rowsFrom(m.top, m.skip, m.rows+1) <= m.rows
}

// height is how many rows item i takes.
func (m *Model) height(i int) int {
	if !m.wrap || m.width <= 0 {
		return 1
	}
	return strings.Count(m.wrapped(i), "\n") + 1
}

// wrapped is item i folded to the width without splitting a token that
// fits a row (Fold). Each row is drawn on its own (padded, framed, maybe
// highlighted), so a style that runs across a fold is closed at the end of
// one row and opened again at the start of the next, or the rows after
// the first would lose their colour.
func (m *Model) wrapped(i int) string {
	if m.fold != nil {
		return carryStyles(m.fold(i, m.width))
	}
	return carryStyles(strings.Join(Fold(m.item(i), m.width, 0), "\n"))
}

// carryStyles closes a style still open at each line break of s and opens
// it again on the next line, as lipgloss.Wrap does for its own folds: an
// owner's fold (SetWrapFunc) gets the same colour on every row.
func carryStyles(s string) string {
	if !strings.Contains(s, "\n") || !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	w := lipgloss.NewWrapWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.String()
}

// rowsFrom counts the rows from item i (skip rows in) to the end, stopping
// once it passes limit: a visible cost, never n.
func (m *Model) rowsFrom(i, skip, limit int) int {
	if !m.wrap {
		return min(m.n-i, limit)
	}
	total := -skip
	for ; i < m.n && total <= limit; i++ {
		total += m.height(i)
	}
	return total
}

// scrollRows moves the window by delta rows (negative is up).
func (m *Model) scrollRows(delta int) {
	if !m.wrap {
		m.top += delta
		m.clampTop()
		return
	}
	for ; delta > 0; delta-- {
		if m.skip+1 < m.height(m.top) {
			m.skip++
		} else if m.top < m.n-1 {
			m.top, m.skip = m.top+1, 0
		} else {
			break
		}
	}
	for ; delta < 0; delta++ {
		if m.skip > 0 {
			m.skip--
		} else if m.top > 0 {
			m.top--
			m.skip = m.height(m.top) - 1
		} else {
			break
		}
	}
	m.clampTop()
}

// clampTop keeps the window inside the items and never past the point
// where the last item sits on the last row.
func (m *Model) clampTop() {
	if m.n == 0 {
		m.top, m.skip = 0, 0
		return
	}
	if !m.wrap {
		m.top = max(min(m.top, m.n-m.rows), 0)
		m.skip = 0
		return
	}
	m.top = max(min(m.top, m.n-1), 0)
	if short := m.rows - m.rowsFrom(m.top, m.skip, m.rows); short > 0 && (m.top > 0 || m.skip > 0) {
		// Too close to the end: move up until the window is full.
		for ; short > 0; short-- {
			if m.skip > 0 {
				m.skip--
			} else if m.top > 0 {
				m.top--
				m.skip = m.height(m.top) - 1
			} else {
				break
			}
		}
	}
}

// settle clamps the cursor and brings it into view.
func (m *Model) settle() {
	if m.n == 0 {
		m.top, m.skip, m.cursor = 0, 0, 0
		return
	}
	if !m.selecting {
		m.clampTop()
		return
	}
	m.cursor = max(min(m.cursor, m.n-1), 0)
	switch {
	case m.cursor < m.top || (m.cursor == m.top && m.skip > 0):
		m.top, m.skip = m.cursor, 0
	case !m.wrap && m.cursor >= m.top+m.rows:
		m.top = m.cursor - m.rows + 1
	case m.wrap && m.cursor-m.top >= m.rows:
		m.bottomOn(m.cursor)
	case m.wrap:
		// Does the cursor's last row fit? Count the rows up to it.
		used := -m.skip
		for i := m.top; i <= m.cursor; i++ {
			used += m.height(i)
		}
		if used > m.rows {
			m.bottomOn(m.cursor)
		}
	}
	m.clampTop()
}

// bottomOn scrolls so that item i ends on the last row (or starts on the
// first, when it is taller than the window).
func (m *Model) bottomOn(i int) {
	h := m.height(i)
	if h >= m.rows {
		m.top, m.skip = i, 0
		return
	}
	m.top, m.skip = i, h-1
	m.scrollRows(-(m.rows - 1))
}

// step moves the cursor (a list) or the window (a plain view) by n.
func (m *Model) step(n int) {
	if m.selecting {
		m.cursor += n
		m.settle()
		return
	}
	m.scrollRows(n)
}

func (m *Model) page() int { return max(m.rows-1, 1) }

// Update moves the view for a scroll key or the wheel, and reports whether
// the message was one of those.
func (m *Model) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k := m.keys
		switch {
		case key.Matches(msg, k.Up):
			m.step(-1)
		case key.Matches(msg, k.Down):
			m.step(1)
		case key.Matches(msg, k.PageUp):
			m.step(-m.page())
		case key.Matches(msg, k.PageDown):
			m.step(m.page())
		case key.Matches(msg, k.Top):
			m.Home()
		case key.Matches(msg, k.Bottom):
			m.End()
		case key.Matches(msg, k.Left):
			if m.wrap {
				return true
			}
			m.left = max(m.left-m.sideStep(), 0)
		case key.Matches(msg, k.Right):
			if m.wrap {
				return true
			}
			m.left = min(m.left+m.sideStep(), max(m.widest()-m.width, 0))
		case key.Matches(msg, k.Wrap):
			m.SetWrap(!m.wrap)
		default:
			return false
		}
		return true
	case tea.MouseWheelMsg:
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			m.step(-wheelStep)
		case tea.MouseWheelDown:
			m.step(wheelStep)
		case tea.MouseWheelLeft:
			if !m.wrap {
				m.left = max(m.left-wheelStep*2, 0)
			}
		case tea.MouseWheelRight:
			if !m.wrap {
				m.left = min(m.left+wheelStep*2, max(m.widest()-m.width, 0))
			}
		default:
			return false
		}
		return true
	}
	return false
}

// sideStep is how far left and right move: half the width, as less does.
func (m *Model) sideStep() int { return max(m.width/2, 4) }

// Home goes to the first item.
func (m *Model) Home() {
	m.top, m.skip, m.cursor = 0, 0, 0
	m.settle()
}

// End goes to the last item.
func (m *Model) End() {
	if m.n == 0 {
		return
	}
	m.cursor = m.n - 1
	if m.wrap {
		m.bottomOn(m.n - 1)
	} else {
		m.top = m.n - m.rows
	}
	m.settle()
}

// ItemAt is the item drawn on row y of the window, or -1.
func (m *Model) ItemAt(y int) int {
	if y < 0 || y >= m.rows {
		return -1
	}
	row := -m.skip
	for i := m.top; i < m.n; i++ {
		row += m.height(i)
		if y < row {
			return i
		}
	}
	return -1
}

// Row is one drawn row: its text and the item it belongs to.
type Row struct {
	Item int
	Text string
}

// Render draws the window: at most Rows() lines, each at most Width()
// cells (the owner's box pads them). Only the items on screen are asked
// for. A line cut on the right ends in "…"; one scrolled sideways starts
// with "…".
func (m *Model) Render() []string {
	rows := m.RenderRows()
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Text
	}
	return out
}

// RenderRows is Render with the item of each row, so that an owner can
// mark the cursor's rows or draw a gutter.
func (m *Model) RenderRows() []Row {
	if m.rows <= 0 || m.width <= 0 {
		return nil
	}
	out := make([]Row, 0, m.rows)
	for i, skip := m.top, m.skip; i < m.n && len(out) < m.rows; i, skip = i+1, 0 {
		if m.wrap {
			lines := strings.Split(m.wrapped(i), "\n")
			lines = lines[min(skip, len(lines)):]
			for _, l := range lines[:min(len(lines), m.rows-len(out))] {
				out = append(out, Row{Item: i, Text: l})
			}
			continue
		}
		out = append(out, Row{Item: i, Text: m.cut(m.item(i))})
	}
	return out
}

// cut shows a line from cell left on, width cells of it. A line has at
// least as many bytes as cells, so a short one is shown without measuring
// it (measuring is grapheme clustering: most of a draw's time otherwise).
func (m *Model) cut(s string) string {
	if m.left > 0 {
		s = ansi.TruncateLeft(s, m.left+1, "…")
		if s == "…" {
			return ""
		}
	}
	if len(s) <= m.width {
		return s
	}
	if plainASCII(s) {
		return s[:m.width-1] + "…"
	}
	return ansi.Truncate(s, m.width, "…")
}

// plainASCII reports whether s is printable ASCII only: one cell a byte.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// widest is the width of the widest line on screen: how far right goes.
func (m *Model) widest() int {
	w := 0
	for i := m.top; i < m.n && i < m.top+m.rows; i++ {
		w = max(w, ansi.StringWidth(m.item(i)))
	}
	return w
}

// CanScrollSideways reports whether ←/→ have anything to do: the rows are
// not wrapped, and one on screen is wider than the list or the window is
// already scrolled.
func (m *Model) CanScrollSideways() bool {
	return !m.wrap && (m.left > 0 || m.widest() > m.width)
}

// Position says where the window is, for a title: "12/1000" on a list,
// "40-63 of 1000" on a plain view, "all 12" when everything fits; then the
// sideways offset and "wrap" when they apply.
func (m *Model) Position() string {
	var s string
	switch {
	case m.n == 0:
		return ""
	case m.selecting:
		s = fmt.Sprintf("%d/%d", m.cursor+1, m.n)
	case m.top == 0 && m.skip == 0 && m.AtBottom():
		s = ""
	default:
		last := min(m.top+m.rows, m.n) - 1
		if m.wrap {
			rows := -m.skip
			for last = m.top; last < m.n-1; last++ {
				if rows += m.height(last); rows >= m.rows {
					break
				}
			}
		}
		s = fmt.Sprintf("%d-%d of %d", m.top+1, last+1, m.n)
	}
	if m.left > 0 {
		s = join(s, fmt.Sprintf("→%d", m.left))
	}
	if m.wrap {
		s = join(s, "wrap")
	}
	return s
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " · " + b
}

// ShortHelp is the scroll keys worth a place in a help bar.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Down, m.keys.PageDown, m.keys.Left, m.keys.Wrap}
}

// FullHelp is every scroll key.
func (m *Model) FullHelp() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Left, k.Wrap}
}
