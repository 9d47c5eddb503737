package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func fakeEnv(vars map[string]string) Options {
	return Options{
		Home: "/home/u",
		LookupEnv: func(k string) (string, bool) {
			v, ok := vars[k]
			return v, ok
		},
	}
}

var testEnv = fakeEnv(map[string]string{
	"HOME":        "/home/u",
	"WEATHER_KEY": "k-123",
	"TENANT":      "acme",
	"TOKEN":       "t0k",
	"GH_TOKEN":    "ghp_x",
	"UNITS":       "", // set but empty: the default applies
})

func TestLoadMCPServers(t *testing.T) {
	t.Parallel()
	f, err := LoadWith("testdata/claude_desktop_config.json", testEnv)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != FormatMCPServers {
		t.Errorf("format = %q", f.Format)
	}
	if got, want := f.Names(), []string{"filesystem", "inferred", "legacy", "remote", "weather"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names = %v, want %v (sorted)", got, want)
	}
	want := map[string]Server{
		"weather": {
			Name: "weather", Type: TypeStdio, Command: "node",
			Args: []string{"/home/u/servers/weather/index.js", "--units", "metric"},
			Env:  map[string]string{"API_KEY": "k-123", "PORT": "8080"},
		},
		"filesystem": {
			Name: "filesystem", Type: TypeStdio, Command: "npx",
			Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Cwd: "/srv",
		},
		"remote": {
			Name: "remote", Type: TypeHTTP, URL: "https://mcp.example.com/acme/mcp",
			Headers: map[string]string{"Authorization": "Bearer t0k"},
		},
		"legacy":   {Name: "legacy", Type: TypeSSE, URL: "https://old.example.com/sse"},
		"inferred": {Name: "inferred", Type: TypeHTTP, URL: "https://cursor.example.com/mcp"},
	}
	for name, w := range want {
		got, err := f.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %#v\nwant %#v", name, got, w)
		}
	}
}

func TestLoadVSCode(t *testing.T) {
	t.Parallel()
	f, err := LoadWith("testdata/vscode_mcp.jsonc", testEnv)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != FormatVSCode {
		t.Errorf("format = %q", f.Format)
	}
	gh, err := f.Get("github")
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"run", "-i", "--rm", "ghcr.io/github/github-mcp-server", "http://not-a-comment//x"}
	if !reflect.DeepEqual(gh.Args, wantArgs) {
		t.Errorf("args = %q, want %q (comment stripping must not touch strings)", gh.Args, wantArgs)
	}
	wantEnv := map[string]string{
		"GITHUB_TOKEN": "ghp_x", // "env" wins over envFile
		"FROM_FILE":    "line\tone",
		"SINGLE":       "kept ${AS} is", // envFile values are literal
	}
	if !reflect.DeepEqual(gh.Env, wantEnv) {
		t.Errorf("env = %q, want %q", gh.Env, wantEnv)
	}
	h, err := f.Get("http-one")
	if err != nil {
		t.Fatal(err)
	}
	if h.Headers["X-Key"] != "/* not a comment */" || h.Type != TypeHTTP {
		t.Errorf("http-one = %#v", h)
	}
}

func TestLoadVSCodeSettings(t *testing.T) {
	t.Parallel()
	f, err := LoadWith("testdata/settings.json", testEnv)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Get("time")
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != FormatVSCodeUser || s.Command != "uvx" || s.Type != TypeStdio {
		t.Errorf("got %q %#v", f.Format, s)
	}
}

func TestGetUnknownListsNames(t *testing.T) {
	t.Parallel()
	f, err := LoadWith("testdata/claude_desktop_config.json", testEnv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Get("wether")
	if err == nil || !strings.Contains(err.Error(), `no server "wether"; available: filesystem, inferred, legacy, remote, weather`) {
		t.Errorf("err = %v", err)
	}
}

func TestBrokenFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file      string
		line, col int // 0: no position expected
		contains  []string
		is        error
	}{
		{"broken_syntax.json", 5, 7, []string{"invalid JSON", "after object key:value pair", "missing comma"}, nil},
		{"broken_truncated.json", 4, 1, []string{"ends before the JSON does"}, nil},
		{"broken_type.json", 4, 5, []string{`server "bad"`, `unknown type "websocket"`, `"stdio", "http" or "sse"`}, nil},
		{"broken_input.json", 3, 5, []string{`server "needs-input"`, "env.KEY", "${input:api-key}", "not supported"}, ErrUnsupportedVariable},
		{"broken_unset.json", 3, 5, []string{`server "s"`, "args[1]", "MCPSCOPE_TEST_UNSET", "not set"}, ErrUnsetVariable},
		{"broken_noservers.json", 0, 0, []string{`no MCP servers`, `"editor.fontSize"`}, nil},
		{"broken_comment.json", 3, 3, []string{"unterminated /* comment"}, nil},
		{"broken_args.json", 1, 17, []string{`"args" must be an array of strings, not a string`}, nil},
		{"broken_nothing.json", 1, 17, []string{`server "empty"`, `needs a "command"`}, nil},
		{"broken_duplicate.json", 3, 3, []string{`server "s"`, "defined twice"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", tt.file)
			_, err := LoadWith(path, testEnv)
			if err == nil {
				t.Fatal("loaded a broken file without error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path) {
				t.Errorf("error does not start with the file name: %s", msg)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error is %T, not *config.Error: %v", err, err)
			}
			if ce.Line != tt.line || ce.Col != tt.col {
				t.Errorf("position = %d:%d, want %d:%d (%s)", ce.Line, ce.Col, tt.line, tt.col, msg)
			}
			for _, s := range tt.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not mention %q", msg, s)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error does not wrap %v: %v", tt.is, err)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/does-not-exist.json")
	if err == nil || !strings.Contains(err.Error(), "does-not-exist.json") {
		t.Errorf("err = %v", err)
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	x := expander{
		lookup: func(k string) (string, bool) {
			v, ok := map[string]string{"A": "1", "EMPTY": ""}[k]
			return v, ok
		},
		home: "/h", workspace: "/w",
	}
	tests := []struct {
		in, want, err string
	}{
		{"plain $A and $", "plain $A and $", ""},
		{"${A}", "1", ""},
		{"x${env:A}y${A}", "x1y1", ""},
		{"${B:-dflt}", "dflt", ""},
		{"${EMPTY:-dflt}", "dflt", ""},
		{"${A:-dflt}", "1", ""},
		{"${env:B:-d}", "d", ""},
		{"${EMPTY}", "", ""},
		{"${workspaceFolder}/a ${userHome}", "/w/a /h", ""},
		{"${B}", "", "B variable is not set"},
		{"${input:key}", "", "not supported"},
		{"${command:pick}", "", `"command" variables are not supported`},
		{"${A", "", "unterminated"},
		{"${1X}", "", "not a variable name"},
	}
	for _, tt := range tests {
		got, err := x.expand(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("expand(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("expand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestStripJSONCKeepsOffsets(t *testing.T) {
	t.Parallel()
	in := "{\"a\": \"//x\", // c\n /* b\n */ \"b\": [1,2,],}"
	out, err := stripJSONC([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("length changed: %d -> %d", len(in), len(out))
	}
	want := "{\"a\": \"//x\",     \n     \n    \"b\": [1,2 ] }"
	if string(out) != want {
		t.Errorf("got  %q\nwant %q", out, want)
	}
}
