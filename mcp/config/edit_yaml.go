package config

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// readYAML locates the stdio servers of Continue's config.yaml
// ("mcpServers": a list of {name, command, args}, or a map of them) and
// Goose's config.yaml ("extensions": NAME: {type: stdio, cmd, args}). The
// YAML library gives each node's line and column; the edits are byte
// ranges worked out from those, so comments and layout stay.
func (d *Doc) readYAML() error {
	var root yaml.Node
	if err := yaml.Unmarshal(d.data, &root); err != nil {
		return &Error{Msg: "invalid YAML", Err: err}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return &NoServersError{Syntax: YAML}
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return &Error{Msg: "the top level is not a YAML mapping"}
	}
	d.lines = lineStarts(d.data)
	found := false
	if _, v := lastKey(top, "mcpServers"); v != nil {
		found = true
		d.Maps = append(d.Maps, "mcpServers")
		switch v.Kind {
		case yaml.SequenceNode:
			for i, item := range v.Content {
				name := "#" + strconv.Itoa(i+1)
				if _, n := lastKey(item, "name"); n != nil && n.Kind == yaml.ScalarNode {
					name = n.Value
				}
				d.yamlServer(name, item, "command")
			}
		case yaml.MappingNode:
			for _, kv := range lastPairs(v) {
				d.yamlServer(kv[0].Value, kv[1], "command")
			}
		}
	}
	if _, v := lastKey(top, "extensions"); v != nil && v.Kind == yaml.MappingNode {
		found = true
		d.Maps = append(d.Maps, "extensions")
		for _, kv := range lastPairs(v) {
			d.yamlServer(kv[0].Value, kv[1], "cmd")
		}
	}
	if !found {
		var keys []string
		for i := 0; i+1 < len(top.Content); i += 2 {
			keys = append(keys, top.Content[i].Value)
		}
		return &NoServersError{Syntax: YAML, Has: keys}
	}
	return nil
}

// lastKey is a mapping's value for key (the last, when it repeats) and
// its key node.
func lastKey(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return k, m.Content[i+1]
		}
	}
	return nil, nil
}

// lastPairs are a mapping's key/value pairs, the last of each key.
func lastPairs(m *yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	seen := map[string]bool{}
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, m.Content[i+1]})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func (d *Doc) yamlServer(name string, n *yaml.Node, cmdKey string) {
	other := func(url bool, why string) {
		d.Others = append(d.Others, Other{Name: name, URL: url, Why: why})
	}
	if n.Kind != yaml.MappingNode {
		other(false, "its definition is not a mapping")
		return
	}
	typ := ""
	if _, t := lastKey(n, "type"); t != nil {
		typ = t.Value
	}
	_, url := lastKey(n, "url")
	if _, uri := lastKey(n, "uri"); uri != nil {
		url = uri
	}
	cmdKeyNode, cmd := lastKey(n, cmdKey)
	switch {
	case cmd == nil && (url != nil || typ == "sse" || typ == "streamable-http" || typ == "streamable_http"):
		other(true, "a URL server")
		return
	case cmd == nil && typ == "builtin":
		other(false, "a built-in extension")
		return
	case cmd == nil:
		other(false, `it has no "`+cmdKey+`"`)
		return
	case typ != "" && typ != TypeStdio:
		other(false, "a "+strconv.Quote(typ)+" server")
		return
	}
	flowMap := n.Style&yaml.FlowStyle != 0
	cspan, ok := d.yamlScalar(cmd, flowMap)
	if !ok {
		other(false, `its "`+cmdKey+`" is not written as a plain or quoted string on one line`)
		return
	}
	// Goose's stdio extensions must have "args", even empty.
	e := Entry{Name: name, Command: cmd.Value, cmd: cspan, needsArgs: cmdKey == "cmd"}
	if argsKey, a := lastKey(n, "args"); a != nil {
		s, vals, why := d.yamlList(argsKey, a, flowMap)
		if why != "" {
			other(false, why)
			return
		}
		e.Args, e.args = vals, s
	}
	if flowMap {
		e.add = adder{at: cspan.End, text: func(items []string) string {
			return ", args: [" + joinItems(items) + "]"
		}}
	} else {
		indent := d.indentAt(d.yamlOffset(cmdKeyNode))
		e.add = adder{at: d.lineEnd(cspan.End), text: func(items []string) string {
			return d.nl + indent + "args: [" + joinItems(items) + "]"
		}}
	}
	d.Entries = append(d.Entries, e)
}

func joinItems(items []string) string {
	var b bytes.Buffer
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it)
	}
	return b.String()
}

