package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// A server that fails to start is summarised by the line of its stderr
// that says why, in check and in call alike: the error of a real trace
// (made by node, python3, go and rustc on a machine like this one), not
// the trailer below it. The error line is shown whole.
func TestFailedStartNamesTheErrorLine(t *testing.T) {
	for file, want := range map[string]string{
		"node-missing-main.txt": "Error: Cannot find module '/tmp/reload/tr/nope.js'",
		"node-require.txt":      "Error: Cannot find module './lib-missing'",
		"node-syntax.txt":       "SyntaxError: Unexpected token ';'",
		"python-import.txt":     "ModuleNotFoundError: No module named 'missingmod'",
		"go-panic.txt":          "panic: assignment to entry in nil map",
		"rust-panic-short.txt":  "PORT must be a number: ParseIntError { kind: InvalidDigit }",
		"java-exception.txt":    "java.lang.IllegalStateException: config file missing: server.json",
	} {
		trace, err := filepath.Abs(filepath.Join("testdata", "stderr", file))
		if err != nil {
			t.Fatal(err)
		}
		server := []string{"--", "sh", "-c", `cat "$1" >&2; exit 1`, "sh", trace}
		out, _, code := runCLI(t, append([]string{"check"}, server...)...)
		if code != exitConnection {
			t.Errorf("%s: check exit %d, want %d\n%s", file, code, exitConnection, out)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: check does not show %q whole:\n%s", file, want, out)
		}
		out, err, _ = runCLI(t, append([]string{"call", "--method", "tools/list"}, server...)...)
		if err != nil {
			out += err.Error()
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: call does not name %q:\n%s", file, want, out)
		}
	}
}

// A program that is no MCP server prints to stdout and exits 0: check says
// what it printed, and its advice fits (not "read the stderr above" when
// there is none).
func TestCheckOnAProgramThatOnlyPrints(t *testing.T) {
	out, _, code := runCLI(t, "check", "--", "sh", "-c", "echo hello")
	if code != exitConnection {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if strings.Contains(out, "Read the stderr above") {
		t.Errorf("the advice points at a stderr it never wrote:\n%s", out)
	}
	for _, want := range []string{`"hello"`, "not JSON-RPC", "usage message"} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s", want, out)
		}
	}
}
