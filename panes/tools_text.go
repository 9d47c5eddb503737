package panes

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// Text helpers shared by the tools, result, caps and handshake panes. Every
// function that takes server text sanitises it with termsafe before it is
// measured or styled, so callers cannot forget.

// prettyJSON indents raw JSON two spaces per level and splits it into
// lines. ok is false when raw is not JSON; the lines then hold raw as is.
func prettyJSON(raw []byte) (lines []string, ok bool) {
	trimmed := bytes.TrimSpace(raw)
	if !jsonview.Valid(trimmed) {
		return strings.Split(string(raw), "\n"), false
	}
	// jsonview.Indent is json.Indent's output in one pass (a 20 MB JSON
	// text took json.Indent most of a second).
	return strings.Split(string(jsonview.Indent(make([]byte, 0, len(trimmed)*2), trimmed, "  ")), "\n"), true
}

// maxStyledLineBytes bounds how much of a single line is sanitised and
// highlighted: a multi-megabyte base64 string is one JSON line, and only a
// screenful of it can ever be seen.
const maxStyledLineBytes = 4096

// clipLine cuts s to at most maxStyledLineBytes on a rune boundary.
func clipLine(s string) string {
	if len(s) <= maxStyledLineBytes {
		return s
	}
	cut := maxStyledLineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// highlightJSONLine sanitises one line of (pretty-printed) JSON and colours
// it with the theme's syntax colours. The plain theme gets it uncoloured.
func highlightJSONLine(t *themes.Theme, line string) string {
	return colorJSON(t, termsafe.String(clipLine(line)))
}

// highlightJSON pretty-prints and highlights a whole (small) JSON value,
// indenting every line by indent spaces.
func highlightJSON(t *themes.Theme, raw []byte, indent int) []string {
	lines, ok := prettyJSON(raw)
	pad := strings.Repeat(" ", indent)
	out := make([]string, len(lines))
	for i, l := range lines {
		if ok {
			out[i] = pad + highlightJSONLine(t, l)
		} else {
			out[i] = pad + termsafe.String(clipLine(l))
		}
	}
	return out
}

// wrapBlock sanitises multi-line server text and word-wraps it to width w,
// each line prefixed by indent spaces.
func wrapBlock(s string, w, indent int) []string {
	s = termsafe.Block(s)
	if w-indent < 4 {
		indent = 0
	}
	wrapped := ansi.Wrap(s, max(w-indent, 1), "")
	lines := strings.Split(strings.TrimRight(wrapped, "\n"), "\n")
	if indent > 0 {
		pad := strings.Repeat(" ", indent)
		for i, l := range lines {
			lines[i] = pad + l
		}
	}
	return lines
}

// hangOf is how far the rows after a folded line's first are indented:
// the line's own indent and extra more.
func hangOf(line string, extra int) int {
	plain := ansi.Strip(line)
	return len(plain) - len(strings.TrimLeft(plain, " ")) + extra
}

// breakAfter are the characters a row may end with when a line is folded
// with no space to break at: a URL's or a kebab-case name's joints, a JSON
// list's commas.
const breakAfter = "-/,"

// foldLine folds a styled line of text that is safe to show (termsafe) to
// rows of at most w cells, breaking at word boundaries: at the last space
// that fits (the spaces at the break are dropped) or after one of
// breakAfter; a word longer than a row is cut, nothing is lost. The rows
// after the first are indented hang cells (none when that leaves fewer
// than 8). Styles carry across the breaks; each row ends them.
func foldLine(s string, w, hang int) []string {
	total := ansi.StringWidth(s)
	if w <= 0 || total <= w {
		return []string{s}
	}
	if w-hang < 8 {
		hang = 0
	}
	type cluster struct {
		at, w        int
		space, joint bool
	}
	plain := ansi.Strip(s)
	gs := make([]cluster, 0, len(plain))
	at := 0
	for rest := plain; rest != ""; {
		c, cw := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		gs = append(gs, cluster{at: at, w: cw, space: c == " ", joint: len(c) == 1 && strings.Contains(breakAfter, c)})
		at += cw
		rest = rest[len(c):]
	}
	var rows []string
	width, pad := w, ""
	for i := 0; i < len(gs); {
		from := gs[i].at
		if total-from <= width {
			rows = append(rows, pad+endStyles(ansi.Cut(s, from, total)))
			break
		}
		limit := from + width
		end, next, word := -1, -1, false
		for j := i; j < len(gs) && gs[j].at+gs[j].w <= limit+1; j++ {
			switch {
			case gs[j].space && word && gs[j].at <= limit:
				end, next = gs[j].at, j
			case gs[j].joint && gs[j].at+gs[j].w <= limit && j+1 < len(gs):
				end, next = gs[j].at+gs[j].w, j+1
			}
			word = word || !gs[j].space
		}
		if end <= from {
			// No boundary in reach: cut the word at the edge (at least one
			// cluster a row, or a wide one would never fit).
			next = i + 1
			for next < len(gs) && gs[next].at+gs[next].w <= limit {
				next++
			}
			end = gs[next-1].at + gs[next-1].w
		}
		rows = append(rows, pad+endStyles(ansi.Cut(s, from, end)))
		for next < len(gs) && gs[next].space {
			next++
		}
		i = next
		width, pad = w-hang, strings.Repeat(" ", hang)
	}
	return rows
}

// endStyles closes the styles a cut piece of a styled line leaves open, so
// the padding after it is not painted.
func endStyles(s string) string {
	if strings.IndexByte(s, '\x1b') < 0 || strings.HasSuffix(s, "\x1b[m") || strings.HasSuffix(s, "\x1b[0m") {
		return s
	}
	return s + "\x1b[m"
}

// sliceWindow returns the rows of lines from top, at most n of them.
func sliceWindow(lines []string, top, n int) []string {
	if top < 0 {
		top = 0
	}
	if top >= len(lines) || n <= 0 {
		return nil
	}
	return lines[top:min(top+n, len(lines))]
}
