package tap

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

func readRecord(t *testing.T, path string) []record.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	entries, err := record.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// The exit's record carries the server's last stderr lines, the last one
// without its newline included, so that it never says the server wrote
// nothing to stderr when it did.
func TestStdioTapExitCarriesTheLastStderrLines(t *testing.T) {
	privateDirs(t)
	r := throughTap(t, StdioOptions{Command: "sh", Args: []string{"-c", `printf 'Starting default (STDIO) server...\nbye, with no newline' >&2; cat >/dev/null`}}, nil)
	if r.out.Code != 0 {
		t.Fatalf("outcome %+v", r.out)
	}
	entries := readRecord(t, r.out.File)
	var stderr []string
	var exit, state *record.Entry
	for i, e := range entries {
		switch e.Type {
		case "stderr":
			if exit != nil {
				t.Errorf("stderr line %q recorded after the exit", e.Line)
			}
			stderr = append(stderr, e.Line)
		case "exit":
			exit = &entries[i]
		case "state":
			state = &entries[i]
		}
	}
	want := []string{"Starting default (STDIO) server...", "bye, with no newline"}
	if strings.Join(stderr, "|") != strings.Join(want, "|") {
		t.Errorf("stderr lines %q, want %q", stderr, want)
	}
	if exit == nil || strings.Join(exit.LastStderr, "|") != strings.Join(want, "|") {
		t.Fatalf("exit entry %+v: want lastStderr %q", exit, want)
	}
	if state == nil || state.State != "closed" || strings.Contains(state.Detail, "nothing to stderr") || !strings.Contains(state.Detail, "bye, with no newline") {
		t.Errorf("last state %+v", state)
	}
}
