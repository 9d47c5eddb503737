package config

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// readJSON locates the stdio servers of a JSON (JSONC) config: every
// server map the clients write, in one file when it has several (Claude
// Code's ~/.claude.json holds the user's map and one per project).
func (d *Doc) readJSON() error {
	clean, err := ReadJSONC("", d.data)
	if err != nil {
		return err
	}
	top, err := members(clean, 0)
	if err != nil {
		return &Error{Msg: "the top level is not a JSON object"}
	}
	found := false
	each := func(name string, scope string, m member) {
		found = true
		d.Maps = append(d.Maps, name)
		ms, err := members(clean, m.valueOff)
		if err != nil {
			d.Others = append(d.Others, Other{Name: name, Scope: scope, Why: "it is not an object of servers"})
			return
		}
		for _, s := range lastOfEach(ms) {
			d.jsonServer(clean, s, scope)
		}
	}
	if m, ok := find(top, "mcpServers"); ok {
		each(`"mcpServers"`, "", m)
	}
	if m, ok := find(top, "servers"); ok {
		each(`"servers"`, "", m)
	}
	if m, ok := find(top, "mcp.servers"); ok {
		each(`"mcp.servers"`, "", m)
	}
	if m, ok := find(top, "mcp"); ok {
		if inner, err := members(clean, m.valueOff); err == nil {
			if s, ok := find(inner, "servers"); ok && !looksLikeServer(clean, s) {
				each(`"mcp"."servers"`, "", s)
			} else if allObjects(inner) {
				// opencode's "mcp": {"NAME": {"type": "local", "command": [...]}}.
				each(`"mcp"`, "", m)
			}
		}
	}
	if m, ok := find(top, "context_servers"); ok {
		each(`"context_servers"`, "", m)
	}
	if m, ok := find(top, "projects"); ok {
		if projects, err := members(clean, m.valueOff); err == nil {
			for _, pr := range lastOfEach(projects) {
				inner, err := members(clean, pr.valueOff)
				if err != nil {
					continue
				}
				if s, ok := find(inner, "mcpServers"); ok {
					each(`"projects".`+strconv.Quote(pr.key)+`."mcpServers"`, "project "+strconv.Quote(pr.key), s)
				}
			}
			found = true // a Claude Code file whose projects have no servers yet
		}
	}
	if found {
		return nil
	}
	keys := make([]string, len(top))
	for i, m := range top {
		keys[i] = m.key
	}
	ns := &NoServersError{Syntax: JSON, Has: keys}
	if m, ok := find(top, "experimental"); ok {
		if inner, err := members(clean, m.valueOff); err == nil {
			if _, ok := find(inner, "modelContextProtocolServers"); ok {
				ns.Known = `Continue's config.json ("experimental"."modelContextProtocolServers")`
			}
		}
	}
	return ns
}

