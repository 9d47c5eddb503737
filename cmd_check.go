package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lint"
	"github.com/mcpscope/mcpscope/mcp/schema"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
	"github.com/spf13/cobra"
)

// checkFlags configure the protocol doctor.
type checkFlags struct {
	connect     connectFlags
	profile     string
	format      string
	strict      bool
	callTools   bool
	listRules   bool
	relistDelay time.Duration
}

func newCheckCommand() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [flags] [-- CMD [ARGS...]]",
		Short: "Headless protocol doctor: find and explain what a server gets wrong",
		Long: `Connects, runs the handshake and discovery (every page of every list), and reports
each protocol mistake with why it matters and how to fix it. Lists the server did
not declare are probed too (marked as probes), since serving tools without
declaring them is the classic reason a client shows "No tools available". The
lists are fetched a second time a moment later: a list that changed without a
list_changed notification is flagged.

With --call-tools, every tool is called once with the smallest arguments its
inputSchema accepts, and the results are checked. This runs the tools for real:
do not use it against a server whose tools change things you care about.

The stdio server command follows --; with none, the built-in demo server.

Exit codes:
  0  no error (warnings allowed unless --strict)
  1  the server breaks at least one error rule (or any rule, with --strict)
  2  usage or invalid input
  3  connection or handshake failure (the cause and a likely fix are printed)`,
		Example: `  mcpscope check -- node build/index.js
  mcpscope check --client-profile chatgpt --format sarif -- uvx my-server > mcp.sarif
  mcpscope check --list-rules`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), cmd, &f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	f.connect.register(fs)
	fs.StringVar(&f.profile, "client-profile", "generic", "add the warnings of one client: generic, chatgpt, claude or vscode")
	fs.StringVar(&f.format, "format", "text", "report format: text, json, sarif (SARIF 2.1.0) or junit")
	fs.BoolVar(&f.strict, "strict", false, "fail (exit 1) on warnings too")
	fs.BoolVar(&f.callTools, "call-tools", false, "call every tool once with minimal arguments generated from its schema, and check the results")
	fs.BoolVar(&f.listRules, "list-rules", false, "print every rule id with its severity and description, and exit")
	fs.DurationVar(&f.relistDelay, "relist-delay", 500*time.Millisecond, "how long to wait before listing a second time")
	return cmd
}

// checkReport is what one check found; every format renders it.
type checkReport struct {
	Target          string              `json:"target"`
	Profile         string              `json:"profile"`
	Connected       bool                `json:"connected"`
	Cause           string              `json:"cause,omitempty"`
	Fix             string              `json:"fix,omitempty"`
	Era             string              `json:"era,omitempty"`
	ProtocolVersion string              `json:"protocolVersion,omitempty"`
	Server          *mcp.Implementation `json:"server,omitempty"`
	Lists           []listOutcome       `json:"lists,omitempty"`
	ToolCalls       []toolCallOutcome   `json:"toolCalls,omitempty"`
	Summary         severityCount       `json:"summary"`
	Diagnostics     []checkDiagnostic   `json:"diagnostics"`
}

type listOutcome struct {
	Method   string `json:"method"`
	Declared bool   `json:"declared"`
	Probe    bool   `json:"probe"`
	Items    int    `json:"items"`
	Pages    int    `json:"pages"`
	Error    string `json:"error,omitempty"`
}

type toolCallOutcome struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	IsError   bool            `json:"isError,omitempty"`
	Error     string          `json:"error,omitempty"`
}

type severityCount struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Hints    int `json:"hints"`
}

type checkDiagnostic struct {
	Rule     string       `json:"rule"`
	Severity string       `json:"severity"`
	Message  string       `json:"message"`
	Frames   []frameLabel `json:"frames,omitempty"`
	Why      string       `json:"why"`
	Fix      string       `json:"fix"`
	SpecRef  string       `json:"specRef"`
}

type frameLabel struct {
	Seq   int64  `json:"seq"`
	Label string `json:"label"`
}

// eventLog keeps a check session's events: few enough to hold, and needed
// for frame labels and the connection doctor.
type eventLog struct {
	mu     sync.Mutex
	events []mcp.Event
	done   chan struct{}
}

