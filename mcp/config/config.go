// Package config reads MCP server definitions from the configuration files
// other MCP clients already use, so `mcpscope --config FILE --server NAME`
// debugs exactly the server a user's editor or desktop app would start.
//
// Two shapes are understood:
//
//   - "mcpServers" (Claude Desktop's claude_desktop_config.json, Cursor's
//     mcp.json, Claude Code's .mcp.json):
//     {"mcpServers": {"name": {"command", "args", "env", "cwd"}}} for stdio,
//     {"mcpServers": {"name": {"type": "http"|"sse", "url", "headers"}}} for HTTP;
//   - VS Code's "servers" (.vscode/mcp.json), also nested as
//     {"mcp": {"servers": …}} in settings.json:
//     {"servers": {"name": {"type": "stdio", "command", "args", "env", "envFile"}}}.
//
// Every file may hold JSONC comments and trailing commas (VS Code writes
// them; the other clients' files are plain JSON, which is a subset). Variables
// are expanded in command, args, env values, cwd, url and headers: ${VAR},
// ${env:VAR}, ${VAR:-default}, and VS Code's ${workspaceFolder} and
// ${userHome}. An unset variable is an error that names it, because starting
// a server with an empty API key produces a confusing failure much later.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Transport types a Server can have.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http" // Streamable HTTP
	TypeSSE   = "sse"  // the legacy HTTP+SSE transport
)

// Format names the shape a file was written in.
type Format string

// The config file shapes mcpscope reads.
const (
	FormatMCPServers Format = "mcpServers" // Claude Desktop, Cursor, Claude Code
	FormatVSCode     Format = "servers"    // VS Code mcp.json
	FormatVSCodeUser Format = "mcp.servers"
)

// Server is one server definition, variables expanded.
type Server struct {
	Name    string
	Type    string // TypeStdio, TypeHTTP or TypeSSE
	Command string
	Args    []string
	Env     map[string]string // only the variables the file sets; the caller adds them to its own environment
	Cwd     string
	URL     string
	Headers map[string]string
}

// File is a loaded configuration file.
type File struct {
	Path    string
	Format  Format
	Servers []Server // sorted by name
}

// Get returns the server called name. The error lists the names the file
// does have, so a typo is one glance away from its fix.
func (f *File) Get(name string) (Server, error) {
	for _, s := range f.Servers {
		if s.Name == name {
			return s, nil
		}
	}
	return Server{}, fmt.Errorf("%s: no server %q; available: %s", f.Path, name, strings.Join(f.Names(), ", "))
}

// Names lists the servers' names in order.
func (f *File) Names() []string {
	names := make([]string, len(f.Servers))
	for i, s := range f.Servers {
		names[i] = s.Name
	}
	return names
}

// Error is a problem in a configuration file. Line and Col are 1-based and
// zero when the problem has no single position.
type Error struct {
	Path   string
	Line   int
	Col    int
	Server string // the server entry at fault, if any
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Path == "" && e.Line > 0:
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Col)
	case e.Path != "":
		b.WriteString(e.Path)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Options change how a file is read. The zero value reads the process
// environment.
type Options struct {
	// LookupEnv resolves ${VAR}; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Home is ${userHome}; empty means os.UserHomeDir.
	Home string
}

// Load reads and parses the configuration file at path.
func Load(path string) (*File, error) {
	return LoadWith(path, Options{})
}

// LoadWith is Load with explicit options (tests, a fixed environment).
func LoadWith(path string, opts Options) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data, opts)
}

// Parse parses data as the configuration file path (path is used in errors
// and to resolve relative envFile paths and ${workspaceFolder}).
func Parse(path string, data []byte, opts Options) (*File, error) {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	p := &parser{path: path, src: data, opts: opts}
	return p.parse()
}

type parser struct {
	path string
	src  []byte // the original bytes: positions are reported against them
	opts Options
}

// errAt builds an Error at a byte offset of the (comment-stripped, but
// offset-preserving) source.
func (p *parser) errAt(offset int, server, msg string, err error) *Error {
	line, col := lineCol(p.src, offset)
	return &Error{Path: p.path, Line: line, Col: col, Server: server, Msg: msg, Err: err}
}

