package cli

import (
	"os"
	"strings"
	"testing"
)

const notes = "../mcp/sessionfile/surfacediff/testdata/"

// diff gates a release: exit 1 only when something breaking changed.
func TestDiffExitCodes(t *testing.T) {
	out, err, code := runCLI(t, "diff", notes+"notes-v1.jsonl", notes+"notes-v2.jsonl")
	if code != exitServerError || !strings.Contains(out, "new required property limit") {
		t.Fatalf("breaking pair: exit %d (%v)\n%s", code, err, out)
	}
	out, err, code = runCLI(t, "diff", "--format", "markdown", notes+"notes-v1.jsonl", notes+"notes-v1.1.jsonl")
	if code != exitOK || !strings.Contains(out, "| compatible | tool | new_tool |") {
		t.Fatalf("compatible pair: exit %d (%v)\n%s", code, err, out)
	}
	if _, _, code := runCLI(t, "diff", notes+"notes-v1.jsonl", "missing.jsonl"); code != exitUsage {
		t.Errorf("a missing file: exit %d, want %d", code, exitUsage)
	}
	if _, _, code := runCLI(t, "diff", notes+"notes-v1.jsonl"); code != exitUsage {
		t.Errorf("one argument: exit %d, want %d", code, exitUsage)
	}
}

// A recording of the demo server against the demo server running now:
// the same surface. Against a server that is not there: exit 3.
func TestDiffFileAgainstLiveServer(t *testing.T) {
	out, err, code := runCLI(t, "diff", demoRecording, "--", os.Args[0], "demo-server")
	if code != exitOK || !strings.Contains(out, "no differences") {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	_, err, code = runCLI(t, "diff", demoRecording, "--", "/nonexistent/server")
	if code != exitConnection {
		t.Errorf("a server that cannot start: exit %d (%v), want %d", code, err, exitConnection)
	}
}
