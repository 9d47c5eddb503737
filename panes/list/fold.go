package list

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// breakAfter are the characters a row may end with when a token is longer
// than a row: a URL's or a path's joints, a kebab-case name's, a JSON
// list's commas.
const breakAfter = "-/,"

// Fold folds a styled line of text that is safe to show (termsafe) to rows
// of at most w cells without splitting a token that fits a row: it breaks
// at the last space in reach (the spaces at the break are dropped), and
// inside a token (after one of breakAfter between two of its characters,
// so -32601 keeps its sign) only when the token is longer than a row; a
// token with no joint is cut at the edge. Nothing is lost. The rows after
// the first are indented hang cells (none when that leaves fewer than 8).
// Styles carry across the breaks; each row ends them.
func Fold(s string, w, hang int) []string {
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
	// A joint counts only inside a token: a character before it and after it.
	for j := range gs {
		if gs[j].joint && (j == 0 || j+1 == len(gs) || gs[j-1].space || gs[j+1].space) {
			gs[j].joint = false
		}
	}
	// tokenEnd is where the token starting at cluster j ends (in cells).
	tokenEnd := func(j int) int {
		for j < len(gs) && !gs[j].space {
			j++
		}
		if j == len(gs) {
			return total
		}
		return gs[j].at
	}
	var rows []string
	width, pad := w, ""
	for i := 0; i < len(gs); {
		from := gs[i].at
		if total-from <= width {
			rows = append(rows, pad+endStyles(dropEmptyStyles(ansi.Cut(s, from, total))))
			break
		}
		limit := from + width
		space, spaceNext, joint, jointNext, word := -1, -1, -1, -1, false
		for j := i; j < len(gs) && gs[j].at+gs[j].w <= limit+1; j++ {
			switch {
			case gs[j].space && word && gs[j].at <= limit:
				space, spaceNext = gs[j].at, j
			case gs[j].joint && gs[j].at+gs[j].w <= limit:
				joint, jointNext = gs[j].at+gs[j].w, j+1
			}
			word = word || !gs[j].space
		}
		end, next := space, spaceNext
		if joint > space {
			// A joint after the last space: break there only when the token
			// it is in would not fit a row of its own anyway.
			start := i
			if spaceNext >= 0 {
				start = spaceNext + 1
				for start < len(gs) && gs[start].space {
					start++
				}
			}
			if space <= from || tokenEnd(start)-gs[start].at > w-hang {
				end, next = joint, jointNext
			}
		}
		if end <= from {
			// No boundary in reach: cut the token at the edge (at least one
			// cluster a row, or a wide one would never fit).
			next = i + 1
			for next < len(gs) && gs[next].at+gs[next].w <= limit {
				next++
			}
			end = gs[next-1].at + gs[next-1].w
		}
		rows = append(rows, pad+endStyles(dropEmptyStyles(ansi.Cut(s, from, end))))
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

// dropEmptyStyles removes the styles a cut piece opens and resets at once
// (those of the text before the cut): they draw nothing.
func dropEmptyStyles(s string) string {
	if !strings.Contains(s, "m\x1b[") {
		return s
	}
	var b strings.Builder
	for s != "" {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexByte(s, 'm')
		if j < 0 {
			b.WriteString(s)
			break
		}
		seq, rest := s[:j+1], s[j+1:]
		reset := seq == "\x1b[m" || seq == "\x1b[0m"
		if !reset && (strings.HasPrefix(rest, "\x1b[m") || strings.HasPrefix(rest, "\x1b[0m")) {
			s = rest[strings.IndexByte(rest, 'm')+1:]
			continue
		}
		b.WriteString(seq)
		s = rest
	}
	return b.String()
}
