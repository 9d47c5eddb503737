package tap

import (
	"os"
	"path/filepath"
	"slices"
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

// A server that fails as Node does puts its error some twenty lines
// before its end: the exit's record names it (errorLine), though the
// lines it carries start below it.
func TestStdioTapExitNamesTheErrorLine(t *testing.T) {
	privateDirs(t)
	trace, err := filepath.Abs(filepath.Join("testdata", "node-require-stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r := throughTap(t, StdioOptions{Command: "sh", Args: []string{"-c", `cat "$1" >&2; exit 1`, "sh", trace}}, nil)
	var exit *record.Entry
	entries := readRecord(t, r.out.File)
	for i, e := range entries {
		if e.Type == "exit" {
			exit = &entries[i]
		}
	}
	const want = "Error: Cannot find module './lib-missing'"
	if exit == nil || exit.ErrorLine != want {
		t.Fatalf("exit entry %+v: want errorLine %q", exit, want)
	}
	if slices.Contains(exit.LastStderr, want) {
		t.Fatal("the error is among the last lines: the test shows nothing")
	}
}
