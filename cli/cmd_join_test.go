package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// joinFixtures copies testdata/join's captures (Claude Code and server
// wx: a model capture and an MCP capture of the same run, made by
// go test ./mcp/tap/join -run TestFixtureCaptures -update) into this
// test's tap directory; it returns their paths there.
func joinFixtures(t *testing.T) (model, wx string) {
	t.Helper()
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home")) // where taps record
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", base)
	dir := filepath.Join(base, "home", ".local", "state", "mcpscope", "taps")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"model.jsonl": "20261203-150000-model-anthropic.jsonl", "wx.jsonl": "20261203-150000-wx.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "join", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "20261203-150000-model-anthropic.jsonl"), filepath.Join(dir, "20261203-150000-wx.jsonl")
}

// taps --join and open --with print the joined view: each change Claude
// Code made with its rule, the call followed to the server and back, the
// API's count beside ours; as text and as JSON.
func TestTapsJoin(t *testing.T) {
	model, wx := joinFixtures(t)
	named, _, code := runCLI(t, "taps", "--join", "20261203-150000-model", "wx")
	picked, _, code2 := runCLI(t, "taps", "--join", "20261203-150000-model") // the MCP capture found by its time
	opened, _, code3 := runCLI(t, "open", model, "--with", wx)
	for what, s := range map[string]string{"taps --join MODEL MCP": named, "taps --join MODEL": picked, "open --with": opened} {
		for _, want := range []string{
			"names predicted by the Claude Code view (clientInfo claude-code 2.1.328)",
			"renamed get.weather → mcp__wx__get_weather (claude/prefix); as the view predicts",
			"description cut: from 20000 to 16397 characters (claude/description-cut); as the view predicts",
			"schema rewritten: 147 → 122 bytes (claude/schema-combinators); as the view predicts",
			"the model was given 144 bytes of it in #3 (toolu_2): saved to a file (claude/result-limits)",
			"#2   5 tools, 4 of the joined servers': ours 4262 tokens; the API: 920 input, 5 output",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("%s does not say %q:\n%s", what, want, s)
			}
		}
	}
	if code != exitOK || code2 != exitOK || code3 != exitOK {
		t.Errorf("exit codes %d %d %d", code, code2, code3)
	}
	out, _, code := runCLI(t, "taps", "--join", "20261203-150000-model", "wx", "--format", "json", "--client-profile", "gemini")
	var r struct {
		Client  string
		Servers []struct {
			Tools []struct {
				PredictedName string
				Changes       []struct{ Kind, Predicted string }
			}
		}
		Requests []struct{ Input int64 }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK {
		t.Fatalf("--format json (exit %d): %v\n%s", code, err, out)
	}
	// Under Gemini CLI's view the names Claude Code sent are not the ones
	// predicted: the join says so rather than matching them.
	if r.Client != "gemini" || len(r.Servers) != 1 || r.Servers[0].Tools[0].PredictedName != "mcp_wx_get.weather" || len(r.Requests) != 3 || r.Requests[0].Input != 120 {
		t.Errorf("--format json: %+v", r)
	}
	for _, bad := range [][]string{
		{"taps", "--join", "20261203-150000-wx"},                             // not a model capture
		{"taps", "--join", "20261203-150000-model", "20261203-150000-model"}, // two model captures
		{"taps", "--format", "json"},                                         // --format without --join
		{"taps", "--join", "20261203-150000-model", "--client-profile", "nobody"},
		{"open", model, "--format", "json"}, // --format without --with
	} {
		said, err, code := runCLI(t, bad...)
		if code != exitUsage || err == nil {
			t.Errorf("%q: exit %d, %v\n%s", bad, code, err, said)
		}
	}
}

// taps ID on a model capture points to the join when MCP captures of
// the same time are there.
func TestTapsModelPointsToJoin(t *testing.T) {
	joinFixtures(t)
	out, _, code := runCLI(t, "taps", "20261203-150000-model")
	if code != exitOK || !strings.Contains(out, "1 MCP tap capture of the same time: mcpscope taps --join 20261203-150000-model-anthropic shows") {
		t.Errorf("taps ID (exit %d):\n%s", code, out)
	}
}

// An MCP capture whose writer stopped mid-line is joined for what it
// holds, and the join says it is incomplete.
func TestTapsJoinCutCapture(t *testing.T) {
	model, wx := joinFixtures(t)
	b, err := os.ReadFile(wx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wx, b[:len(b)-1000], 0o600); err != nil { // the big result's line, cut
		t.Fatal(err)
	}
	out, _, code := runCLI(t, "open", model, "--with", wx)
	if code != exitOK || !strings.Contains(out, "note: MCP capture incomplete: ") || !strings.Contains(out, "renamed get.weather → mcp__wx__get_weather") {
		t.Errorf("open --with a cut capture (exit %d):\n%s", code, out)
	}
}
