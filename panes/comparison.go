package panes

import (
	"fmt"

	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// Comparison is an answer compared with the one the same request got
// before (--rerun: the last request made by hand, sent again after the
// server restarted): where they differ, by replay's rules.
type Comparison struct {
	Title       string // "tools/call echo sent again after the restart"
	Differences []Difference
	// NoAnswer says the request got no answer this time (a timeout, a lost
	// connection): there was nothing to compare.
	NoAnswer bool
}

// Difference is one place where two answers differ.
type Difference struct {
	Path          string // a JSON pointer into the answer: /result/content/0/text
	Before, After string // the values there, as JSON ("" when absent)
}

// maxComparisonRows bounds the differences listed; the rest are counted.
const maxComparisonRows = 20

// ComparisonLines are a comparison as the result and content views show
// it, above the answer.
func ComparisonLines(t *themes.Theme, c *Comparison) []string {
	head := t.Detail.Title.Render(termsafe.String(c.Title)) + t.Detail.Label.Render(": ")
	switch {
	case c.NoAnswer:
		return []string{head + t.Log.LocalError.Render("no answer this time, nothing to compare")}
	case len(c.Differences) == 0:
		return []string{head + t.Result.OK.Render("the same answer as before") +
			t.Detail.Hint.Render(" (volatile values such as _meta and timestamps aside)")}
	}
	out := []string{head + t.Form.Warn.Render(plural.Of(len(c.Differences), "difference", "differences")+" from the answer before")}
	for i, d := range c.Differences {
		if i == maxComparisonRows {
			out = append(out, t.Detail.Hint.Render(fmt.Sprintf("  … and %d more", len(c.Differences)-i)))
			break
		}
		out = append(out, "  "+t.Detail.Label.Render(termsafe.String(d.Path)+"  ")+
			t.Detail.Problem.Render(termsafe.String(orAbsent(d.Before)))+t.Detail.Label.Render(" → ")+
			t.Result.OK.Render(termsafe.String(orAbsent(d.After))))
	}
	return out
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
