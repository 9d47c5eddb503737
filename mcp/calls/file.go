// Package calls is the calls file: requests a person made by hand, kept
// with what their answers must be, and run again (mcpscope test, and the
// TUI's saved calls). The file is JSON read as client configs are read
// (comments and trailing commas allowed, errors by line and column), by
// default mcpscope.calls.json in the working directory:
//
//	{
//	  "calls": [
//	    {
//	      "name": "add small numbers",
//	      "method": "tools/call",
//	      "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
//	      "expect": {"isError": false, "equals": {"/content/0/text": "3"}, "maxMs": 2000}
//	    }
//	  ]
//	}
//
// That minimal shape is read by every later version. A call's optional
// "server" is the serverInfo.name of the server it was saved against: a
// file serves every server started in its folder, and a call of another
// server is shown apart and not run against this one. An expectation
// names what the answer must be: isError, error (members of the JSON-RPC
// error),
// equals and matches (JSON pointers into the result, or into the error, to
// a value or a regular expression), schema ("output" for the tool's own
// outputSchema, or a schema), snapshot (the whole answer, {"result": ...}
// or {"error": ...}, compared as mcpscope replay compares, with the same
// ignore paths; {} or null until --update fills it), and maxMs. The file
// is edited in place, byte ranges only, so a person's comments and layout
// survive a save or an --update.
package calls

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/config"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/replay"
)

// DefaultPath is the calls file mcpscope looks for in the working
// directory.
const DefaultPath = "mcpscope.calls.json"

// File is a calls file as read, with where each call sits in its text.
type File struct {
	Path  string
	Calls []Call
	// src is the text as read, clean the same with comments blanked; both
	// nil for a file that does not exist yet.
	src, clean []byte
	// elems are the calls' places in src; closing is the offset of the
	// calls array's "]", keyOff that of its key (-1 without one).
	elems   []config.Element
	closing int
	keyOff  int
}

// Call is one saved request and what its answer must be.
type Call struct {
	Name string
	// Server is the name the server gave itself (serverInfo.name) when
	// the call was saved: one calls file serves every server started in
	// its folder, and a call of another server is not run against this
	// one. "" (a call written without it) is for any server.
	Server string
	Method string
	Params json.RawMessage // nil: the request has no params
	Expect Expect
	// Line is where the call starts in its file (1-based; 0 for a call
	// not read from a file).
	Line int
}

// Expect is what a call's answer must be. The zero value asks only for an
// answer that is not a JSON-RPC error.
type Expect struct {
	IsError  *bool            // tools/call: the result's isError (absent is false)
	Error    json.RawMessage  // the answer is an error with these members ({"code": -32602})
	Equals   []PointerValue   // the value at each pointer, compared as JSON
	Matches  []PointerPattern // the string at each pointer matches a regular expression
	Schema   json.RawMessage  // "output", or a JSON Schema
	Snapshot json.RawMessage  // the whole answer: {"result": ...} or {"error": ...}
	Ignore   []string         // snapshot paths not compared (replay's --ignore)
	MaxMs    int64            // the answer comes within this many milliseconds (0: no bound)
	matcher  *replay.Matcher  // Ignore, compiled
	inline   *schema.Schema   // Schema when it is a schema, compiled
}

// PointerValue is one "equals" entry.
type PointerValue struct {
	Pointer string
	Value   json.RawMessage
}

// PointerPattern is one "matches" entry.
type PointerPattern struct {
	Pointer string
	Pattern string
	re      *regexp.Regexp
}

// For reports whether the call is for the server called name: saved
// against it, or against no server in particular (a call without a
// server, or a server that gave no name).
func (c *Call) For(server string) bool {
	return c.Server == "" || server == "" || c.Server == server
}

