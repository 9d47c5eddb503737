package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Syntax is the language a config file is written in.
type Syntax int

// The languages of the config files mcpscope edits.
const (
	JSON Syntax = iota // JSON with comments and trailing commas (JSONC)
	TOML
	YAML
)

func (s Syntax) String() string {
	switch s {
	case TOML:
		return "TOML"
	case YAML:
		return "YAML"
	}
	return "JSON"
}

// SyntaxFor picks a file's language from its name: .toml is TOML, .yaml
// and .yml YAML, anything else JSON.
func SyntaxFor(path string) Syntax {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		return TOML
	case ".yaml", ".yml":
		return YAML
	}
	return JSON
}

// Doc is a config file read for editing in place: where each stdio
// server's command and args are in its text, so that a tool (mcpscope tap
// install) can change them and nothing else, whatever the client that
// wrote the file did with the rest.
type Doc struct {
	Syntax Syntax
	// Maps names the server maps found (`"mcpServers"`,
	// `"projects"."/dir"."mcpServers"`, `[mcp_servers]`, ...).
	Maps []string
	// Entries are the stdio servers that can be edited, in file order.
	Entries []Entry
	// Others are the servers that cannot be: URL servers, and entries
	// written in a way that cannot be edited in place, with why.
	Others []Other

	data  []byte
	nl    string // the file's line ending
	lines []int  // YAML: where each line starts
}

// Other is a server of the file that is not an editable stdio server.
type Other struct {
	Name  string
	Scope string
	// URL is set for a server reached over HTTP.
	URL bool
	Why string
}

// Entry is one stdio server, located in the file's text.
type Entry struct {
	Name string
	// Scope tells apart servers of one file that share a name: "" for the
	// file's main map, `project "/dir"` for Claude Code's local scope.
	Scope   string
	Command string
	Args    []string

	cmd  Span // the command's token
	args *seq // nil when the entry has no args
	// add says how an args member is written after the command, for an
	// entry that has none (and how to recognise one written that way).
	add adder
	// needsArgs says the client requires an args member (Goose does).
	needsArgs bool
	// list is the one list that holds the command and then its args,
	// when the file writes them so (opencode); cmd and args are then its
	// first item and the rest.
	list *seq
}

// HasArgs reports whether the entry has an args member (an empty one
// counts).
func (e *Entry) HasArgs() bool { return e.args != nil }

// Key identifies an entry within its file.
func (e *Entry) Key() string { return e.Scope + "\x00" + e.Name }

// Label is the entry's name, with its scope when it has one.
func (e *Entry) Label() string {
	if e.Scope == "" {
		return e.Name
	}
	return e.Name + " (" + e.Scope + ")"
}

// Span is a range of a file's bytes, [Off, End).
type Span struct{ Off, End int }

// seq is a list value: a bracketed flow list (JSON, TOML, YAML flow) or a
// YAML block list of "- item" lines.
type seq struct {
	open, close int // flow: just after '[' and at ']'
	items       []Span
	block       bool
	dashes      []int // block: each item's '-'
	// value is where the list's value starts after its key's ':' (block:
	// a list emptied is written there as " []").
	value int
}

// adder writes a new args member after an entry's command. text is the
// whole member for the items given (their tokens), inserted at at.
type adder struct {
	at   int
	text func(items []string) string
}

// Token is a value to write: its text as it is in the file (Raw, moved
// from elsewhere in the file, kept byte for byte where it is valid), or
// just its value (quoted as the file's language wants).
type Token struct {
	Value string
	Raw   string
}

// CommandToken is the entry's command as written.
func (d *Doc) CommandToken(e *Entry) Token {
	return Token{Value: e.Command, Raw: string(d.data[e.cmd.Off:e.cmd.End])}
}

// ArgToken is the entry's i-th arg as written.
func (d *Doc) ArgToken(e *Entry, i int) Token {
	s := e.args.items[i]
	return Token{Value: e.Args[i], Raw: string(d.data[s.Off:s.End])}
}