// jsonServer adds one server of a map to Entries or Others.
func (d *Doc) jsonServer(clean []byte, s member, scope string) {
	other := func(url bool, why string) {
		d.Others = append(d.Others, Other{Name: s.key, Scope: scope, URL: url, Why: why})
	}
	fields, err := members(clean, s.valueOff)
	if err != nil {
		other(false, "its definition is not an object")
		return
	}
	if t, ok := find(fields, "transport"); ok && len(t.value) > 0 && t.value[0] == '{' {
		// Cline CLI's "NAME": {"transport": {"type": "stdio", "command", "args"}}.
		if _, flat := find(fields, "command"); !flat {
			if inner, err := members(clean, t.valueOff); err == nil {
				fields = inner
			}
		}
	}
	var typ string
	if t, ok := find(fields, "type"); ok {
		_ = json.Unmarshal(t.value, &typ)
	}
	cmd, hasCmd := find(fields, "command")
	isURL := false
	for _, k := range []string{"url", "serverUrl", "httpUrl"} {
		if _, ok := find(fields, k); ok {
			isURL = true
		}
	}
	switch {
	case !hasCmd && isURL, typ != "" && typ != TypeStdio && !strings.EqualFold(typ, "local"):
		other(true, "a URL server")
		return
	case !hasCmd:
		other(false, `it has no "command"`)
		return
	}
	container := fields
	if len(cmd.value) > 0 && cmd.value[0] == '{' {
		// Zed's older shape: "command": {"path", "args", "env"}.
		inner, err := members(clean, cmd.valueOff)
		if err != nil {
			other(false, `its "command" is not a string`)
			return
		}
		path, ok := find(inner, "path")
		if !ok {
			other(false, `its "command" has no "path"`)
			return
		}
		container, cmd = inner, path
	}
	if len(cmd.value) > 0 && cmd.value[0] == '[' {
		d.jsonCommandList(clean, s, scope, cmd, other)
		return
	}
	e := Entry{Name: s.key, Scope: scope, cmd: Span{cmd.valueOff, cmd.valueOff + len(cmd.value)}}
	var ok bool
	if e.Command, ok = stringView(cmd.value); !ok {
		other(false, `its "command" is not a string`)
		return
	}
	if a, ok := find(container, "args"); ok {
		elems, closeAt, err := Elements(clean, a.valueOff)
		if err != nil {
			other(false, `its "args" is not a list of strings`)
			return
		}
		s := &seq{open: skipSpace(clean, a.valueOff) + 1, close: closeAt}
		for _, it := range elems {
			v, ok := stringView(it.Value)
			if !ok {
				other(false, `its "args" is not a list of strings`)
				return
			}
			e.Args = append(e.Args, v)
			s.items = append(s.items, Span{it.Off, it.End})
		}
		e.args = s
	}
	e.add = adder{at: e.cmd.End, text: func(items []string) string {
		return `, "args": [` + strings.Join(items, ", ") + "]"
	}}
	d.Entries = append(d.Entries, e)
}

// jsonCommandList adds a server whose "command" is one list of the
// command and its args (opencode's `"command": ["node", "index.js"]`).
func (d *Doc) jsonCommandList(clean []byte, s member, scope string, cmd member, other func(bool, string)) {
	elems, closeAt, err := Elements(clean, cmd.valueOff)
	if err != nil || len(elems) == 0 {
		other(false, `its "command" is not a list of strings with the command first`)
		return
	}
	list := &seq{open: skipSpace(clean, cmd.valueOff) + 1, close: closeAt}
	var words []string
	for _, it := range elems {
		v, ok := stringView(it.Value)
		if !ok {
			other(false, `its "command" is not a list of strings`)
			return
		}
		words = append(words, v)
		list.items = append(list.items, Span{it.Off, it.End})
	}
	e := Entry{Name: s.key, Scope: scope, Command: words[0], Args: words[1:],
		cmd: list.items[0], list: list,
		args: &seq{open: list.open, close: list.close, items: list.items[1:]}}
	d.Entries = append(d.Entries, e)
}

// looksLikeServer reports whether a member's value is one server's
// definition rather than a map of servers.
func looksLikeServer(clean []byte, m member) bool {
	fields, err := members(clean, m.valueOff)
	if err != nil {
		return false
	}
	for _, k := range []string{"command", "url", "type"} {
		if f, ok := find(fields, k); ok && (len(f.value) == 0 || f.value[0] != '{') {
			return true
		}
	}
	return false
}

// allObjects reports whether every member's value is an object.
func allObjects(ms []member) bool {
	for _, m := range ms {
		if len(m.value) == 0 || m.value[0] != '{' {
			return false
		}
	}
	return true
}

// stringView decodes a JSON string of a config's text, as a view of the
// text when it has no escapes: the args of a big file of servers weigh
// about what the file does, and would be held again by each reading (tap
// install reads a file, then its edit). The text is never changed while
// its Doc is in use.
func stringView(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	return jsonview.StringView(raw)
}
