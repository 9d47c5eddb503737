package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/spf13/cobra"
)

// checkFlags configure the protocol doctor.
type checkFlags struct {
	connect   connectFlags
	otel      otelFlags
	profile   string
	format    string
	strict    bool
	callTools bool
	listRules bool
	// relist lists the declared lists a second time, relistDelay after
	// the first (--relist, or --relist-delay given).
	relist      bool
	relistDelay time.Duration
	callTimeout time.Duration
	// maxToolTokens and maxResultTokens are the budgets (0: none).
	maxToolTokens, maxResultTokens int
	// record is the session file to write (--record), keepSecrets its
	// --record-secrets.
	record      string
	keepSecrets bool
	// apps renders each tool's view in headless Chromium (--apps), found
	// on PATH or at browser; screenshots is the directory of their PNGs.
	apps                 bool
	browser, screenshots string
}

func newCheckCommand() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [flags] [-- CMD [ARGS...]]",
		Short: "Headless protocol doctor: find and explain what a server gets wrong",
		Long: `Connects, runs the handshake and discovery (every page of every list), and reports
each protocol mistake with why it matters and how to fix it. Lists the server did
not declare are probed too (marked as probes), since serving tools without
declaring them is the classic reason a client shows "No tools available". Each
list is requested once; with --relist, the declared lists are fetched a second
time a moment later, and a list that changed without a list_changed notification
is flagged.

With --apps, each tool that names a view (_meta.ui.resourceUri or
openai/outputTemplate) is called with minimal arguments and its view rendered in
headless Chromium on mcpscope's host page (docs/apps.md); CSP violations, console
errors and bridge errors are findings, --screenshots DIR keeps a PNG of each.

With --call-tools, every tool is called once with the smallest arguments its
inputSchema accepts, and the results are checked. This runs the tools for real:
do not use it against a server whose tools change things you care about.

The stdio server command follows --; with none, the built-in demo server.

Exit codes:
  0  no error (warnings allowed unless --strict)
  1  the server breaks at least one error rule (or any rule, with --strict)
  2  usage or invalid input
  3  connection or handshake failure (the cause and a likely fix are printed)

The report counts what the tool list costs a model in o200k_base tokens
(OpenAI's tokenizer; an estimate for other models): the definitions as
the server sent them (name, title, description, inputSchema,
outputSchema, annotations). --max-tool-tokens N makes a list over N an
error naming the costliest tools; with --call-tools, --max-result-tokens
N does the same for each result.`,
		Example: `  mcpscope check -- node build/index.js
  mcpscope check --client-profile chatgpt --format sarif -- uvx my-server > mcp.sarif
  mcpscope check --max-tool-tokens 4000 -- node build/index.js
  mcpscope check --apps --screenshots shots -- node dist/index.js --stdio
  mcpscope check --list-rules`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), cmd, &f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	f.connect.register(fs)
	f.otel.register(fs, true)
	fs.StringVar(&f.profile, "client-profile", "generic", "add the warnings of one client: generic, chatgpt, claude, vscode, gemini, codex, opencode or copilot")
	fs.StringVar(&f.format, "format", "text", "report format: text, json, sarif (SARIF 2.1.0) or junit")
	fs.BoolVar(&f.strict, "strict", false, "fail (exit 1) on warnings too")
	fs.BoolVar(&f.callTools, "call-tools", false, "call every tool once with minimal arguments generated from its schema, and check the results")
	fs.BoolVar(&f.listRules, "list-rules", false, "print every rule id with its severity and description, and exit")
	fs.DurationVar(&f.callTimeout, "call-timeout", 10*time.Second, "with --call-tools: how long each tool call may go without an answer or a progress notification before it is reported (tools/call-timeout) and cancelled; progress keeps it going for up to a minute (or six times this)")
	fs.IntVar(&f.maxToolTokens, "max-tool-tokens", 0, "fail (exit 1) when the tool list costs a model more than N tokens ("+tokens.Encoding+"; an estimate for models whose tokenizer is not public)")
	fs.IntVar(&f.maxResultTokens, "max-result-tokens", 0, "with --call-tools: fail (exit 1) when a tool's result costs more than N tokens")
	fs.BoolVar(&f.relist, "relist", false, "list the declared lists a second time after --relist-delay, and flag a list that changed without list_changed (every list is then requested twice)")
	fs.DurationVar(&f.relistDelay, "relist-delay", 500*time.Millisecond, "with --relist: how long to wait before listing a second time (giving it implies --relist)")
	fs.StringVar(&f.record, "record", "", "write every event of the check's session to FILE as JSON lines (docs/session-files.md); mcpscope open FILE shows it")
	fs.BoolVar(&f.apps, "apps", false, "render each tool's view (MCP Apps, ChatGPT skybridge) in headless Chromium: the tool called with minimal arguments, the view run on mcpscope's host and bridge, its CSP violations, console errors and bridge errors reported")
	fs.StringVar(&f.browser, "browser", "", "with --apps: the Chromium to run (default: chromium, chromium-browser or google-chrome on PATH)")
	fs.StringVar(&f.screenshots, "screenshots", "", "with --apps: write a PNG of each view to DIR (TOOL.png, replacing one of that name)")
	fs.BoolVar(&f.keepSecrets, "record-secrets", false, "keep environment values and URL query secrets (api_key=, token=...) in the --record file instead of redacting them")
	return cmd
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

