package panes

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp/jsonview"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
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
// it with the theme's chroma style. The plain theme gets it uncoloured.
func highlightJSONLine(t *themes.Theme, line string) string {
	return colorJSON(t, termsafe.String(clipLine(line)))
}

// colorJSON colours one line of JSON that is already safe to show (see
// termsafe) with the theme's chroma style; the plain theme leaves it as is.
func colorJSON(t *themes.Theme, line string) string {
	style := t.Chroma()
	if style == nil {
		return line
	}
	it, err := jsonLexer().Tokenise(nil, line)
	if err != nil {
		return line
	}
	var b strings.Builder
	writeTrueColour(&b, style, it)
	return b.String()
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

// wrapStyled wraps plain text (already safe to show) to w cells, indented,
// and styles each line.
func wrapStyled(st lipgloss.Style, s string, w, indent int) []string {
	lines := wrapBlock(s, w, indent)
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

// wrapJSON is highlightJSON folded to w cells: a line too long is cut into
// pieces, every character kept in order, the pieces after the first
// indented two more than the line itself, so a schema stays whole in a
// narrow column instead of losing its ends at the edge.
func wrapJSON(t *themes.Theme, raw []byte, indent, w int) []string {
	lines := highlightJSON(t, raw, indent)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		lw := ansi.StringWidth(l)
		if lw <= w {
			out = append(out, l)
			continue
		}
		plain := ansi.Strip(l)
		hang := len(plain) - len(strings.TrimLeft(plain, " ")) + 2
		if w-hang < 8 {
			out = append(out, l) // too narrow to fold usefully: cut at the edge
			continue
		}
		out = append(out, ansi.Truncate(l, w, ""))
		pad := strings.Repeat(" ", hang)
		for from := w; from < lw; from += w - hang {
			out = append(out, pad+ansi.Cut(l, from, min(from+w-hang, lw)))
		}
	}
	return out
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
