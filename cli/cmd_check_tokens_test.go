package cli

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/doctor/report"
)

// A tool-list budget below the demo server's cost fails check, naming the
// total and the costliest tools; one above it passes, and the report
// still says what the list costs.
func TestCheckMaxToolTokens(t *testing.T) {
	out, _, code := runCLI(t, "check", "--relist-delay", "10ms", "--max-tool-tokens", "100")
	if code != exitServerError {
		t.Fatalf("exit %d, want %d\n%s", code, exitServerError, out)
	}
	m := regexp.MustCompile(`The tool list costs (\d+) tokens in all \(o200k_base\), over the budget of 100; the costliest tools: book_trip \((\d+)\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no finding naming the total and book_trip:\n%s", out)
	}
	total, _ := strconv.Atoi(m[1])
	if total <= 100 {
		t.Fatalf("total %d", total)
	}
	if !strings.Contains(out, "error   "+report.RuleToolTokens+" (1)") {
		t.Errorf("the finding is not an error of %s:\n%s", report.RuleToolTokens, out)
	}

	out, _, code = runCLI(t, "check", "--relist-delay", "10ms", "--max-tool-tokens", strconv.Itoa(total+1))
	if code != exitOK {
		t.Fatalf("a budget of %d (the total is %d): exit %d\n%s", total+1, total, code, out)
	}
	if !strings.Contains(out, "tools cost "+strconv.Itoa(total)+" tokens in all") {
		t.Errorf("the report does not say what the list costs:\n%s", out)
	}
}

// Each format carries the costs and the budget finding.
func TestCheckTokensInEveryFormat(t *testing.T) {
	args := []string{"check", "--relist-delay", "10ms", "--max-tool-tokens", "100", "--call-tools", "--max-result-tokens", "1", "--format"}
	out, _, _, code := runCLISplit(append(args, "json")...)
	if code != exitServerError {
		t.Fatalf("json: exit %d\n%s", code, out)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tokens == nil || rep.Tokens.List <= 100 || len(rep.Tokens.Tools) != 11 || rep.Tokens.Tools[0].Name != "book_trip" || rep.Tokens.Encoding != "o200k_base" {
		t.Fatalf("tokens = %+v", rep.Tokens)
	}
	results := 0
	for _, tc := range rep.ToolCalls {
		if tc.Tokens != nil && tc.Tokens.Tokens > 1 {
			results++
		}
	}
	rules := map[string]int{}
	for _, d := range rep.Diagnostics {
		rules[d.Rule]++
	}
	if rules[report.RuleToolTokens] != 1 || rules[report.RuleResultTokens] == 0 || rules[report.RuleResultTokens] != results {
		t.Errorf("findings %v for %d results over 1 token", rules, results)
	}
	for _, format := range []string{"sarif", "junit"} {
		out, _, _, code := runCLISplit(append(args, format)...)
		if code != exitServerError || !strings.Contains(out, report.RuleToolTokens) || !strings.Contains(out, report.RuleResultTokens) || !strings.Contains(out, "over the budget of 100") {
			t.Errorf("%s: exit %d\n%.2000s", format, code, out)
		}
	}
	// Without a budget, JUnit has no budget case to pass.
	out, _, _, _ = runCLISplit("check", "--relist-delay", "10ms", "--format", "junit")
	if strings.Contains(out, "budget/") {
		t.Errorf("junit without a budget names a budget rule:\n%s", out)
	}
}

func TestCheckTokenBudgetUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--max-tool-tokens", "-1"},
		{"check", "--max-result-tokens", "100"},
	} {
		if _, _, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
