package calls

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/replay"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer() // re-executed as the demo server
	os.Exit(m.Run())
}

// minimal is the shape every later version must still read.
const minimal = `{
  "calls": [
    {
      "name": "add small numbers",
      "method": "tools/call",
      "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
      "expect": {"isError": false, "equals": {"/content/0/text": "3"}, "maxMs": 2000}
    }
  ]
}`

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("mcpscope.calls.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestParseMinimalShape(t *testing.T) {
	t.Parallel()
	f := mustParse(t, minimal)
	if len(f.Calls) != 1 {
		t.Fatalf("%d calls", len(f.Calls))
	}
	c := f.Calls[0]
	if c.Name != "add small numbers" || c.Method != "tools/call" || c.Tool() != "add" || c.Line != 3 {
		t.Errorf("call = %+v (line %d)", c, c.Line)
	}
	if string(c.Arguments()) != `{"a":1,"b":2}` {
		t.Errorf("arguments = %s", c.Arguments())
	}
	x := c.Expect
	if x.IsError == nil || *x.IsError || x.MaxMs != 2000 || len(x.Equals) != 1 || x.Equals[0].Pointer != "/content/0/text" || string(x.Equals[0].Value) != `"3"` {
		t.Errorf("expect = %+v", x)
	}
}

func TestParseCommentsAndTrailingCommas(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `// my server's checks
{
  "calls": [
    /* the cheapest one */
    {"name": "ping", "method": "ping",},
    {"name": "readme", "method": "resources/read", "params": {"uri": "demo://readme"}, "expect": {"matches": {"/contents/0/text": "^#"},},},
  ],
}`)
	if got := strings.Join(f.Names(), ","); got != "ping,readme" {
		t.Fatalf("names = %s", got)
	}
	if f.Calls[1].Line != 6 {
		t.Errorf("readme on line %d, want 6", f.Calls[1].Line)
	}
}

// Every mistake is named where it is, with what to write instead.
func TestParseErrorsSayWhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, want string
		line, col int
	}{
		{"{\n  \"calls\": [\n    {\"name\": \"a\", \"method\": \"ping\"}\n    {\"name\": \"b\"}\n  ]\n}", "missing comma", 4, 5},
		{`{"calls": [{"name": "a", "method": "ping", "expect": {"equal": {}}}]}`, `unknown expectation "equal"`, 1, 55},
		{`{"calls": [{"name": "a", "method": "ping", "expect": {"equals": {"content/0": 1}}}]}`, "is not a JSON pointer", 1, 66},
		{`{"calls": [{"name": "a", "method": "ping", "expect": {"matches": {"/x": "("}}}]}`, "missing closing )", 1, 73},
		{`{"calls": [{"name": "a", "method": "ping"}, {"name": "a", "method": "ping"}]}`, "a second call of this name", 1, 45},
		{`{"calls": [{"name": "a"}]}`, `needs a "method"`, 1, 12},
		{`{"calls": [{"method": "ping"}]}`, `needs a "name"`, 1, 12},
		{`{"calls": [{"name": "a", "method": "tools/call", "params": {"arguments": {}}}]}`, `needs "params": {"name": TOOL`, 1, 12},
		{`{"calls": [{"name": "a", "method": "ping", "expect": {"snapshot": {"res": 1}}}]}`, `{"result": ...} or {"error": ...}`, 1, 67},
		{`{"calls": [{"name": "a", "method": "ping", "expect": {"snapshot": {"result": {}}, "ignore": ["/content/0"]}}]}`, "paths start at the answer", 1, 54},
		{`{"calls": [{"name": "a", "method": "ping", "expect": {"schema": "output"}}]}`, "only a tools/call", 1, 65},
		{`{"calls": [{"name": "a", "method": "ping", "expect": {"schema": {"type": 3}}}]}`, "expect.schema", 1, 54},
		{`{"calls": [{"name": "a", "method": "ping", "retries": 3}]}`, `unknown member "retries"`, 1, 44},
		{`{"call": []}`, `unknown member "call"`, 1, 2},
		{`[]`, "the top level must be an object", 1, 1},
	} {
		_, err := Parse("mcpscope.calls.json", []byte(tc.src))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want an *Error", tc.src, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || ce.Line != tc.line || ce.Col != tc.col {
			t.Errorf("%s:\n  got  %v (at %d:%d)\n  want %q at %d:%d", tc.src, err, ce.Line, ce.Col, tc.want, tc.line, tc.col)
		}
	}
}

