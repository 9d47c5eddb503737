package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"unsafe"

	"github.com/mcpscope/mcpscope/mcp/jsonview"
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

// viewValue decodes one valid JSON value, read by views (mcp/jsonview):
// what decodeOrderedTokens gives, at a fraction of json.Decoder.Token's
// cost (a tool's schema is decoded by the doctor, the form and call).
func viewValue(raw []byte, order keyOrder) any {
	switch raw[0] {
	case '{':
		m := map[string]any{}
		var keys []string
		jsonview.Each(raw, func(k []byte, v json.RawMessage) bool {
			key := jsonview.Key(k)
			if _, dup := m[key]; !dup {
				keys = append(keys, key)
			}
			m[key] = viewValue(v, order)
			return true
		})
		order[mapID(m)] = keys
		return m
	case '[':
		elems, _ := jsonview.Array(raw)
		a := make([]any, len(elems))
		for i, e := range elems {
			a[i] = viewValue(e, order)
		}
		return a
	case '"':
		s, _ := jsonview.String(raw)
		return s
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	}
	return json.Number(string(raw))
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
