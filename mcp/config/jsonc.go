package config

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// syntaxErr is a JSONC problem found while stripping comments.
type syntaxErr struct {
	offset int
	msg    string
}

func (e *syntaxErr) Error() string { return fmt.Sprintf("offset %d: %s", e.offset, e.msg) }

// stripJSONC returns src with comments and trailing commas replaced by
// spaces. Replacing rather than removing keeps every byte offset, so the
// decoder's error positions are positions in the user's file; newlines
// inside block comments are kept for the same reason. Nothing inside a
// string is touched: "http://x" is not a comment. src is copied only when
// something in it is blanked: a big file in plain JSON is not held twice
// (src itself comes back, and neither is changed after).
func stripJSONC(src []byte) ([]byte, error) {
	out, copied := src, false
	blank := func(i int) {
		if !copied {
			out, copied = bytes.Clone(src), true
		}
		out[i] = ' '
	}
	// A UTF-8 byte order mark, which Windows editors write, is blank too.
	if bytes.HasPrefix(out, []byte("\xef\xbb\xbf")) {
		blank(0)
		blank(1)
		blank(2)
	}
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			end, ok := stringEnd(out, i)
			if !ok {
				return nil, &syntaxErr{i, "unterminated string"}
			}
			i = end
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				blank(i)
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			start := i
			blank(i)
			blank(i + 1)
			i += 2
			for ; ; i++ {
				if i+1 >= len(out) {
					return nil, &syntaxErr{start, "unterminated /* comment"}
				}
				if out[i] == '*' && out[i+1] == '/' {
					blank(i)
					blank(i + 1)
					i++
					break
				}
				if out[i] != '\n' && out[i] != '\r' {
					blank(i)
				}
			}
		}
	}
	// Trailing commas, now that comments are blank: a comma whose next
	// non-space byte closes an object or array.
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			i, _ = stringEnd(out, i)
		case ',':
			j := skipSpace(out, i+1)
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				blank(i)
			}
		}
	}
	return out, nil
}

// stringEnd returns the index of the closing quote of the string opening at
// b[start].
func stringEnd(b []byte, start int) (int, bool) {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i, true
		case '\n':
			return i, false
		}
	}
	return len(b), false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// lineCol converts a byte offset to a 1-based line and column (in bytes,
// as editors that jump to "file:line:col" expect for ASCII files).
func lineCol(src []byte, offset int) (int, int) {
	if offset > len(src) {
		offset = len(src)
	}
	if offset < 0 {
		offset = 0
	}
	line, col := 1, 1
	for _, c := range src[:offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// member is one key of a JSON object with where it sits in the file, so
// errors about a server can point at its definition.
type member struct {
	key      string
	keyOff   int
	value    json.RawMessage
	valueOff int
}

// members lists the members of the object starting at or after offset off of
// b, in order. b must already be valid JSON (checked by the decoder first),
// so this walker only has to find boundaries.
func members(b []byte, off int) ([]member, error) {
	i := skipSpace(b, off)
	if i >= len(b) || b[i] != '{' {
		return nil, fmt.Errorf("not an object")
	}
	var ms []member
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		end, ok := stringEnd(b, i)
		if !ok {
			return nil, fmt.Errorf("bad key")
		}
		var key string
		if err := json.Unmarshal(b[i:end+1], &key); err != nil {
			return nil, fmt.Errorf("bad key: %w", err)
		}
		m := member{key: key, keyOff: i}
		i = skipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return nil, fmt.Errorf("missing colon")
		}
		i = skipSpace(b, i+1)
		m.valueOff = i
		vend := valueEnd(b, i)
		m.value = json.RawMessage(b[i:vend])
		ms = append(ms, m)
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return ms, nil
}

// valueEnd returns the offset just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			i, _ = stringEnd(b, i)
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// find is the object's member key; of several, the last, which is the one
// JSON.parse and Go's decoder keep (and so every client).
func find(ms []member, key string) (member, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return ms[i], true
		}
	}
	return member{}, false
}

// lastOfEach keeps, of members sharing a key, the last, in the order of
// those last occurrences.
func lastOfEach(ms []member) []member {
	last := make(map[string]int, len(ms))
	for i, m := range ms {
		last[m.key] = i
	}
	out := ms[:0:0]
	for i, m := range ms {
		if last[m.key] == i {
			out = append(out, m)
		}
	}
	return out
}