// yamlList locates an args list: a flow list "[a, b]" or block "- a"
// lines.
func (d *Doc) yamlList(key, a *yaml.Node, flowMap bool) (*seq, []string, string) {
	const notList = `its "args" is not a list of strings written on one line each`
	if a.Kind != yaml.SequenceNode || a.Anchor != "" || a.Style&yaml.TaggedStyle != 0 {
		return nil, nil, notList
	}
	flow := flowMap || a.Style&yaml.FlowStyle != 0
	s := &seq{block: !flow}
	var vals []string
	for _, it := range a.Content {
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
			return nil, nil, notList
		}
		sp, ok := d.yamlScalar(it, flow)
		if !ok {
			return nil, nil, notList
		}
		s.items = append(s.items, sp)
		vals = append(vals, it.Value)
	}
	start := d.yamlOffset(a)
	if start < 0 {
		return nil, nil, notList
	}
	if flow {
		if d.data[start] != '[' {
			return nil, nil, notList
		}
		s.open = start + 1
		at := s.open
		if len(s.items) > 0 {
			at = s.items[len(s.items)-1].End
		}
		at = d.skipBlank(at, len(d.data))
		if at < len(d.data) && d.data[at] == ',' {
			at = d.skipBlank(at+1, len(d.data))
		}
		if at >= len(d.data) || d.data[at] != ']' {
			return nil, nil, notList
		}
		s.close = at
		return s, vals, ""
	}
	for _, it := range s.items {
		i := it.Off - 1
		for i >= 0 && d.data[i] == ' ' {
			i--
		}
		if i < 0 || d.data[i] != '-' {
			return nil, nil, notList
		}
		s.dashes = append(s.dashes, i)
	}
	ks, ok := d.yamlScalar(key, false)
	if !ok {
		return nil, nil, notList
	}
	i := ks.End
	for i < len(d.data) && (d.data[i] == ' ' || d.data[i] == '\t') {
		i++
	}
	if i >= len(d.data) || d.data[i] != ':' {
		return nil, nil, notList
	}
	s.value = i + 1
	return s, vals, ""
}

// yamlScalar finds a one-line plain or quoted scalar's token, and checks
// that the token reads back as the node's value.
func (d *Doc) yamlScalar(n *yaml.Node, flow bool) (Span, bool) {
	if n.Kind != yaml.ScalarNode || n.Anchor != "" || n.Style&(yaml.TaggedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return Span{}, false
	}
	off := d.yamlOffset(n)
	if off < 0 {
		return Span{}, false
	}
	end := -1
	b := d.data
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if b[off] != '"' {
			return Span{}, false
		}
		for i := off + 1; i < len(b) && b[i] != '\n'; i++ {
			if b[i] == '\\' {
				i++
			} else if b[i] == '"' {
				end = i + 1
				break
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		if b[off] != '\'' {
			return Span{}, false
		}
		for i := off + 1; i < len(b) && b[i] != '\n'; i++ {
			if b[i] == '\'' {
				if i+1 < len(b) && b[i+1] == '\'' {
					i++
					continue
				}
				end = i + 1
				break
			}
		}
	default:
		i := off
		for ; i < len(b) && b[i] != '\n' && b[i] != '\r'; i++ {
			if (b[i] == '#' && i > off && (b[i-1] == ' ' || b[i-1] == '\t')) || (flow && (b[i] == ',' || b[i] == ']' || b[i] == '}')) {
				break
			}
			if b[i] == ':' && (i+1 == len(b) || b[i+1] == ' ' || b[i+1] == '\t' || b[i+1] == '\n' || b[i+1] == '\r' || (flow && (b[i+1] == ',' || b[i+1] == ']' || b[i+1] == '}'))) {
				break
			}
		}
		for i > off && (b[i-1] == ' ' || b[i-1] == '\t') {
			i--
		}
		end = i
	}
	if end <= off {
		return Span{}, false
	}
	var v string
	if err := yaml.Unmarshal(b[off:end], &v); err != nil || v != n.Value {
		return Span{}, false
	}
	return Span{off, end}, true
}

// yamlOffset is the byte offset of a node's line and column (the YAML
// library counts columns in characters), or -1.
func (d *Doc) yamlOffset(n *yaml.Node) int {
	if n.Line < 1 || n.Line > len(d.lines) || n.Column < 1 {
		return -1
	}
	i := d.lines[n.Line-1]
	if n.Line == 1 && bytes.HasPrefix(d.data, []byte("\xef\xbb\xbf")) {
		i += 3
	}
	for c := 1; c < n.Column; c++ {
		if i >= len(d.data) || d.data[i] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(d.data[i:])
		i += size
	}
	if i >= len(d.data) {
		return -1
	}
	return i
}

func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}
