package jsonview

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A tool's 20 MB text reaches the result view as a JSON string in the
// frame's bytes. Decoded whole, it would be held twice: by the frame and
// by its text. Quoted keeps only the frame's bytes and a few marks, and
// decodes the part a view draws when it draws it: a screenful of lines,
// a window of a JSON text being checked and indexed.

// quotedMarkEvery is how many decoded bytes apart Quoted remembers where
// its decoding can start again: a slice of the text decodes at most this
// much before it.
const quotedMarkEvery = 64 << 10

// quotedWindow is how much of a JSON text the indexer decodes at a time:
// a few times followWindow, the longest token it reads whole.
const quotedWindow = 16 * followWindow

// Quoted is the text of a JSON string, decoded as json.Unmarshal into a
// string would (invalid UTF-8 and lone surrogates become U+FFFD) but only
// where it is read: it keeps the string's bytes as sent, where decoding
// can resume every 64 KiB of text, where every markEvery-th line starts,
// and, when the text is a JSON object or array, its pretty-printed lines'
// index (JSONLines), all found in one decoding of the string. Slice
// decodes a part; Line makes a line. It keeps raw, which must not change
// afterwards (a frame's bytes).
//
// A Quoted is not safe for concurrent use: Line keeps the lines it made
// last.
type Quoted struct {
	s     []byte       // the string between its quotes, as sent
	n     int          // the decoded length
	marks []quotedMark // where decoding resumes: every quotedMarkEvery decoded bytes
	// start and end are the text without the white space around it
	// (strings.TrimSpace's).
	start, end int
	lines      []int // the decoded offsets where lines 0, markEvery, 2*markEvery, … start
	nl         int   // lines: the newlines and one

	chunkAt int      // the mark whose lines chunk holds, or -1
	chunk   []string // those lines
	buf     []byte   // the last slice decoded

	json    *Indented // the text's pretty-printed lines, when it is JSON
	settled bool      // json is the answer (see JSONLines)
}

// quotedMark is where decoding can resume: r in the string as sent, o in
// the text.
type quotedMark struct{ r, o int }

// NewQuoted reads the JSON string raw once, marking where its decoding
// can resume and where its lines start, and when its text is a JSON
// object or array, checking it and indexing its lines pretty-printed with
// indent, a window at a time as it is decoded; ok is false when raw is not
// a string String would decode.
func NewQuoted(raw []byte, indent string) (q *Quoted, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	q = &Quoted{s: raw[1 : len(raw)-1], chunkAt: -1, nl: 1, start: -1, settled: true}
	q.lines = append(q.lines, 0)
	d := &quotedReader{q: q, win: make([]byte, 0, quotedWindow+quotedMarkEvery+16)}
	// Up to the first byte that is not white space: the text is JSON
	// only if that is a bracket.
	for q.start < 0 && !d.done() {
		d.drop(d.wbase + len(d.win)) // white space so far
		d.fill(d.wbase + quotedMarkEvery)
	}
	if q.start >= 0 && !d.bad {
		if c := d.win[q.start-d.wbase]; c == '{' || c == '[' {
			q.json, q.settled = d.indexJSON(indent)
		}
	}
	for !d.done() { // the rest, for its marks and lines
		d.drop(d.wbase + len(d.win))
		d.fill(d.wbase + quotedMarkEvery)
	}
	if d.bad {
		return nil, false
	}
	if q.start < 0 {
		q.start, q.end = q.n, q.n
	}
	return q, true
}

// quotedReader decodes a Quoted's string once, from its start: it keeps a
// window of the text (win, from text offset wbase), and takes in each
// part it decodes (marks, lines, white space: scan).
type quotedReader struct {
	q     *Quoted
	r     int // where decoding goes on in q.s
	win   []byte
	wbase int
	bad   bool // a malformed escape: the string is not one
}

// done reports whether the whole string is decoded (or found malformed).
func (d *quotedReader) done() bool { return d.bad || d.r == len(d.q.s) }

