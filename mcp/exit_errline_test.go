package mcp_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

// A Node server that cannot find a module writes its error twenty lines
// before its end ("Node.js v20.20.2" is the last line): the exit names the
// error, and so does its message, though the lines it carries start
// below it.
func TestExitNamesTheErrorAboveNodesTrailer(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	trace, err := filepath.Abs(filepath.Join("testdata", "node-require-stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.StdioTransport{Command: "sh", Args: []string{"-c", `cat "$1" >&2; exit 1`, "sh", trace}}, mcp.Options{})
	col := collect(c)
	_, err = c.Connect(context.Background())
	col.wait(t)
	var exit *mcp.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("err = %v, want an exit", err)
	}
	const want = "Error: Cannot find module './lib-missing'"
	for _, l := range exit.LastStderr {
		if l == want {
			t.Fatal("the error is among the last lines kept: the test shows nothing")
		}
	}
	if exit.Headline() != want {
		t.Errorf("Headline() = %q, want %q", exit.Headline(), want)
	}
	if first, _, _ := strings.Cut(exit.Error(), "\n"); !strings.Contains(first, want) {
		t.Errorf("the exit's first line %q does not name the error", first)
	}
}
