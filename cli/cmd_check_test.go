package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// scriptArgs runs this test binary as a scripted fake server.
func scriptArgs(sc mcptest.Script) []string {
	var args []string
	for _, kv := range sc.Env() {
		args = append(args, "-e", kv)
	}
	return append(args, "--", os.Args[0])
}

func TestCheckDemoServerIsClean(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			out, _, err, code := runCLISplit("check", "--era", era, "--call-tools", "--relist-delay", "50ms", "--format", "json")
			var rep report.Report
			if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
				t.Fatalf("not JSON: %v\n%s", jerr, out)
			}
			if code != exitOK || rep.Summary.Errors > 0 {
				t.Fatalf("exit %d (%v), diagnostics: %+v", code, err, rep.Diagnostics)
			}
			if !rep.Connected || len(rep.ToolCalls) == 0 || len(rep.Lists) != 4 {
				t.Errorf("report = %+v", rep)
			}
		})
	}
}

// brokenServer serves tools without declaring them and prints a banner on
// stdout: the two classic mistakes.
var brokenServer = mcptest.Script{
	Start: []string{"Weather server v1 listening on stdio"},
	On: map[string][][]string{
		"tools/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"forecast","inputSchema":{"type":"object"}}]}}`}},
	},
}

func TestCheckFindsAndExplainsErrors(t *testing.T) {
	out, _, code := runCLI(t, append([]string{"check", "--relist-delay", "10ms"}, scriptArgs(brokenServer)...)...)
	if code != exitServerError {
		t.Fatalf("exit %d, want %d\n%s", code, exitServerError, out)
	}
	for _, want := range []string{
		"error   capabilities/undeclared-method (1)",
		"error   framing/non-json-stdout (1)",
		"probe, not declared",
		"answered mcpscope's probe of tools/list",
		"why:", "fix:", "spec:",
		"write it to stderr",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckFormats(t *testing.T) {
	args := append([]string{"check", "--relist-delay", "10ms"}, scriptArgs(brokenServer)...)
	t.Run("sarif", func(t *testing.T) {
		out, _, _ := runCLI(t, append([]string{"--format", "sarif"}, args...)...)
		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name  string `json:"name"`
						Rules []struct {
							ID string `json:"id"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID    string `json:"ruleId"`
					RuleIndex int    `json:"ruleIndex"`
					Level     string `json:"level"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &log); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) == 0 {
			t.Fatalf("sarif = %s", out)
		}
		run := log.Runs[0]
		for _, r := range run.Results {
			if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID || r.Level == "" {
				t.Errorf("result %+v does not point at its rule", r)
			}
		}
	})
	t.Run("junit", func(t *testing.T) {
		out, _, _ := runCLI(t, append([]string{"--format", "junit"}, args...)...)
		var suites struct {
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Name    string    `xml:"name,attr"`
					Failure *struct{} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &suites); err != nil {
			t.Fatalf("not XML: %v\n%s", err, out)
		}
		if suites.Failures < 2 || len(suites.Suites) != 1 {
			t.Fatalf("junit = %s", out)
		}
		failed := map[string]bool{}
		for _, c := range suites.Suites[0].Cases {
			failed[c.Name] = c.Failure != nil
		}
		if !failed["capabilities/undeclared-method"] || failed["tools/duplicate-name"] {
			t.Errorf("wrong failures: %v", failed)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, _, _ := runCLI(t, append([]string{"--format", "json"}, args...)...)
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if rep.Summary.Errors < 2 || rep.Diagnostics[0].Why == "" || len(rep.Diagnostics[0].Frames) == 0 {
			t.Errorf("report = %+v", rep)
		}
	})
}

func TestCheckStrictFailsOnWarnings(t *testing.T) {
	sc := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string][][]string{
		"tools/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"get weather","inputSchema":{"type":"object"}}]}}`}},
	}}
	args := append([]string{"check", "--relist-delay", "10ms"}, scriptArgs(sc)...)
	if out, err, code := runCLI(t, args...); code != exitOK || !strings.Contains(out, "tools/name-characters") {
		t.Fatalf("without --strict: exit %d (%v)\n%s", code, err, out)
	}
	strict := append([]string{"check", "--strict"}, args[1:]...)
	if _, _, code := runCLI(t, strict...); code != exitServerError {
		t.Fatalf("with --strict: exit %d, want %d", code, exitServerError)
	}
}

