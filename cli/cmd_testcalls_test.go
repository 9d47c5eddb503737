package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/demo"
)

// minimalDemoCalls is the calls file's minimal shape, with the demo
// server's answers.
const minimalDemoCalls = `{
  "calls": [
    {
      "name": "add small numbers",
      "method": "tools/call",
      "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
      "expect": {"isError": false, "equals": {"/content/0/text": "{\"sum\":3}"}, "maxMs": 2000}
    },
    {
      "name": "echo",
      "method": "tools/call",
      "params": {"name": "echo", "arguments": {"message": "hi"}},
      "expect": {"isError": false, "equals": {"/content/0/text": "hi"}}
    }
  ]
}
`

func writeCalls(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcpscope.calls.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTestMinimalCallsPassOnTheDemo(t *testing.T) {
	path := writeCalls(t, minimalDemoCalls)
	out, err, code := runCLI(t, "test", "--calls", path)
	if code != exitOK {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	for _, want := range []string{"✓ add small numbers (tools/call", "✓ echo (tools/call", "2 calls: 2 passed, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	out, err, code = runCLI(t, "test", "--calls", path, "--format", "junit")
	if code != exitOK {
		t.Fatalf("junit: exit %d (%v)\n%s", code, err, out)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal([]byte(out), &suite); err != nil {
		t.Fatalf("not JUnit XML: %v\n%s", err, out)
	}
	if suite.Tests != 2 || len(suite.Cases) != 2 || suite.Cases[0].Name != "add small numbers" || suite.Cases[1].Name != "echo" || suite.Failures != 0 {
		t.Errorf("junit: %+v\n%s", suite, out)
	}
}

// One wrong equals: exit 1, naming the call, the pointer, expected and
// actual, in every format.
func TestTestWrongEqualsFails(t *testing.T) {
	path := writeCalls(t, strings.Replace(minimalDemoCalls, `"/content/0/text": "hi"`, `"/content/0/text": "bye"`, 1))
	out, err, code := runCLI(t, "test", "--calls", path)
	if code != exitServerError {
		t.Fatalf("exit %d (%v), want %d\n%s", code, err, exitServerError, out)
	}
	for _, want := range []string{"✓ add small numbers", "✗ echo", "equals /content/0/text", `expected "bye"`, `actual   "hi"`, "1 passed, 1 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "test", "--calls", path, "--format", "json")
	var r struct {
		Calls []struct {
			Name     string `json:"name"`
			Pass     bool   `json:"pass"`
			Failures []struct {
				Check, Pointer, Expected, Actual string
			} `json:"failures"`
		} `json:"calls"`
	}
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&r); err != nil || code != exitServerError {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	if len(r.Calls) != 2 || r.Calls[1].Pass || len(r.Calls[1].Failures) != 1 {
		t.Fatalf("json: %+v", r)
	}
	if f := r.Calls[1].Failures[0]; f.Check != "equals" || f.Pointer != "/content/0/text" || f.Expected != `"bye"` || f.Actual != `"hi"` {
		t.Errorf("json failure: %+v", f)
	}
	out, _, _ = runCLI(t, "test", "--calls", path, "--format", "junit")
	if !strings.Contains(out, `<failure message="equals /content/0/text: expected &#34;bye&#34;, got &#34;hi&#34;">`) {
		t.Errorf("junit failure:\n%s", out)
	}
}

// --update takes the answers as snapshots, keeping the rest of the file;
// the next run passes.
func TestTestUpdateThenPass(t *testing.T) {
	text := `{
  // snapshots taken from an older build
  "calls": [
    {"name": "add", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
     "expect": {"snapshot": {"result": {"content": [{"type": "text", "text": "{\"sum\":3}"}], "structuredContent": {"sum": 3}}}}},
  ],
}
`
	path := writeCalls(t, text)
	changed := []string{"-e", demo.AddOffsetEnv + "=1"}
	out, err, code := runCLI(t, append([]string{"test", "--calls", path}, changed...)...)
	if code != exitServerError || !strings.Contains(out, "snapshot /result/structuredContent/sum") {
		t.Fatalf("before: exit %d (%v)\n%s", code, err, out)
	}
	out, err, code = runCLI(t, append([]string{"test", "--calls", path, "--update"}, changed...)...)
	if code != exitOK || !strings.Contains(out, "snapshot updated") || !strings.Contains(out, "wrote 1 new snapshot") {
		t.Fatalf("update: exit %d (%v)\n%s", code, err, out)
	}
	out, err, code = runCLI(t, append([]string{"test", "--calls", path}, changed...)...)
	if code != exitOK {
		t.Fatalf("after: exit %d (%v)\n%s", code, err, out)
	}
	after, _ := os.ReadFile(path)
	if !strings.Contains(string(after), "// snapshots taken from an older build") || !strings.Contains(string(after), `"sum": 4`) {
		t.Errorf("the updated file:\n%s", after)
	}
}

func TestTestSyntaxErrorNamesLineAndColumn(t *testing.T) {
	path := writeCalls(t, "{\n  \"calls\": [\n    {\"name\": \"a\", \"method\": \"ping\"}\n    {\"name\": \"b\", \"method\": \"ping\"}\n  ]\n}\n")
	out, err, code := runCLI(t, "test", "--calls", path)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d (%v)", code, exitUsage, err)
	}
	if err == nil || !strings.Contains(err.Error(), path+":4:5: ") || !strings.Contains(err.Error(), "missing comma") {
		t.Errorf("error = %v\n%s", err, out)
	}
	_, err, code = runCLI(t, "test", "--calls", writeCalls(t, `{"calls": [{"name": "a", "method": "ping", "expect": {"equal": 1}}]}`))
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), `:1:55: call "a": unknown expectation "equal"`) {
		t.Errorf("unknown expectation: exit %d, %v", code, err)
	}
}

func TestTestUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--calls", filepath.Join(dir, "none.json")}, "no calls file"},
		{[]string{"test", "--calls", writeCalls(t, `{"calls": []}`)}, "holds no calls"},
		{[]string{"test", "--calls", writeCalls(t, minimalDemoCalls), "--only", "nope"}, `no call of that name; it has: "add small numbers", "echo"`},
		{[]string{"test", "--calls", writeCalls(t, minimalDemoCalls), "--format", "xml"}, "--format"},
		{[]string{"test", "--from", "x.jsonl", "--", "server"}, "--from writes a calls file"},
	} {
		_, err, code := runCLI(t, tc.args...)
		if code != exitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, %v; want %d and %q", tc.args, code, err, exitUsage, tc.want)
		}
	}
}