func logEvents(c *mcp.Client) *eventLog {
	l := &eventLog{done: make(chan struct{})}
	ch := c.Events()
	go func() {
		defer close(l.done)
		for ev := range ch {
			l.mu.Lock()
			l.events = append(l.events, ev)
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *eventLog) all() []mcp.Event {
	<-l.done
	return l.events
}

func runCheck(ctx context.Context, cmd *cobra.Command, f *checkFlags, args []string, stdout, stderr io.Writer) error {
	if f.listRules {
		return printRules(stdout)
	}
	switch f.format {
	case "text", "json", "sarif", "junit":
	default:
		return withCode(exitUsage, fmt.Errorf("--format %q: expected text, json, sarif or junit", f.format))
	}
	profile, err := lint.ParseProfile(f.profile)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--client-profile: %w", err))
	}
	t, err := f.connect.target(cmd, args)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		st.Grace = 200 * time.Millisecond
	}
	opts := f.connect.clientOptions()
	opts.Analyzer = lint.New(lint.Options{Profile: profile})
	client := mcp.NewClient(t.transport, opts)
	log := logEvents(client)
	rep := &checkReport{Target: t.description, Profile: string(profile)}

	hs, err := client.Connect(ctx)
	if err != nil {
		_ = client.Close()
		rep.Cause, rep.Fix = lint.ExplainConnectError(err, log.all())
		rep.Diagnostics = diagnostics(log.all())
		rep.Summary = count(rep.Diagnostics)
		if f.format != "text" {
			_ = render(stdout, f.format, rep)
		}
		fmt.Fprintf(stderr, "mcpscope check: cannot connect to %s\ncause: %s\nfix:   %s\n", t.description, termsafe.Block(rep.Cause), termsafe.Block(rep.Fix))
		return withCode(exitConnection, &connectFailure{err: err})
	}
	rep.Connected = true
	rep.Era, rep.ProtocolVersion = hs.Era.String(), hs.ProtocolVersion
	rep.Server = &hs.ServerInfo

	toolItems := discover(ctx, client, hs, rep, true)
	select {
	case <-time.After(f.relistDelay):
	case <-ctx.Done():
	}
	if again := discover(ctx, client, hs, rep, false); again != nil {
		toolItems = again
	}
	if f.callTools {
		callTools(ctx, client, toolItems, rep)
	}
	_ = client.Close()
	rep.Diagnostics = diagnostics(log.all())
	rep.Summary = count(rep.Diagnostics)

	if err := render(stdout, f.format, rep); err != nil {
		return withCode(exitUsage, err)
	}
	switch {
	case rep.Summary.Errors > 0:
		return withCode(exitServerError, fmt.Errorf("%d error(s) found", rep.Summary.Errors))
	case f.strict && rep.Summary.Warnings+rep.Summary.Hints > 0:
		return withCode(exitServerError, fmt.Errorf("%d warning(s) and %d hint(s) found (--strict)", rep.Summary.Warnings, rep.Summary.Hints))
	}
	return nil
}

// connectFailure is a connection error whose cause and fix were already
// printed in plain words; its own text only points there.
type connectFailure struct{ err error }

func (e *connectFailure) Error() string { return "connection failed (cause and likely fix above)" }
func (e *connectFailure) Unwrap() error { return e.err }

// discover lists everything; on the first pass it also probes the lists the
// server did not declare. It returns the tool entries when tools were listed.
func discover(ctx context.Context, c *mcp.Client, hs *mcp.Handshake, rep *checkReport, first bool) []json.RawMessage {
	var tools []json.RawMessage
	for _, d := range mcp.DiscoveryLists() {
		declared := hs.HasCapability(d.Capability)
		if !declared && !first {
			continue
		}
		var opts []mcp.CallOption
		if !declared {
			opts = append(opts, mcp.AsProbe())
		}
		items, pages, err := c.ListAll(ctx, d.Method, opts...)
		out := listOutcome{Method: d.Method, Declared: declared, Probe: !declared, Items: len(items), Pages: pages}
		if err != nil {
			out.Error = err.Error()
		}
		if first {
			rep.Lists = append(rep.Lists, out)
		}
		if d.Method == mcp.MethodToolsList && err == nil {
			tools = items
		}
		if c.Err() != nil {
			break
		}
	}
	return tools
}