// fill decodes until the window reaches text offset to, or the end: a
// part of up to quotedMarkEvery bytes at a time, each from a mark.
func (d *quotedReader) fill(to int) {
	q := d.q
	for d.wbase+len(d.win) < to && !d.done() {
		q.marks = append(q.marks, quotedMark{d.r, q.n})
		from := len(d.win)
		var ok bool
		if d.win, d.r, ok = unquoteSome(d.win, q.s, d.r, from+quotedMarkEvery); !ok {
			d.bad = true
			return
		}
		q.scan(d.win[from:])
		q.n += len(d.win) - from
	}
}

// drop lets go of the window's text before offset from.
func (d *quotedReader) drop(from int) {
	n := copy(d.win, d.win[from-d.wbase:])
	d.win, d.wbase = d.win[:n], from
}

// indexJSON is indexValid over the text from q.start (a bracket) to
// q.end, fed a window at a time: the value's pretty-printed lines, their
// lines made from the string's bytes as they are drawn. settled is false
// when a token longer than followWindow was cut by a window's end: the
// answer then needs the whole text (StringIndented).
func (d *quotedReader) indexJSON(indent string) (x *Indented, settled bool) {
	q := d.q
	d.drop(q.start)
	// window is the text from the cursor (wbase) on, decoded to at
	// least to; at the end, without the white space after the value.
	window := func(to int) ([]byte, bool) {
		d.fill(to)
		if !d.done() {
			return d.win, false
		}
		return d.win[:max(q.end-d.wbase, 0)], true
	}
	src, final := window(q.start + quotedWindow)
	more := func(keep, need int) ([]byte, int, bool) {
		at := d.wbase
		d.drop(at + keep)
		if need == math.MaxInt {
			// The value is over: the rest is decoded for its marks and
			// for whether more than white space follows, not kept.
			cursor := d.wbase
			for !d.done() {
				d.drop(d.wbase + len(d.win))
				d.fill(d.wbase + quotedMarkEvery)
			}
			switch {
			case d.bad:
				return nil, keep, true
			case q.end <= cursor:
				return []byte{}, keep, true // nothing but white space
			}
			return []byte{'x'}, keep, true // more: one byte of it says so
		}
		src, final := window(max(at+need, d.wbase+quotedWindow))
		if d.bad {
			return nil, keep, true
		}
		return src, keep, final
	}
	x = &Indented{tail: []string{""}, indent: indent, chunkAt: -1}
	ok, sawFinal := x.indexValid(src, final, more)
	if !ok || d.bad {
		return nil, sawFinal
	}
	x.src, x.text, x.base, x.vlen = nil, q, q.start, q.end-q.start
	return x, true
}