func (p *parser) parse() (*File, error) {
	clean, err := stripJSONC(p.src)
	if err != nil {
		var se *syntaxErr
		if errors.As(err, &se) {
			return nil, p.errAt(se.offset, "", se.msg, nil)
		}
		return nil, err
	}
	if len(bytes.TrimSpace(clean)) == 0 {
		return nil, &Error{Path: p.path, Msg: "file is empty"}
	}
	if err := p.checkSyntax(clean); err != nil {
		return nil, err
	}

	top, err := members(clean, 0)
	if err != nil {
		return nil, p.errAt(0, "", "the top level must be a JSON object", nil)
	}
	var (
		format  Format
		servers []member
	)
	if m, ok := find(top, "mcpServers"); ok {
		format = FormatMCPServers
		servers, err = p.serverMap(clean, m, "mcpServers")
	} else if m, ok := find(top, "servers"); ok {
		format = FormatVSCode
		servers, err = p.serverMap(clean, m, "servers")
	} else if m, ok := find(top, "mcp"); ok {
		format = FormatVSCodeUser
		inner, ierr := members(clean, m.valueOff)
		if ierr != nil {
			return nil, p.errAt(m.valueOff, "", `"mcp" must be an object`, nil)
		}
		sm, ok := find(inner, "servers")
		if !ok {
			return nil, p.errAt(m.keyOff, "", `"mcp" has no "servers" object`, nil)
		}
		servers, err = p.serverMap(clean, sm, "mcp.servers")
	} else {
		keys := make([]string, len(top))
		for i, m := range top {
			keys[i] = strconv.Quote(m.key)
		}
		found := "it is empty"
		if len(keys) > 0 {
			found = "it has " + strings.Join(keys, ", ")
		}
		return nil, &Error{Path: p.path, Msg: `no MCP servers: expected a top-level "mcpServers" (Claude Desktop, Cursor, Claude Code), "servers" (VS Code mcp.json) or "mcp": {"servers": …} (VS Code settings.json); ` + found}
	}
	if err != nil {
		return nil, err
	}

	f := &File{Path: p.path, Format: format}
	seen := map[string]bool{}
	for _, m := range servers {
		if seen[m.key] {
			return nil, p.errAt(m.keyOff, m.key, "defined twice", nil)
		}
		seen[m.key] = true
		s, err := p.server(m)
		if err != nil {
			return nil, err
		}
		f.Servers = append(f.Servers, s)
	}
	sort.Slice(f.Servers, func(i, j int) bool { return f.Servers[i].Name < f.Servers[j].Name })
	return f, nil
}

// checkSyntax runs the standard decoder once so that syntax and nesting
// errors come with the decoder's own message and a position.
func (p *parser) checkSyntax(clean []byte) error {
	// Valid reads without a copy or a tree: decoding a 60 MB config to
	// check it buffered it whole and built every value (380 MB). The
	// decoder below runs only to say where an invalid file goes wrong.
	if jsonview.Valid(clean) {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(clean))
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg := "invalid JSON: " + se.Error()
			if strings.Contains(msg, "after object key:value pair") || strings.Contains(msg, "after array element") {
				msg += " (a missing comma before it?)"
			}
			return p.errAt(int(se.Offset)-1, "", msg, nil)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return p.errAt(len(clean), "", "invalid JSON: the file ends before the JSON does", nil)
		}
		return &Error{Path: p.path, Msg: "invalid JSON", Err: err}
	}
	if off := int(dec.InputOffset()); len(bytes.TrimSpace(clean[off:])) > 0 {
		rest := off + (len(clean[off:]) - len(bytes.TrimLeft(clean[off:], " \t\r\n")))
		return p.errAt(rest, "", "unexpected content after the top-level object", nil)
	}
	return nil
}

func (p *parser) serverMap(clean []byte, m member, where string) ([]member, error) {
	ms, err := members(clean, m.valueOff)
	if err != nil {
		return nil, p.errAt(m.valueOff, "", fmt.Sprintf("%q must be an object mapping server names to definitions", where), nil)
	}
	return ms, nil
}

// rawServer is the union of the fields both formats use. Values are raw so
// that a wrong type gets a message naming the field, not a decoder error.
type rawServer struct {
	Type    json.RawMessage `json:"type"`
	Command json.RawMessage `json:"command"`
	Args    json.RawMessage `json:"args"`
	Env     json.RawMessage `json:"env"`
	EnvFile json.RawMessage `json:"envFile"`
	Cwd     json.RawMessage `json:"cwd"`
	URL     json.RawMessage `json:"url"`
	Headers json.RawMessage `json:"headers"`
}

