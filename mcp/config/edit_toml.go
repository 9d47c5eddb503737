package config

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlField is a key/value of a server table, with where it is.
type tomlField struct {
	kv     Span // the whole "key = value"
	value  Span // the value (strings only)
	kind   unstable.Kind
	str    string
	items  []Span // an array's string elements
	strs   []string
	bad    bool // an array with something else than strings
	prefix string
	inline bool
}

// readTOML locates the stdio servers of a Codex config.toml:
// [mcp_servers.NAME] tables (or the same keys dotted, or inline tables)
// with "command" and "args". go-toml's parser gives every key and value
// its place in the text, so the edits are byte ranges and the file's
// comments and layout stay as they are.
func (d *Doc) readTOML() error {
	src := d.data
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		// go-toml v2.4.3 refuses a byte order mark; blanks keep the offsets.
		src = append([]byte("   "), src[3:]...)
	}
	var check map[string]any
	if err := toml.Unmarshal(src, &check); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return &Error{Line: line, Col: col, Msg: "invalid TOML", Err: errors.New(de.Error())}
		}
		return &Error{Msg: "invalid TOML", Err: err}
	}
	if _, ok := check["mcp_servers"]; !ok {
		keys := make([]string, 0, len(check))
		for k := range check {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return &NoServersError{Syntax: TOML, Has: keys}
	}
	d.Maps = append(d.Maps, "[mcp_servers]")

	servers := map[string]map[string]*tomlField{}
	var order []string
	note := func(path []string, f *tomlField) {
		if len(path) != 3 || path[0] != "mcp_servers" {
			return
		}
		m, ok := servers[path[1]]
		if !ok {
			m = map[string]*tomlField{}
			servers[path[1]] = m
			order = append(order, path[1])
		}
		m[path[2]] = f
	}
	p := &unstable.Parser{}
	p.Reset(src)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = keyParts(e)
		case unstable.ArrayTable:
			table = append([]string{"[["}, keyParts(e)...)
		case unstable.KeyValue:
			visitTOML(p, table, e, false, note)
		}
	}
	if err := p.Error(); err != nil {
		return &Error{Msg: "invalid TOML", Err: err}
	}
	for _, name := range order {
		d.tomlServer(name, servers[name])
	}
	return nil
}

func keyParts(n *unstable.Node) []string {
	var out []string
	it := n.Key()
	for it.Next() {
		out = append(out, string(it.Node().Data))
	}
	return out
}

// visitTOML records a key/value (and those of an inline table) under its
// full dotted path.
func visitTOML(p *unstable.Parser, prefix []string, kv *unstable.Node, inline bool, note func([]string, *tomlField)) {
	path := append(append([]string(nil), prefix...), keyParts(kv)...)
	v := kv.Value()
	kvSpan := Span{int(kv.Raw.Offset), int(kv.Raw.Offset + kv.Raw.Length)}
	// The dotted part of the key before its last name ("weather." in
	// weather.command = ...), for a sibling key written the same way.
	var first, last *unstable.Node
	it := kv.Key()
	for it.Next() {
		if first == nil {
			first = it.Node()
		}
		last = it.Node()
	}
	f := &tomlField{kv: kvSpan, kind: v.Kind, inline: inline}
	if first != nil && last != nil {
		f.prefix = string(p.Data()[first.Raw.Offset:last.Raw.Offset])
	}
	switch v.Kind {
	case unstable.InlineTable:
		c := v.Children()
		for c.Next() {
			if c.Node().Kind == unstable.KeyValue {
				visitTOML(p, path, c.Node(), true, note)
			}
		}
		return
	case unstable.String:
		f.value = Span{int(v.Raw.Offset), int(v.Raw.Offset + v.Raw.Length)}
		f.str = string(v.Data)
	case unstable.Array:
		c := v.Children()
		for c.Next() {
			n := c.Node()
			switch n.Kind {
			case unstable.Comment:
			case unstable.String:
				f.items = append(f.items, Span{int(n.Raw.Offset), int(n.Raw.Offset + n.Raw.Length)})
				f.strs = append(f.strs, string(n.Data))
			default:
				f.bad = true
			}
		}
		if last != nil {
			f.value = Span{int(last.Raw.Offset + last.Raw.Length), kvSpan.End}
		}
	}
	note(path, f)
}

func (d *Doc) tomlServer(name string, fields map[string]*tomlField) {
	other := func(url bool, why string) {
		d.Others = append(d.Others, Other{Name: name, URL: url, Why: why})
	}
	cmd, ok := fields["command"]
	if !ok {
		if _, url := fields["url"]; url {
			other(true, "a URL server")
		} else {
			other(false, `it has no "command"`)
		}
		return
	}
	if cmd.kind != unstable.String {
		other(false, `its "command" is not a string`)
		return
	}
	e := Entry{Name: name, Command: cmd.str, cmd: cmd.value}
	if a, ok := fields["args"]; ok {
		if a.kind != unstable.Array || a.bad {
			other(false, `its "args" is not a list of strings`)
			return
		}
		// The array runs from its '[' (after "=") to the key/value's end.
		open := bytes.IndexByte(d.data[a.value.Off:a.value.End], '[')
		closeAt := a.kv.End - 1
		if open < 0 || d.data[closeAt] != ']' {
			other(false, `its "args" could not be found in the text`)
			return
		}
		e.Args = a.strs
		e.args = &seq{open: a.value.Off + open + 1, close: closeAt, items: a.items}
	}
	if cmd.inline {
		e.add = adder{at: cmd.value.End, text: func(items []string) string {
			return ", args = [" + strings.Join(items, ", ") + "]"
		}}
	} else {
		indent := d.indentAt(cmd.kv.Off)
		prefix := cmd.prefix
		e.add = adder{at: d.lineEnd(cmd.value.End), text: func(items []string) string {
			return d.nl + indent + prefix + "args = [" + strings.Join(items, ", ") + "]"
		}}
	}
	d.Entries = append(d.Entries, e)
}
