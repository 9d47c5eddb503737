package panes

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
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
	// jsonview.Indent is json.Indent's output in one pass, where
	// json.Indent steps a state machine per byte of a big JSON text.
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
	lines := wrapWords(strings.TrimRight(s, "\n"), max(w-indent, 1), 0)
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

// foldLine folds a styled line of text that is safe to show (termsafe) to
// rows of at most w cells without splitting a token (list.Fold).
func foldLine(s string, w, hang int) []string { return list.Fold(s, w, hang) }

// wrapWords folds text (its own lines kept) to rows of at most w cells,
// the rows after each line's first indented hang cells; a path, a URL or
// -32601 stays whole where it fits a row.
func wrapWords(s string, w, hang int) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, list.Fold(l, w, hang)...)
	}
	return out
}