// Edit replaces Span's bytes by Text.
type Edit struct {
	Span
	Text string
}

// Rewrite returns the edits that give entry e the command cmd and args
// made of prepend followed by its args from the drop-th on. Only the
// command's token and the front of the args list change; every other byte
// stays. An entry without args gets an args member right after its
// command; a list emptied by the drop that is written exactly that way
// goes away with it, so that a rewrite and its inverse give back the
// bytes, unless keepEmpty says the entry had an empty list there before
// (the two look the same once filled).
func (d *Doc) Rewrite(e *Entry, cmd Token, drop int, prepend []Token, keepEmpty bool) ([]Edit, error) {
	if drop < 0 || drop > len(e.Args) || (drop > 0 && len(prepend) > 0) {
		return nil, fmt.Errorf("%s: cannot drop %d of its %d args", e.Label(), drop, len(e.Args))
	}
	if e.list != nil {
		return d.rewriteList(e, cmd, drop, prepend)
	}
	edits := []Edit{{Span: e.cmd, Text: d.render(cmd, false)}}
	switch {
	case e.args == nil && len(prepend) > 0:
		if e.add.text == nil {
			return nil, fmt.Errorf("%s: no place for its args", e.Label())
		}
		items := d.renderAll(prepend, true)
		// One edit with the command's: they touch.
		edits[0] = Edit{Span: Span{e.cmd.Off, e.add.at}, Text: edits[0].Text + string(d.data[e.cmd.End:e.add.at]) + e.add.text(items)}
	case e.args == nil:
	case len(prepend) > 0:
		edits = append(edits, d.insertItems(e.args, d.renderAll(prepend, !e.args.block)))
	case drop > 0:
		edits = append(edits, d.dropItems(e, drop, keepEmpty))
	}
	return edits, nil
}

// rewriteList is Rewrite for a command written as the first item of one
// list with its args. The command's own token is never rewritten: a new
// command goes in front of it with the tokens that lead to it (install),
// or the tokens in front of it go (uninstall), so that the two undo each
// other byte for byte.
func (d *Doc) rewriteList(e *Entry, cmd Token, drop int, prepend []Token) ([]Edit, error) {
	switch {
	case drop == 0 && len(prepend) > 0 && prepend[len(prepend)-1].Value == e.Command:
		front := append([]Token{cmd}, prepend[:len(prepend)-1]...)
		return []Edit{d.insertItems(e.list, d.renderAll(front, true))}, nil
	case drop > 0 && len(prepend) == 0 && e.Args[drop-1] == cmd.Value:
		return []Edit{{Span: Span{e.list.items[0].Off, e.list.items[drop].Off}}}, nil
	}
	return nil, fmt.Errorf("%s: its command list cannot be rewritten that way", e.Label())
}

func (d *Doc) renderAll(ts []Token, flow bool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = d.render(t, flow)
	}
	return out
}

// render is a token's text for a place in the file: its raw text where it
// is valid there, else its value quoted. flow says the place is a flow
// list (YAML's rules differ there).
func (d *Doc) render(t Token, flow bool) string {
	if t.Raw != "" && d.rawFits(t.Raw, flow) {
		return t.Raw
	}
	switch d.Syntax {
	case YAML:
		if yamlPlainSafe(t.Value) {
			return t.Value
		}
	}
	return quoteDouble(t.Value)
}

// rawFits reports whether a token moved from another place is valid here.
func (d *Doc) rawFits(raw string, flow bool) bool {
	if d.Syntax != YAML {
		return true
	}
	if strings.ContainsAny(raw, "\r\n") {
		return false // a multi-line scalar depends on its indentation
	}
	if raw[0] == '"' || raw[0] == '\'' {
		return true
	}
	// A plain scalar: flow lists end one at these.
	return !flow || !strings.ContainsAny(raw, ",[]{}#")
}