func TestCheckConnectionDoctor(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"not found":      {[]string{"--", "mcpscope-no-such-command"}, "was not found on PATH"},
		"exits at once":  {fakeArgs("exit-at-start"), "fatal: config file not found"},
		"version":        {fakeArgs("bad-version"), "protocol version mcpscope does not speak"},
		"stdout garbage": {append([]string{"--timeout", "500ms"}, scriptArgs(mcptest.Script{Start: []string{"Usage: server [stdio|http]"}, On: map[string][][]string{"initialize": {{"@sleep:1s"}}}})...), "printed only non-JSON on stdout"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err, code := runCLI(t, append([]string{"check"}, tc.args...)...)
			if code != exitConnection {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, exitConnection, out)
			}
			if !strings.Contains(out, "cause:") || !strings.Contains(out, "fix:") || !strings.Contains(out, tc.want) {
				t.Errorf("output lacks cause/fix/%q:\n%s", tc.want, out)
			}
		})
	}
}

func TestCheckUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"check", "--format", "xml"}, {"check", "--client-profile", "emacs"}} {
		if _, _, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestCheckListRules(t *testing.T) {
	out, err, code := runCLI(t, "check", "--list-rules")
	if code != exitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, r := range doctor.Rules() {
		if !strings.Contains(out, r.ID) {
			t.Errorf("--list-rules lacks %s", r.ID)
		}
	}
}

// TestDoctorPageListsEveryRule keeps the rule table of docs/doctor.md
// equal to doctor.Rules(): same ids, severities and descriptions, in
// order. -update-docs rewrites it.
func TestDoctorPageListsEveryRule(t *testing.T) {
	const path = "../docs/doctor.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), rulesBegin+"\n")
	_, after, ok2 := strings.Cut(rest, rulesEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no rule table (%s ... %s)", path, rulesBegin, rulesEnd)
	}
	want := before + rulesBegin + "\n" + ruleTable(doctor.Rules()) + rulesEnd + after
	if want == string(doc) {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the rule table is not doctor.Rules()'s; run go test ./cli -run TestDoctorPageListsEveryRule -update-docs and review the diff", path)
}

const (
	rulesBegin = "<!-- rules: generated by go test ./cli -run TestDoctorPageListsEveryRule -update-docs; do not edit -->"
	rulesEnd   = "<!-- end of rules -->"
)

// The table follows the rules: a rule reworded changes it.
func TestRuleTableFollowsTheRules(t *testing.T) {
	rules := doctor.Rules()
	table := ruleTable(rules)
	changed := slices.Clone(rules)
	changed[0].Summary += " (changed)"
	if ruleTable(changed) == table {
		t.Error("a reworded rule leaves the table as it was")
	}
}

// ruleCell escapes a description for a Markdown table cell.
func ruleCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func ruleTable(rules []doctor.RuleInfo) string {
	var b strings.Builder
	b.WriteString("| Rule | Severity | What it checks |\n|---|---|---|\n")
	for _, r := range rules {
		b.WriteString("| `" + r.ID + "` | " + r.Severity.String() + " | " + ruleCell(r.Summary) + " |\n")
	}
	return b.String()
}

// TestCheckServerEverything: the reference server breaks no error rule.
func TestCheckServerEverything(t *testing.T) {
	se := serverEverything(t)
	// stdout holds the report alone; the neutral answers to the server's
	// roots, elicitation and sampling requests are said on stderr.
	out, stderr, err, code := runCLISplit("check", "--format", "json", "--call-tools", "--relist-delay", "100ms", "--", "node", se)
	var rep report.Report
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
		t.Fatalf("exit %d (%v); stdout is not JSON: %v\n%s\nstderr:\n%s", code, err, jerr, out, stderr)
	}
	if !strings.Contains(stderr, "sampling/createMessage: declined") {
		t.Errorf("stderr does not say the sampling request was declined:\n%s", stderr)
	}
	if code != exitOK || rep.Summary.Errors > 0 {
		t.Fatalf("exit %d (%v); diagnostics: %+v", code, err, rep.Diagnostics)
	}
	for _, d := range rep.Diagnostics {
		t.Logf("%s %s: %s", d.Severity, d.Rule, d.Message)
	}
}

// A server that exits on its own after its stdin closes, a little slowly,
// is not reported as needing SIGTERM: check waited only 0.2 s, which a
// Node server on a busy machine exceeds, and cried stdio/forced-exit.
func TestCheckGivesASlowExitItsDue(t *testing.T) {
	if raceEnabled {
		t.Skip("times a process's exit: the race detector's binaries start and end several times slower; the plain run enforces it")
	}
	out, _, _, code := runCLISplit(append([]string{"check", "--format", "json"}, fakeArgs("slow-exit")...)...)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if strings.Contains(out, "stdio/forced-exit") {
		t.Errorf("a server that exits 0.4 s after stdin closes was reported as forced to exit:\n%s", out)
	}
}

// A server that dies during a tool call fails the check, naming the tool,
// the exit status and the last stderr lines; a tool that never answers is
// reported within --call-timeout, not after the 60 s request timeout.
func TestCheckCallToolsCrashAndTimeout(t *testing.T) {
	toolsList := `{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"boom","inputSchema":{"type":"object"}}]}}`
	crash := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string][][]string{
		"tools/list": {{toolsList}},
		"tools/call": {{"@stderr:loading model", "@stderr:panic: out of memory", "@exit:2"}},
	}}
	out, _, code := runCLI(t, append([]string{"check", "--call-tools", "--relist-delay", "10ms"}, scriptArgs(crash)...)...)
	if code != exitServerError {
		t.Fatalf("exit %d, want %d\n%s", code, exitServerError, out)
	}
	for _, want := range []string{"stdio/died-during-request", `tools/call "boom"`, "status 2", "panic: out of memory"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	hang := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string][][]string{
		"tools/list": {{toolsList}},
		"tools/call": {{"@sleep:30s"}},
	}}
	start := time.Now()
	out, _, code = runCLI(t, append([]string{"check", "--call-tools", "--call-timeout", "500ms", "--relist-delay", "10ms"}, scriptArgs(hang)...)...)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("check took %s with --call-timeout 500ms", took)
	}
	if !strings.Contains(out, "warning tools/call-timeout") || !strings.Contains(out, `tools/call "boom"`) {
		t.Errorf("timeout not reported as a warning naming the tool (exit %d):\n%s", code, out)
	}
}

