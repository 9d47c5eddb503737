package tokens

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A client does not pass a server's bytes to its model: it decodes the
// tool list and encodes what it sends again. So a server that writes
// "\u5929" (Python's json.dumps does, for every non-ASCII character) costs
// what "天" costs, and the count must be of the text re-encoded, not as
// sent. The re-encoding is JavaScript's JSON.stringify(JSON.parse(raw)),
// which most clients run: compact; strings with only `"`, `\` and control
// characters escaped (not `<`, `>`, `&` or non-ASCII, as Go's json.Marshal
// does), a lone surrogate kept as \udXXX; numbers as JavaScript prints a
// double (1.0 is 1, 1e21 is 1e+21, one too large is null); an object's
// members in the server's order, a repeated key at its first place with
// its last value, and keys that are array indices ("0", "17") first, in
// numeric order.

// maxDepth bounds the nesting Reencode follows; deeper values are left as
// sent, compacted.
const maxDepth = 10000

// Reencode is raw as JSON.stringify(JSON.parse(raw)) writes it; ok is
// false when raw is not one JSON value (then nothing is re-encoded).
func Reencode(raw []byte) (out []byte, ok bool) {
	return reencodeFiltered(raw, nil)
}

// ClientJSON is raw re-encoded when it is JSON, else compacted as far as
// it goes: what is counted of a value a client sends on.
func ClientJSON(raw []byte) []byte {
	if out, ok := Reencode(raw); ok {
		return out
	}
	return compact(raw)
}

// QuoteString is s as JSON.stringify writes a string.
func QuoteString(s string) []byte {
	// As a client decodes text, each byte that is not UTF-8 is U+FFFD.
	str := make([]byte, 0, len(s))
	for _, r := range s {
		str = utf8.AppendRune(str, r)
	}
	return appendQuoted(nil, str)
}

// reencodeFiltered re-encodes raw; when keep is set, raw must be an object
// and only its members whose key keep accepts are written.
func reencodeFiltered(raw []byte, keep func(key string) bool) ([]byte, bool) {
	e := reencoder{raw: raw, out: make([]byte, 0, len(raw))}
	i := skipSpace(raw, 0)
	if keep != nil && (i >= len(raw) || raw[i] != '{') {
		return nil, false
	}
	i, ok := e.value(i, 0, keep)
	if !ok || skipSpace(raw, i) != len(raw) {
		return nil, false
	}
	return e.out, true
}

