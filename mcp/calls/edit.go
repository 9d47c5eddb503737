package calls

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp/config"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Load reads the calls file at path. A file that does not exist is an
// error that wraps fs.ErrNotExist (LoadOrEmpty takes it as empty).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calls file: %w", err)
	}
	return Parse(path, data)
}

// LoadOrEmpty is Load, with a missing file read as one without calls.
func LoadOrEmpty(path string) (*File, error) {
	f, err := Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Empty(path), nil
	}
	return f, err
}

// editMu serialises Edit: two saves started together (two keys pressed
// quickly in the TUI) must not both read the old text.
var editMu sync.Mutex

// Edit reads the file at path afresh (a person may have changed it since it
// was loaded; a missing file is empty), lets change make its new text,
// checks that the text reads back as a calls file, and saves it whole
// (Save). A file that does not read is left as it is.
func Edit(path string, change func(*File) ([]byte, error)) (*File, error) {
	editMu.Lock()
	defer editMu.Unlock()
	f, err := LoadOrEmpty(path)
	if err != nil {
		return nil, fmt.Errorf("%w (the file was left as it is; fix it, then save again)", err)
	}
	data, err := change(f)
	if err != nil {
		return nil, err
	}
	nf, err := Parse(path, data)
	if err != nil {
		return nil, fmt.Errorf("mcpscope made a calls file it cannot read, so it was not written: %w", err)
	}
	if err := Save(path, data); err != nil {
		return nil, err
	}
	return nf, nil
}

// Save writes data in place of the file at path, whole or not at all: a
// temporary file in the same directory, renamed over it. The file keeps
// its mode (a new one is 0600), and a symbolic link is followed, not
// replaced.
func Save(path string, data []byte) error {
	mode := fs.FileMode(0o600)
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing the calls file: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing the calls file: %w", err)
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing the calls file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing the calls file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the calls file: %w", err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("writing the calls file: %w", err)
	}
	done = true
	return nil
}

// NewText is the text of a new calls file holding calls.
func NewText(calls []Call) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n  \"calls\": [")
	for i, c := range calls {
		if i > 0 {
			b.WriteString(",")
		}
		text, err := encodeCall(c, "    ")
		if err != nil {
			return nil, err
		}
		b.WriteString("\n    ")
		b.Write(text)
	}
	if len(calls) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return b.Bytes(), nil
}

// edit is one byte-range replacement of a file's text.
type edit struct {
	off, end int
	text     []byte
}

// apply makes the edits, which do not overlap, in one pass over src
// (copying the whole text once per edit made test --update of 20,000
// snapshots quadratic).
func apply(src []byte, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].off < edits[j].off })
	size := len(src)
	for _, e := range edits {
		size += len(e.text) - (e.end - e.off)
	}
	out := make([]byte, 0, size)
	at := 0
	for _, e := range edits {
		out = append(append(out, src[at:e.off]...), e.text...)
		at = e.end
	}
	return append(out, src[at:]...)
}

// WithCall is the file's text with c in place of the call of the same
// name, or after the last call. Only those bytes change: comments and
// layout elsewhere stay as they are.
func (f *File) WithCall(c Call) ([]byte, error) {
	if !f.Exists() {
		return NewText([]Call{c})
	}
	for i, old := range f.Calls {
		if old.Name == c.Name {
			e := f.elems[i]
			text, err := encodeCall(c, f.indentAt(e.Off, "    "))
			if err != nil {
				return nil, err
			}
			return apply(f.src, []edit{{e.Off, e.End, text}}), nil
		}
	}
	if f.keyOff < 0 {
		return f.withCallsMember(c)
	}
	keyIndent := f.indentAt(f.keyOff, "  ")
	if n := len(f.elems); n > 0 {
		last := f.elems[n-1]
		indent := f.indentAt(last.Off, keyIndent+"  ")
		call, err := encodeCall(c, indent)
		if err != nil {
			return nil, err
		}
		return apply(f.src, []edit{{last.End, last.End, slices.Concat([]byte(",\n"+indent), call)}}), nil
	}
	open := bytes.LastIndexByte(f.clean[:f.closing], '[')
	indent := keyIndent + "  "
	call, err := encodeCall(c, indent)
	if err != nil {
		return nil, err
	}
	text := slices.Concat([]byte("\n"+indent), call, []byte("\n"+keyIndent))
	end := open + 1
	if len(bytes.TrimSpace(f.src[open+1:f.closing])) == 0 {
		end = f.closing // only spaces between the brackets: they go
	}
	return apply(f.src, []edit{{open + 1, end, text}}), nil
}

// withCallsMember adds the "calls" member to a file that has none.
func (f *File) withCallsMember(c Call) ([]byte, error) {
	top, err := config.Members(f.clean, 0)
	if err != nil {
		return nil, err
	}
	open := bytes.IndexByte(f.clean, '{')
	call, err := encodeCall(c, "    ")
	if err != nil {
		return nil, err
	}
	text := slices.Concat([]byte("\n  \"calls\": [\n    "), call, []byte("\n  ]"))
	if len(top) > 0 {
		text = append(text, ',')
	} else {
		text = append(text, '\n')
	}
	return apply(f.src, []edit{{open + 1, open + 1, text}}), nil
}

