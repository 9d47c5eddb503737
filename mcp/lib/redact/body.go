package redact

import (
	"bytes"
	"net/url"
	"slices"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Body is an HTTP body (an OAuth token request, a token answer, a client
// registration) with the values of its secret fields (IsSecretField)
// replaced by Marker: the string members of a JSON value, at any depth,
// or the fields of a form (application/x-www-form-urlencoded). Every
// other byte is kept as it was. names are the fields redacted, each once,
// in order; none when body is unchanged (then it is body itself).
func Body(body []byte) (out []byte, names []string) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return body, nil
	}
	if (trimmed[0] == '{' || trimmed[0] == '[') && jsonview.Valid(body) {
		return JSON(body)
	}
	return Form(body)
}

// JSON is body, a valid JSON text, with the values of its secret string
// members (IsSecretField) replaced by "[redacted]", at any depth; every
// other byte is kept. names are the members redacted, each once.
func JSON(body []byte) (out []byte, names []string) {
	var cuts [][2]int // the byte ranges of the values to replace, in order
	var walk func(i int) int
	walk = func(i int) int {
		i = skipSpace(body, i)
		if i >= len(body) {
			return i
		}
		switch body[i] {
		case '{':
			i = skipSpace(body, i+1)
			for i < len(body) && body[i] == '"' {
				kEnd := jsonview.Skip(body, i)
				key, _ := jsonview.String(body[i:kEnd])
				i = skipSpace(body, kEnd)
				if i >= len(body) || body[i] != ':' {
					return i
				}
				v := skipSpace(body, i+1)
				if v < len(body) && body[v] == '"' && IsSecretField(key) {
					i = jsonview.Skip(body, v)
					if s, _ := jsonview.String(body[v:i]); s != "" && s != Marker {
						cuts = append(cuts, [2]int{v, i})
						if !slices.Contains(names, key) {
							names = append(names, key)
						}
					}
				} else {
					i = walk(v)
				}
				i = skipSpace(body, i)
				if i < len(body) && body[i] == ',' {
					i = skipSpace(body, i+1)
				}
			}
			if i < len(body) && body[i] == '}' {
				i++
			}
			return i
		case '[':
			i = skipSpace(body, i+1)
			for i < len(body) && body[i] != ']' {
				i = skipSpace(body, walk(i))
				if i < len(body) && body[i] == ',' {
					i++
				}
			}
			return min(i+1, len(body))
		}
		return jsonview.Skip(body, i)
	}
	walk(0)
	if len(cuts) == 0 {
		return body, nil
	}
	out = make([]byte, 0, len(body))
	at := 0
	for _, c := range cuts {
		out = append(out, body[at:c[0]]...)
		out = append(out, `"`+Marker+`"`...)
		at = c[1]
	}
	return append(out, body[at:]...), names
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// Form is a form body (name=value&...) with the values of its secret
// fields (IsSecretField) replaced by Marker; every other byte is kept.
// A body that is not a form comes back as it is, with no names.
func Form(body []byte) (out []byte, names []string) {
	if !bytes.ContainsRune(body, '=') {
		return body, nil
	}
	pairs := bytes.Split(body, []byte("&"))
	changed := false
	for i, p := range pairs {
		k, v, ok := bytes.Cut(p, []byte("="))
		if !ok || len(v) == 0 {
			continue
		}
		name, err := url.QueryUnescape(string(k))
		if err != nil || !IsSecretField(name) || string(bytes.TrimSpace(v)) == Marker {
			continue
		}
		pairs[i] = append(append(append([]byte(nil), k...), '='), Marker...)
		changed = true
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if !changed {
		return body, nil
	}
	return bytes.Join(pairs, []byte("&")), names
}