func TestTestOnlyRunsTheNamedCalls(t *testing.T) {
	path := writeCalls(t, strings.Replace(minimalDemoCalls, `"/content/0/text": "hi"`, `"/content/0/text": "bye"`, 1))
	out, err, code := runCLI(t, "test", "--calls", path, "--only", "add small numbers")
	if code != exitOK || strings.Contains(out, "echo") || !strings.Contains(out, "1 call: 1 passed") {
		t.Errorf("exit %d (%v)\n%s", code, err, out)
	}
}

func TestTestExitCodesForConnectionAndTimeout(t *testing.T) {
	path := writeCalls(t, `{"calls": [{"name": "slow", "method": "tools/call", "params": {"name": "slow_count", "arguments": {"steps": 1, "delay_ms": 3000}}}]}`)
	out, err, code := runCLI(t, "test", "--calls", path, "--timeout", "300ms")
	if code != exitTimeout || !strings.Contains(out, "no answer") {
		t.Errorf("timeout: exit %d (%v), want %d\n%s", code, err, exitTimeout, out)
	}
	out, err, code = runCLI(t, append([]string{"test", "--calls", path}, fakeArgs("exit-at-start")...)...)
	if code != exitConnection {
		t.Errorf("a server that exits: exit %d (%v), want %d\n%s", code, err, exitConnection, out)
	}
	out, err, code = runCLI(t, append([]string{"test", "--calls", path}, fakeArgs("crash-on-call")...)...)
	if code != exitConnection || !strings.Contains(out, "no answer") {
		t.Errorf("a server that dies on the call: exit %d (%v), want %d\n%s", code, err, exitConnection, out)
	}
}

// --from writes one call per recorded request, its answer as snapshot,
// and the recorded server passes them; it never replaces a file.
func TestTestFromRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seeded.calls.json")
	out, err, code := runCLI(t, "test", "--from", demoRecording, "--calls", path)
	if code != exitOK || !strings.Contains(out, "wrote 7 calls to "+path) {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	if seeded, _ := os.ReadFile(path); strings.Count(string(seeded), `"server": "mcpscope-demo"`) != 7 {
		t.Errorf("the seeded calls are not each for the recorded server:\n%s", seeded)
	}
	out, err, code = runCLI(t, "test", "--calls", path)
	if code != exitOK || !strings.Contains(out, "7 calls: 7 passed") {
		t.Fatalf("the seeded calls against the demo: exit %d (%v)\n%s", code, err, out)
	}
	out, err, code = runCLI(t, "test", "--calls", path, "-e", demo.AddOffsetEnv+"=1")
	if code != exitServerError || !strings.Contains(out, "✗ tools/call add") || !strings.Contains(out, "6 passed, 1 failed") {
		t.Errorf("against a changed build: exit %d (%v)\n%s", code, err, out)
	}
	before, _ := os.ReadFile(path)
	_, err, code = runCLI(t, "test", "--from", demoRecording, "--calls", path)
	if after, _ := os.ReadFile(path); code != exitUsage || string(after) != string(before) || !strings.Contains(err.Error(), "exists") {
		t.Errorf("seeding over an existing file: exit %d, %v", code, err)
	}
}

