// Package jsonview reads JSON without copying it: the members of an object
// and the elements of an array are views (sub-slices) of the input, a
// string is decoded once, and Valid checks a whole message in one fast
// pass. encoding/json decodes through a per-byte state machine and copies
// what it keeps, so a 20 MB result read member by member with
// json.Unmarshal would be scanned and copied a dozen times on its way to
// the screen; with views, the reader checks it once and each later step
// looks only at what it needs.
//
// Object, Member, Array and String expect valid JSON: a frame's bytes that
// the reader has checked (mcp's classify), or a part of them. On anything
// else their answers are unspecified, but they never panic and never read
// outside the input.
package jsonview

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth is encoding/json's nesting limit: Valid agrees with json.Valid
// on messages nested deeper.
const maxDepth = 10000

// Valid reports whether data is exactly one JSON value, surrounded by
// optional whitespace: json.Valid's answer (FuzzValid compares them), at
// several times its speed on long strings.
func Valid(data []byte) bool {
	i := skipSpace(data, 0)
	i, ok := validValue(data, i, 0)
	if !ok {
		return false
	}
	return skipSpace(data, i) == len(data)
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// validValue checks the value at data[i] and returns the index after it.
func validValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '"':
		return validString(data, i)
	case c == '{':
		if depth+1 > maxDepth {
			return i, false
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = validString(data, i); !ok {
				return i, false
			}
			i = skipSpace(data, i)
			if i >= len(data) || data[i] != ':' {
				return i, false
			}
			if i, ok = validValue(data, skipSpace(data, i+1), depth+1); !ok {
				return i, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			switch data[i] {
			case ',':
				i = skipSpace(data, i+1)
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '[':
		if depth+1 > maxDepth {
			return i, false
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(data, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			switch data[i] {
			case ',':
				i = skipSpace(data, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		return validNumber(data, i)
	case c == 't':
		return literal(data, i, "true")
	case c == 'f':
		return literal(data, i, "false")
	case c == 'n':
		return literal(data, i, "null")
	}
	return i, false
}

func literal(data []byte, i int, word string) (int, bool) {
	if len(data)-i >= len(word) && string(data[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return i, false
}

// plain marks the bytes a string holds as they are: not a quote, not a
// backslash, not a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validString checks the string at data[i] ('"') and returns the index
// after its closing quote.
func validString(data []byte, i int) (int, bool) {
	if len(data)-i < longString+probeString {
		return validStringFrom(data, i+1, true)
	}
	// As skipString: most strings are decided within their first few KB
	// (a failure near the probe's edge may be an escape cut by it).
	lim := i + probeString
	if end, ok := validStringFrom(data[:lim], i+1, true); ok || end < lim-8 {
		return end, ok
	}
	b, off, n := keptEnd(data, i, true)
	if n > 0 {
		return i + n, true
	}
	end, ok := validStringFrom(data, i+1, true)
	if ok && b != nil && end < len(data) && end-i >= longString {
		keepEnd(b, off, end-i, true)
	}
	return end, ok
}

// validStringFrom checks a string from data[i], inside it and not in the
// middle of an escape. Plain stretches go a word at a time; once escapes
// are dense (text that holds JSON), and blocks allows it, 64-byte blocks
// take over (validStringBlocks).
func validStringFrom(data []byte, i int, blocks bool) (int, bool) {
	start, escapes := i, 0
	for {
		i = plainRun(data, i)
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return i, false
		}
		switch data[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(data) {
				return i, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(data)-i < 6 || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
			if escapes++; blocks && escapes >= 16 && i-start < escapes*64 {
				return validStringBlocks(data, i)
			}
		default: // a control character
			return i, false
		}
	}
}

// Eight bytes at a time: lanes is a byte in every lane, high its top bit.
const (
	lanes = 0x0101010101010101
	high  = 0x8080808080808080
)

// plainRun skips from data[i] the whole eight-byte words that hold no
// quote, backslash or control character (a string's usual bytes), so long
// strings are checked a word at a time.
func plainRun(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		q, bs := w^(lanes*'"'), w^(lanes*'\\')
		if ((w-lanes*0x20)|(q-lanes)|(bs-lanes))&^w&high != 0 {
			return i
		}
	}
	return i
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func validNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

// skipString returns the index after the string at data[i] ('"'), or
// len(data) when it is not closed. It jumps from quote to quote
// (bytes.IndexByte, many GB/s on plain text) and counts the backslashes
// before each: a quote after an odd number of them is escaped. Text that
// holds JSON is full of \" and makes those jumps short; once they are,
// 64-byte blocks take over (skipStringBlocks). The end of a long string
// in bytes declared Immutable is found once and kept.
func skipString(data []byte, i int) int {
	if len(data)-i < longString+probeString {
		return scanString(data, i)
	}
	// Most strings end within their first few KB; a long one's end may
	// be known.
	lim := i + probeString
	if end := scanString(data[:lim], i); end < lim {
		return end
	}
	b, off, n := keptEnd(data, i, false)
	if n > 0 {
		return i + n
	}
	end := scanString(data, i)
	if b != nil && end < len(data) && end-i >= longString {
		keepEnd(b, off, end-i, false)
	}
	return end
}

// probeString is how much of a string is read before its end is looked up
// among the kept ones.
const probeString = 4 << 10

// scanString is skipString without looking up kept ends.
func scanString(data []byte, i int) int {
	start := i + 1
	// Most strings are short (names, keys): a byte loop ends them
	// sooner than a call per quote.
	for i = start; i < len(data) && i < start+32; i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	if i >= len(data) {
		return len(data)
	}
	escaped := 0
	for {
		if i >= len(data) {
			return len(data)
		}
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return len(data)
		}
		i += j
		n := 0
		for k := i - 1; k >= start && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
		i++ // after an escaped quote: never inside an escape
		if escaped++; escaped >= 16 && i-start < escaped*64 {
			return skipStringBlocks(data, i)
		}
	}
}

// Skip returns the index after the JSON value at data[i], trusting it to
// be valid (a frame the reader checked); never more than len(data).
func Skip(data []byte, i int) int { return skipValue(data, i) }

// skipValue returns the index after the value at data[i], trusting it to
// be valid; never more than len(data).
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return len(data)
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(data)
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// Each calls fn with each member of the object raw, in order: the key as
// written (still escaped, without its quotes) and the value as a view of
// raw. It stops when fn returns false, and reports whether raw is an
// object.
func Each(raw []byte, fn func(key []byte, value json.RawMessage) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kEnd := skipString(raw, i)
		key := raw[i+1 : max(kEnd-1, i+1)]
		i = skipSpace(raw, kEnd)
		if i >= len(raw) || raw[i] != ':' {
			return true
		}
		i = skipSpace(raw, i+1)
		vEnd := skipValue(raw, i)
		if !fn(key, json.RawMessage(raw[i:vEnd:vEnd])) {
			return true
		}
		i = skipSpace(raw, vEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// Key decodes a key that Each gave: the same bytes unless it holds an
// escape or a non-ASCII byte, which json.Unmarshal decodes as a map key
// would be.
func Key(key []byte) string {
	if needsDecoding(key) {
		if s, ok := String(append(append([]byte{'"'}, key...), '"')); ok {
			return s
		}
	}
	return string(key)
}

// needsDecoding reports whether a key as written may differ from its
// decoded text: it holds an escape or a non-ASCII byte.
func needsDecoding(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// Object returns the members of the object raw as views of raw, as
// json.Unmarshal into a map[string]json.RawMessage would give them (the
// last of duplicate keys wins), but without copying the values. ok is
// false, and the map nil, when raw is not an object.
func Object(raw []byte) (members map[string]json.RawMessage, ok bool) {
	m := map[string]json.RawMessage{}
	if !Each(raw, func(k []byte, v json.RawMessage) bool { m[Key(k)] = v; return true }) {
		return nil, false
	}
	return m, true
}

// Member returns the member key of the object raw (the last one, if the
// key repeats), as a view of raw. It builds no map: one member of a large
// result costs a scan, not a decode.
func Member(raw []byte, key string) (value json.RawMessage, ok bool) {
	Each(raw, func(k []byte, v json.RawMessage) bool {
		if string(k) == key || needsDecoding(k) && Key(k) == key {
			value, ok = v, true
		}
		return true
	})
	return value, ok
}

// MemberFold is Member for a key matched as json.Unmarshal matches a
// struct field's name: case-insensitively, the last match winning.
func MemberFold(raw []byte, key string) (value json.RawMessage, ok bool) {
	Each(raw, func(k []byte, v json.RawMessage) bool {
		if bytes.EqualFold(k, []byte(key)) || needsDecoding(k) && bytes.EqualFold([]byte(Key(k)), []byte(key)) {
			value, ok = v, true
		}
		return true
	})
	return value, ok
}

// Pick returns a new object holding only the members of the object raw
// whose names match one of names as json.Unmarshal matches a struct
// field's (case-insensitively), copied as written and in order. Decoding
// it into a struct of those fields gives what decoding raw would, at the
// cost of those members alone: a 20 MB tool result's isError is one
// scan, not one decode. ok is false when raw is not an object.
func Pick(raw []byte, names ...string) (picked []byte, ok bool) {
	out := []byte{'{'}
	ok = Each(raw, func(k []byte, v json.RawMessage) bool {
		for _, n := range names {
			if bytes.EqualFold(k, []byte(n)) || needsDecoding(k) && bytes.EqualFold([]byte(Key(k)), []byte(n)) {
				if len(out) > 1 {
					out = append(out, ',')
				}
				out = append(append(append(append(out, '"'), k...), '"', ':'), v...)
				break
			}
		}
		return true
	})
	if !ok {
		return nil, false
	}
	return append(out, '}'), true
}

// Array returns the elements of the array raw as views of raw; ok is
// false when raw is not an array.
func Array(raw []byte) (elems []json.RawMessage, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	elems = []json.RawMessage{}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := skipValue(raw, i)
		if end == i {
			break // not valid JSON; stop rather than loop
		}
		elems = append(elems, json.RawMessage(raw[i:end:end]))
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return elems, true
}

// String decodes the JSON string raw as json.Unmarshal into a string
// would (invalid UTF-8 and lone surrogates become U+FFFD); ok is false
// when raw is not a string. A string without escapes costs one copy.
func String(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	return unquote(s)
}

// StringView is String without the copy: a string without escapes is
// raw's own bytes, viewed as a string. Only for bytes nobody changes
// afterwards, such as a frame's (frames are immutable once published): a
// 100 MB text result is then kept once, by its frame, not twice.
func StringView(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		if len(s) == 0 {
			return "", true
		}
		return unsafe.String(&s[0], len(s)), true
	}
	return unquote(s)
}

// unquote decodes the inside of a JSON string: encoding/json's
// unquoteBytes. Text that holds JSON has an escape every few bytes, so the
// plain ASCII before the next escape is copied a word at a time: eight
// bytes are stored at once and the output moves on by as many of them as
// were plain. The output is never longer than s, but for invalid UTF-8
// (each bad byte becomes three of U+FFFD), which grows it.
func unquote(s []byte) (string, bool) {
	// Eight bytes of slack: a word is stored past the plain bytes.
	return unquoteTo(make([]byte, len(s)+8), s, nil)
}

// unquoteTo is unquote into buf (len(s)+8 bytes). When p is not nil, it
// tells p how far the output is written every publishEvery bytes (a
// reader goroutine checks and indexes the text behind it), and that it
// moved the output when it has to grow it.
func unquoteTo(buf, s []byte, p *progressive) (string, bool) {
	o := 0
	next := math.MaxInt // the output offset at which to publish next
	if p != nil {
		next = publishEvery
	}
	for r := 0; r < len(s); {
		if o >= next {
			p.publish(buf[:o])
			next = o + publishEvery
		}
		if r+8 <= len(s) {
			w := binary.LittleEndian.Uint64(s[r:])
			binary.LittleEndian.PutUint64(buf[o:], w)
			special := (w & high) | byteMask(w, '\\')
			if special == 0 {
				r, o = r+8, o+8
				continue
			}
			k := bits.TrailingZeros64(special) / 8
			r, o = r+k, o+k
		} else {
			for ; r < len(s) && s[r] < utf8.RuneSelf && s[r] != '\\'; r, o = r+1, o+1 {
				buf[o] = s[r]
			}
			if r >= len(s) {
				break
			}
		}
		// From here on, buf has room for what is left of s and the slack:
		// each step below writes no more than it reads, but for an
		// invalid byte, which makes room first.
		if c := s[r]; c != '\\' {
			// Valid UTF-8 as it is, each invalid byte as U+FFFD.
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				if need := o + 3 + len(s) - r - 1 + 8; need > len(buf) {
					buf = slices.Grow(buf[:o], need-o+len(s)/8)
					buf = buf[:cap(buf)]
					if p != nil {
						p.moved() // what was published stays as it was, in the old buf
						next = math.MaxInt
					}
				}
				o += utf8.EncodeRune(buf[o:], utf8.RuneError)
			} else {
				o += copy(buf[o:], s[r:r+size])
			}
			r += size
			continue
		}
		r++
		if r >= len(s) {
			return "", false
		}
		switch c := s[r]; c {
		case '"', '\\', '/', '\'':
			buf[o] = c
		case 'b':
			buf[o] = '\b'
		case 'f':
			buf[o] = '\f'
		case 'n':
			buf[o] = '\n'
		case 'r':
			buf[o] = '\r'
		case 't':
			buf[o] = '\t'
		case 'u':
			rr := getu4(s[r-1:])
			if rr < 0 {
				return "", false
			}
			r += 5
			if utf16.IsSurrogate(rr) {
				rr1 := getu4(s[r:])
				if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
					r += 6
					o += utf8.EncodeRune(buf[o:], dec)
					continue
				}
				rr = unicode.ReplacementChar
			}
			o += utf8.EncodeRune(buf[o:], rr)
			continue
		default:
			return "", false
		}
		r, o = r+1, o+1
	}
	if o == 0 {
		return "", true
	}
	return unsafe.String(&buf[0], o), true // buf is not used again
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value,
// or -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// MaxIndentDepth is how deep indentation grows: a line nested deeper is
// indented as one MaxIndentDepth levels deep. Its tokens are all there,
// byte for byte, and the text is the same JSON; only the columns stop
// growing. Without it the indentation of a value nested n deep costs
// n² bytes: 24 KB nested 10,000 deep would pretty-print to 200 MB.
const MaxIndentDepth = 32

// Indent appends src, one valid JSON value, to dst indented as
// json.Indent(dst, src, "", indent) would up to MaxIndentDepth levels
// (FuzzValid compares them): one pass that copies each string whole
// instead of a state machine step per byte. A 20 MB JSON text is
// pretty-printed for the result view this way. On invalid input the
// output is unspecified; check with Valid first.
func Indent(dst, src []byte, indent string) []byte {
	return IndentPrefix(dst, src, "", indent)
}

// IndentPrefix is Indent with each line after the first starting with
// prefix, as json.Indent(dst, src, prefix, indent) would up to
// MaxIndentDepth levels.
func IndentPrefix(dst, src []byte, prefix, indent string) []byte {
	// Whitespace after the value is kept as it is, as json.Indent keeps it.
	value := bytes.TrimRight(src, " \t\r\n")
	trailing := src[len(value):]
	src = value
	needIndent := false
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range min(depth, MaxIndentDepth) {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			newline()
		}
		switch c {
		case '"':
			end := skipString(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			// Delayed, so that an empty object or array stays {} or [].
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				newline()
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, trailing...)
}
