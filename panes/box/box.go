// Package box draws the bordered frame every pane of mcpscope uses: a
// rounded border with the title set into the top edge, in exactly w×h
// cells. It is a leaf package so that panes and its sub-packages (the form
// engine) share one implementation.
package box

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/themes"
)

// Draw draws a pane's rounded border around body lines, with the title set
// into the top edge, in exactly w×h cells. Lines are cut or padded to the
// inner width with x/ansi, so styled lines are never cut inside an escape
// sequence. Panes use it instead of lipgloss borders because lipgloss has no
// border titles and because it costs only what is visible.
func Draw(t *themes.Theme, title string, focused bool, w, h int, body []string) string {
	if w < 2 || h < 2 {
		return Blank(w, h)
	}
	border := lipgloss.RoundedBorder()
	edge := t.Pane.Blurred
	titleStyle := t.Pane.TitleBlurred
	if focused {
		edge = t.Pane.Focused
		titleStyle = t.Pane.Title
		if t.Plain {
			border = lipgloss.ThickBorder()
		}
	}
	// The border characters take only the border colour.
	paint := lipgloss.NewStyle().Foreground(edge.GetBorderTopForeground())
	if t.Plain {
		paint = lipgloss.NewStyle()
	}
	inner := w - 2
	var b strings.Builder
	b.Grow((w + 16) * h)

	// Top edge: ╭─ Title ─────╮
	b.WriteString(paint.Render(border.TopLeft))
	used := 0
	if title != "" && inner > 4 {
		tt := ansi.Truncate(title, inner-3, "…")
		b.WriteString(paint.Render(border.Top))
		b.WriteString(" ")
		b.WriteString(titleStyle.Render(tt))
		b.WriteString(" ")
		used = 3 + ansi.StringWidth(tt)
	}
	if inner-used > 0 {
		b.WriteString(paint.Render(strings.Repeat(border.Top, inner-used)))
	}
	b.WriteString(paint.Render(border.TopRight))
	b.WriteByte('\n')

	left, right := paint.Render(border.Left), paint.Render(border.Right)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		b.WriteString(left)
		b.WriteString(Fit(line, inner))
		b.WriteString(right)
		b.WriteByte('\n')
	}
	b.WriteString(paint.Render(border.BottomLeft + strings.Repeat(border.Bottom, inner) + border.BottomRight))
	return b.String()
}

// TitleKeeping is a title for a box w cells wide that ends in tail (a
// list's position, a mode) kept whole: when both do not fit, the title is
// cut with "…" to make room, rather than Draw cutting the tail off the
// end. A tail too long for the box on its own is left to Draw.
func TitleKeeping(title, tail string, w int) string {
	room := w - 5 // the corners, the edge before the title and two spaces
	tw := ansi.StringWidth(tail)
	if tail == "" || tw >= room || ansi.StringWidth(title)+tw <= room {
		return title + tail
	}
	return ansi.Truncate(title, room-tw, "…") + tail
}

// Fit cuts or pads a (possibly styled) line to exactly w cells.
func Fit(line string, w int) string {
	if w <= 0 {
		return ""
	}
	lw := ansi.StringWidth(line)
	if lw > w {
		line = ansi.Truncate(line, w, "…")
		lw = ansi.StringWidth(line)
	}
	if lw < w {
		line += strings.Repeat(" ", w-lw)
	}
	return line
}

// blank is w×h spaces.
// Blank is w×h cells of spaces.
func Blank(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	row := strings.Repeat(" ", w)
	rows := make([]string, h)
	for i := range rows {
		rows[i] = row
	}
	return strings.Join(rows, "\n")
}
