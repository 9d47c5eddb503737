package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/tap"
)

// captureFiles are the captures of real clients through the tap.
var captureFiles = []string{
	"claude-code-2.1.328-stdio.jsonl", "claude-code-2.1.328-http.jsonl",
	"codex-0.169.0-stdio.jsonl", "gemini-cli-0.61.0-stdio.jsonl",
}

const captureDir = "../testdata/captures/"

// toolsServer is the fake server answering tools/list with one tool add,
// with outputSchema when withOutput: two builds of a server that differ
// in that alone.
func toolsServer(withOutput bool) []string {
	tool := `{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"}}}`
	if withOutput {
		tool += `,"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`
	}
	s := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`),
		On: map[string][][]string{"tools/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[` + tool + `}]}}`}}}}
	var args []string
	for _, kv := range s.Env() {
		args = append(args, "-e", kv)
	}
	return append(args, "--", os.Args[0])
}

// A capture of a client that probes with server/discover first (Claude
// Code) replays against the same server with every exchange matching: the
// probe as a probe (-32601 then and now), the handshake against the
// handshake, the listing. Node-gated: the server is server-everything.
func TestReplayProbingClientCaptureMatches(t *testing.T) {
	se := serverEverything(t)
	dir := t.TempDir()
	for _, name := range []string{"claude-code-2.1.328-stdio.jsonl", "codex-0.169.0-stdio.jsonl", "gemini-cli-0.61.0-stdio.jsonl"} {
		out, err, code := runCLI(t, "replay", "--format", "json", "--record", filepath.Join(dir, name), captureDir+name, "--", "node", se, "stdio")
		res := replayJSON(t, out)
		if code != exitOK || res.Differed != 0 || res.Matched != len(res.Exchanges) {
			t.Fatalf("%s: exit %d (%v)\n%s", name, code, err, out)
		}
		if strings.HasPrefix(name, "claude") {
			labels := []string{}
			for _, ex := range res.Exchanges {
				labels = append(labels, ex.Label)
			}
			if strings.Join(labels, ",") != "probe server/discover,handshake (initialize),tools/list" || !res.Exchanges[0].Probe {
				t.Errorf("%s: exchanges %v", name, labels)
			}
		}
	}
}

// The replay's record lands beside the capture, in the taps directory,
// and the taps list leaves it out.
func TestReplayRecordIsNotListedAsACapture(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	state, err := tap.StateDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(captureDir + "codex-0.169.0-stdio.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	capture := filepath.Join(state, "20261201-101010-1-everything.jsonl")
	if err := os.WriteFile(capture, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err, _ := runCLI(t, "replay", capture, "--", os.Args[0], "demo-server")
	if !strings.Contains(out, "the replay was recorded in "+strings.TrimSuffix(capture, ".jsonl")+".replay.jsonl") {
		t.Fatalf("replay (%v):\n%s", err, out)
	}
	listed, err := tap.List()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, l := range listed {
		files = append(files, filepath.Base(l.File))
	}
	if len(files) != 1 || files[0] != filepath.Base(capture) {
		t.Errorf("the taps list: %v, want only the capture", files)
	}
}

// scriptedAs is a fake server that answers each method as the capture's
// server did (its recorded result or error, under the new request's id):
// the same server, as far as the capture shows it.
func scriptedAs(t *testing.T, capture string) []string {
	t.Helper()
	s, err := reading.ReadFile(capture, true)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string][][]string{}
	for _, x := range s.Exchanges() {
		if x.Request == nil || x.Response == nil || x.Role == reading.ServerRequest {
			continue
		}
		answer := string(x.Answer()) // {"result":...} or {"error":...}
		on[x.Request.Method] = append(on[x.Request.Method], []string{`{"jsonrpc":"2.0","id":{{id}},` + answer[1:]})
	}
	var args []string
	for _, kv := range (mcptest.Script{On: on}).Env() {
		args = append(args, "-e", kv)
	}
	return append(args, "--", os.Args[0])
}

// A capture of a client that probes with server/discover first (Claude
// Code, on stdio and over HTTP) replays against a server answering as the
// recorded one did with every exchange matching: the probe sent as a
// probe and compared with the probe's answer, the handshake with the
// handshake. Before, the probe's -32601 was compared with the handshake.
func TestReplayProbingCaptureAgainstItsServer(t *testing.T) {
	for _, name := range []string{"claude-code-2.1.328-stdio.jsonl", "claude-code-2.1.328-http.jsonl"} {
		args := append([]string{"replay", "--format", "json", "--record", filepath.Join(t.TempDir(), "r.jsonl"), captureDir + name}, scriptedAs(t, captureDir+name)...)
		out, err, code := runCLI(t, args...)
		res := replayJSON(t, out)
		var labels []string
		for _, ex := range res.Exchanges {
			labels = append(labels, ex.Label)
		}
		if code != exitOK || res.Differed != 0 || strings.Join(labels, ",") != "probe server/discover,handshake (initialize),tools/list" || !res.Exchanges[0].Probe {
			t.Errorf("%s: exit %d (%v), %v\n%s", name, code, err, labels, out)
		}
	}
}
