package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/surfacediff"
)

func diffJSON(t *testing.T, out string) surfacediff.Report {
	t.Helper()
	var r surfacediff.Report
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return r
}

// Two files `call --record` wrote, of two builds that differ only in one
// tool's outputSchema: diff reports that change (it read the surface from
// list lines, which call never writes, and saw no tool at all), breaking
// one way and compatible the other.
func TestDiffCallRecordedFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for path, withOutput := range map[string]bool{a: false, b: true} {
		args := append([]string{"call", "--record", path, "--method", "tools/list"}, toolsServer(withOutput)...)
		if out, err, code := runCLI(t, args...); code != exitOK {
			t.Fatalf("call: exit %d (%v)\n%s", code, err, out)
		}
	}
	out, err, code := runCLI(t, "diff", "--format", "json", a, b)
	r := diffJSON(t, out)
	if code != exitOK || len(r.Changes) != 1 || r.Changes[0].Name != "add" || r.Changes[0].Path != "outputSchema" || r.Changes[0].Class != surfacediff.Compatible {
		t.Fatalf("a → b: exit %d (%v), changes %+v", code, err, r.Changes)
	}
	out, _, code = runCLI(t, "diff", b, a)
	if code != exitServerError || !strings.Contains(out, "BREAKING   tool add: outputSchema was removed") {
		t.Fatalf("b → a: exit %d\n%s", code, out)
	}
}

// A file `call --record` wrote, against the same server running now: no
// change, and the lists call never asked for are said to be not compared,
// not reported as new.
func TestDiffCallRecordedAgainstTheSameServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "call.jsonl")
	if out, err, code := runCLI(t, "call", "--record", path, "--method", "tools/list", "--", os.Args[0], "demo-server"); code != exitOK {
		t.Fatalf("call: exit %d (%v)\n%s", code, err, out)
	}
	out, err, code := runCLI(t, "diff", "--format", "json", path, "--", os.Args[0], "demo-server")
	r := diffJSON(t, out)
	if code != exitOK || len(r.Changes) != 0 {
		t.Fatalf("exit %d (%v), changes %+v", code, err, r.Changes)
	}
	if len(r.NotListed) != 3 || r.NotListed[0].ListedBy != "B" {
		t.Errorf("not listed: %+v, want resources, templates and prompts listed only by B", r.NotListed)
	}
	out, _, _ = runCLI(t, "diff", path, "--", os.Args[0], "demo-server")
	if !strings.Contains(out, "no differences") || strings.Contains(out, "new resource") || !strings.Contains(out, "not compared: resources/list") {
		t.Errorf("text:\n%s", out)
	}
}

// Captures of Claude Code, Codex and Gemini CLI: diff, replay --only
// tools/list and every export run on each. Claude Code's (roots) and
// Codex's (no roots) listings of the same server differ in
// get-roots-list, which is shown as following the clients, not as a
// removal; each capture diffs clean against itself.
func TestSessionFileCommandsOnCaptures(t *testing.T) {
	dir := t.TempDir()
	out, err, code := runCLI(t, "diff", "--format", "json", captureDir+"claude-code-2.1.328-stdio.jsonl", captureDir+"codex-0.169.0-stdio.jsonl")
	r := diffJSON(t, out)
	if code != exitOK || r.Breaking != 0 {
		t.Fatalf("claude → codex: exit %d (%v), %+v", code, err, r.Changes)
	}
	var follows []string
	for _, c := range r.Changes {
		if c.FollowsClient != "" {
			follows = append(follows, c.Name+":"+c.FollowsClient)
		}
	}
	if strings.Join(follows, ",") != "get-roots-list:roots" || len(r.Clients) == 0 || r.A.Client != "claude-code" || r.B.Client != "codex-mcp-client" {
		t.Errorf("clients %+v, following them %v", r.Clients, follows)
	}
	for _, name := range captureFiles {
		path := captureDir + name
		if out, err, code := runCLI(t, "diff", path, path); code != exitOK || !strings.Contains(out, "no differences") {
			t.Errorf("%s against itself: exit %d (%v)\n%s", name, code, err, out)
		}
		for _, f := range []string{"html", "md", "har"} {
			o := filepath.Join(dir, name+"."+f)
			if _, err, code := runCLI(t, "export", "--format", f, "-o", o, path); code != exitOK {
				t.Errorf("%s: export %s: exit %d (%v)", name, f, code, err)
			}
			b, _ := os.ReadFile(o)
			if f == "md" && strings.Contains(name, "claude") && (strings.Contains(string(b), "server/discover") && !strings.Contains(string(b), "None: every request")) {
				t.Errorf("%s: the probe's refusal is reported as a failing exchange:\n%s", name, b)
			}
			if f == "html" && strings.Contains(name, "claude") && !strings.Contains(string(b), "probe server/discover") {
				t.Errorf("%s: the HTML timeline does not show the probe as a probe", name)
			}
		}
		// Replayed against another server (a fake with one tool, which
		// refuses server/discover as server-everything does), tools/list
		// is compared and differs.
		rec := filepath.Join(dir, name+".replay.jsonl")
		args := append([]string{"replay", "--format", "json", "--only", "tools/list", "--record", rec, path}, toolsServer(false)...)
		out, err, code := runCLI(t, args...)
		res := replayJSON(t, out)
		if strings.Contains(name, "gemini") { // it listed nothing
			if code != exitOK || len(res.Exchanges) != 0 {
				t.Errorf("%s: replay --only tools/list: exit %d (%v), %+v", name, code, err, res.Exchanges)
			}
			continue
		}
		if code != exitServerError || len(res.Exchanges) != 1 || res.Exchanges[0].Method != "tools/list" || len(res.Exchanges[0].Differences) == 0 {
			t.Errorf("%s: replay --only tools/list: exit %d (%v), %+v", name, code, err, res.Exchanges)
		}
	}
}

// Each capture, against the server it was made with, running now: no
// change (the live side is listed as the capture's client). Node-gated.
func TestDiffCapturesAgainstServerEverything(t *testing.T) {
	se := serverEverything(t)
	for _, name := range captureFiles {
		if strings.Contains(name, "http") {
			continue // its server was an HTTP one
		}
		out, err, code := runCLI(t, "diff", captureDir+name, "--", "node", se, "stdio")
		if code != exitOK || !strings.Contains(out, "no differences") {
			t.Errorf("%s against server-everything: exit %d (%v)\n%s", name, code, err, out)
		}
	}
}