// Tool is the tool a tools/call names, "" for other methods.
func (c *Call) Tool() string {
	if c.Method != mcp.MethodToolsCall {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(c.Params, &p)
	return p.Name
}

// Arguments are a tools/call's arguments (nil when it has none).
func (c *Call) Arguments() json.RawMessage {
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(c.Params, &p)
	return p.Arguments
}

// Error is a problem in a calls file: where it is, and what to do.
type Error struct {
	Path      string
	Line, Col int // 1-based; 0 when the problem has no one place
	Call      string
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Call != "" {
		fmt.Fprintf(&b, "call %q: ", e.Call)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Empty is a calls file that does not exist yet: saving a call creates it.
func Empty(path string) *File { return &File{Path: path, keyOff: -1} }

// Exists reports whether the file was read from disk.
func (f *File) Exists() bool { return f.src != nil }

// Find returns the call called name.
func (f *File) Find(name string) (Call, bool) {
	for _, c := range f.Calls {
		if c.Name == name {
			return c, true
		}
	}
	return Call{}, false
}

// Names lists the calls' names in file order.
func (f *File) Names() []string {
	out := make([]string, len(f.Calls))
	for i, c := range f.Calls {
		out[i] = c.Name
	}
	return out
}

// Parse reads data as the calls file path.
func Parse(path string, data []byte) (*File, error) {
	clean, err := config.ReadJSONC(path, data)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, &Error{Path: path, Line: ce.Line, Col: ce.Col, Msg: strings.TrimPrefix(ce.Msg, "invalid JSON: ")}
		}
		return nil, &Error{Path: path, Msg: err.Error()}
	}
	p := &parser{path: path, src: data, clean: clean}
	return p.file()
}

type parser struct {
	path       string
	src, clean []byte
	// lineOff and line are where lineOf last counted to: the calls are
	// read in file order, so each count goes on from the one before
	// (counting from the top for each of 20,000 calls took 8.7 s).
	lineOff, line int
}

// lineOf is the 1-based line of the byte at off.
func (p *parser) lineOf(off int) int {
	off = max(0, min(off, len(p.src)))
	if off < p.lineOff {
		p.lineOff, p.line = 0, 1
	}
	if p.line == 0 {
		p.line = 1
	}
	p.line += bytes.Count(p.src[p.lineOff:off], []byte("\n"))
	p.lineOff = off
	return p.line
}

func (p *parser) errAt(off int, call, format string, args ...any) *Error {
	line, col := config.Position(p.src, off)
	return &Error{Path: p.path, Line: line, Col: col, Call: call, Msg: fmt.Sprintf(format, args...)}
}

// topKeys are the members a calls file may have besides its calls.
var topKeys = []string{"calls", "$schema"}

func (p *parser) file() (*File, error) {
	top, err := config.Members(p.clean, 0)
	if err != nil {
		return nil, p.errAt(0, "", `the top level must be an object: {"calls": [...]}`)
	}
	f := &File{Path: p.path, src: p.src, clean: p.clean, keyOff: -1}
	for _, m := range top {
		if !slices.Contains(topKeys, m.Key) {
			return nil, p.errAt(m.KeyOff, "", `unknown member %q: a calls file holds {"calls": [...]}`, m.Key)
		}
	}
	var calls config.Member
	found := false
	for _, m := range top {
		if m.Key == "calls" {
			calls, found = m, true
		}
	}
	if !found {
		// An object without calls is an empty calls file; saving adds
		// the member.
		return f, nil
	}
	elems, closing, err := config.Elements(p.clean, calls.ValueOff)
	if err != nil {
		return nil, p.errAt(calls.ValueOff, "", `"calls" must be an array of calls`)
	}
	f.elems, f.closing, f.keyOff = elems, closing, calls.KeyOff
	seen := map[string]int{}
	for _, e := range elems {
		c, err := p.call(e)
		if err != nil {
			return nil, err
		}
		if line, dup := seen[c.Name]; dup {
			return nil, p.errAt(e.Off, c.Name, "a second call of this name (the first is on line %d): names must be unique", line)
		}
		seen[c.Name] = c.Line
		f.Calls = append(f.Calls, c)
	}
	return f, nil
}

// callKeys and expectKeys are the members a call and its expect may have.
var (
	callKeys   = []string{"name", "server", "method", "params", "expect"}
	expectKeys = []string{"isError", "error", "equals", "matches", "schema", "snapshot", "ignore", "maxMs"}
)

func (p *parser) call(e config.Element) (Call, error) {
	c := Call{Line: p.lineOf(e.Off)}
	ms, err := config.Members(p.clean, e.Off)
	if err != nil {
		return c, p.errAt(e.Off, "", `a call must be an object: {"name": ..., "method": ..., "params": {...}, "expect": {...}}`)
	}
	get := func(key string) (config.Member, bool) {
		for _, m := range ms {
			if m.Key == key {
				return m, true
			}
		}
		return config.Member{}, false
	}
	name, ok := get("name")
	if !ok || json.Unmarshal(name.Value, &c.Name) != nil || strings.TrimSpace(c.Name) == "" {
		return c, p.errAt(e.Off, "", `a call needs a "name" (a non-empty string)`)
	}
	for _, m := range ms {
		if !slices.Contains(callKeys, m.Key) {
			return c, p.errAt(m.KeyOff, c.Name, "unknown member %q; a call has %s", m.Key, strings.Join(callKeys, ", "))
		}
	}
	if server, ok := get("server"); ok && json.Unmarshal(server.Value, &c.Server) != nil {
		return c, p.errAt(server.ValueOff, c.Name, `"server" is the name of the server the call is for (its serverInfo.name), a string`)
	}
	method, ok := get("method")
	if !ok || json.Unmarshal(method.Value, &c.Method) != nil || c.Method == "" {
		return c, p.errAt(e.Off, c.Name, `a call needs a "method" (tools/call, resources/read, prompts/get, ping, ...)`)
	}
	if params, ok := get("params"); ok {
		v := bytes.TrimSpace(params.Value)
		if len(v) == 0 || v[0] != '{' {
			return c, p.errAt(params.ValueOff, c.Name, `"params" must be an object`)
		}
		c.Params = compact(v)
	}
	if c.Method == mcp.MethodToolsCall {
		var tp struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(c.Params, &tp) != nil || tp.Name == nil || *tp.Name == "" {
			return c, p.errAt(e.Off, c.Name, `a tools/call needs "params": {"name": TOOL, "arguments": {...}}`)
		}
	}
	if ex, ok := get("expect"); ok {
		if c.Expect, err = p.expect(ex, c.Name, c.Method); err != nil {
			return c, err
		}
	} else if c.Expect, err = compileExpect(Expect{}); err != nil {
		return c, p.errAt(e.Off, c.Name, "%v", err)
	}
	return c, nil
}

func (p *parser) expect(m config.Member, call, method string) (Expect, error) {
	var x Expect
	ms, err := config.Members(p.clean, m.ValueOff)
	if err != nil {
		return x, p.errAt(m.ValueOff, call, `"expect" must be an object`)
	}
	for _, m := range ms {
		bad := func(format string, args ...any) error {
			return p.errAt(m.ValueOff, call, "expect.%s: "+format, append([]any{m.Key}, args...)...)
		}
		v := bytes.TrimSpace(m.Value)
		switch m.Key {
		case "isError":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return x, bad("true or false")
			}
			x.IsError = &b
		case "error":
			if len(v) == 0 || v[0] != '{' {
				return x, bad(`an object of the error's members, e.g. {"code": -32602}`)
			}
			x.Error = compact(v)
		case "equals", "matches":
			entries, err := config.Members(p.clean, m.ValueOff)
			if err != nil {
				return x, bad(`an object mapping JSON pointers to %s, e.g. {"/content/0/text": ...}`, map[string]string{"equals": "values", "matches": "regular expressions"}[m.Key])
			}
			for _, en := range entries {
				if en.Key != "" && en.Key[0] != '/' {
					return x, p.errAt(en.KeyOff, call, "expect.%s: %q is not a JSON pointer (they start with /, e.g. /content/0/text)", m.Key, en.Key)
				}
				if m.Key == "equals" {
					x.Equals = append(x.Equals, PointerValue{Pointer: en.Key, Value: compact(en.Value)})
					continue
				}
				var pat string
				if json.Unmarshal(en.Value, &pat) != nil {
					return x, p.errAt(en.ValueOff, call, "expect.matches %s: a regular expression, as a string", en.Key)
				}
				re, err := regexp.Compile(pat)
				if err != nil {
					return x, p.errAt(en.ValueOff, call, "expect.matches %s: %v (Go's RE2 syntax)", en.Key, err)
				}
				x.Matches = append(x.Matches, PointerPattern{Pointer: en.Key, Pattern: pat, re: re})
			}
		case "schema":
			var s string
			switch {
			case json.Unmarshal(v, &s) == nil && s == "output":
				if method != mcp.MethodToolsCall {
					return x, bad(`"output" is a tool's outputSchema: only a tools/call has one`)
				}
			case len(v) > 0 && (v[0] == '{' || string(v) == "true" || string(v) == "false"):
			default:
				return x, bad(`"output" (the tool's outputSchema) or a JSON Schema`)
			}
			x.Schema = compact(v)
		case "snapshot":
			if !isAnswer(v) && !IsPlaceholder(v) {
				return x, bad(`the whole answer: {"result": ...} or {"error": ...}; {} or null for one --update is to take`)
			}
			x.Snapshot = compact(v)
		case "ignore":
			if json.Unmarshal(v, &x.Ignore) != nil {
				return x, bad(`a list of paths, e.g. ["/result/content/0/text", "**.timestamp"]`)
			}
		case "maxMs":
			n, err := strconv.ParseFloat(string(v), 64)
			if err != nil || n <= 0 {
				return x, bad("a positive number of milliseconds")
			}
			x.MaxMs = int64(n)
		default:
			return x, p.errAt(m.KeyOff, call, "unknown expectation %q; known: %s", m.Key, strings.Join(expectKeys, ", "))
		}
	}
	x, err = compileExpect(x)
	if err != nil {
		return x, p.errAt(m.ValueOff, call, "%v", err)
	}
	return x, nil
}

