package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Go maps forget key order, but a form should list properties in the order
// the schema's author wrote them. decodeOrdered decodes like
// jsonschema.UnmarshalJSON (numbers as json.Number) and remembers each
// object's key order, keyed by the map's identity.

type keyOrder map[unsafe.Pointer][]string

func mapID(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

func decodeOrdered(raw []byte) (any, keyOrder, error) {
	if !jsonview.Valid(raw) {
		// The decoder below says what is wrong, in encoding/json's words.
		return decodeOrderedTokens(raw)
	}
	order := keyOrder{}
	return viewValue(bytes.TrimSpace(raw), order), order, nil
}

// viewValue decodes one valid JSON value in a single pass over its bytes:
// what decodeOrderedTokens gives, at a fraction of json.Decoder.Token's
// cost (a tool's schema is decoded by the doctor, the form and call).
// Each value is read once where it stands; finding a nested value's end
// first and then decoding it again would make a schema nested n deep
// cost n² (TestDeepSchemaDecodesQuickly), and a server chooses its
// schemas.
func viewValue(raw []byte, order keyOrder) any {
	d := orderedDecoder{src: raw, order: order}
	v, _ := d.value(d.space(0))
	return v
}

// orderedDecoder reads JSON that jsonview.Valid accepted, so it need not
// check its syntax, only find where each token ends.
type orderedDecoder struct {
	src   []byte
	order keyOrder
}

func (d *orderedDecoder) space(i int) int {
	for i < len(d.src) {
		switch d.src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd is just past the string literal that starts at src[i].
func (d *orderedDecoder) stringEnd(i int) int {
	for i++; i < len(d.src); i++ {
		switch d.src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(d.src)
}

// value decodes the value at src[i] and returns it with the position
// just past it.
func (d *orderedDecoder) value(i int) (any, int) {
	if i >= len(d.src) {
		return nil, i
	}
	switch d.src[i] {
	case '{':
		m := map[string]any{}
		var keys []string
		i = d.space(i + 1)
		for i < len(d.src) && d.src[i] == '"' {
			end := d.stringEnd(i)
			key, _ := jsonview.String(d.src[i:end])
			i = d.space(end)
			i = d.space(i + 1) // the colon
			var v any
			v, i = d.value(i)
			if _, dup := m[key]; !dup {
				keys = append(keys, key)
			}
			m[key] = v
			i = d.space(i)
			if i < len(d.src) && d.src[i] == ',' {
				i = d.space(i + 1)
			}
		}
		d.order[mapID(m)] = keys
		return m, i + 1 // the closing brace
	case '[':
		a := []any{}
		i = d.space(i + 1)
		for i < len(d.src) && d.src[i] != ']' {
			var v any
			v, i = d.value(i)
			a = append(a, v)
			i = d.space(i)
			if i < len(d.src) && d.src[i] == ',' {
				i = d.space(i + 1)
			}
		}
		return a, i + 1
	case '"':
		end := d.stringEnd(i)
		s, _ := jsonview.String(d.src[i:end])
		return s, end
	case 't':
		return true, i + 4
	case 'f':
		return false, i + 5
	case 'n':
		return nil, i + 4
	}
	start := i
	for i < len(d.src) && strings.IndexByte("+-0123456789.eE", d.src[i]) >= 0 {
		i++
	}
	return json.Number(string(d.src[start:i])), i
}

// decodeOrderedTokens is decodeOrdered by json.Decoder's tokens: the
// reference viewValue is checked against (FuzzDecodeOrdered), and the
// error for input that is not JSON.
func decodeOrderedTokens(raw []byte) (any, keyOrder, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	order := keyOrder{}
	v, err := decodeValue(dec, order)
	if err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, nil, errors.New("unexpected data after the JSON value")
	}
	return v, order, nil
}

func decodeValue(dec *json.Decoder, order keyOrder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			var keys []string
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, order)
				if err != nil {
					return nil, err
				}
				if _, dup := m[k]; !dup {
					keys = append(keys, k)
				}
				m[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			order[mapID(m)] = keys
			return m, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, order)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, errors.New("unexpected delimiter")
	}
	return tok, nil
}

// Keys lists an object's keys in the order the schema document wrote them;
// objects the form engine built by merging list their parts' keys in turn,
// and anything else comes out sorted.
func (s *Schema) Keys(m map[string]any) []string {
	if len(m) == 0 {
		return nil
	}
	s.mu.Lock()
	keys, ok := s.order[mapID(m)]
	s.mu.Unlock()
	if ok && len(keys) == len(m) {
		return keys
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *Schema) remember(m map[string]any, keys []string) {
	s.mu.Lock()
	s.order[mapID(m)] = keys
	s.mu.Unlock()
}