// insertItems puts items at the front of a list, separated as the list's
// own items are.
func (d *Doc) insertItems(s *seq, items []string) Edit {
	if s.block {
		indent := d.indentAt(s.dashes[0])
		var b strings.Builder
		for _, it := range items {
			b.WriteString("- " + it + d.nl + indent)
		}
		return Edit{Span: Span{s.dashes[0], s.dashes[0]}, Text: b.String()}
	}
	if len(s.items) == 0 {
		return Edit{Span: Span{s.open, s.open}, Text: strings.Join(items, ", ")}
	}
	sep := ", "
	var gap []byte
	if len(s.items) >= 2 {
		gap = d.data[s.items[0].End:s.items[1].Off]
		if i := bytes.IndexByte(gap, ','); i >= 0 {
			gap = gap[i+1:]
		}
	} else {
		gap = d.data[s.open:s.items[0].Off]
	}
	switch {
	case bytes.ContainsAny(gap, "\n"):
		nl := "\n"
		if bytes.Contains(gap, []byte("\r\n")) {
			nl = "\r\n"
		}
		sep = "," + nl + d.indentAt(s.items[0].Off)
	case len(s.items) >= 2 && len(bytes.Trim(gap, " \t")) == 0:
		sep = "," + string(gap)
	}
	return Edit{Span: Span{s.items[0].Off, s.items[0].Off}, Text: strings.Join(items, sep) + sep}
}

// dropItems removes the first n items of e's args. A list left empty is
// written "[]", or removed with its key when it is exactly what Rewrite
// adds to an entry without args (and keepEmpty is false).
func (d *Doc) dropItems(e *Entry, n int, keepEmpty bool) Edit {
	s := e.args
	if n < len(s.items) {
		if s.block {
			return Edit{Span: Span{s.dashes[0], s.dashes[n]}}
		}
		return Edit{Span: Span{s.items[0].Off, s.items[n].Off}}
	}
	if e.add.text != nil && !s.block && !keepEmpty && !e.needsArgs {
		toks := make([]string, len(s.items))
		for i, it := range s.items {
			toks[i] = string(d.data[it.Off:it.End])
		}
		added := e.add.text(toks)
		if end := e.add.at + len(added); end <= len(d.data) && string(d.data[e.add.at:end]) == added && end == s.close+1 {
			return Edit{Span: Span{e.add.at, end}}
		}
	}
	if s.block {
		last := s.items[len(s.items)-1]
		return Edit{Span: Span{s.value, last.End}, Text: " []"}
	}
	end := s.items[len(s.items)-1].End
	if j := d.skipBlank(end, s.close); j < s.close && d.data[j] == ',' {
		end = j + 1
	}
	// Nothing but white space would stay between the brackets: a list a
	// client wrote over several lines closes up to "[]".
	if rest := append(append([]byte(nil), d.data[s.open:s.items[0].Off]...), d.data[end:s.close]...); len(bytes.TrimSpace(rest)) == 0 && bytes.ContainsAny(rest, "\n") {
		return Edit{Span: Span{s.open, s.close}}
	}
	return Edit{Span: Span{s.items[0].Off, end}}
}

// skipBlank skips spaces, line ends and comments from i, up to limit.
func (d *Doc) skipBlank(i, limit int) int {
	for i < limit {
		switch c := d.data[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '#' && d.Syntax != JSON, c == '/' && d.Syntax == JSON && i+1 < limit && d.data[i+1] == '/':
			for i < limit && d.data[i] != '\n' {
				i++
			}
		case c == '/' && d.Syntax == JSON && i+1 < limit && d.data[i+1] == '*':
			end := bytes.Index(d.data[i+2:limit], []byte("*/"))
			if end < 0 {
				return limit
			}
			i += end + 4
		default:
			return i
		}
	}
	return i
}

// indentAt is the white space from the start of off's line to off, or a
// run of spaces as wide when something else precedes it ("- key").
func (d *Doc) indentAt(off int) string {
	start := bytes.LastIndexByte(d.data[:off], '\n') + 1
	pre := d.data[start:off]
	if len(bytes.Trim(pre, " \t")) == 0 {
		return string(pre)
	}
	return strings.Repeat(" ", utf8.RuneCount(pre))
}

