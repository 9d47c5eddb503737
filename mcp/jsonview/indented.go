package jsonview

import (
	"bytes"
	"strings"
	"unsafe"
)

// markEvery is how many lines apart Indented remembers where a line
// starts: a line is found by making at most this many from the mark
// before it. 1.6 million lines (a 20 MB JSON text) keep 25,000 marks.
const markEvery = 64

// Indented is Indent's output split into lines, made only when asked
// for: a 20 MB JSON text pretty-prints to 1.6 million lines, and a view
// shows a screenful of them. IndentLines walks the value once to count
// its lines and mark where every markEvery-th one starts; Line makes the
// lines of one mark at a time. Joined with "\n", the lines are Indent's
// output (FuzzValid compares them with json.Indent's).
//
// An Indented is not safe for concurrent use: Line keeps the lines it
// made last. It keeps src, which must not change afterwards.
type Indented struct {
	src    []byte   // the value, without the whitespace after it
	tail   []string // the whitespace after it, split at "\n"
	indent string
	marks  []lineMark // where lines 0, markEvery, 2*markEvery, … start
	n      int        // lines of the value; the tail adds len(tail)-1

	chunkAt int      // the mark whose lines chunk holds, or -1
	chunk   []string // those lines
}

// lineMark is where a line starts: the offset of its first token in src
// and how deep it is nested (how many indents it starts with).
type lineMark struct {
	pos, depth int
}

// IndentLines indexes the lines of Indent(nil, src, indent). src should be
// one valid JSON value (check with Valid first); on anything else the
// lines are unspecified, but IndentLines and Line never panic.
func IndentLines(src []byte, indent string) *Indented {
	value := bytes.TrimRight(src, " \t\r\n")
	x := &Indented{
		src:     value,
		tail:    strings.Split(string(src[len(value):]), "\n"),
		indent:  indent,
		chunkAt: -1,
	}
	x.index()
	return x
}

// index counts the lines and marks where every markEvery-th starts: line
// walks the same breaks token by token, this in one loop over the bytes
// (strings skipped whole), a quarter faster (BenchmarkJSONText20MB).
func (x *Indented) index() {
	src := x.src
	// Leading whitespace is dropped, as json.Indent drops it.
	pos, depth := skipSpace(src, 0), 0
	x.marks = append(x.marks, lineMark{pos, depth})
	n := 1
	// startLine counts a line that starts at src[at], depth deep.
	startLine := func(at int) {
		if n%markEvery == 0 {
			x.marks = append(x.marks, lineMark{at, depth})
		}
		n++
	}
	first := true // at the first token of a line: a close bracket stays on it
	for i := pos; i < len(src); {
		switch c := src[i]; c {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		case '"':
			i = skipString(src, i)
		case ',':
			i = skipSpace(src, i+1)
			if i < len(src) {
				startLine(i)
				first = true
				continue
			}
		case '{', '[':
			next := skipSpace(src, i+1)
			if next < len(src) && (src[next] == '}' || src[next] == ']') {
				i = next + 1 // empty: {} or [] on this line
				break
			}
			depth++
			i = next
			if i < len(src) {
				startLine(i)
				first = true
				continue
			}
		case '}', ']':
			if !first {
				depth--
				startLine(i) // on a line of its own, one level out
			}
			i++
		default: // a number, true, false or null (or a colon)
			i++
			for i < len(src) && !literalEnd[src[i]] {
				i++
			}
		}
		first = false
	}
	x.n = n
}

// Len is the number of lines.
func (x *Indented) Len() int { return x.n + len(x.tail) - 1 }

// Line is line i (0 <= i < Len), without its newline; "" for any other i.
func (x *Indented) Line(i int) string {
	switch {
	case i < 0 || i >= x.Len():
		return ""
	case i >= x.n:
		return x.tail[i-x.n+1] // a line of the whitespace after the value
	}
	if k := i / markEvery; k != x.chunkAt {
		x.makeChunk(k)
	}
	return x.chunk[i%markEvery]
}

// makeChunk makes the lines from mark k to the next one, in one string.
func (x *Indented) makeChunk(k int) {
	m := x.marks[k]
	pos, depth := m.pos, m.depth
	count := min(markEvery, x.n-k*markEvery)
	var buf []byte
	ends := make([]int, 0, count)
	for range count {
		buf, pos, depth = x.line(buf, pos, depth, true)
		ends = append(ends, len(buf))
	}
	last := k*markEvery+count == x.n
	if last {
		buf = append(buf, x.tail[0]...) // the whitespace after the value ends its last line
		ends[len(ends)-1] = len(buf)
	}
	s := string(buf)
	if cap(x.chunk) < count {
		x.chunk = make([]string, count)
	}
	x.chunk = x.chunk[:count]
	start := 0
	for j, end := range ends {
		x.chunk[j] = s[start:end]
		start = end
	}
	x.chunkAt = k
}

// line makes (when build is set, appending it to dst) the line that
// starts at the token at src[pos], depth indents deep, and returns where
// the next line starts. It breaks lines where json.Indent does: after a
// comma, after the opening bracket of a non-empty object or array, and
// before its closing bracket; an empty one stays {} or [] on its line.
func (x *Indented) line(dst []byte, pos, depth int, build bool) ([]byte, int, int) {
	src := x.src
	if build {
		for range depth {
			dst = append(dst, x.indent...)
		}
	}
	first := true
	for {
		pos = skipSpace(src, pos)
		if pos >= len(src) {
			return dst, pos, depth
		}
		c := src[pos]
		if (c == '}' || c == ']') && !first {
			// A non-empty object or array ends on a line of its own,
			// one level out.
			return dst, pos, depth - 1
		}
		first = false
		switch c {
		case '"':
			end := skipString(src, pos)
			if build {
				dst = append(dst, src[pos:end]...)
			}
			pos = end
		case '{', '[':
			pos++
			next := skipSpace(src, pos)
			if next < len(src) && (src[next] == '}' || src[next] == ']') {
				if build {
					dst = append(dst, c, src[next])
				}
				pos = next + 1
				continue
			}
			if build {
				dst = append(dst, c)
			}
			return dst, next, depth + 1
		case ',':
			if build {
				dst = append(dst, c)
			}
			return dst, skipSpace(src, pos+1), depth
		case ':':
			if build {
				dst = append(dst, ':', ' ')
			}
			pos++
		case '}', ']': // first on its line
			if build {
				dst = append(dst, c)
			}
			pos++
		default: // a number, true, false or null
			end := pos + 1
			for end < len(src) && !literalEnd[src[end]] {
				end++
			}
			if build {
				dst = append(dst, src[pos:end]...)
			}
			pos = end
		}
	}
}

// literalEnd marks the bytes that end a number or literal.
var literalEnd = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n,:{}[]\"") {
		t[c] = true
	}
	return t
}()

// IndentStringLines is IndentLines of a string, read where it is (a
// decoded 20 MB JSON text is not copied again to be indexed).
func IndentStringLines(s string, indent string) *Indented {
	return IndentLines(unsafe.Slice(unsafe.StringData(s), len(s)), indent)
}

// ValidString is Valid of a string, read where it is.
func ValidString(s string) bool {
	return Valid(unsafe.Slice(unsafe.StringData(s), len(s)))
}