func (p *parser) server(m member) (Server, error) {
	name := m.key
	fail := func(msg string, err error) (Server, error) {
		return Server{}, p.errAt(m.keyOff, name, msg, err)
	}
	var raw rawServer
	if err := json.Unmarshal(m.value, &raw); err != nil {
		return fail("a server definition must be an object", nil)
	}
	s := Server{Name: name}
	x := expander{lookup: p.opts.LookupEnv, home: p.opts.Home, workspace: workspaceFolder(p.path)}

	var err error
	str := func(field string, v json.RawMessage) string {
		if err != nil || len(v) == 0 || string(v) == "null" {
			return ""
		}
		var out string
		if uerr := json.Unmarshal(v, &out); uerr != nil {
			err = fmt.Errorf("%q must be a string, not %s", field, jsonKind(v))
			return ""
		}
		return out
	}
	typ := str("type", raw.Type)
	command := str("command", raw.Command)
	cwd := str("cwd", raw.Cwd)
	url := str("url", raw.URL)
	envFile := str("envFile", raw.EnvFile)
	if err != nil {
		return fail(err.Error(), nil)
	}
	err = nil

	switch typ {
	case "":
		switch {
		case command != "" && url != "":
			return fail(`has both "command" and "url"; set "type" to say which transport to use`, nil)
		case command != "":
			typ = TypeStdio
		case url != "":
			typ = TypeHTTP // Cursor and Claude Desktop infer HTTP from a url
		default:
			return fail(`needs a "command" (stdio) or a "url" (http, sse)`, nil)
		}
	case TypeStdio, TypeHTTP, TypeSSE:
	case "streamable-http", "streamableHttp":
		typ = TypeHTTP
	default:
		return fail(fmt.Sprintf("unknown type %q (want %q, %q or %q)", typ, TypeStdio, TypeHTTP, TypeSSE), nil)
	}
	s.Type = typ
	if typ == TypeStdio && command == "" {
		return fail(`type "stdio" needs a "command"`, nil)
	}
	if typ != TypeStdio && url == "" {
		return fail(fmt.Sprintf("type %q needs a \"url\"", typ), nil)
	}

	var args []string
	if len(raw.Args) > 0 && string(raw.Args) != "null" {
		var anyArgs []any
		if uerr := json.Unmarshal(raw.Args, &anyArgs); uerr != nil {
			return fail(fmt.Sprintf(`"args" must be an array of strings, not %s`, jsonKind(raw.Args)), nil)
		}
		for i, a := range anyArgs {
			sv, ok := scalarString(a)
			if !ok {
				return fail(fmt.Sprintf(`"args[%d]" must be a string, not %s`, i, anyKind(a)), nil)
			}
			args = append(args, sv)
		}
	}
	env, msg := stringMap("env", raw.Env)
	if msg != "" {
		return fail(msg, nil)
	}
	headers, msg := stringMap("headers", raw.Headers)
	if msg != "" {
		return fail(msg, nil)
	}

	// Expand every field that may hold variables; the error names the field.
	var badField string
	expand := func(field, v string) string {
		if err != nil {
			return ""
		}
		out, xerr := x.expand(v)
		if xerr != nil {
			err, badField = xerr, field
		}
		return out
	}
	s.Command = expand("command", command)
	for i, a := range args {
		s.Args = append(s.Args, expand(fmt.Sprintf("args[%d]", i), a))
	}
	s.Cwd = expand("cwd", cwd)
	s.URL = expand("url", url)
	if envFile != "" {
		envFile = expand("envFile", envFile)
	}
	if err != nil {
		return fail(badField, err)
	}
	if len(env) > 0 {
		s.Env = make(map[string]string, len(env))
		for _, k := range sortedKeys(env) {
			s.Env[k] = expand("env."+k, env[k])
		}
	}
	if err != nil {
		return fail(badField, err)
	}
	if envFile != "" {
		if !filepath.IsAbs(envFile) {
			envFile = filepath.Join(filepath.Dir(p.path), envFile)
		}
		fileEnv, ferr := readEnvFile(envFile)
		if ferr != nil {
			return fail("envFile", ferr)
		}
		// Values in "env" win over the env file, as in VS Code. Values
		// from the file are literal: dotenv files are not expanded.
		for k, v := range fileEnv {
			if _, ok := s.Env[k]; !ok {
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env[k] = v
			}
		}
	}
	if len(headers) > 0 {
		s.Headers = make(map[string]string, len(headers))
		for _, k := range sortedKeys(headers) {
			s.Headers[k] = expand("headers."+k, headers[k])
		}
	}
	if err != nil {
		return fail(badField, err)
	}
	return s, nil
}

// workspaceFolder is VS Code's ${workspaceFolder} for a config file: the
// folder holding .vscode/, or the file's own folder otherwise.
func workspaceFolder(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	dir := filepath.Dir(abs)
	if filepath.Base(dir) == ".vscode" {
		return filepath.Dir(dir)
	}
	return dir
}

func stringMap(field string, raw json.RawMessage) (map[string]string, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Sprintf("%q must be an object of strings, not %s", field, jsonKind(raw))
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		sv, ok := scalarString(v)
		if !ok {
			return nil, fmt.Sprintf("%q: %q must be a string, not %s", field, k, anyKind(v))
		}
		out[k] = sv
	}
	return out, ""
}

// scalarString accepts strings, and numbers and booleans as their JSON text
// (people write "PORT": 8080, and every client tolerates it).
func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}

func jsonKind(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "invalid JSON"
	}
	return anyKind(v)
}

func anyKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