// lineEnd is the offset of the line end (or the file's end) at or after
// off.
func (d *Doc) lineEnd(off int) int {
	if i := bytes.IndexByte(d.data[off:], '\n'); i >= 0 {
		end := off + i
		if end > off && d.data[end-1] == '\r' {
			end--
		}
		return end
	}
	return len(d.data)
}

// Apply makes the edits (which must not overlap) on data.
func Apply(data []byte, edits []Edit) ([]byte, error) {
	edits = slices.Clone(edits)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Off < edits[j].Off })
	for i, e := range edits {
		if e.Off < 0 || e.End < e.Off || e.End > len(data) || (i > 0 && edits[i-1].End > e.Off) {
			return nil, errors.New("config: overlapping edits")
		}
	}
	// The exact size first: a buffer grown to the file's size and then
	// past it by the edits doubled, holding a big file twice more.
	size := len(data)
	for _, e := range edits {
		size += len(e.Text) - (e.End - e.Off)
	}
	out := make([]byte, 0, size)
	at := 0
	for _, e := range edits {
		out = append(append(out, data[at:e.Off]...), e.Text...)
		at = e.End
	}
	return append(out, data[at:]...), nil
}

// Read locates the servers of a config file in the language syntax. The
// Doc's strings may view data's bytes: data must not change after.
func Read(syntax Syntax, data []byte) (*Doc, error) {
	d := &Doc{Syntax: syntax, data: data, nl: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	var err error
	switch syntax {
	case TOML:
		err = d.readTOML()
	case YAML:
		err = d.readYAML()
	default:
		err = d.readJSON()
	}
	if err != nil {
		return nil, err
	}
	sort.SliceStable(d.Entries, func(i, j int) bool { return d.Entries[i].cmd.Off < d.Entries[j].cmd.Off })
	return d, nil
}

// NoServersError says a file has none of the server maps mcpscope knows,
// and what it has instead.
type NoServersError struct {
	Syntax Syntax
	// Has lists the file's top-level keys.
	Has []string
	// Known names a client's format that mcpscope recognised but does not
	// edit ("" when none).
	Known string
}

func (e *NoServersError) Error() string {
	found := "it is empty"
	if len(e.Has) > 0 {
		q := make([]string, len(e.Has))
		for i, k := range e.Has {
			q[i] = strconv.Quote(k)
		}
		found = "it has " + strings.Join(q, ", ")
	}
	if e.Known != "" {
		return e.Known + " is not a format mcpscope edits (" + found + ")"
	}
	switch e.Syntax {
	case TOML:
		return "no MCP servers: expected [mcp_servers.NAME] tables (Codex's config.toml); " + found
	case YAML:
		return `no MCP servers: expected "mcpServers" (Continue's config.yaml) or "extensions" (Goose's config.yaml); ` + found
	}
	return `no MCP servers: expected "mcpServers" (Claude Desktop, Claude Code, Cursor, Windsurf, Cline, Cline CLI, Gemini CLI, Copilot CLI), "projects"."DIR"."mcpServers" (Claude Code's local scope), "servers" (VS Code mcp.json), "mcp": {"servers"} (VS Code settings.json), "mcp" (opencode) or "context_servers" (Zed); ` + found
}

// quoteDouble writes s as a double-quoted string that JSON, TOML and
// YAML read alike: no HTML escaping, and every control character, DEL,
// C1 control, line or paragraph separator and BOM escaped (TOML and YAML
// refuse some of them raw).
func quoteDouble(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || r == 0xfeff {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlPlainSafe reports whether s reads back as the same string when
// written as a plain YAML scalar, anywhere (block or flow).
func yamlPlainSafe(s string) bool {
	if s == "" || s == "-" || strings.HasPrefix(s, "---") || s == "~" {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("_./-", r) || (i > 0 && strings.ContainsRune("@+=%~", r))
		if !ok {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", ".inf", "-.inf", ".nan":
		return false
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
		return false
	}
	if _, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64); err == nil {
		return false
	}
	return true
}
