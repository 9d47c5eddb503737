package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// JUnit XML: one test case per rule; a rule with error diagnostics fails.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// budgetSet is false for a budget rule check was given no budget for: it
// is no test case then.
func budgetSet(rep *Report, rule string) bool {
	switch rule {
	case RuleToolTokens:
		return rep.Tokens != nil && rep.Tokens.MaxToolTokens > 0
	case RuleResultTokens:
		return rep.Tokens != nil && rep.Tokens.MaxResultTokens > 0
	}
	if previewRule(rule) {
		return rep.Apps != nil && rep.Apps.Browser != ""
	}
	return true
}

// WriteJUnit writes rep as JUnit XML: one test case per rule of the
// profile; a rule with error diagnostics fails, a connection failure is an
// error case.
func WriteJUnit(w io.Writer, rep *Report) error {
	byRule := map[string][]Diagnostic{}
	for _, d := range rep.Diagnostics {
		byRule[d.Rule] = append(byRule[d.Rule], d)
	}
	suite := junitSuite{Name: "mcpscope check " + rep.Target}
	for _, r := range append(append(doctor.Rules(), BudgetRules()...), PreviewRules()...) {
		if r.Profile != "" && string(r.Profile) != rep.Profile || !budgetSet(rep, r.ID) {
			continue
		}
		area, _, _ := strings.Cut(r.ID, "/")
		tc := junitCase{Classname: "mcpscope." + area, Name: r.ID}
		if ds := byRule[r.ID]; len(ds) > 0 {
			var text strings.Builder
			for _, d := range ds {
				fmt.Fprintf(&text, "%s: %s\n", d.Severity, d.Message)
				for _, f := range d.Frames {
					fmt.Fprintf(&text, "  frame #%d %s\n", f.Seq, f.Label)
				}
			}
			fmt.Fprintf(&text, "why: %s\nfix: %s\nspec: %s\n", r.Why, r.Fix, r.SpecRef)
			if r.Severity == mcp.SeverityError {
				tc.Failure = &junitFailure{Message: ds[0].Message, Type: r.Severity.String(), Text: text.String()}
				suite.Failures++
			} else {
				tc.SystemOut = text.String()
			}
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	if !rep.Connected {
		suite.Errors = 1
		suite.Cases = append(suite.Cases, junitCase{Classname: "mcpscope.connection", Name: "connect",
			Failure: &junitFailure{Message: rep.Cause, Type: "connection", Text: rep.Cause + "\nfix: " + rep.Fix}})
		suite.Tests++
	}
	out := junitSuites{Name: "mcpscope check", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
