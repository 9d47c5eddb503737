package markdown

import (
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// minColumn is the narrowest a table's column is made to fit the width;
// a table that cannot fit its columns at that is shown as records, one
// "header: value" line a cell.
const minColumn = 4

// table lays out a GFM table at most width cells wide: columns as wide
// as their widest cell when that fits, else narrowed (the widest first)
// with their cells wrapped.
func (l *layout) table(n *east.Table, width int, base style) []string {
	var rows [][]ast.Node
	header := -1
	for r := n.FirstChild(); r != nil; r = r.NextSibling() {
		if _, ok := r.(*east.TableHeader); ok {
			header = len(rows)
		}
		var cells []ast.Node
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, c)
		}
		rows = append(rows, cells)
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return nil
	}
	cellStyle := func(row int) style {
		if row == header {
			return l.st.head.over(base)
		}
		return base
	}
	natural := make([]int, cols)
	for i, r := range rows {
		for j, c := range r {
			for _, ln := range l.cell(c, 1<<30, cellStyle(i)) {
				natural[j] = max(natural[j], ln.w)
			}
		}
	}
	// One space before the first column, " │ " between columns.
	room := width - 1 - 3*(cols-1)
	if room < cols*minColumn {
		return l.records(rows, header, width, base)
	}
	widths := fit(natural, room)

	var out []string
	bar := line{pieces: []piece{{" │ ", l.st.rule}}}.String()
	for i, r := range rows {
		cellLines := make([][]line, cols)
		height := 1
		for j := range cols {
			if j < len(r) {
				cellLines[j] = l.cell(r[j], widths[j], cellStyle(i))
			}
			height = max(height, len(cellLines[j]))
		}
		for k := range height {
			var b strings.Builder
			b.WriteString(" ")
			for j := range cols {
				if j > 0 {
					b.WriteString(bar)
				}
				var ln line
				if k < len(cellLines[j]) {
					ln = cellLines[j][k]
				}
				gap := widths[j] - ln.w
				left := 0
				switch alignment(n, j) {
				case east.AlignRight:
					left = gap
				case east.AlignCenter:
					left = gap / 2
				}
				b.WriteString(strings.Repeat(" ", left))
				b.WriteString(ln.String())
				if j < cols-1 {
					b.WriteString(strings.Repeat(" ", gap-left))
				}
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if i == header {
			var b strings.Builder
			for j, w := range widths {
				if j > 0 {
					b.WriteString("┼")
				}
				// A column's rule spans it and the spaces either side;
				// the last has none after it.
				b.WriteString(strings.Repeat("─", w+2-boolInt(j == cols-1)))
			}
			out = append(out, line{pieces: []piece{{b.String(), l.st.rule}}}.String())
		}
	}
	return out
}

// cell is a table cell laid out at width.
func (l *layout) cell(c ast.Node, width int, st style) []line {
	w := newWrapper(width)
	l.inlines(w, c, st)
	return w.finish()
}

func alignment(n *east.Table, col int) east.Alignment {
	if col < len(n.Alignments) {
		return n.Alignments[col]
	}
	return east.AlignNone
}

// fit shares room among columns of the given natural widths: each gets
// its natural width if it is no more than an equal share of what the
// narrower ones left; the others share the rest.
func fit(natural []int, room int) []int {
	widths := make([]int, len(natural))
	total := 0
	for _, w := range natural {
		total += w
	}
	if total <= room {
		copy(widths, natural)
		return widths
	}
	order := make([]int, len(natural))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return natural[a] - natural[b] })
	left := room
	for k, j := range order {
		share := left / (len(order) - k)
		widths[j] = max(min(natural[j], share), 1)
		left -= widths[j]
	}
	return widths
}

// records lays a table too wide for its columns out as one block a row,
// each cell a "header: value" paragraph.
func (l *layout) records(rows [][]ast.Node, header, width int, base style) []string {
	var names []ast.Node
	if header >= 0 {
		names = rows[header]
	}
	var out []string
	for i, r := range rows {
		if i == header {
			continue
		}
		if len(out) > 0 {
			out = append(out, line{pieces: []piece{{strings.Repeat("─", width), l.st.rule}}}.String())
		}
		for j, c := range r {
			w := newWrapper(width)
			if j < len(names) {
				l.inlines(w, names[j], l.st.head.over(base))
				w.text(":", l.st.head.over(base))
				w.spaceIn(base)
			}
			l.inlines(w, c, base)
			out = append(out, strs(w.finish())...)
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
