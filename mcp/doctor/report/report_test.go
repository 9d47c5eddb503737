package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

func TestDiagnosticsReportARepeatedFindingOnce(t *testing.T) {
	d := func(seq int64) mcp.Event {
		return mcp.DiagnosticEvent{Diagnostic: &mcp.Diagnostic{Rule: "tools/name-characters", Severity: mcp.SeverityWarning,
			Message: `Tool name "a b" is outside [A-Za-z0-9_.-]{1,128}.`, Frames: []int64{seq}}}
	}
	other := mcp.DiagnosticEvent{Diagnostic: &mcp.Diagnostic{Rule: "tools/name-characters", Severity: mcp.SeverityWarning,
		Message: `Tool name "c d" is outside [A-Za-z0-9_.-]{1,128}.`, Frames: []int64{7}}}
	got := Diagnostics([]mcp.Event{d(7), other, d(15)})
	if len(got) != 2 {
		t.Fatalf("got %d diagnostics, want 2 (the repeat merged, the other tool kept)", len(got))
	}
	if len(got[0].Frames) != 2 || got[0].Frames[0].Seq != 7 || got[0].Frames[1].Seq != 15 {
		t.Errorf("frames of the merged finding = %+v, want #7 and #15", got[0].Frames)
	}
}

// sample is a connected report with one error and one warning, the error
// repeated on two frames.
func sample() *Report {
	ds := []Diagnostic{
		{Rule: "capabilities/undeclared-method", Severity: "error", Message: "served tools/list undeclared", Frames: []FrameLabel{{Seq: 3, Label: "← result tools/list"}, {Seq: 9, Label: "← result tools/list"}}, Why: "why", Fix: "fix", SpecRef: "spec"},
		{Rule: "tools/name-characters", Severity: "warning", Message: "Tool name \"a b\"", Why: "w2", Fix: "f2", SpecRef: "s2"},
	}
	return &Report{Target: "demo", Profile: "generic", Connected: true, Diagnostics: ds, Summary: Count(ds)}
}

func TestCount(t *testing.T) {
	c := Count(append(sample().Diagnostics, Diagnostic{Severity: "hint"}))
	if c != (Counts{Errors: 1, Warnings: 1, Hints: 1}) {
		t.Errorf("Count = %+v", c)
	}
}

func TestWriteTextGroupsErrorsFirst(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "text", sample()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	e, w := strings.Index(out, "error   capabilities/undeclared-method (1)"), strings.Index(out, "warning tools/name-characters (1)")
	if e < 0 || w < 0 || e > w {
		t.Errorf("want the error group before the warning group:\n%s", out)
	}
	if !strings.Contains(out, "frames: #3 ← result tools/list, #9 ← result tools/list") || !strings.Contains(out, "1 error, 1 warning, 0 hints") {
		t.Errorf("text report:\n%s", out)
	}
}

func TestWriteSARIFPointsAtRules(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "sarif", sample()); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(doctor.Rules())+len(BudgetRules())+len(PreviewRules()) || len(run.Results) != 2 {
		t.Fatalf("%d rules, %d results", len(run.Tool.Driver.Rules), len(run.Results))
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s points at rule %s", r.RuleID, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
	}
	if run.Results[0].Level != "error" || run.Results[1].Level != "warning" || len(run.Results[0].Locations) != 2 {
		t.Errorf("results = %+v", run.Results)
	}
}

func TestWriteJUnitFailsErrorRulesOnly(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "junit", sample()); err != nil {
		t.Fatal(err)
	}
	var s junitSuites
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	failed := map[string]bool{}
	for _, c := range s.Suites[0].Cases {
		failed[c.Name] = c.Failure != nil
	}
	if s.Failures != 1 || !failed["capabilities/undeclared-method"] || failed["tools/name-characters"] {
		t.Errorf("failures = %d, %v", s.Failures, failed)
	}
	rep := sample()
	rep.Connected, rep.Cause, rep.Fix = false, "no such command", "install it"
	b.Reset()
	if err := WriteJUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `name="connect"`) || !strings.Contains(b.String(), "no such command") {
		t.Errorf("a failed connection is not a failing case:\n%s", b.String())
	}
}

func TestValidFormat(t *testing.T) {
	for _, f := range []string{"text", "json", "sarif", "junit"} {
		if !ValidFormat(f) || !strings.Contains(Formats, f) {
			t.Errorf("%s not accepted or not in Formats", f)
		}
	}
	if ValidFormat("xml") {
		t.Error("xml accepted")
	}
}

// A probe of a list the server did not declare, answered with -32601, got
// the answer it should: the report says so instead of "error: server
// error -32601"; a declared list that fails is still an error.
func TestProbeAnsweredMethodNotFoundIsNoError(t *testing.T) {
	rep := &Report{Target: "t", Profile: "generic", Lists: []List{
		{Method: "prompts/list", Probe: true, Error: "server error -32601: Method not found", ErrorCode: -32601},
		{Method: "resources/list", Declared: true, Error: "server error -32601: Method not found", ErrorCode: -32601},
	}}
	var b bytes.Buffer
	if err := Write(&b, "text", rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var probe, declared string
	for _, l := range lines {
		switch {
		case strings.Contains(l, "prompts/list"):
			probe = l
		case strings.Contains(l, "resources/list"):
			declared = l
		}
	}
	if strings.Contains(probe, "error") || !strings.Contains(probe, "not served (-32601), as expected") {
		t.Errorf("probe row: %q", probe)
	}
	if !strings.Contains(declared, "error: server error -32601") {
		t.Errorf("declared row: %q", declared)
	}
}
