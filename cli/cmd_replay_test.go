package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/replay"
)

// demoRecording is a recording of today's demo server (mcpscope --record:
// tools/call add {"a":2,"b":3} and echo {"message":"hello"}, then a
// ping), which replay, diff and test compare the live demo against:
// record it again when the demo's lists change. The format's own
// contract files are in mcp/sessionfile/record/testdata.
const demoRecording = "testdata/demo-stdio.jsonl"

func replayJSON(t *testing.T, out string) replay.Result {
	t.Helper()
	var r replay.Result
	// runCLI gives stdout and stderr together: the JSON comes first.
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return r
}

// The checked-in recording of the demo server (today's --record, format 1)
// replays against the demo server with no difference; against a build
// whose add tool answers differently, exactly that exchange differs.
func TestReplayDemoRecording(t *testing.T) {
	dir := t.TempDir()
	out, err, code := runCLI(t, "replay", "--format", "json", "--record", filepath.Join(dir, "same.jsonl"), demoRecording, "--", os.Args[0], "demo-server")
	if code != exitOK {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	r := replayJSON(t, out)
	// The handshake, 4 lists, 2 tool calls and a ping were recorded.
	if len(r.Exchanges) != 8 || r.Matched != 8 {
		t.Fatalf("%d exchanges, %d matched:\n%s", len(r.Exchanges), r.Matched, out)
	}

	out, err, code = runCLI(t, "replay", "--format", "json", "--record", filepath.Join(dir, "changed.jsonl"),
		"-e", demo.AddOffsetEnv+"=1", demoRecording, "--", os.Args[0], "demo-server")
	if code != exitServerError {
		t.Fatalf("a changed tool: exit %d (%v), want %d\n%s", code, err, exitServerError, out)
	}
	r = replayJSON(t, out)
	var differed []string
	for _, ex := range r.Exchanges {
		if !ex.Match() {
			differed = append(differed, ex.Label)
		}
	}
	if strings.Join(differed, ",") != "tools/call add" {
		t.Fatalf("differing exchanges %v, want only tools/call add", differed)
	}
	// The replay was written as a session file that reads back.
	fh, err := os.Open(filepath.Join(dir, "changed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fh.Close() }()
	sf, err := record.ReadEvents(fh, false)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, ev := range sf.Events {
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Method == mcp.MethodToolsCall {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("the replay's session file holds %d tools/call requests, want 2", calls)
	}
	// Its header says it is a replay (lists of captures leave it out).
	if !sf.Header.IsReplay() || sf.Header.ReplayOf != filepath.Base(demoRecording) {
		t.Errorf("the replay's header: recorder %q, replayOf %q", sf.Header.Recorder, sf.Header.ReplayOf)
	}

	// --ignore silences the change; --only narrows the replay.
	_, err, code = runCLI(t, "replay", "--record", filepath.Join(dir, "ignored.jsonl"), "--ignore", "/result/structuredContent/sum",
		"--ignore", "result.content.*.text", "-e", demo.AddOffsetEnv+"=1", demoRecording, "--", os.Args[0], "demo-server")
	if code != exitOK {
		t.Errorf("--ignore: exit %d (%v)", code, err)
	}
	out, _, code = runCLI(t, "replay", "--format", "json", "--only", "ping", "--record", filepath.Join(dir, "only.jsonl"),
		"-e", demo.AddOffsetEnv+"=1", demoRecording, "--", os.Args[0], "demo-server")
	if r := replayJSON(t, out); code != exitOK || len(r.Exchanges) != 1 || r.Exchanges[0].Method != "ping" {
		t.Errorf("--only ping: exit %d, %+v", code, r.Exchanges)
	}
}

func TestReplayExitCodes(t *testing.T) {
	dir := t.TempDir()
	_, err, code := runCLI(t, "replay", "--record", filepath.Join(dir, "x.jsonl"), demoRecording, "--", "/nonexistent/server")
	if code != exitConnection {
		t.Errorf("no server: exit %d (%v), want %d", code, err, exitConnection)
	}
	if _, _, code := runCLI(t, "replay", filepath.Join(dir, "missing.jsonl")); code != exitUsage {
		t.Errorf("a missing file: exit %d", code)
	}
	if _, _, code := runCLI(t, "replay", "--format", "xml", demoRecording); code != exitUsage {
		t.Errorf("a bad format: exit %d", code)
	}
	out, _, code := runCLI(t, "replay", "--format", "junit", "--record", filepath.Join(dir, "j.jsonl"),
		"-e", demo.AddOffsetEnv+"=2", demoRecording, "--", os.Args[0], "demo-server")
	if code != exitServerError || !strings.Contains(out, `failures="1"`) || !strings.Contains(out, "<testsuite") {
		t.Errorf("junit: exit %d\n%s", code, out)
	}
}

// A session recorded against server-everything replays against it with no
// difference (Node-gated).
func TestReplayServerEverything(t *testing.T) {
	se := serverEverything(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "everything.jsonl")
	rec, err := record.Create(path, record.Session{Target: "node " + se, Command: []string{"node", se}})
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.StdioTransport{Command: "node", Args: []string{se}}, mcp.Options{OnEvent: rec.Event})
	go func() {
		for range c.Events() {
		}
	}()
	ctx := context.Background()
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	for _, d := range mcp.DiscoveryLists() {
		if _, _, err := c.ListAll(ctx, d.Method); err != nil {
			t.Fatalf("%s: %v", d.Method, err)
		}
	}
	calls := []struct {
		method string
		params string
	}{
		{mcp.MethodToolsCall, `{"name":"echo","arguments":{"message":"replay me"}}`},
		{mcp.MethodToolsCall, `{"name":"get-sum","arguments":{"a":2,"b":3}}`},
		{mcp.MethodPing, `{}`},
	}
	for _, call := range calls {
		if _, err := c.Call(ctx, call.method, json.RawMessage(call.params)); err != nil {
			t.Fatalf("%s: %v", call.method, err)
		}
	}
	_ = c.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	out, err, code := runCLI(t, "replay", "--format", "json", "--record", filepath.Join(dir, "again.jsonl"), path, "--", "node", se)
	if code != exitOK {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	if r := replayJSON(t, out); len(r.Exchanges) < 8 || r.Differed != 0 {
		t.Fatalf("%d exchanges, %d differ:\n%s", len(r.Exchanges), r.Differed, out)
	}
}