// callTools calls each tool with the minimal instance of its inputSchema.
func callTools(ctx context.Context, c *mcp.Client, items []json.RawMessage, rep *checkReport) {
	for _, tool := range mcp.ParseTools(items) {
		if tool.Name == "" || c.Err() != nil {
			continue
		}
		args := minimalArguments(tool.InputSchema)
		raw, _ := json.Marshal(args)
		out := toolCallOutcome{Tool: tool.Name, Arguments: raw}
		resp, err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": json.RawMessage(raw)})
		if err != nil {
			out.Error = err.Error()
		} else {
			out.IsError = mcp.IsToolError(resp.Result)
		}
		rep.ToolCalls = append(rep.ToolCalls, out)
	}
}

// minimalArguments is the smallest object the schema accepts, or {}.
func minimalArguments(raw json.RawMessage) any {
	s, err := schema.Compile(raw)
	if err != nil {
		return map[string]any{}
	}
	v := schema.MinimalInstance(s)
	if _, ok := v.(map[string]any); !ok {
		return map[string]any{}
	}
	return v
}

// diagnostics collects the session's diagnostics with labels for their frames.
func diagnostics(events []mcp.Event) []checkDiagnostic {
	labels := map[int64]string{}
	for _, ev := range events {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			f := fe.Frame
			label := f.Dir.Arrow() + " " + f.Label()
			if f.Probe {
				label += " (probe)"
			}
			labels[f.Seq] = label
		}
	}
	out := []checkDiagnostic{}
	// check lists everything twice (to catch lists that change silently),
	// so the same finding about the same item comes twice: report it once,
	// with the frames of both listings.
	seen := map[string]int{}
	for _, ev := range events {
		de, ok := ev.(mcp.DiagnosticEvent)
		if !ok {
			continue
		}
		d := de.Diagnostic
		key := d.Rule + "\x00" + d.Message
		i, dup := seen[key]
		if !dup {
			i = len(out)
			seen[key] = i
			out = append(out, checkDiagnostic{Rule: d.Rule, Severity: d.Severity.String(), Message: d.Message, Why: d.Why, Fix: d.Fix, SpecRef: d.SpecRef})
		}
		for _, s := range d.Frames {
			out[i].Frames = append(out[i].Frames, frameLabel{Seq: s, Label: labels[s]})
		}
	}
	return out
}

func count(ds []checkDiagnostic) severityCount {
	var c severityCount
	for _, d := range ds {
		switch d.Severity {
		case "error":
			c.Errors++
		case "warning":
			c.Warnings++
		default:
			c.Hints++
		}
	}
	return c
}

func render(w io.Writer, format string, rep *checkReport) error {
	switch format {
	case "json":
		return writeJSON(w, rep)
	case "sarif":
		return writeSARIF(w, rep)
	case "junit":
		return writeJUnit(w, rep)
	}
	return writeText(w, rep)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printRules(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range lint.Rules() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Summary)
	}
	return tw.Flush()
}

var severityRank = map[string]int{"error": 0, "warning": 1, "hint": 2}

// ruleGroup is the diagnostics of one rule, for the text report.
type ruleGroup struct {
	rule  string
	sev   string
	items []checkDiagnostic
}

func groupByRule(ds []checkDiagnostic) []ruleGroup {
	idx := map[string]int{}
	var groups []ruleGroup
	for _, d := range ds {
		i, ok := idx[d.Rule]
		if !ok {
			i = len(groups)
			idx[d.Rule] = i
			groups = append(groups, ruleGroup{rule: d.Rule, sev: d.Severity})
		}
		groups[i].items = append(groups[i].items, d)
	}
	sort.SliceStable(groups, func(a, b int) bool {
		if severityRank[groups[a].sev] != severityRank[groups[b].sev] {
			return severityRank[groups[a].sev] < severityRank[groups[b].sev]
		}
		return groups[a].rule < groups[b].rule
	})
	return groups
}

