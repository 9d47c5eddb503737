package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ReadJSONC reads data as every file a person edits for mcpscope is read
// (client configs, the calls file): comments and trailing commas allowed.
// It returns the text with them blanked out, byte for byte at the same
// offsets, so that Members, Elements and Position point into the user's
// own file. A syntax error is an *Error with its line and column.
func ReadJSONC(path string, data []byte) ([]byte, error) {
	p := &parser{path: path, src: data}
	clean, err := stripJSONC(data)
	if err != nil {
		var se *syntaxErr
		if errors.As(err, &se) {
			return nil, p.errAt(se.offset, "", se.msg, nil)
		}
		return nil, err
	}
	if len(bytes.TrimSpace(clean)) == 0 {
		return nil, &Error{Path: path, Msg: "file is empty"}
	}
	if err := p.checkSyntax(clean); err != nil {
		return nil, err
	}
	return clean, nil
}

// Position is the 1-based line and column of byte offset off of src.
func Position(src []byte, off int) (line, col int) { return lineCol(src, off) }

// Member is one member of a JSON object in a text ReadJSONC returned: its
// key, and where the key and the value sit (offsets into that text, which
// are offsets into the user's file).
type Member struct {
	Key      string
	KeyOff   int
	ValueOff int
	ValueEnd int // just past the value
	Value    json.RawMessage
}

// Members lists the members of the object at offset off of clean, in file
// order.
func Members(clean []byte, off int) ([]Member, error) {
	ms, err := members(clean, off)
	if err != nil {
		return nil, err
	}
	out := make([]Member, len(ms))
	for i, m := range ms {
		out[i] = Member{Key: m.key, KeyOff: m.keyOff, ValueOff: m.valueOff, ValueEnd: m.valueOff + len(m.value), Value: m.value}
	}
	return out, nil
}

// Element is one element of a JSON array in a text ReadJSONC returned.
type Element struct {
	Off, End int // the value's bounds
	Value    json.RawMessage
}

// Elements lists the elements of the array at offset off of clean, and the
// offset of its closing bracket.
func Elements(clean []byte, off int) (elems []Element, closing int, err error) {
	i := skipSpace(clean, off)
	if i >= len(clean) || clean[i] != '[' {
		return nil, 0, fmt.Errorf("not an array")
	}
	i = skipSpace(clean, i+1)
	for i < len(clean) && clean[i] != ']' {
		end := valueEnd(clean, i)
		if end <= i {
			return nil, 0, fmt.Errorf("bad element at offset %d", i)
		}
		elems = append(elems, Element{Off: i, End: end, Value: json.RawMessage(clean[i:end])})
		i = skipSpace(clean, end)
		if i < len(clean) && clean[i] == ',' {
			i = skipSpace(clean, i+1)
		}
	}
	if i >= len(clean) {
		return nil, 0, fmt.Errorf("the array does not end")
	}
	return elems, i, nil
}
