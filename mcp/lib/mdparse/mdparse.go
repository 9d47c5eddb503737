// Package mdparse is how a server's Markdown is parsed, for the terminal
// (panes/markdown) and for the HTML export alike: goldmark with
// CommonMark and GitHub's tables, strikethrough and task lists, and the
// source's pathological nesting capped first, so that the time a text
// takes is in proportion to its size.
//
// GitHub's bare-link extension (linkify) is left out: at every space,
// '*', '_', '~' and '(' it scans the rest of the line for an e-mail
// address, so a line of "_a_a_a…" takes the square of its length (117
// KB: 1.8 s). A bare URL stays what it is, text.
package mdparse

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// New is goldmark with the extensions a server's Markdown is read with,
// and opts.
func New(opts ...goldmark.Option) goldmark.Markdown {
	return goldmark.New(append([]goldmark.Option{
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
	}, opts...)...)
}

// MaxMarkers is the most list and quote markers a line opens with that
// are parsed as such; CapNesting escapes the next, so it and the rest of
// the line are text. goldmark's time is the square of a line's markers
// ("- - - … x" rescans the rest of the line at every level: 128 KB of it
// took 8 s) and no reader follows nesting that deep.
const MaxMarkers = 48

// CapNesting is src with each line's list and quote markers past
// MaxMarkers escaped; src itself when no line has that many.
func CapNesting(src string) string {
	var b strings.Builder
	done := 0 // src[:done] is in b
	for start := 0; start < len(src); {
		end := strings.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if at := pastMarkers(src[start:end]); at >= 0 {
			b.WriteString(src[done : start+at])
			b.WriteByte('\\')
			done = start + at
		}
		start = end + 1
	}
	if done == 0 {
		return src
	}
	b.WriteString(src[done:])
	return b.String()
}

// pastMarkers is where in line the marker past MaxMarkers is to be
// escaped (an ordered list's delimiter, as a backslash does not escape a
// digit), or -1.
func pastMarkers(line string) int {
	n, i := 0, 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			return -1
		}
		var next int
		switch c := line[i]; {
		case c == '>':
			next = i + 1
		case c == '-' || c == '*' || c == '+':
			next = i + 1
			if next < len(line) && line[next] != ' ' && line[next] != '\t' {
				return -1
			}
		case c >= '0' && c <= '9':
			d := i
			for d < len(line) && d-i < 9 && line[d] >= '0' && line[d] <= '9' {
				d++
			}
			if d == len(line) || line[d] != '.' && line[d] != ')' ||
				d+1 < len(line) && line[d+1] != ' ' && line[d+1] != '\t' {
				return -1
			}
			if n == MaxMarkers {
				return d
			}
			next = d + 1
		default:
			return -1
		}
		if n == MaxMarkers {
			return i
		}
		n++
		i = next
	}
}