type reencoder struct {
	raw []byte
	out []byte
	// str holds a string as decoded: UTF-8, with a lone surrogate from an
	// escape as its three-byte form (invalid UTF-8 in raw is already
	// U+FFFD there, so such bytes come only from escapes).
	str []byte
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value re-encodes the value at raw[i] and returns where it ends.
func (e *reencoder) value(i, depth int, keep func(string) bool) (int, bool) {
	if i >= len(e.raw) || depth > maxDepth {
		return i, false
	}
	switch c := e.raw[i]; {
	case c == '{':
		return e.object(i, depth, keep)
	case c == '[':
		return e.array(i, depth)
	case c == '"':
		end, ok := e.decodeString(i)
		if ok {
			e.out = appendQuoted(e.out, e.str)
		}
		return end, ok
	case c == 't':
		return e.literal(i, "true")
	case c == 'f':
		return e.literal(i, "false")
	case c == 'n':
		return e.literal(i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return e.number(i)
	}
	return i, false
}

func (e *reencoder) literal(i int, word string) (int, bool) {
	if !bytes.HasPrefix(e.raw[i:], []byte(word)) {
		return i, false
	}
	e.out = append(e.out, word...)
	return i + len(word), true
}

func (e *reencoder) array(i, depth int) (int, bool) {
	e.out = append(e.out, '[')
	i = skipSpace(e.raw, i+1)
	if i < len(e.raw) && e.raw[i] == ']' {
		e.out = append(e.out, ']')
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = e.value(i, depth+1, nil); !ok {
			return i, false
		}
		i = skipSpace(e.raw, i)
		if i >= len(e.raw) {
			return i, false
		}
		switch e.raw[i] {
		case ',':
			e.out = append(e.out, ',')
			i = skipSpace(e.raw, i+1)
		case ']':
			e.out = append(e.out, ']')
			return i + 1, true
		default:
			return i, false
		}
	}
}

// member is one member of an object being written: its key as decoded
// and where its `"key":value` text is in out.
type member struct {
	key        string
	start, end int
}

func (e *reencoder) object(i, depth int, keep func(string) bool) (int, bool) {
	e.out = append(e.out, '{')
	from := len(e.out)
	var members []member
	// seen finds a repeated key among many members; a few are compared.
	var seen map[string]bool
	reorder := false
	i = skipSpace(e.raw, i+1)
	if i < len(e.raw) && e.raw[i] == '}' {
		e.out = append(e.out, '}')
		return i + 1, true
	}
	for {
		if i >= len(e.raw) || e.raw[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = e.decodeString(i); !ok {
			return i, false
		}
		key := string(e.str)
		i = skipSpace(e.raw, i)
		if i >= len(e.raw) || e.raw[i] != ':' {
			return i, false
		}
		before := len(e.out)
		if len(members) > 0 {
			e.out = append(e.out, ',')
		}
		start := len(e.out)
		e.out = appendQuoted(e.out, e.str)
		e.out = append(e.out, ':')
		if i, ok = e.value(skipSpace(e.raw, i+1), depth+1, nil); !ok {
			return i, false
		}
		if keep != nil && !keep(key) {
			e.out = e.out[:before]
		} else {
			reorder = reorder || isArrayIndex(key)
			if seen == nil && len(members) >= 16 {
				seen = map[string]bool{}
				for _, m := range members {
					seen[m.key] = true
				}
			}
			if seen != nil {
				reorder = reorder || seen[key]
				seen[key] = true
			} else {
				for _, m := range members {
					reorder = reorder || m.key == key
				}
			}
			members = append(members, member{key, start, len(e.out)})
		}
		i = skipSpace(e.raw, i)
		if i >= len(e.raw) {
			return i, false
		}
		if e.raw[i] == '}' {
			break
		}
		if e.raw[i] != ',' {
			return i, false
		}
		i = skipSpace(e.raw, i+1)
	}
	if reorder {
		e.reorder(from, members)
	}
	e.out = append(e.out, '}')
	return i + 1, true
}

// reorder rewrites the members written from out[from] in JavaScript's
// order: array-index keys in numeric order, then the others in the order
// they first came, each with the last value given for it.
func (e *reencoder) reorder(from int, members []member) {
	last := map[string]member{}
	var order []string
	for _, m := range members {
		if _, seen := last[m.key]; !seen {
			order = append(order, m.key)
		}
		last[m.key] = m
	}
	slices.SortStableFunc(order, func(a, b string) int {
		ia, ib := isArrayIndex(a), isArrayIndex(b)
		switch {
		case ia && ib:
			na, _ := strconv.ParseUint(a, 10, 64)
			nb, _ := strconv.ParseUint(b, 10, 64)
			if na < nb {
				return -1
			}
			if na > nb {
				return 1
			}
			return 0
		case ia:
			return -1
		case ib:
			return 1
		}
		return 0
	})
	var b []byte
	for k, key := range order {
		if k > 0 {
			b = append(b, ',')
		}
		m := last[key]
		b = append(b, e.out[m.start:m.end]...)
	}
	e.out = append(e.out[:from], b...)
}

// isArrayIndex says whether a key is an array index to JavaScript: the
// canonical decimal form of an integer below 2^32-1.
func isArrayIndex(key string) bool {
	if key == "" || len(key) > 10 || key[0] == '0' && len(key) > 1 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n < math.MaxUint32
}

// number writes the number at raw[i] as JavaScript prints the double
// JSON.parse makes of it.
func (e *reencoder) number(i int) (int, bool) {
	j := i
	if j < len(e.raw) && e.raw[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(e.raw) && e.raw[j] >= '0' && e.raw[j] <= '9' {
			j++
		}
		return j - k
	}
	if j < len(e.raw) && e.raw[j] == '0' {
		j++ // no digit may follow a leading zero
	} else if digits() == 0 {
		return j, false
	}
	if j < len(e.raw) && e.raw[j] == '.' {
		j++
		if digits() == 0 {
			return j, false
		}
	}
	if j < len(e.raw) && (e.raw[j] == 'e' || e.raw[j] == 'E') {
		j++
		if j < len(e.raw) && (e.raw[j] == '+' || e.raw[j] == '-') {
			j++
		}
		if digits() == 0 {
			return j, false
		}
	}
	f, err := strconv.ParseFloat(string(e.raw[i:j]), 64)
	if err != nil && !math.IsInf(f, 0) {
		return j, false
	}
	e.out = appendJSNumber(e.out, f)
	return j, true
}

// appendJSNumber appends f as JavaScript's Number toString writes it: the
// shortest digits that read back as f, in plain notation from 1e-7 up to
// 1e21 and in exponent notation (1e+21, 1.5e-7) beyond; not a finite
// number is null, as JSON.stringify writes it.
func appendJSNumber(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return append(b, "null"...)
	case f == 0:
		return append(b, '0')
	case f < 0:
		b = append(b, '-')
		f = -f
	}
	// d.ddde±x: the digits and the exponent n of 0.ddd × 10^n.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := bytes.Cut([]byte(s), []byte("e"))
	digits := bytes.Replace(mant, []byte("."), nil, 1)
	x, _ := strconv.Atoi(string(exp))
	n, k := x+1, len(digits)
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(append(append(b, digits[:n]...), '.'), digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, "0."...)
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(append(b, '.'), digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// decodeString decodes the JSON string at raw[i] into e.str and returns
// where it ends.
func (e *reencoder) decodeString(i int) (int, bool) {
	e.str = e.str[:0]
	i++
	for i < len(e.raw) {
		c := e.raw[i]
		switch {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c < utf8.RuneSelf && c != '\\':
			e.str = append(e.str, c)
			i++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(e.raw[i:])
			e.str = utf8.AppendRune(e.str, r) // invalid bytes become U+FFFD
			i += n
		default:
			if i+1 >= len(e.raw) {
				return i, false
			}
			esc := e.raw[i+1]
			i += 2
			switch esc {
			case '"', '\\', '/':
				e.str = append(e.str, esc)
			case 'b':
				e.str = append(e.str, '\b')
			case 'f':
				e.str = append(e.str, '\f')
			case 'n':
				e.str = append(e.str, '\n')
			case 'r':
				e.str = append(e.str, '\r')
			case 't':
				e.str = append(e.str, '\t')
			case 'u':
				u, ok := hex4(e.raw, i)
				if !ok {
					return i, false
				}
				i += 4
				if u >= 0xD800 && u < 0xDC00 && i+6 <= len(e.raw) && e.raw[i] == '\\' && e.raw[i+1] == 'u' {
					if lo, ok := hex4(e.raw, i+2); ok && lo >= 0xDC00 && lo < 0xE000 {
						e.str = utf8.AppendRune(e.str, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
						i += 6
						continue
					}
				}
				e.str = appendUnit(e.str, u)
			default:
				return i, false
			}
		}
	}
	return i, false
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendUnit appends a UTF-16 code unit: a character as UTF-8, a lone
// surrogate in UTF-8's three-byte form (which Go's encoder refuses).
func appendUnit(b []byte, u rune) []byte {
	if u < 0xD800 || u >= 0xE000 {
		return utf8.AppendRune(b, u)
	}
	return append(b, byte(0xE0|u>>12), byte(0x80|(u>>6)&0x3F), byte(0x80|u&0x3F))
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s (decoded as by decodeString) as JSON.stringify
// quotes a string.
func appendQuoted(b, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, `\b`...)
		case c == '\f':
			b = append(b, `\f`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		case c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF:
			// A lone surrogate, as JSON.stringify writes it.
			u := rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			b = append(b, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
			i += 3
			continue
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}