func runCheck(ctx context.Context, cmd *cobra.Command, f *checkFlags, args []string, stdout, stderr io.Writer) (err error) {
	// JSON, SARIF and JUnit escape what a terminal would act on as \u /
	// &#x, and stay valid.
	stdout = terminalOutput(stdout, formOf(f.format))
	if f.listRules {
		return report.WriteRules(stdout)
	}
	if !report.ValidFormat(f.format) {
		return withCode(exitUsage, fmt.Errorf("--format %q: expected %s", f.format, report.Formats))
	}
	switch {
	case f.maxToolTokens < 0 || f.maxResultTokens < 0:
		return withCode(exitUsage, errors.New("--max-tool-tokens and --max-result-tokens take a number of tokens above 0"))
	case f.maxResultTokens > 0 && !f.callTools:
		return withCode(exitUsage, errors.New("--max-result-tokens needs --call-tools: only a call has a result to count"))
	case (f.browser != "" || f.screenshots != "") && !f.apps:
		return withCode(exitUsage, errors.New("--browser and --screenshots need --apps: they say how to render the views"))
	}
	profile, err := doctor.ParseProfile(f.profile)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--client-profile: %w", err))
	}
	t, err := f.connect.target(cmd, args)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		st.Grace = time.Second
	}
	opts := f.connect.clientOptions()
	if err := refuseOverwrite([]namedFile{{"--record", f.record}}, connectInputs(&f.connect)...); err != nil {
		return err
	}
	if f.record != "" {
		rec, rerr := createRecord(f.record, t, f.keepSecrets)
		if rerr != nil {
			return withCode(exitUsage, rerr)
		}
		opts.OnEvent = rec.Event
		defer closeRecord(rec, &err, stderr)
	}
	orun, oerr := f.otel.start(ctx, t)
	if oerr != nil {
		return oerr
	}
	orun.hook(&opts, f.otel.propagate)
	// After the client's shutdown (deferred later, run first): every
	// event is seen before the connection's span ends.
	defer orun.finish(stderr)
	opts.Analyzer = doctor.New(doctor.Options{Profile: profile})
	opts.Handler = neutralAnswers(stderr)
	client := mcp.NewClient(t.transport, opts)
	log := logEvents(client)
	rep := &report.Report{Target: t.shown(), Profile: string(profile)}

	hs, err := client.Connect(ctx)
	if err != nil {
		shutdown(client)
		rep.Cause, rep.Fix = doctor.ExplainConnectError(err, log.all())
		rep.Diagnostics = report.Diagnostics(log.all())
		rep.Summary = report.Count(rep.Diagnostics)
		if f.format != "text" {
			_ = report.Write(stdout, f.format, rep)
		}
		_, _ = fmt.Fprintf(stderr, "mcpscope check: cannot connect to %s\ncause: %s\nfix:   %s\n", t.shown(), termsafe.Block(rep.Cause), termsafe.Block(rep.Fix))
		return withCode(exitConnection, &connectFailure{err: err})
	}
	rep.Connected = true
	rep.Era, rep.ProtocolVersion = hs.Era.String(), hs.ProtocolVersion
	rep.Server = &hs.ServerInfo

	// The doctor reads the lists off the wire as they pass, and the report
	// and the tool calls take them from this one listing: a second listing
	// is only for the change it can catch (--relist).
	toolItems := discover(ctx, client, hs, rep, true)
	if f.relist || cmd.Flags().Changed("relist-delay") {
		select {
		case <-time.After(f.relistDelay):
		case <-ctx.Done():
		}
		if again := discover(ctx, client, hs, rep, false); again != nil {
			toolItems = again
		}
	}
	readViews(ctx, client, hs, toolItems, rep)
	if f.callTools {
		callTools(ctx, client, toolItems, rep, f.callTimeout)
	}
	var appFindings []report.Diagnostic
	if f.apps {
		appFindings = checkApps(ctx, client, toolItems, rep, f, stderr)
	}
	if toolItems != nil {
		model, appOnly := report.ForModel(toolItems)
		rep.Tokens = report.NewTokens(tokens.List(model), f.maxToolTokens, f.maxResultTokens)
		rep.Tokens.AppOnly = appOnly
	}
	if ctx.Err() != nil {
		shutdown(client) // interrupted: end within a second
	} else {
		shutdownWithin(client, checkShutdownBudget)
	}
	rep.Diagnostics = append(append(report.Diagnostics(log.all()), report.BudgetFindings(rep)...), appFindings...)
	rep.Summary = report.Count(rep.Diagnostics)

	if err := report.Write(stdout, f.format, rep); err != nil {
		return withCode(exitUsage, err)
	}
	switch {
	case rep.Summary.Errors > 0:
		return withCode(exitServerError, fmt.Errorf("%s found", plural.S(rep.Summary.Errors, "error")))
	case f.strict && rep.Summary.Warnings+rep.Summary.Hints > 0:
		return withCode(exitServerError, fmt.Errorf("%s and %s found (--strict)", plural.S(rep.Summary.Warnings, "warning"), plural.S(rep.Summary.Hints, "hint")))
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
func discover(ctx context.Context, c *mcp.Client, hs *mcp.Handshake, rep *report.Report, first bool) []json.RawMessage {
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
		out := report.List{Method: d.Method, Declared: declared, Probe: !declared, Items: len(items), Pages: pages}
		if err != nil {
			out.Error = err.Error()
			var rpc *mcp.RPCError
			if errors.As(err, &rpc) {
				out.ErrorCode = rpc.Code
			}
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

// maxViewReads bounds the views check reads.
const maxViewReads = 64

// readViews reads each view (ui:// template) the tools name, once, so the
// doctor's apps rules judge what a host would get. A server without the
// resources capability is not asked: the doctor says a host cannot read
// its views.
func readViews(ctx context.Context, c *mcp.Client, hs *mcp.Handshake, items []json.RawMessage, rep *report.Report) {
	if hs == nil || !hs.HasCapability("resources") {
		return
	}
	var order []string
	tools := map[string][]string{}
	for _, raw := range items {
		v := apps.ParseTool(raw)
		name := mcp.ParseTools([]json.RawMessage{raw})[0].Name
		for _, uri := range []string{v.ResourceURI, v.FlatResourceURI, v.OutputTemplate} {
			if !apps.IsUIURI(uri) || slices.Contains(tools[uri], name) {
				continue
			}
			if tools[uri] == nil {
				if len(order) == maxViewReads {
					continue
				}
				order = append(order, uri)
			}
			tools[uri] = append(tools[uri], name)
		}
	}
	for _, uri := range order {
		if c.Err() != nil {
			return
		}
		out := report.ViewRead{URI: uri, Tools: tools[uri]}
		resp, err := c.Call(ctx, mcp.MethodResourcesRead, map[string]any{"uri": uri})
		if err != nil {
			out.Error = err.Error()
		} else {
			out.Bytes = viewBytes(resp.Result, uri)
		}
		rep.Views = append(rep.Views, out)
	}
}

// viewBytes is the size of a read's text or blob for uri.
func viewBytes(result json.RawMessage, uri string) int {
	var res struct {
		Contents []struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
			Blob string `json:"blob"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(result, &res) // what it cannot read, the doctor reports
	n := 0
	for _, c := range res.Contents {
		if c.URI == uri {
			n += len(c.Text) + len(c.Blob)*3/4
		}
	}
	return n
}

// callTools calls each tool with the minimal instance of its inputSchema.
// Each call waits at most timeout without an answer or progress (not the
// 60 s request timeout), so a tool that never answers costs seconds, and
// is reported.
func callTools(ctx context.Context, c *mcp.Client, items []json.RawMessage, rep *report.Report, timeout time.Duration) {
	for _, tool := range mcp.ParseTools(items) {
		if tool.Name == "" || c.Err() != nil {
			continue
		}
		args, err := minimalArguments(tool.InputSchema)
		if err != nil {
			rep.ToolCalls = append(rep.ToolCalls, report.ToolCall{Tool: tool.Name, Arguments: json.RawMessage(`{}`), Untestable: err.Error()})
			continue
		}
		raw, _ := json.Marshal(args)
		out := report.ToolCall{Tool: tool.Name, Arguments: raw}
		// Progress restarts the timeout, as the spec allows and clients do,
		// up to a maximum: a tool that reports progress is never called
		// slow for taking long.
		opts := []mcp.CallOption{mcp.WithTimeoutResetOnProgress()}
		if timeout > 0 {
			opts = append(opts, mcp.WithTimeout(timeout), mcp.WithTimeoutMax(callMaximum(timeout)))
		}
		resp, err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": json.RawMessage(raw)}, opts...)
		if err != nil {
			out.Error = err.Error()
		} else {
			out.IsError = mcp.IsToolError(resp.Result)
			cost := tokens.Result(resp.Result, tokens.MaxCounted)
			out.Tokens = &cost
		}
		rep.ToolCalls = append(rep.ToolCalls, out)
	}
}

// callMaximum is how long progress can keep one of check's tool calls
// alive: a minute, or six call timeouts when that is longer.
func callMaximum(timeout time.Duration) time.Duration { return max(time.Minute, 6*timeout) }

// minimalArguments is the smallest object the schema accepts, or {}; an
// error (wrapping schema.ErrTooLarge) when the schema asks for more than
// mcpscope's caps, and the tool is then not called.
func minimalArguments(raw json.RawMessage) (any, error) {
	s, err := schema.Compile(raw)
	if err != nil {
		return map[string]any{}, nil
	}
	v, err := schema.MinimalInstanceBounded(s)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return map[string]any{}, nil
	}
	return v, nil
}