// scan takes in the next decoded part of the text, which starts at q.n:
// its lines, and where the text without its white space starts and ends.
// A part ends between two runes (unquoteSome's units decode whole).
func (q *Quoted) scan(part []byte) {
	for at := 0; ; {
		i := bytes.IndexByte(part[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
		if q.nl%markEvery == 0 {
			q.lines = append(q.lines, q.n+at)
		}
		q.nl++
	}
	if q.start < 0 {
		if rest := bytes.TrimLeftFunc(part, unicode.IsSpace); len(rest) > 0 {
			q.start = q.n + len(part) - len(rest)
		}
	}
	if kept := bytes.TrimRightFunc(part, unicode.IsSpace); len(kept) > 0 {
		q.end = q.n + len(kept)
	}
}

// Len is the decoded text's length in bytes.
func (q *Quoted) Len() int { return q.n }

// Slice appends the decoded text's bytes from to to (0 <= from <= to <=
// Len()) to dst and returns them: it decodes from the mark before from.
func (q *Quoted) Slice(dst []byte, from, to int) []byte {
	if from >= to {
		return dst
	}
	k := sort.Search(len(q.marks), func(k int) bool { return q.marks[k].o > from }) - 1
	m := q.marks[k]
	head := len(dst)
	// Room for it all at once (a unit may end past to), not by doubling.
	dst = slices.Grow(dst, to-m.o+utf8.UTFMax)
	dst, _, _ = unquoteSome(dst, q.s, m.r, head+to-m.o)
	// The part before from is dropped; the slice keeps its capacity.
	n := copy(dst[head:], dst[head+from-m.o:head+to-m.o])
	return dst[:head+n]
}

// String is the whole decoded text (String's answer), in one allocation.
func (q *Quoted) String() string {
	b := q.Slice(make([]byte, 0, q.n+8), 0, q.n)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// LineCount is how many lines the text has: its newlines and one.
func (q *Quoted) LineCount() int { return q.nl }

// Line is line i of the text (0 <= i < LineCount()), without its newline;
// "" for any other i. It decodes the markEvery lines around it at once.
func (q *Quoted) Line(i int) string {
	if i < 0 || i >= q.nl {
		return ""
	}
	if k := i / markEvery; k != q.chunkAt {
		q.makeChunk(k)
	}
	return q.chunk[i%markEvery]
}

// makeChunk decodes the lines from line mark k to the next one.
func (q *Quoted) makeChunk(k int) {
	from, to := q.lines[k], q.n
	if k+1 < len(q.lines) {
		to = q.lines[k+1] - 1 // without the newline before the next mark
	}
	s := string(q.Slice(q.buf[:0], from, to))
	count := min(markEvery, q.nl-k*markEvery)
	if cap(q.chunk) < count {
		q.chunk = make([]string, count)
	}
	q.chunk = q.chunk[:count]
	for j := range count {
		line, rest, _ := cutByte(s, '\n')
		q.chunk[j], s = line, rest
	}
	q.chunkAt = k
}

func cutByte(s string, c byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// JSONLines is the pretty-printed lines of the text without the white
// space around it (strings.TrimSpace's), when that is a JSON object or
// array: StringIndented's x, made from the string's bytes as they are
// drawn. settled is false when a token longer than the window the text
// was indexed by stopped it: the answer then needs the whole text
// (StringIndented).
func (q *Quoted) JSONLines() (x *Indented, settled bool) { return q.json, q.settled }

// unquoteSome appends the decoding of s (the inside of a JSON string) from
// s[r] to dst until dst holds limit bytes or more, or s ends, and returns
// where in s it stopped: always between two of s's units (a byte, a rune,
// an escape; a surrogate pair's two escapes are one), so that decoding can
// go on from there and each unit decodes whole. ok is false on a malformed
// escape. It decodes as unquote does (FuzzQuoted compares them).
func unquoteSome(dst, s []byte, r, limit int) ([]byte, int, bool) {
	for r < len(s) && len(dst) < limit {
		c := s[r]
		if c < utf8.RuneSelf && c != '\\' {
			// A run of plain ASCII, cut where the limit is reached.
			end := min(len(s), r+limit-len(dst))
			j := r + 1
			for j < end && s[j] < utf8.RuneSelf && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[r:j]...)
			r = j
			continue
		}
		if c != '\\' {
			// Valid UTF-8 as it is, each invalid byte as U+FFFD.
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[r:r+size]...)
			}
			r += size
			continue
		}
		if r+1 >= len(s) {
			return dst, r, false
		}
		switch c := s[r+1]; c {
		case '"', '\\', '/', '\'':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			rr := getu4(s[r:])
			if rr < 0 {
				return dst, r, false
			}
			r += 6
			if utf16.IsSurrogate(rr) {
				rr1 := getu4(s[r:])
				if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
					r += 6
					dst = utf8.AppendRune(dst, dec)
					continue
				}
				rr = unicode.ReplacementChar
			}
			dst = utf8.AppendRune(dst, rr)
			continue
		default:
			return dst, r, false
		}
		r += 2
	}
	return dst, r, true
}
