package errline

import (
	"os"
	"path/filepath"
	"testing"
)

// Each file is what a real program wrote to stderr on this kind of
// machine (node 20, python 3, go, rustc, java, tsc 7): the error line is
// picked, not the trailer below it.
func TestPickNamesTheErrorOfRealTraces(t *testing.T) {
	for file, want := range map[string]string{
		"node-missing-main.txt":   "Error: Cannot find module '/tmp/reload/tr/nope.js'",
		"node-missing-module.txt": "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'nope-pkg' imported from /tmp/reload/tr/m.mjs",
		"node-require.txt":        "Error: Cannot find module './lib-missing'",
		"node-syntax.txt":         "SyntaxError: Unexpected token ';' (at file:///tmp/reload/tr/s.mjs:1)",
		"node-throw.txt":          "Error: boom (at file:///tmp/reload/tr/b.mjs:1)",
		"python-import.txt":       "ModuleNotFoundError: No module named 'missingmod'",
		"python-valueerror.txt":   "ValueError: bad config: port",
		"python-chained.txt":      "BadConfig: no port in config",
		"go-panic.txt":            "panic: assignment to entry in nil map",
		"go-panic-run.txt":        "panic: assignment to entry in nil map",
		"rust-panic.txt":          "thread 'main' (20689) panicked at main.rs:3:33: PORT must be a number: ParseIntError { kind: InvalidDigit }",
		"rust-panic-short.txt":    "thread 'main' (24973) panicked at main.rs:3:33: PORT must be a number: ParseIntError { kind: InvalidDigit }",
		"java-exception.txt":      "java.lang.IllegalStateException: config file missing: server.json",
		"tsc-errors.txt":          "src/index.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
		"go-build-errors.txt":     "./main.go:4:7: undefined: undefinedThing",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := Pick(Lines(b)); got != want {
			t.Errorf("%s: Pick = %q\n want %q", file, got, want)
		}
	}
}

// The error is more than twelve lines before the end in Node's traces:
// the window callers keep holds it.
func TestWindowHoldsNodesError(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "node-require.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := Lines(b)
	if len(lines) > Window {
		t.Fatalf("the trace has %d lines, more than the window", len(lines))
	}
	if got := Pick(lines[len(lines)-12:]); got == "Error: Cannot find module './lib-missing'" {
		t.Fatal("the error is within twelve lines of the end: the test shows nothing")
	}
}

func TestPickWithoutATrace(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{nil, ""},
		{[]string{"", "Node.js v22.12.0", ""}, ""},
		{[]string{"starting", "listen tcp :8080: bind: address already in use"}, "listen tcp :8080: bind: address already in use"},
		{[]string{"2026/12/03 10:00:00 config: missing API_KEY", "exit status 1"}, "2026/12/03 10:00:00 config: missing API_KEY"},
		{[]string{"npm error code E404", "npm error 404 Not Found", "npm error A complete log of this run can be found in: /x"}, "npm error code E404"},
	} {
		if got := Pick(c.lines); got != c.want {
			t.Errorf("Pick(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}
