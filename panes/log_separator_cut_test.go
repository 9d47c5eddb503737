package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// A restart's separator whose words are wider than the pane ends in an
// ellipsis, so that it does not read as whole ("… src/server.mjs cha");
// one whose words fit draws its rule to the edge.
func TestLogSeparatorCutsItsWordsWithAnEllipsis(t *testing.T) {
	for _, c := range []struct {
		text     string
		ellipsis bool
	}{
		{"restarted after src/server.mjs and src/tools/weather.mjs changed; build 0.12 s", true},
		{"restarted after a.go changed", false},
	} {
		l := NewLog(themes.Dark(), keymap.Default())
		l.SetSize(60, 10)
		l.AppendSeparator(time.Now(), c.text)
		row := ansi.Strip(l.renderRow(&l.entries[len(l.entries)-1], 56, false, false))
		if ansi.StringWidth(row) > 56 {
			t.Fatalf("row %q wider than 56", row)
		}
		if got := strings.HasSuffix(row, "…"); got != c.ellipsis {
			t.Errorf("%q: row %q, ellipsis %v, want %v", c.text, row, got, c.ellipsis)
		}
		if !c.ellipsis && !strings.HasSuffix(row, "─") {
			t.Errorf("row %q: the rule does not reach the edge", row)
		}
	}
}

// How a server ended, in one line: a server mcpscope stopped for a reload
// says so (not "exited with status 0 — no stderr output"), and a server
// that failed names the line of its stderr that says why, not Node's
// trailer below it.
func TestExitSummarySaysWhoEndedItAndWhy(t *testing.T) {
	for _, c := range []struct {
		exit *mcp.ExitError
		want string
	}{
		{&mcp.ExitError{Code: 0, Expected: true, StoppedFor: "the reload"},
			"mcpscope stopped the server for the reload (it exited with status 0)"},
		{&mcp.ExitError{Code: -1, Signal: "SIGTERM", Forced: "SIGTERM", Expected: true, StoppedFor: "the reload"},
			"mcpscope stopped the server for the reload with SIGTERM"},
		{&mcp.ExitError{Code: 1, LastStderr: []string{"    at node:internal/main/run_main_module:28:49 {", "  code: 'MODULE_NOT_FOUND',", "}", "", "Node.js v22.12.0"},
			ErrorLine: "Error: Cannot find module '/srv/nope.js'"},
			"server exited with status 1 — stderr: Error: Cannot find module '/srv/nope.js'"},
		{&mcp.ExitError{Code: 2, LastStderr: []string{"panic: boom", "", "goroutine 1 [running]:", "main.main()", "\t/srv/main.go:5 +0x28"}},
			"server exited with status 2 — stderr: panic: boom"},
		{&mcp.ExitError{Code: 1}, "server exited with status 1 — no stderr output"},
	} {
		if got := exitSummary(c.exit); got != c.want {
			t.Errorf("exitSummary = %q\n want %q", got, c.want)
		}
	}
}
