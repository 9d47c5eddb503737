// Package termsafe makes strings a server sent safe to draw in a terminal.
//
// An MCP server controls tool names, descriptions, server info, log lines and
// results. Drawn raw, any of them could carry escape sequences that clear the
// screen, retitle the window, move the cursor or write the clipboard (OSC 52)
// through mcpscope. Every server string must pass through [String] (one line)
// or [Block] (multi-line text) before it reaches a renderer.
//
// Control characters are not dropped but turned into visible escapes, so a
// debugger user can see exactly what the server sent:
//
//	C0 controls (< 0x20), DEL      \x1b, \x07, \t, \n, \r, \x7f …
//	C1 controls U+0080–U+009F      \u009b …
//	line/paragraph separators      \u2028, \u2029
//	bidi overrides, isolates, marks \u202e, \u2066, \u200f …
//	zero-width and invisible format \u200b, \u200d, \u2060, \ufeff …
//	invalid UTF-8 bytes            \xff …
//
// The same set is escaped in editors and text inputs ([Rendered]) and, as
// JSON \u escapes or XML character references, in machine output written
// to a terminal ([NewMachineWriter]), and in text streamed to a terminal
// ([NewTextWriter]: a report, a listing, an error).
//
// A backslash is not escaped: the output is for reading, not for parsing
// back, and escaping it would make every JSON body and Windows path noisy.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// TabWidth is the tab stop distance [Block] expands tabs to.
const TabWidth = 4

// String returns s with every control character, line break, tab and invalid
// UTF-8 byte turned into visible escaped text, so the result is one line
// that cannot drive the terminal. It returns s itself, without allocating,
// when there is nothing to escape.
func String(s string) string {
	i := firstUnsafe(s, false)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	escapeFrom(&b, s[i:], false, 0)
	return b.String()
}

// Block is [String] for multi-line text (descriptions, instructions, JSON
// bodies): it keeps line feeds, treats CR LF as a line feed, and expands tabs
// to spaces at [TabWidth] stops. Everything else is escaped as in String.
func Block(s string) string {
	i := firstUnsafe(s, true)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	// The column matters only for tab stops; count runes since the last
	// line feed in the clean prefix.
	col := utf8.RuneCountInString(s[strings.LastIndexByte(s[:i], '\n')+1 : i])
	escapeFrom(&b, s[i:], true, col)
	return b.String()
}

// firstUnsafe returns the byte offset of the first thing to escape in s, or
// -1. In block mode a lone '\n' is safe.
func firstUnsafe(s string, block bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				if !block || c != '\n' {
					return i
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports the non-ASCII runes that must be escaped: the C1
// controls (0x9b is an 8-bit CSI some terminals honour), the Unicode line
// and paragraph separators (which break the one-line-per-row layout), the
// bidi controls and marks that can make displayed text lie about its
// content, and the zero-width and invisible format characters that make
// two different strings look the same (a tool name "read\u200bfile").
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r >= 0x206a && r <= 0x206f, r == 0xfeff, r == 0x180e:
		return true
	}
	return false
}

// Unsafe reports whether s has anything String would escape.
func Unsafe(s string) bool { return firstUnsafe(s, false) >= 0 }

// Rendered escapes the unsafe non-ASCII runes (C1 controls, separators,
// bidi and zero-width characters) in text a component has already drawn
// and styled, such as a text input's or an editor's View: the styling's
// ESC sequences are ASCII and stay, and the component itself has already
// dropped ASCII controls from its value. Invalid UTF-8 bytes are escaped
// as \xHH.
func Rendered(view string) string {
	i := 0
	for i < len(view) {
		if view[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(view[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			break
		}
		i += size
	}
	if i == len(view) {
		return view
	}
	var b strings.Builder
	b.Grow(len(view) + 16)
	b.WriteString(view[:i])
	for i < len(view) {
		if view[i] < utf8.RuneSelf {
			b.WriteByte(view[i])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(view[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeByteEscape(&b, view[i])
		case unsafeRune(r):
			writeUEscape(&b, r)
		default:
			b.WriteString(view[i : i+size])
		}
		i += size
	}
	return b.String()
}

func writeUEscape(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}

const hexDigits = "0123456789abcdef"

func escapeFrom(b *strings.Builder, s string, block bool, col int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 0x20 && c != 0x7f:
				b.WriteByte(c)
				col++
			case block && c == '\n':
				b.WriteByte('\n')
				col = 0
			case block && c == '\r' && i < len(s) && s[i] == '\n':
				// CR LF: the CR is part of the line ending, not content.
			case block && c == '\t':
				n := TabWidth - col%TabWidth
				b.WriteString("        "[:n]) // TabWidth ≤ 8
				col += n
			default:
				col += writeASCIIEscape(b, c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeByteEscape(b, s[i])
			col += 4
		case unsafeRune(r):
			writeUEscape(b, r)
			col += 6
		default:
			b.WriteString(s[i : i+size])
			col++
		}
		i += size
	}
}

// writeASCIIEscape writes the escape of an ASCII control and returns its width.
func writeASCIIEscape(b *strings.Builder, c byte) int {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		writeByteEscape(b, c)
		return 4
	}
	return 2
}

func writeByteEscape(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}