// compileExpect prepares what checking needs once: the ignore paths as
// replay reads them, the regular expressions.
func compileExpect(x Expect) (Expect, error) {
	for _, path := range x.Ignore {
		if err := answerPath(path); err != nil {
			return x, err
		}
	}
	m, err := replay.NewMatcher(x.Ignore, false)
	if err != nil {
		return x, fmt.Errorf("expect.ignore: %w", err)
	}
	x.matcher = m
	if len(x.Schema) > 0 && string(x.Schema) != `"output"` && x.inline == nil {
		s, err := schema.Compile(x.Schema)
		if err != nil {
			return x, fmt.Errorf("expect.schema: %w", err)
		}
		x.inline = s
	}
	for i := range x.Matches {
		if x.Matches[i].re == nil {
			re, err := regexp.Compile(x.Matches[i].Pattern)
			if err != nil {
				return x, fmt.Errorf("expect.matches %s: %w", x.Matches[i].Pointer, err)
			}
			x.Matches[i].re = re
		}
	}
	return x, nil
}

// answerPath refuses an ignore path that cannot match: like replay's
// --ignore, a path starts at the answer (result or error).
func answerPath(path string) error {
	first, _, _ := strings.Cut(path, ".")
	if rest, ok := strings.CutPrefix(path, "/"); ok {
		first, _, _ = strings.Cut(rest, "/")
	}
	switch first {
	case "result", "error", "*", "**":
		return nil
	}
	return fmt.Errorf("expect.ignore %q: paths start at the answer, as replay's --ignore: /result/... or /error/... (or result.content.*.text, **.version)", path)
}

// IsPlaceholder reports whether a snapshot is one written to be filled:
// {} or null. It fails until mcpscope test --update takes the answer as it,
// as a golden file that does not exist yet does.
func IsPlaceholder(snapshot []byte) bool {
	v := compact(snapshot)
	return string(v) == "{}" || string(v) == "null"
}

// isAnswer reports whether v is {"result": ...} or {"error": ...}.
func isAnswer(v []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil || len(m) != 1 {
		return false
	}
	_, r := m["result"]
	_, e := m["error"]
	return r || e
}

func compact(v []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return json.RawMessage(bytes.TrimSpace(v))
	}
	return b.Bytes()
}

// Subject is what the call names: its params' "name" (a tool, a prompt) or
// "uri" (a resource), "" when neither.
func (c *Call) Subject() string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(c.Params, &p)
	if p.Name != "" {
		return p.Name
	}
	return p.URI
}