// A server that answers the handshake under another id: check and call exit
// 3 within seconds (not the 60 s timeout), naming the id sent and the id
// received.
func TestUnmatchedHandshakeAnswerFailsFast(t *testing.T) {
	sc := mcptest.Script{On: map[string][][]string{
		"initialize": {{`{"jsonrpc":"2.0","id":"not-yours","result":{"protocolVersion":"{{version}}","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`}},
	}}
	for _, cmd := range [][]string{{"check"}, {"call", "--method", "tools/list"}} {
		t.Run(cmd[0], func(t *testing.T) {
			start := time.Now()
			out, err, code := runCLI(t, append(cmd, scriptArgs(sc)...)...)
			took := time.Since(start)
			if err != nil {
				out += "\n" + err.Error() // what main prints on stderr
			}
			if code != exitConnection {
				t.Fatalf("exit %d, want %d\n%s", code, exitConnection, out)
			}
			if took > 10*time.Second {
				t.Errorf("took %s; want well under 10 s", took)
			}
			if !strings.Contains(out, `id "not-yours"`) || !strings.Contains(out, "initialize with id 1") {
				t.Errorf("output does not name both ids:\n%s", out)
			}
			if strings.Contains(out, "Run `mcpscope check`") {
				t.Errorf("advice points at check:\n%s", out)
			}
		})
	}
}