// On a terminal stdout and stderr are one screen: the summary line is
// written once, whatever the outcome (the text report ends with it).
func TestTestSummaryShownOnce(t *testing.T) {
	path := writeCalls(t, strings.Replace(minimalDemoCalls, `"/content/0/text": "hi"`, `"/content/0/text": "bye"`, 1))
	slow := writeCalls(t, `{"calls": [{"name": "slow", "method": "tools/call", "params": {"name": "slow_count", "arguments": {"steps": 1, "delay_ms": 3000}}}]}`)
	for _, args := range [][]string{{"test", "--calls", path}, {"test", "--calls", slow, "--timeout", "300ms"}} {
		out, err, code := runCLI(t, args...)
		if code == exitOK {
			t.Fatalf("%v: exit 0\n%s", args, out)
		}
		var screen bytes.Buffer
		screen.WriteString(out)
		printError(&screen, err) // what Main adds on stderr
		if n := strings.Count(screen.String(), "passed, "); n != 1 {
			t.Errorf("%v: the summary shows %d times:\n%s", args, n, screen.String())
		}
	}
	// A machine format keeps its one human line on stderr.
	out, err, _ := runCLI(t, "test", "--calls", path, "--format", "json")
	var screen bytes.Buffer
	printError(&screen, err)
	if !strings.Contains(screen.String(), "1 passed, 1 failed") || strings.Contains(out, "1 passed, 1 failed") {
		t.Errorf("json: stderr %q", screen.String())
	}
}

// --update fills a placeholder snapshot ({} or null) written by hand, in
// place, and the next run passes.
func TestTestUpdateFillsPlaceholders(t *testing.T) {
	path := writeCalls(t, `{
  "calls": [
    {"name": "add", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}, "expect": {"snapshot": {}}},
    {"name": "echo", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "<b>"}}, "expect": {"snapshot": null}}
  ]
}
`)
	out, err, code := runCLI(t, "test", "--calls", path)
	if code != exitServerError || !strings.Contains(out, "none taken yet") {
		t.Fatalf("before: exit %d (%v)\n%s", code, err, out)
	}
	out, err, code = runCLI(t, "test", "--calls", path, "--update")
	if code != exitOK || !strings.Contains(out, "wrote 2 new snapshots") {
		t.Fatalf("update: exit %d (%v)\n%s", code, err, out)
	}
	after, _ := os.ReadFile(path)
	if !strings.Contains(string(after), `"sum": 3`) || !strings.Contains(string(after), `"text": "<b>"`) {
		t.Errorf("the filled file:\n%s", after)
	}
	if out, err, code = runCLI(t, "test", "--calls", path); code != exitOK {
		t.Fatalf("after: exit %d (%v)\n%s", code, err, out)
	}
}

// mcpscope test runs the calls of the server it tests, and names the ones
// it skipped; a file with none for it is an error, not a pass.
func TestTestRunsOnlyTheCallsOfItsServer(t *testing.T) {
	path := writeCalls(t, `{"calls": [
  {"name": "echo", "server": "mcpscope-demo", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}},
  {"name": "book", "server": "travel", "method": "tools/call", "params": {"name": "book_trip", "arguments": {}}},
  {"name": "ping", "method": "ping"}
]}`)
	out, err, code := runCLI(t, "test", "--calls", path)
	if code != exitOK {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	for _, want := range []string{`skipped 1 call saved for other servers, not for "mcpscope-demo": "book" (server "travel")`, "✓ echo", "✓ ping", "2 calls: 2 passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	other := writeCalls(t, `{"calls": [{"name": "book", "server": "travel", "method": "tools/call", "params": {"name": "book_trip"}}]}`)
	out, err, code = runCLI(t, "test", "--calls", other)
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), `no call for the server "mcpscope-demo"`) {
		t.Errorf("only another server's calls: exit %d (%v)\n%s", code, err, out)
	}
}
