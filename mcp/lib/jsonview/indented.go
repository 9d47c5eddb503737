package jsonview

import (
	"bytes"
	"math"
	"strings"
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

	// text, when set, holds the value instead of src: it is the
	// decoded bytes of text from base, vlen of them, and a chunk's lines
	// are made from the part of it win holds (NewQuoted).
	text       *Quoted
	base, vlen int
	win        []byte
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
// (strings skipped whole), which is faster (BenchmarkJSONText20MB).
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

// ValidIndentLines is Valid(src) and, when it holds, IndentLines(src,
// indent), in one pass instead of two: a big JSON text is checked and
// its lines indexed in one walk over its bytes (BenchmarkJSONText20MB).
// The answers are the two functions' (FuzzValid compares them).
func ValidIndentLines(src []byte, indent string) (*Indented, bool) {
	value := bytes.TrimRight(src, " \t\r\n")
	x := &Indented{src: value, indent: indent, chunkAt: -1}
	if ok, _ := x.indexValid(value, true, nil); !ok {
		return nil, false
	}
	x.tail = strings.Split(string(src[len(value):]), "\n")
	return x, true
}

// indexValid is index while checking the grammar as Valid does: it
// reports whether src (the value without the whitespace after it; any
// before it is skipped) is one valid JSON value, and when it is, x.src is
// src and x.marks and x.n are index's. It keeps the open objects and
// arrays on a stack of its own rather than recursing, so the line breaks
// (index's) and the grammar (validValue's) are one loop.
//
// src may be the start of a value still being decoded (final false):
// more(keep, need) then waits until need bytes of it are there, or all of
// it (final), and returns them; it may drop the keep bytes before the
// cursor, which it says by returning the window's shift (their number,
// or 0 when it returns the value from its start). Tokens are read with
// followWindow bytes ahead; a longer one may be cut, and fails. sawFinal
// says whether the answer was reached with all of the value at hand.
func (x *Indented) indexValid(src []byte, final bool, more func(keep, need int) ([]byte, int, bool)) (ok, sawFinal bool) {
	i := skipSpace(src, 0)
	x.marks = append(x.marks[:0], lineMark{i, 0})
	n := 1
	base := 0 // the value's offset of src[0]
	shift := 0
	// open holds the brackets of the non-empty objects and arrays the
	// cursor is inside of, innermost last; its length is the depth.
	var open []byte
	cutNumber := false
	startLine := func(at int) {
		if n%markEvery == 0 {
			x.marks = append(x.marks, lineMark{base + at, len(open)})
		}
		n++
	}
	for {
		// A value starts at src[i] (a member's value after its key).
		if !final && i+followWindow > len(src) {
			if src, shift, final = more(i, i+followWindow); src == nil {
				return false, final && !cutNumber
			}
			i, base = i-shift, base+shift
		}
		if i >= len(src) {
			return false, final && !cutNumber
		}
		switch c := src[i]; {
		case c == '"':
			if i, ok = validString(src, i); !ok {
				return false, final && !cutNumber
			}
		case c == '{' || c == '[':
			if len(open)+1 > maxDepth { // validValue's limit, empty ones included
				return false, final && !cutNumber
			}
			next := skipSpace(src, i+1)
			if next < len(src) && src[next] == c+2 { // {} or [] ('}' is '{'+2, ']' is '['+2)
				i = next + 1
				break
			}
			open = append(open, c)
			i = next
			if i >= len(src) {
				return false, final && !cutNumber
			}
			startLine(i)
			if c == '{' {
				if i, ok = validKey(src, i); !ok {
					return false, final && !cutNumber
				}
			}
			continue
		case c == '-' || c >= '0' && c <= '9':
			if i, ok = validNumber(src, i); !ok {
				return false, final && !cutNumber
			}
			// A number as long as the window can end where the decoded
			// part does and go on after it: a failure after this one
			// does not settle the answer.
			cutNumber = cutNumber || !final && i == len(src)
		case c == 't':
			if i, ok = literal(src, i, "true"); !ok {
				return false, final && !cutNumber
			}
		case c == 'f':
			if i, ok = literal(src, i, "false"); !ok {
				return false, final && !cutNumber
			}
		case c == 'n':
			if i, ok = literal(src, i, "null"); !ok {
				return false, final && !cutNumber
			}
		default:
			return false, final && !cutNumber
		}
		// After a value: a comma and the next one, or the ends of the
		// objects and arrays it closes.
	after:
		for {
			if !final && i+followWindow > len(src) || len(open) == 0 && !final {
				// The end of the value is checked against all of it.
				need := i + followWindow
				if len(open) == 0 {
					need = math.MaxInt
				}
				if src, shift, final = more(i, need); src == nil {
					return false, final && !cutNumber
				}
				i, base = i-shift, base+shift
			}
			i = skipSpace(src, i)
			if len(open) == 0 {
				if i != len(src) {
					return false, final && !cutNumber
				}
				x.src, x.n = src, n
				return true, final
			}
			if i >= len(src) {
				return false, final && !cutNumber
			}
			top := open[len(open)-1]
			switch src[i] {
			case ',':
				i = skipSpace(src, i+1)
				if i >= len(src) {
					return false, final && !cutNumber
				}
				startLine(i)
				if top == '{' {
					if i, ok = validKey(src, i); !ok {
						return false, final && !cutNumber
					}
				}
				break after
			case top + 2:
				open = open[:len(open)-1]
				startLine(i) // on a line of its own, one level out
				i++
			default:
				return false, final && !cutNumber
			}
		}
	}
}

// validKey checks an object member's key and colon at src[i] and returns
// where its value starts.
func validKey(src []byte, i int) (int, bool) {
	if src[i] != '"' {
		return i, false
	}
	i, ok := validString(src, i)
	if !ok {
		return i, false
	}
	i = skipSpace(src, i)
	if i >= len(src) || src[i] != ':' {
		return i, false
	}
	return skipSpace(src, i+1), true
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
	src, pos, depth := x.src, m.pos, m.depth
	if x.text != nil {
		// The chunk's bytes, and the first of the next one's (a line
		// ends before a closing bracket it finds there).
		to := x.vlen
		if k+1 < len(x.marks) {
			to = min(x.marks[k+1].pos+1, x.vlen)
		}
		x.win = x.text.Slice(x.win[:0], x.base+m.pos, x.base+to)
		src, pos = x.win, 0
	}
	count := min(markEvery, x.n-k*markEvery)
	var buf []byte
	ends := make([]int, 0, count)
	for range count {
		buf, pos, depth = line(src, x.indent, buf, pos, depth, true)
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
// starts at the token at src[pos], with indent, depth indents deep, and returns where
// the next line starts. It breaks lines where json.Indent does: after a
// comma, after the opening bracket of a non-empty object or array, and
// before its closing bracket; an empty one stays {} or [] on its line.
func line(src []byte, indent string, dst []byte, pos, depth int, build bool) ([]byte, int, int) {
	if build {
		for range min(depth, MaxIndentDepth) {
			dst = append(dst, indent...)
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