// What mcpscope declares it answers: roots/list gets no roots and
// elicitation is declined (not -32601), and stderr says so, once.
func TestHeadlessNeutralAnswers(t *testing.T) {
	sc := mcptest.Script{On: map[string][][]string{
		"notifications/initialized": {{`{"jsonrpc":"2.0","id":"r1","method":"roots/list"}`, `{"jsonrpc":"2.0","id":"r2","method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}`}},
		"ping": {{"@sleep:200ms", `{"jsonrpc":"2.0","id":{{id}},"result":{}}`}},
	}}
	dir := t.TempDir()
	rec := dir + "/s.jsonl"
	out, err, code := runCLI(t, append([]string{"call", "--method", "ping", "--record", rec}, scriptArgs(sc)...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if n := strings.Count(out, "mcpscope: the server sent roots/list: answered with no roots"); n != 1 {
		t.Errorf("roots note %d times:\n%s", n, out)
	}
	if !strings.Contains(out, "mcpscope: the server sent elicitation/create: declined") {
		t.Errorf("no elicitation note:\n%s", out)
	}
	b, _ := os.ReadFile(rec)
	for _, want := range []string{`{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"result\":{\"roots\":[]}}`, `{\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"result\":{\"action\":\"decline\"}}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("session lacks the answer %s", want)
		}
	}
}

// call keeps stdout the answer and adds one stderr line naming the
// protocol problems it saw, pointing at check; a clean server gets none.
func TestCallNamesProtocolProblemsOnStderr(t *testing.T) {
	sc := mcptest.Script{Start: []string{"Server listening on stdio"}, On: map[string][][]string{
		"ping": {{`{"id":{{id}},"result":{}}`}},
	}}
	stdout, stderr, err, code := runCLISplit(append([]string{"call", "--method", "ping"}, scriptArgs(sc)...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr)
	}
	if strings.TrimSpace(stdout) != "{}" {
		t.Errorf("stdout changed: %q", stdout)
	}
	for _, want := range []string{"broke protocol rules", "error framing/non-json-stdout:", "error framing/jsonrpc-version in ping:", "`mcpscope check` on the same target"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, stderr)
		}
	}
	stdout, stderr, _, code = runCLISplit("call", "--method", "tools/list")
	if code != exitOK || strings.Contains(stderr, "broke protocol rules") || stdout == "" {
		t.Errorf("demo server: exit %d, stderr %q", code, stderr)
	}
}

// A tool that reports progress while it works is not called slow: progress
// restarts check's --call-timeout (the spec lets progress reset a timeout),
// as server-everything's trigger-long-running-operation needs. The same
// server gone silent after its progress is still reported.
func TestCheckCallTimeoutResetsOnProgress(t *testing.T) {
	toolsList := `{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}}`
	progress := func(n int) string {
		return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{{progressToken}},"progress":` + strconv.Itoa(n) + `,"total":4}}`
	}
	var working []string
	for i := 1; i <= 4; i++ {
		working = append(working, "@sleep:250ms", progress(i))
	}
	answer := `{"jsonrpc":"2.0","id":{{id}},"result":{"content":[{"type":"text","text":"done"}]}}`
	for _, tc := range []struct {
		name  string
		reply []string
		want  string // the finding's message, "" for none
	}{
		{"reporting", append(append([]string{}, working...), "@sleep:250ms", answer), ""},
		{"silent after progress", append(append([]string{}, working[:2]...), "@sleep:30s"), `tools/call "slow" sent progress, then nothing for`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string][][]string{
				"tools/list": {{toolsList}},
				"tools/call": {tc.reply},
			}}
			out, _, code := runCLI(t, append([]string{"check", "--call-tools", "--call-timeout", "600ms", "--relist-delay", "10ms"}, scriptArgs(sc)...)...)
			got := strings.Contains(out, "tools/call-timeout")
			switch {
			case tc.want == "" && (got || code != exitOK):
				t.Errorf("a tool that reports progress every 250 ms was reported (exit %d):\n%s", code, out)
			case tc.want != "" && !strings.Contains(out, tc.want):
				t.Errorf("report lacks %q (exit %d):\n%s", tc.want, code, out)
			}
		})
	}
}

// What call says about the doctor's findings is true: a warning (a SHOULD)
// is not "broke protocol rules", a finding in tools/call is one plain check
// never sees (it needs --call-tools), and a finding in a method check does
// not send says so.
func TestCallSaysWhichCheckExplainsAFinding(t *testing.T) {
	tools := `{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}}`
	sc := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string][][]string{
		"tools/list": {{tools}},
		"tools/call": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"content":[{"type":"text","text":"done"}],"structuredContent":{"n":1}}}`}},
	}}
	_, stderr, err, code := runCLISplit(append([]string{"call", "--method", "tools/call", "--tool-name", "a"}, scriptArgs(sc)...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr)
	}
	for _, want := range []string{"warning tools/missing-text-fallback in tools/call:", "not what it requires", "mcpscope check --call-tools"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "broke protocol rules") {
		t.Errorf("a warning is told as broken rules:\n%s", stderr)
	}
}

// check --record writes the check's session: a session file that reads
// back with the handshake and every listing, as
// docs/session-files.md says.
func TestCheckRecordsItsSession(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "check.jsonl")
	out, err, code := runCLI(t, "check", "--record", rec, "--relist-delay", "1ms")
	if code != exitOK {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	fh, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := record.ReadEvents(fh, true)
	_ = fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, ev := range sf.Events {
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Method != "" {
			methods[fe.Frame.Method] = true
		}
	}
	for _, m := range []string{"initialize", "tools/list", "prompts/list", "resources/list"} {
		if !methods[m] {
			t.Errorf("the record lacks %s: %v", m, methods)
		}
	}
	if st, _ := os.Stat(rec); st.Mode().Perm() != 0o600 {
		t.Errorf("the record is %v", st.Mode())
	}
}