func result(raw string) Answer {
	return Answer{Result: json.RawMessage(raw), Latency: 5 * time.Millisecond}
}

func rpcError(raw string) Answer {
	return Answer{Error: json.RawMessage(raw), Latency: 5 * time.Millisecond}
}

func checks(fs []Failure) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Check+" "+f.Pointer)
	}
	return strings.Join(out, "; ")
}

func TestCheck(t *testing.T) {
	t.Parallel()
	addTool := mcp.Tool{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)}
	tools := []mcp.Tool{addTool}
	good := result(`{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3},"_meta":{"at":1}}`)
	for _, tc := range []struct {
		name, expect string
		answer       Answer
		want         string
	}{
		{"equals passes, 3 is 3.0", `{"equals": {"/structuredContent/sum": 3.0, "/content/0/type": "text"}}`, good, ""},
		{"equals fails", `{"equals": {"/structuredContent/sum": 4}}`, good, "equals /structuredContent/sum"},
		{"equals on nothing", `{"equals": {"/content/1/text": "x"}}`, good, "equals /content/1/text"},
		{"matches", `{"matches": {"/content/0/text": "sum\":\\d+"}}`, good, ""},
		{"matches fails", `{"matches": {"/content/0/text": "^x"}}`, good, "matches /content/0/text"},
		{"matches a number", `{"matches": {"/structuredContent/sum": "3"}}`, good, "matches /structuredContent/sum"},
		{"isError", `{"isError": true}`, good, "isError "},
		{"isError false", `{"isError": false}`, good, ""},
		{"schema output", `{"schema": "output"}`, good, ""},
		{"schema output refuses", `{"schema": "output"}`, result(`{"content":[],"structuredContent":{"sum":"3"}}`), "schema /structuredContent/sum"},
		{"schema without structuredContent", `{"schema": "output"}`, result(`{"content":[]}`), "schema /structuredContent"},
		{"inline schema", `{"schema": {"required": ["total"]}}`, good, "schema /structuredContent/total"},
		{"an error answer fails", `{}`, rpcError(`{"code":-32602,"message":"bad"}`), "answer "},
		{"an expected error", `{"error": {"code": -32602}}`, rpcError(`{"code":-32602,"message":"bad"}`), ""},
		{"the wrong error", `{"error": {"code": -32601}}`, rpcError(`{"code":-32602,"message":"bad"}`), "error /code"},
		{"an error that did not come", `{"error": {"code": -32602}}`, good, "error "},
		{"pointers into the error", `{"error": {"code": -32602}, "equals": {"/message": "bad"}}`, rpcError(`{"code":-32602,"message":"bad"}`), ""},
		{"snapshot ignores _meta", `{"snapshot": {"result": {"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3},"_meta":{"at":2}}}}`, good, ""},
		{"snapshot differs", `{"snapshot": {"result": {"content":[{"type":"text","text":"{\"sum\":4}"}],"structuredContent":{"sum":4}}}}`, good, "snapshot /result/content/0/text/sum; snapshot /result/structuredContent/sum"},
		{"snapshot 3 is 3.0, as in equals", `{"snapshot": {"result": {"content":[{"type":"text","text":"{\"sum\":3.0}"}],"structuredContent":{"sum":3.0}}}}`, good, ""},
		{"a placeholder snapshot {} fails", `{"snapshot": {}}`, good, "snapshot "},
		{"a placeholder snapshot null fails", `{"snapshot": null}`, good, "snapshot "},
		{"a placeholder takes an error too", `{"snapshot": {}}`, rpcError(`{"code":-32602,"message":"bad"}`), "snapshot "},
		{"snapshot ignore", `{"snapshot": {"result": {"content":[{"type":"text","text":"{\"sum\":4}"}],"structuredContent":{"sum":4}}}, "ignore": ["**.sum", "/result/content"]}`, good, ""},
		{"snapshot of an error", `{"snapshot": {"error": {"code":-32602,"message":"bad"}}}`, rpcError(`{"code":-32602,"message":"bad"}`), ""},
		{"maxMs", `{"maxMs": 1}`, good, "maxMs "},
	} {
		src := `{"calls": [{"name": "c", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}, "expect": ` + tc.expect + `}]}`
		f, err := Parse("f.json", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := checks(Check(f.Calls[0], tc.answer, tools)); got != tc.want {
			t.Errorf("%s: failures %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCheckSaysExpectedAndActual(t *testing.T) {
	t.Parallel()
	f := mustParse(t, minimal)
	fs := Check(f.Calls[0], result(`{"content":[{"type":"text","text":"{\"sum\":3}"}]}`), nil)
	if len(fs) != 1 {
		t.Fatalf("failures = %+v", fs)
	}
	if got := fs[0].String(); got != `equals /content/0/text: expected "3", got "{\"sum\":3}"` {
		t.Errorf("failure reads %s", got)
	}
}

func TestStale(t *testing.T) {
	t.Parallel()
	f := mustParse(t, minimal)
	c := f.Calls[0]
	if s := Stale(c, nil); s != "" {
		t.Errorf("with no tool list: %q", s)
	}
	if s := Stale(c, []mcp.Tool{{Name: "echo"}}); !strings.Contains(s, `lists no tool "add"`) {
		t.Errorf("tool gone: %q", s)
	}
	strict := mcp.Tool{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}
	if s := Stale(c, []mcp.Tool{strict}); !strings.Contains(s, "refuses these arguments") || !strings.Contains(s, "/a") {
		t.Errorf("schema changed: %q", s)
	}
	fine := mcp.Tool{Name: "add", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if s := Stale(c, []mcp.Tool{fine}); s != "" {
		t.Errorf("a schema that takes the arguments: %q", s)
	}
}

// Saving a call changes only the bytes of that call: comments, layout and
// the other calls stay as the person left them.
func TestWithCallKeepsTheRest(t *testing.T) {
	t.Parallel()
	src := `{
  // checks for the demo
  "calls": [
    {"name": "ping", "method": "ping"}, // quick
    /* keep me */
    {"name": "old", "method": "ping"}
  ]
}
`
	f := mustParse(t, src)
	yes := false
	add := Call{Name: "add a=1 b=2", Method: "tools/call", Params: ToolParams("add", json.RawMessage(`{"a":1,"b":2}`)),
		Expect: Expect{IsError: &yes, Schema: json.RawMessage(`"output"`)}}
	out, err := f.WithCall(add)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{"// checks for the demo", `{"name": "ping", "method": "ping"}, // quick`, "/* keep me */", `{"name": "old", "method": "ping"}`} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
	g := mustParse(t, string(out))
	if got := strings.Join(g.Names(), ","); got != "ping,old,add a=1 b=2" {
		t.Fatalf("names after the save = %s\n%s", got, out)
	}
	if c := g.Calls[2]; c.Tool() != "add" || string(c.Arguments()) != `{"a":1,"b":2}` || string(c.Expect.Schema) != `"output"` || c.Expect.IsError == nil {
		t.Errorf("saved call reads back as %+v", c)
	}
	if !strings.Contains(string(out), "\n    {\n      \"name\": \"add a=1 b=2\",") {
		t.Errorf("the new call is not indented like the others:\n%s", out)
	}
	// The same name again replaces that call only.
	add.Expect.MaxMs = 100
	out2, err := g.WithCall(add)
	if err != nil {
		t.Fatal(err)
	}
	h := mustParse(t, string(out2))
	if len(h.Calls) != 3 || h.Calls[2].Expect.MaxMs != 100 || !strings.Contains(string(out2), "/* keep me */") {
		t.Errorf("replacing the call gave:\n%s", out2)
	}
}

func TestWithCallOnEmptyAndNewFiles(t *testing.T) {
	t.Parallel()
	c := Call{Name: "ping", Method: "ping"}
	for _, src := range []string{
		`{"calls": []}`,
		"{\n  \"calls\": [\n    // none yet\n  ]\n}",
		`{}`,
		`{"$schema": "x"}`,
	} {
		out, err := mustParse(t, src).WithCall(c)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse("f", out)
		if err != nil {
			t.Errorf("%s + a call:\n%s\n%v", src, out, err)
			continue
		}
		if len(f.Calls) != 1 || f.Calls[0].Name != "ping" {
			t.Errorf("%s + a call: %v", src, f.Names())
		}
		if strings.Contains(src, "none yet") && !strings.Contains(string(out), "// none yet") {
			t.Errorf("the comment went:\n%s", out)
		}
	}
	out, err := Empty("f").WithCall(c)
	if err != nil {
		t.Fatal(err)
	}
	if f := mustParse(t, string(out)); len(f.Calls) != 1 {
		t.Errorf("a new file:\n%s", out)
	}
}

func TestWithSnapshotsReplacesOnlySnapshots(t *testing.T) {
	t.Parallel()
	src := `{
  "calls": [
    {
      "name": "a", "method": "ping",
      "expect": {
        "maxMs": 500, // generous
        "snapshot": {"result": {"old": true}}
      }
    },
    {"name": "b", "method": "ping", "expect": {"isError": false}}
  ]
}`
	f := mustParse(t, src)
	out, err := f.WithSnapshots(map[string]json.RawMessage{"a": json.RawMessage(`{"result":{"new":1}}`), "b": json.RawMessage(`{"result":{}}`)})
	if err != nil {
		t.Fatal(err)
	}
	g := mustParse(t, string(out))
	if got := string(g.Calls[0].Expect.Snapshot); got != `{"result":{"new":1}}` {
		t.Errorf("a's snapshot = %s", got)
	}
	if g.Calls[1].Expect.Snapshot != nil {
		t.Errorf("b got a snapshot it did not have:\n%s", out)
	}
	if !strings.Contains(string(out), `"maxMs": 500, // generous`) {
		t.Errorf("the comment went:\n%s", out)
	}
}

func TestEditNeverDamagesAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, DefaultPath)
	broken := []byte(`{"calls": [ {"name": "a" ]}`)
	if err := os.WriteFile(path, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Edit(path, func(f *File) ([]byte, error) { return f.WithCall(Call{Name: "b", Method: "ping"}) })
	if err == nil || !strings.Contains(err.Error(), "left as it is") {
		t.Errorf("editing a broken file: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(broken) {
		t.Errorf("the broken file was changed to %s", got)
	}
	// A new file is created 0600; an existing one keeps its mode.
	fresh := filepath.Join(dir, "new.json")
	if _, err := Edit(fresh, func(f *File) ([]byte, error) { return f.WithCall(Call{Name: "b", Method: "ping"}) }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("new file: %v, %v", st.Mode(), err)
	}
	if err := os.WriteFile(path, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Edit(path, func(f *File) ([]byte, error) { return f.WithCall(Call{Name: "b", Method: "ping"}) }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("the file's mode became %v", st.Mode())
	}
	// What change returns is checked before anything is written.
	if _, err := Edit(path, func(*File) ([]byte, error) { return []byte("{"), nil }); err == nil {
		t.Error("a broken text was written")
	}
	if f, err := Load(path); err != nil || len(f.Calls) != 2 {
		t.Errorf("after a refused edit: %v, %v", f, err)
	}
}

func TestSavedCall(t *testing.T) {
	t.Parallel()
	f := mustParse(t, minimal)
	params := ToolParams("add", json.RawMessage(`{"a": 1, "b": 2}`))
	if string(params) != `{"name":"add","arguments":{"a":1,"b":2}}` {
		t.Errorf("params = %s", params)
	}
	if n := f.SuggestName("add", json.RawMessage(`{"a":1,"b":2}`)); n != "add a=1 b=2" {
		t.Errorf("name = %q", n)
	}
	if n := f.SuggestName("add small numbers", nil); n != "add small numbers #2" {
		t.Errorf("a taken name = %q", n)
	}
	if n := f.SuggestName("echo", json.RawMessage(`{"message":"`+strings.Repeat("x", 80)+`"}`)); len([]rune(n)) != maxNameRunes || strings.Contains(n, "…") {
		t.Errorf("a long name = %q", n)
	}
	// A name a person keeps as it is: no "…" for a structure or for what
	// did not fit.
	for args, want := range map[string]string{
		`{"traveller":{"name":"Ann"},"legs":[{"from":"PAR"}],"class":"economy","seats":2}`: "book_trip class=economy seats=2",
		`{"traveller":{"name":"Ann"},"legs":[]}`:                                           "book_trip",
		`{"note":"two
lines  here","seats":2,"city":"a very long city name that is long"}`: "book_trip note=two lines here seats=2",
		`{"note":"many words in a note that goes on past the end of the name"}`: "book_trip note=many words in a note",
	} {
		if n := SuggestName("book_trip", json.RawMessage(args), nil); n != want {
			t.Errorf("%s: name %q, want %q", args, n, want)
		}
	}
	good := result(`{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}`)
	c := Saved("n", "tools/call", params, good, false, true)
	if c.Expect.IsError == nil || *c.Expect.IsError || string(c.Expect.Schema) != `"output"` || c.Expect.Snapshot != nil {
		t.Errorf("saved = %+v", c.Expect)
	}
	if fs := Check(c, good, nil); len(fs) == 0 {
		t.Error("schema output passed without the tool list")
	}
	c = Saved("n", "tools/call", params, good, true, false)
	if string(c.Expect.Snapshot) != `{"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}}` {
		t.Errorf("snapshot = %s", c.Expect.Snapshot)
	}
	if fs := Check(c, good, nil); len(fs) != 0 {
		t.Errorf("its own answer fails: %v", fs)
	}
	c = Saved("n", "prompts/get", nil, rpcError(`{"code":-32602,"message":"no such prompt"}`), false, false)
	if string(c.Expect.Error) != `{"code":-32602}` {
		t.Errorf("error expectation = %s", c.Expect.Error)
	}
}

func TestFromRecording(t *testing.T) {
	t.Parallel()
	s := &replay.Script{Handshake: json.RawMessage(`{"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"calc","version":"1"}}}`), Requests: []replay.Request{
		{Method: "tools/list", Label: "tools/list", Answer: json.RawMessage(`{"result":{"tools":[]}}`)},
		{Method: "tools/call", Label: "tools/call add", Params: json.RawMessage(`{"name":"add","arguments":{"a":1,"b":2}}`), Answer: json.RawMessage(`{"result":{"content":[]}}`)},
		{Method: "tools/call", Label: "tools/call add", Params: json.RawMessage(`{"name":"add","arguments":{"a":2,"b":2}}`), Answer: json.RawMessage(`{"error":{"code":-32602,"message":"x"}}`)},
		{Method: "tools/call", Label: "tools/call slow", Params: json.RawMessage(`{"name":"slow"}`)},
	}}
	cs, skipped := FromRecording(s)
	if skipped != 1 || len(cs) != 3 {
		t.Fatalf("%d calls, %d skipped", len(cs), skipped)
	}
	text, err := NewText(cs)
	if err != nil {
		t.Fatal(err)
	}
	f := mustParse(t, string(text))
	if got := strings.Join(f.Names(), ","); got != "tools/list,tools/call add,tools/call add #2" {
		t.Errorf("names = %s", got)
	}
	if f.Calls[0].Server != "calc" || f.Calls[2].Server != "calc" {
		t.Errorf("the calls are not for the recorded server: %q", f.Calls[0].Server)
	}
	if got := string(f.Calls[2].Expect.Snapshot); got != `{"error":{"code":-32602,"message":"x"}}` {
		t.Errorf("snapshot = %s", got)
	}
	if fs := Check(f.Calls[2], rpcError(`{"code":-32602,"message":"x"}`), nil); len(fs) != 0 {
		t.Errorf("the recorded answer fails its own snapshot: %v", fs)
	}
}

// A call is written as a person reads it: the escapes Go's encoders write
// for HTML (a form's value, a Go server's answer) are the characters, and
// the value is the same; other escapes, and a backslash before "u003c",
// stay.
func TestCallsFileWritesHTMLCharactersPlainly(t *testing.T) {
	t.Parallel()
	args := json.RawMessage(`{"q":"\u003cb\u003e \u0026 \\u003c \u2028 \"x\""}`)
	answer := result(`{"content":[{"type":"text","text":"\u003cb\u003eTom \u0026amp; Jerry\u003c/b\u003e"}]}`)
	c := Saved("html", "tools/call", ToolParams("echo", args), answer, true, false)
	text, err := Empty("f.json").WithCall(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"q": "<b> & \\u003c \u2028 \"x\""`, `"text": "<b>Tom &amp; Jerry</b>"`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the file lacks %s:\n%s", want, text)
		}
	}
	f := mustParse(t, string(text))
	var before, after any
	_ = json.Unmarshal(args, &before)
	_ = json.Unmarshal(f.Calls[0].Arguments(), &after)
	if before.(map[string]any)["q"] != after.(map[string]any)["q"] {
		t.Errorf("the value changed: %q, was %q", after, before)
	}
	if fs := Check(f.Calls[0], answer, nil); len(fs) != 0 {
		t.Errorf("the answer no longer matches its snapshot: %v", fs)
	}
}

// A saved call names its server after its name, and reads back.
func TestSavedCallKeepsItsServer(t *testing.T) {
	t.Parallel()
	c := Saved("book", "tools/call", ToolParams("book_trip", nil), result(`{"content":[]}`), false, false)
	c.Server = "travel"
	text, err := Empty("f.json").WithCall(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"name": "book",
      "server": "travel",`) {
		t.Errorf("the file:\n%s", text)
	}
	if got := mustParse(t, string(text)).Calls[0]; got.Server != "travel" || !got.For("travel") || got.For("demo") || !got.For("") {
		t.Errorf("read back: %+v", got)
	}
	if _, err := Parse("f.json", []byte(`{"calls": [{"name": "a", "server": 1, "method": "ping"}]}`)); err == nil || !strings.Contains(err.Error(), `"server" is the name`) {
		t.Errorf("a server that is not a string: %v", err)
	}
}

// manyCalls is a calls file of n calls, each with params and a snapshot,
// laid out as mcpscope writes them.
func manyCalls(n int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"calls\": [")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    {\n      \"name\": \"call %d\",\n      \"method\": \"tools/call\",\n      \"params\": {\n        \"name\": \"add\",\n        \"arguments\": {\"a\": %d, \"b\": 2}\n      },\n      \"expect\": {\n        \"isError\": false,\n        \"snapshot\": {\"result\": {\"content\": [{\"type\": \"text\", \"text\": \"%d\"}]}}\n      }\n    }", i, i, i+2)
	}
	b.WriteString("\n  ]\n}\n")
	return []byte(b.String())
}

// A calls file is read in time linear in its size: 20,000 calls against
// ten times 2,000, so that a loaded machine slows both alike.
func TestParseIsLinear(t *testing.T) {
	parse := func(n int) time.Duration {
		data := manyCalls(n)
		start := time.Now()
		f, err := Parse("many.calls.json", data)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Calls) != n || f.Calls[n-1].Name != fmt.Sprintf("call %d", n-1) || f.Calls[n-1].Line != 3+12*(n-1) {
			t.Fatalf("%d calls, the last %q on line %d", len(f.Calls), f.Calls[n-1].Name, f.Calls[n-1].Line)
		}
		return took
	}
	parse(2000) // warm up
	small := parse(2000)
	big := parse(20000)
	t.Logf("2,000 calls: %v; 20,000: %v", small, big)
	// A quadratic reading takes a hundred times as long for ten times the
	// calls; four times linear leaves room for the collector's and a
	// loaded machine's share.
	if budget := 4 * 10 * small; big > budget && big > 100*time.Millisecond {
		t.Errorf("20,000 calls took %v to read, 2,000 took %v: more than linear (budget %v)", big, small, budget)
	}
	if limit := 2 * time.Second; big > limit && !raceEnabled {
		t.Errorf("20,000 calls took %v to read", big)
	}
}
