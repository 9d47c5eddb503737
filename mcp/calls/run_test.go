package calls

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// connected is a client connected to a server the test binary plays: the
// demo server, or the fake one with env.
func connected(t *testing.T, timeout time.Duration, args []string, env ...string) *mcp.Client {
	t.Helper()
	tr := &mcp.StdioTransport{Command: os.Args[0], Args: args, Env: env, Grace: 100 * time.Millisecond}
	c := mcp.NewClient(tr, mcp.Options{Timeout: timeout})
	go func() {
		for range c.Events() {
		}
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func onDemo(t *testing.T) *mcp.Client {
	return connected(t, 10*time.Second, []string{"demo-server"})
}

const demoCalls = `{
  "calls": [
    {"name": "add", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
     "expect": {"isError": false, "equals": {"/content/0/text": "{\"sum\":3}", "/structuredContent/sum": 3}, "schema": "output", "maxMs": 5000}},
    {"name": "fail", "method": "tools/call", "params": {"name": "fail", "arguments": {}}, "expect": {"isError": true}},
    {"name": "readme", "method": "resources/read", "params": {"uri": "demo://readme"}, "expect": {"matches": {"/contents/0/uri": "^demo://readme$"}}},
    {"name": "greet", "method": "prompts/get", "params": {"name": "greet", "arguments": {"name": "Ada"}}, "expect": {"matches": {"/messages/0/content/text": "Ada"}}},
    {"name": "no such prompt", "method": "prompts/get", "params": {"name": "nope"}, "expect": {"error": {}}},
    {"name": "complete", "method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": "p"}},
     "expect": {"equals": {"/completion/values": ["pirate"]}}},
    {"name": "ping", "method": "ping", "expect": {"equals": {"": {}}}},
    {"name": "tools", "method": "tools/list", "expect": {"matches": {"/tools/0/name": "."}}}
  ]
}`

// Every kind of method, against the demo server, passes.
func TestRunAgainstTheDemo(t *testing.T) {
	t.Parallel()
	f := mustParse(t, demoCalls)
	r, err := Run(context.Background(), onDemo(t), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.Outcomes {
		if !o.Pass {
			t.Errorf("%s: %s %+v", o.Name, o.Reason(), o)
		}
	}
	if r.Passed != len(f.Calls) || r.Failed != 0 {
		t.Errorf("%s", r.Summary())
	}
	var junit bytes.Buffer
	if err := Write(&junit, "junit", r); err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Tests int `xml:"tests,attr"`
		Cases []struct {
			Name string `xml:"name,attr"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &suite); err != nil {
		t.Fatal(err)
	}
	if suite.Tests != len(f.Calls) || len(suite.Cases) != len(f.Calls) || suite.Cases[0].Name != "add" {
		t.Errorf("junit: %+v\n%s", suite, junit.String())
	}
}

func TestRunReportsWhatDiffers(t *testing.T) {
	t.Parallel()
	f := mustParse(t, strings.Replace(minimal, `"3"`, `"4"`, 1))
	r, err := Run(context.Background(), onDemo(t), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 1 {
		t.Fatalf("%s", r.Summary())
	}
	var text bytes.Buffer
	if err := Write(&text, "text", r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"✗ add small numbers", "equals /content/0/text", `expected "4"`, `actual   "{\"sum\":3}"`, "1 call: 0 passed, 1 failed"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
}

// --update takes the answers as the new snapshots; the next run passes.
func TestUpdateThenPass(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `{"calls": [
  {"name": "add", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
   "expect": {"snapshot": {"result": {"content": [{"type": "text", "text": "{\"sum\":4}"}], "structuredContent": {"sum": 4}}}}},
  {"name": "ping", "method": "ping", "expect": {"snapshot": {"result": {}}}}
]}`)
	c := onDemo(t)
	r, err := Run(context.Background(), c, f, Options{})
	if err != nil || r.Failed != 1 {
		t.Fatalf("before: %v, %s", err, r.Summary())
	}
	r, err = Run(context.Background(), c, f, Options{Update: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 0 || r.Updated != 1 || !r.Outcomes[0].Updated || r.Outcomes[1].Updated {
		t.Fatalf("update: %s %+v", r.Summary(), r.Outcomes)
	}
	text, err := f.WithSnapshots(r.Snapshots())
	if err != nil {
		t.Fatal(err)
	}
	g := mustParse(t, string(text))
	r, err = Run(context.Background(), c, g, Options{})
	if err != nil || r.Failed != 0 {
		t.Fatalf("after: %v, %s\n%s", err, r.Summary(), text)
	}
}

// A placeholder snapshot ({} or null, written by hand to be filled) is
// filled by --update, in place, and the next run passes.
func TestUpdateFillsAPlaceholderSnapshot(t *testing.T) {
	t.Parallel()
	src := `{"calls": [
  {"name": "add", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
   "expect": {"snapshot": {}}},
  // filled next
  {"name": "ping", "method": "ping", "expect": {"snapshot": null}}
]}`
	f := mustParse(t, src)
	c := onDemo(t)
	r, err := Run(context.Background(), c, f, Options{})
	if err != nil || r.Failed != 2 || !strings.Contains(r.Outcomes[0].Reason(), "--update") {
		t.Fatalf("before: %v, %s %+v", err, r.Summary(), r.Outcomes)
	}
	r, err = Run(context.Background(), c, f, Options{Update: true})
	if err != nil || r.Failed != 0 || r.Updated != 2 {
		t.Fatalf("update: %v, %s %+v", err, r.Summary(), r.Outcomes)
	}
	text, err := f.WithSnapshots(r.Snapshots())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"sum": 3`) || !strings.Contains(string(text), "// filled next") {
		t.Errorf("the filled file:\n%s", text)
	}
	r, err = Run(context.Background(), c, mustParse(t, string(text)), Options{})
	if err != nil || r.Failed != 0 {
		t.Fatalf("after: %v, %s\n%s", err, r.Summary(), text)
	}
}

func TestRunOnly(t *testing.T) {
	t.Parallel()
	f := mustParse(t, demoCalls)
	if _, err := Select(f, Options{Only: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"add", "fail"`) {
		t.Errorf("an unknown --only: %v", err)
	}
	sel, err := Select(f, Options{Only: []string{"ping", "add"}})
	if err != nil || len(sel) != 2 || sel[0].Name != "add" {
		t.Errorf("selected %v, %v", sel, err)
	}
}

// A call that gets no answer in time is a timeout, mcpscope's doing.
func TestRunTimeout(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `{"calls": [{"name": "slow", "method": "tools/call", "params": {"name": "slow_count", "arguments": {"steps": 1, "delay_ms": 5000}}}]}`)
	r, err := Run(context.Background(), connected(t, 300*time.Millisecond, []string{"demo-server"}), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut() || r.Outcomes[0].Pass || !strings.Contains(r.Outcomes[0].Reason(), "no answer") {
		t.Errorf("%+v", r.Outcomes)
	}
}

// A server that dies mid-run: the run stops, the rest is not sent.
func TestRunLostConnection(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `{"calls": [{"name": "a", "method": "tools/call", "params": {"name": "x"}}, {"name": "b", "method": "ping"}]}`)
	c := connected(t, 5*time.Second, nil, mcptest.EnvVar+"=crash-on-call")
	r, err := Run(context.Background(), c, f, Options{})
	if err == nil || r == nil || r.Interrupted == "" || r.Failed != 2 || !strings.Contains(r.Outcomes[1].Error, "not sent") {
		t.Fatalf("err %v, report %+v", err, r)
	}
	var out bytes.Buffer
	if err := Write(&out, "json", r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || len(back.Outcomes) != 2 {
		t.Errorf("json report: %v\n%s", err, out.String())
	}
}

// One calls file serves every server started in its folder: a call saved
// for another server is skipped, and the report says which; a call
// without a server (an older file) runs against any; --only runs one of
// another server's anyway.
func TestRunSkipsCallsOfOtherServers(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `{"calls": [
  {"name": "add", "server": "mcpscope-demo", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}},
  {"name": "book", "server": "travel", "method": "tools/call", "params": {"name": "book_trip", "arguments": {}}},
  {"name": "ping", "method": "ping"}
]}`)
	if f.Calls[0].Server != "mcpscope-demo" || f.Calls[2].Server != "" {
		t.Fatalf("servers read: %+v", f.Calls)
	}
	c := onDemo(t)
	r, err := Run(context.Background(), c, f, Options{Server: "mcpscope-demo"})
	if err != nil || r.Failed != 0 || len(r.Outcomes) != 2 || len(r.Skipped) != 1 || r.Skipped[0].Name != "book" {
		t.Fatalf("%v, %s %+v skipped %+v", err, r.Summary(), r.Outcomes, r.Skipped)
	}
	var text, junit bytes.Buffer
	_ = Write(&text, "text", r)
	for _, want := range []string{`skipped 1 call saved for other servers, not for "mcpscope-demo": "book" (server "travel")`,
		"2 calls: 2 passed, 0 failed; 1 call for other servers skipped"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
	_ = Write(&junit, "junit", r)
	if !strings.Contains(junit.String(), `skipped="1"`) || !strings.Contains(junit.String(), `<skipped message="saved for the server &#34;travel&#34;"></skipped>`) {
		t.Errorf("junit:\n%s", junit.String())
	}
	r, err = Run(context.Background(), c, f, Options{Server: "mcpscope-demo", Only: []string{"book"}})
	if err != nil || len(r.Outcomes) != 1 || len(r.Skipped) != 0 {
		t.Fatalf("--only book: %v %+v", err, r)
	}
	// Against another server's tool list, a call of this server is not
	// "lost" when it has no server; one that has says the tool is gone.
	if s := Stale(f.Calls[2], []mcp.Tool{}); s != "" {
		t.Errorf("ping: %q", s)
	}
	anyServer := mustParse(t, `{"calls": [{"name": "b", "method": "tools/call", "params": {"name": "book_trip"}}]}`).Calls[0]
	if s := Stale(anyServer, []mcp.Tool{{Name: "add"}}); s != `the server lists no tool "book_trip"` {
		t.Errorf("a call without a server: %q", s)
	}
	if s := Stale(f.Calls[0], []mcp.Tool{{Name: "echo"}}); s != `the server no longer lists a tool "add"` {
		t.Errorf("a call of this server: %q", s)
	}
}