// WithSnapshots is the file's text with the snapshot of each call named in
// snaps replaced by its new answer. Calls without a snapshot keep none:
// --update rewrites snapshots, it does not add them.
func (f *File) WithSnapshots(snaps map[string]json.RawMessage) ([]byte, error) {
	var edits []edit
	for i, c := range f.Calls {
		snap, ok := snaps[c.Name]
		if !ok {
			continue
		}
		m, ok := f.member(f.elems[i].Off, "expect", "snapshot")
		if !ok {
			continue
		}
		text, err := encodeValue(snap, f.indentAt(m.KeyOff, "        "))
		if err != nil {
			return nil, fmt.Errorf("call %q's snapshot: %w", c.Name, err)
		}
		edits = append(edits, edit{m.ValueOff, m.ValueEnd, text})
	}
	if len(edits) == 0 {
		return f.src, nil
	}
	return apply(f.src, edits), nil
}

// member finds the member at the path of keys below the object at off.
func (f *File) member(off int, keys ...string) (config.Member, bool) {
	var found config.Member
	for _, k := range keys {
		ms, err := config.Members(f.clean, off)
		if err != nil {
			return found, false
		}
		ok := false
		for _, m := range ms {
			if m.Key == k {
				found, ok = m, true
			}
		}
		if !ok {
			return found, false
		}
		off = found.ValueOff
	}
	return found, true
}

// indentAt is the spaces before offset off on its line, or dflt when
// something else comes before it there.
func (f *File) indentAt(off int, dflt string) string {
	start := bytes.LastIndexByte(f.src[:off], '\n') + 1
	lead := string(f.src[start:off])
	if strings.Trim(lead, " \t") != "" {
		return dflt
	}
	return lead
}

// The JSON shape of a call, in the order a person reads it: what is sent,
// then what must come back (the snapshot, long, last).
type callJSON struct {
	Name   string          `json:"name"`
	Server string          `json:"server,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	Expect *expectJSON     `json:"expect,omitempty"`
}

type expectJSON struct {
	IsError  *bool           `json:"isError,omitempty"`
	Error    json.RawMessage `json:"error,omitempty"`
	Equals   ordered         `json:"equals,omitempty"`
	Matches  ordered         `json:"matches,omitempty"`
	Schema   json.RawMessage `json:"schema,omitempty"`
	MaxMs    int64           `json:"maxMs,omitempty"`
	Ignore   []string        `json:"ignore,omitempty"`
	Snapshot json.RawMessage `json:"snapshot,omitempty"`
}

// ordered is a JSON object whose members keep their order.
type ordered []orderedMember

type orderedMember struct {
	key   string
	value json.RawMessage
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalNoEscape(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (x Expect) shape() *expectJSON {
	e := &expectJSON{IsError: x.IsError, Error: x.Error, Schema: x.Schema, MaxMs: x.MaxMs, Ignore: x.Ignore, Snapshot: x.Snapshot}
	for _, pv := range x.Equals {
		e.Equals = append(e.Equals, orderedMember{pv.Pointer, pv.Value})
	}
	for _, pp := range x.Matches {
		v, _ := marshalNoEscape(pp.Pattern)
		e.Matches = append(e.Matches, orderedMember{pp.Pointer, v})
	}
	if e.IsError == nil && e.Error == nil && e.Equals == nil && e.Matches == nil && e.Schema == nil && e.MaxMs == 0 && e.Ignore == nil && e.Snapshot == nil {
		return nil
	}
	return e
}

// encodeCall is c as the file holds it; lines after the first start with
// indent (the column the call starts at).
func encodeCall(c Call, indent string) ([]byte, error) {
	b, err := encodeValue(callJSON{Name: c.Name, Server: c.Server, Method: c.Method, Params: c.Params, Expect: c.Expect.shape()}, indent)
	if err != nil {
		return nil, fmt.Errorf("call %q: %w", c.Name, err)
	}
	return b, nil
}

// encodeValue is v indented as json.Encoder's SetIndent(indent, "  ")
// would, up to jsonview.MaxIndentDepth levels: a snapshot nested
// thousands deep costs the file what its bytes do, not their square.
func encodeValue(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a snapshot of HTML stays readable
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	compact := htmlUnescaped(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return jsonview.IndentPrefix(make([]byte, 0, 2*len(compact)), compact, indent, "  "), nil
}

// htmlUnescaped is JSON text with the escapes Go's encoders write for
// HTML's sake (\u003c, \u003e, \u0026: a Go server's answer, a form's
// value) written as the characters they stand for. The value is the same;
// a person reading the calls file reads <b>, not \u003cb\u003e. Other
// escapes stay as they are.
func htmlUnescaped(text []byte) []byte {
	if !bytes.Contains(text, []byte(`\u00`)) {
		return text
	}
	out := make([]byte, 0, len(text))
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(text):
			if i+5 < len(text) && text[i+1] == 'u' {
				if r, ok := htmlEscape(text[i+2 : i+6]); ok {
					out = append(out, r)
					i += 5
					continue
				}
			}
			out = append(out, c, text[i+1])
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// htmlEscape is the character of the four hex digits of a \u escape, when
// it is one of those written for HTML's sake.
func htmlEscape(hex []byte) (byte, bool) {
	switch strings.ToLower(string(hex)) {
	case "003c":
		return '<', true
	case "003e":
		return '>', true
	case "0026":
		return '&', true
	}
	return 0, false
}

func marshalNoEscape(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