func writeText(w io.Writer, rep *checkReport) error {
	var b strings.Builder
	safe := termsafe.String
	fmt.Fprintf(&b, "mcpscope check: %s (profile %s)\n", safe(rep.Target), rep.Profile)
	if rep.Server != nil {
		fmt.Fprintf(&b, "server: %s %s, protocol %s (%s era)\n", safe(rep.Server.Name), safe(rep.Server.Version), safe(rep.ProtocolVersion), rep.Era)
	}
	for _, l := range rep.Lists {
		state := fmt.Sprintf("%d item(s) in %d page(s)", l.Items, l.Pages)
		if l.Error != "" {
			state = "error: " + l.Error
		}
		tag := "declared"
		if l.Probe {
			tag = "probe, not declared"
		}
		fmt.Fprintf(&b, "  %-26s %-20s %s\n", l.Method, "("+tag+")", safe(state))
	}
	for _, tc := range rep.ToolCalls {
		state := "ok"
		switch {
		case tc.Error != "":
			state = "error: " + tc.Error
		case tc.IsError:
			state = "isError: true"
		}
		fmt.Fprintf(&b, "  call %s %s → %s\n", safe(tc.Tool), safe(string(tc.Arguments)), safe(state))
	}
	b.WriteString("\n")
	for _, g := range groupByRule(rep.Diagnostics) {
		fmt.Fprintf(&b, "%-7s %s (%d)\n", g.sev, g.rule, len(g.items))
		for _, d := range g.items {
			fmt.Fprintf(&b, "  • %s\n", safe(d.Message))
			if len(d.Frames) > 0 {
				var fs []string
				for _, fl := range d.Frames {
					fs = append(fs, fmt.Sprintf("#%d %s", fl.Seq, safe(fl.Label)))
				}
				fmt.Fprintf(&b, "    frames: %s\n", strings.Join(fs, ", "))
			}
		}
		d := g.items[0]
		fmt.Fprintf(&b, "  why:  %s\n  fix:  %s\n  spec: %s\n\n", safe(d.Why), safe(d.Fix), safe(d.SpecRef))
	}
	s := rep.Summary
	if s.Errors+s.Warnings+s.Hints == 0 {
		b.WriteString("No problems found.\n")
	} else {
		fmt.Fprintf(&b, "%d error(s), %d warning(s), %d hint(s)\n", s.Errors, s.Warnings, s.Hints)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/).

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(sev string) string {
	switch sev {
	case "error":
		return "error"
	case "warning":
		return "warning"
	}
	return "note"
}

func writeSARIF(w io.Writer, rep *checkReport) error {
	rules := lint.Rules()
	driver := sarifDriver{Name: "mcpscope", Version: version, InformationURI: "https://github.com/mcpscope/mcpscope"}
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.ID,
			ShortDescription:     sarifText{r.Summary},
			FullDescription:      sarifText{r.Why},
			Help:                 sarifText{r.Fix},
			DefaultConfiguration: map[string]string{"level": sarifLevel(r.Severity.String())},
			Properties:           map[string]string{"specRef": r.SpecRef},
		})
	}
	results := []sarifResult{}
	for _, d := range rep.Diagnostics {
		res := sarifResult{RuleID: d.Rule, RuleIndex: index[d.Rule], Level: sarifLevel(d.Severity), Message: sarifText{d.Message}}
		for _, f := range d.Frames {
			name := fmt.Sprintf("frame #%d", f.Seq)
			res.Locations = append(res.Locations, sarifLocation{LogicalLocations: []sarifLogical{{
				Name: name, FullyQualifiedName: rep.Target + "/" + name + " " + f.Label, Kind: "object"}}})
		}
		if rep.Connected && len(res.Locations) == 0 {
			res.Locations = []sarifLocation{{LogicalLocations: []sarifLogical{{Name: rep.Target, FullyQualifiedName: rep.Target, Kind: "module"}}}}
		}
		results = append(results, res)
	}
	return writeJSON(w, sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	})
}

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

func writeJUnit(w io.Writer, rep *checkReport) error {
	byRule := map[string][]checkDiagnostic{}
	for _, d := range rep.Diagnostics {
		byRule[d.Rule] = append(byRule[d.Rule], d)
	}
	suite := junitSuite{Name: "mcpscope check " + rep.Target}
	for _, r := range lint.Rules() {
		if r.Profile != "" && string(r.Profile) != rep.Profile {
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
