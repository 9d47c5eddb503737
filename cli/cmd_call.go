package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/spf13/cobra"
)

// callFlags are modelled on the official Inspector CLI's, so its users can
// switch without relearning.
type callFlags struct {
	connect     connectFlags
	policy      policyFlags
	method      string
	params      string
	toolName    string
	toolArgs    []string
	toolArgsRaw string
	uri         string
	promptName  string
	promptArgs  []string
	record      string
	keepSecrets bool
	noValidate  bool
	otel        otelFlags
}

func newCallCommand() *cobra.Command {
	var f callFlags
	cmd := &cobra.Command{
		Use:   "call --method METHOD [flags] [-- CMD [ARGS...]]",
		Short: "Send one request headless and print the result as JSON",
		Long: `Connects, performs the handshake, sends one request and prints its result as JSON
on stdout. The stdio server command follows --; with none, the built-in demo server.

Paginated lists (tools/list, prompts/list, resources/list, resources/templates/list)
are followed to the last page and printed as one list.

` + exitCodesHelp,
		Example: `  mcpscope call --method tools/list -- node build/index.js
  mcpscope call --method tools/call --tool-name add --tool-arg a=1 --tool-arg b=2
  mcpscope call --method resources/read --uri demo://readme --record session.jsonl`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(cmd.Context(), cmd, &f, args, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	f.connect.register(fs)
	f.policy.register(fs)
	fs.StringVar(&f.method, "method", "", "the method to call (tools/list, tools/call, resources/read, prompts/get, ping, ...)")
	fs.StringVar(&f.params, "params", "", "raw JSON params for any method")
	fs.StringVar(&f.toolName, "tool-name", "", "tool to call (tools/call)")
	fs.StringArrayVar(&f.toolArgs, "tool-arg", nil, "tool argument KEY=VALUE, converted to the type the tool's inputSchema gives (repeatable)")
	fs.StringVar(&f.toolArgsRaw, "tool-args-json", "", "tool arguments as one JSON object")
	fs.StringVar(&f.uri, "uri", "", "resource URI (resources/read, resources/subscribe)")
	fs.StringVar(&f.promptName, "prompt-name", "", "prompt to get (prompts/get)")
	fs.StringArrayVar(&f.promptArgs, "prompt-args", nil, "prompt argument KEY=VALUE (repeatable)")
	fs.StringVar(&f.connect.logLevel, "log-level", "", "logging level: the level for logging/setLevel, or the per-request level in the modern era")
	fs.StringVar(&f.record, "record", "", "write every event of the session to FILE as JSON lines (docs/session-files.md)")
	fs.BoolVar(&f.keepSecrets, "record-secrets", false, "keep environment values, URL query secrets (api_key=, token=...) and the command's secret arguments (--api-key X) in the --record file's header instead of redacting them")
	f.otel.register(fs, true)
	fs.BoolVar(&f.noValidate, "no-validate", false, "tools/call: send the arguments even when they do not match the tool's inputSchema")
	return cmd
}

func runCall(ctx context.Context, cmd *cobra.Command, f *callFlags, args []string, stdout io.Writer) (err error) {
	stdout = terminalOutput(stdout, formJSON)
	if f.method == "" {
		return withCode(exitUsage, errors.New("--method is required (e.g. --method tools/list)"))
	}
	t, err := f.connect.target(cmd, args)
	if err != nil {
		return withCode(exitUsage, err)
	}
	params, err := f.buildParams()
	if err != nil {
		return withCode(exitUsage, err)
	}
	opts := f.connect.clientOptions()
	if err := f.policy.apply(&opts, cmd.ErrOrStderr()); err != nil {
		return err
	}
	if err := refuseOverwrite([]namedFile{{"--record", f.record}}, connectInputs(&f.connect)...); err != nil {
		return err
	}
	if f.record != "" {
		rec, rerr := createRecord(f.record, t, f.keepSecrets)
		if rerr != nil {
			return withCode(exitUsage, rerr)
		}
		opts.OnEvent = rec.Event
		// After the shutdown below (deferred later, run first): the
		// record holds the server's end, and its close is checked.
		defer closeRecord(rec, &err, cmd.ErrOrStderr())
	}
	orun, oerr := f.otel.start(ctx, t)
	if oerr != nil {
		return oerr
	}
	orun.hook(&opts, f.otel.propagate)
	// After the client's shutdown (deferred later, run first): every
	// event is seen before the connection's span ends.
	defer orun.finish(cmd.ErrOrStderr())
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		// The answer is printed before shutdown starts, so waiting long
		// for a server that ignores stdin EOF (a Node server whose timers
		// keep it alive) only costs the user time. The spec's order is kept:
		// close stdin, wait, SIGTERM, wait, SIGKILL.
		st.Grace = 10 * time.Millisecond
	}
	// The doctor watches the call too: stdout stays the answer, and one
	// stderr line names what the server got wrong.
	opts.Analyzer = doctor.New(doctor.Options{})
	client := mcp.NewClient(t.transport, opts)
	early := &earlyEvents{keep: true}
	drained := drainEvents(client, early)
	connected := false
	defer func() {
		shutdown(client)
		<-drained
		if line := early.problemLine(); line != "" && connected {
			_, _ = fmt.Fprintln(cmd.ErrOrStderr(), line)
		}
	}()

	if _, err := client.Connect(ctx); err != nil {
		// Explain from everything the connection saw (its stderr, what it
		// printed on stdout), which is complete once the stream has closed.
		shutdown(client)
		<-drained
		return connectionError(explainConnect(err, early.events))
	}
	early.stop()
	connected = true
	if f.method == mcp.MethodToolsCall && (len(f.toolArgs) > 0 || !f.noValidate) {
		// One tools/list serves both: typing --tool-arg values and checking
		// the arguments against the inputSchema.
		tools, err := listTools(ctx, client, f.toolName)
		if err != nil {
			return err
		}
		if len(f.toolArgs) > 0 {
			if params, err = f.convertToolArgs(tools, params); err != nil {
				return err
			}
		}
		if !f.noValidate {
			if err := f.validateToolArgs(tools, params); err != nil {
				return err
			}
		}
	}
	result, err := f.send(ctx, client, params)
	if err != nil {
		return requestError(err, stdout)
	}
	if err := printJSON(stdout, result); err != nil {
		return withCode(exitUsage, err)
	}
	if f.method == mcp.MethodToolsCall && mcp.IsToolError(result) {
		return withCode(exitServerError, fmt.Errorf("tool %q returned isError: true", f.toolName))
	}
	return nil
}

// earlyEvents keeps the events of the connection phase, to explain a
// failed connection: the last maxEarlyEvents of them, as the TUI keeps
// for its connection doctor (a server that floods stderr before it
// answers initialize made call keep every line). After the handshake
// nothing more is kept.
const maxEarlyEvents = 512

type earlyEvents struct {
	mu     sync.Mutex
	keep   bool
	events []mcp.Event
	// findings are the doctor's errors and warnings, one per rule in the
	// order first seen; methods names the method of each frame seen (a
	// request's, a response's request's), to say where a finding arose.
	findings []*callFinding
	methods  map[int64]string
}

// callFinding is one rule the doctor flagged during a call: its first
// message, how often, and the methods of the frames it names.
type callFinding struct {
	d       *mcp.Diagnostic
	n       int
	methods []string
}

func (e *earlyEvents) add(ev mcp.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.keep {
		if len(e.events) == 2*maxEarlyEvents {
			e.events = append(e.events[:0], e.events[maxEarlyEvents:]...)
			clear(e.events[maxEarlyEvents : 2*maxEarlyEvents])
		}
		e.events = append(e.events, ev)
	}
	switch ev := ev.(type) {
	case mcp.FrameEvent:
		method := ev.Frame.Method
		if method == "" {
			method = ev.Frame.ReplyToMethod
		}
		if method != "" {
			if e.methods == nil {
				e.methods = map[int64]string{}
			}
			e.methods[ev.Frame.Seq] = method
		}
	case mcp.DiagnosticEvent:
		d := ev.Diagnostic
		if d == nil || !callWorthTelling(d) {
			return
		}
		var f *callFinding
		for _, g := range e.findings {
			if g.d.Rule == d.Rule {
				f = g
			}
		}
		if f == nil {
			f = &callFinding{d: d}
			e.findings = append(e.findings, f)
		}
		f.n++
		for _, seq := range d.Frames {
			if m := e.methods[seq]; m != "" && !slices.Contains(f.methods, m) {
				f.methods = append(f.methods, m)
			}
		}
	}
}

// callWorthTelling leaves out hints, and the exit rules call provokes
// itself by not waiting for the server to stop.
func callWorthTelling(d *mcp.Diagnostic) bool {
	return d.Severity >= mcp.SeverityWarning && d.Rule != "stdio/forced-exit"
}

// checkSends reports whether plain `mcpscope check` sends method too, so
// it would see the same finding (tools/call needs --call-tools).
func checkSends(method string) bool {
	if _, ok := mcp.LookupList(method); ok {
		return true
	}
	switch method {
	case mcp.MethodInitialize, mcp.MethodServerDiscover, mcp.NotifyInitialized, mcp.MethodPing:
		return true
	}
	return false
}

// problemLine is what call says on stderr about the doctor's findings,
// or "": each finding by rule, severity, where it arose and its message;
// "broke protocol rules" only for errors (a MUST), and which check run
// would explain it: plain check, check --call-tools, or none (check does
// not send that method).
func (e *earlyEvents) problemLine() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.findings) == 0 {
		return ""
	}
	var b strings.Builder
	nErr, callTools, notChecked := 0, false, map[string]bool{}
	for _, f := range e.findings {
		if f.d.Severity >= mcp.SeverityError {
			nErr++
		}
		for _, m := range f.methods {
			switch {
			case m == mcp.MethodToolsCall:
				callTools = true
			case !checkSends(m):
				notChecked[m] = true
			}
		}
	}
	if nErr > 0 {
		b.WriteString("mcpscope: the server broke protocol rules in this exchange:\n")
	} else {
		b.WriteString("mcpscope: the doctor has warnings about this exchange (what the spec recommends, not what it requires):\n")
	}
	for _, f := range e.findings {
		fmt.Fprintf(&b, "  %s %s", f.d.Severity, f.d.Rule)
		if f.n > 1 {
			fmt.Fprintf(&b, " (%d)", f.n)
		}
		if len(f.methods) > 0 {
			fmt.Fprintf(&b, " in %s", strings.Join(f.methods, ", "))
		}
		fmt.Fprintf(&b, ": %s\n", termsafe.String(f.d.Message))
	}
	switch {
	case callTools:
		b.WriteString("  `mcpscope check --call-tools` on the same target explains each (plain check calls no tool)")
	default:
		b.WriteString("  `mcpscope check` on the same target explains each")
	}
	if len(notChecked) > 0 {
		ms := make([]string, 0, len(notChecked))
		for m := range notChecked {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		fmt.Fprintf(&b, "; check does not send %s: the frames are in a --record file (mcpscope open FILE)", strings.Join(ms, ", "))
	}
	return b.String()
}

func (e *earlyEvents) stop() {
	e.mu.Lock()
	e.keep, e.events = false, nil
	e.mu.Unlock()
}

// drainEvents reads the event stream (the recorder already saw each event
// through OnEvent) so the client never holds them.
func drainEvents(c *mcp.Client, early *earlyEvents) <-chan struct{} {
	done := make(chan struct{})
	ch := c.Events()
	go func() {
		defer close(done)
		for ev := range ch {
			early.add(ev)
		}
	}()
	return done
}

// explainedConnectError is a connection error with the connection doctor's
// explanation: the cause in plain words and a likely fix.
type explainedConnectError struct {
	err        error
	cause, fix string
}

func (e *explainedConnectError) Error() string {
	return e.err.Error() + "\n  cause: " + e.cause + "\n  fix:   " + e.fix
}

func (e *explainedConnectError) Unwrap() error { return e.err }

func explainConnect(err error, events []mcp.Event) error {
	cause, fix := doctor.ExplainConnectError(err, events)
	if cause == "" {
		return err
	}
	return &explainedConnectError{err: err, cause: cause, fix: fix}
}

func (f *callFlags) buildParams() (map[string]any, error) {
	params := map[string]any{}
	if f.params != "" {
		if err := json.Unmarshal([]byte(f.params), &params); err != nil {
			return nil, fmt.Errorf("--params: not a JSON object: %w", err)
		}
	}
	switch f.method {
	case mcp.MethodToolsCall:
		if f.toolName == "" {
			return nil, errors.New("tools/call needs --tool-name")
		}
		params["name"] = f.toolName
		args := map[string]any{}
		if f.toolArgsRaw != "" {
			dec := json.NewDecoder(strings.NewReader(f.toolArgsRaw))
			dec.UseNumber()
			if err := dec.Decode(&args); err != nil {
				return nil, fmt.Errorf("--tool-args-json: not a JSON object: %w", err)
			}
		}
		for _, kv := range f.toolArgs {
			k, _, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--tool-arg %q: expected KEY=VALUE", kv)
			}
		}
		params["arguments"] = args
	case mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		if f.uri == "" {
			return nil, fmt.Errorf("%s needs --uri", f.method)
		}
		params["uri"] = f.uri
	case mcp.MethodPromptsGet:
		if f.promptName == "" {
			return nil, errors.New("prompts/get needs --prompt-name")
		}
		params["name"] = f.promptName
		pargs := map[string]string{}
		for _, kv := range f.promptArgs {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--prompt-args %q: expected KEY=VALUE", kv)
			}
			pargs[k] = v
		}
		params["arguments"] = pargs
	case mcp.MethodLoggingSetLevel:
		if f.connect.logLevel == "" {
			return nil, errors.New("logging/setLevel needs --log-level")
		}
		params["level"] = f.connect.logLevel
	}
	return params, nil
}

// listTools lists every tool (all pages), to read toolName's inputSchema.
func listTools(ctx context.Context, c *mcp.Client, toolName string) ([]mcp.Tool, error) {
	items, _, err := c.ListAll(ctx, mcp.MethodToolsList)
	if err != nil {
		return nil, requestError(fmt.Errorf("listing tools to read %q's inputSchema: %w", toolName, err), io.Discard)
	}
	return mcp.ParseTools(items), nil
}

// convertToolArgs turns each --tool-arg value into the type the tool's
// inputSchema gives its property, which needs the tool list.
func (f *callFlags) convertToolArgs(tools []mcp.Tool, params map[string]any) (map[string]any, error) {
	var tool *mcp.Tool
	names := make([]string, 0, len(tools))
	for i := range tools {
		names = append(names, tools[i].Name)
		if tools[i].Name == f.toolName {
			tool = &tools[i]
		}
	}
	if tool == nil {
		sort.Strings(names)
		return nil, withCode(exitUsage, fmt.Errorf("the server has no tool named %q; it offers: %s", f.toolName, strings.Join(names, ", ")))
	}
	args := params["arguments"].(map[string]any)
	for _, kv := range f.toolArgs {
		k, v, _ := strings.Cut(kv, "=")
		val, err := schema.CoerceArgument(tool.InputSchema, k, v)
		if err != nil {
			return nil, withCode(exitUsage, fmt.Errorf("--tool-arg %s: %w", kv, err))
		}
		args[k] = val
	}
	return params, nil
}

// validateToolArgs checks the arguments against the tool's inputSchema
// before they are sent, with the validator and the wording of the TUI's
// form (mcp/lib/schema). Invalid arguments are a usage error (exit 2) naming
// each failing JSON pointer; --no-validate skips this.
func (f *callFlags) validateToolArgs(tools []mcp.Tool, params map[string]any) error {
	var tool *mcp.Tool
	for i := range tools {
		if tools[i].Name == f.toolName {
			tool = &tools[i]
		}
	}
	if tool == nil {
		// The server decides what an unknown tool means; nothing to check.
		return nil
	}
	return checkToolArguments(f.toolName, tool.InputSchema, params["arguments"])
}

// checkToolArguments is call's verdict on arguments: nil when they match
// the tool's inputSchema (compiled by mcp/lib/schema, like the form's, the JSON
// editor's and the doctor's), else a usage error naming each failing JSON
// pointer, or saying why the schema cannot be used.
func checkToolArguments(toolName string, inputSchema json.RawMessage, args any) error {
	sch, err := schema.Compile(inputSchema)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("tool %q: cannot validate the arguments, its inputSchema %w (--no-validate sends them anyway)", toolName, err))
	}
	issues := sch.Validate(args)
	if len(issues) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the arguments do not match %q's inputSchema (--no-validate sends them anyway):", toolName)
	for _, is := range issues {
		b.WriteString("\n  " + is.String())
	}
	return withCode(exitUsage, errors.New(b.String()))
}

// send performs the request; paginated lists are followed to the end.
func (f *callFlags) send(ctx context.Context, c *mcp.Client, params map[string]any) (json.RawMessage, error) {
	if key := mcp.ListItemsKey(f.method); key != "" && f.params == "" {
		items, _, err := c.ListAll(ctx, f.method)
		if err != nil {
			return nil, err
		}
		if items == nil {
			items = []json.RawMessage{}
		}
		return json.Marshal(map[string][]json.RawMessage{key: items})
	}
	var p any = params
	if len(params) == 0 && (f.method == mcp.MethodPing) {
		p = nil
	}
	resp, err := c.Call(ctx, f.method, p, headlessCallOptions()...)
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

func printJSON(w io.Writer, raw json.RawMessage) error {
	if err := writeIndented(w, raw); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// connectionError maps a failed Connect to exit 3 (or 4 for a handshake
// request that timed out).
func connectionError(err error) error {
	if mcp.IsTimeout(err) {
		return withCode(exitTimeout, err)
	}
	return withCode(exitConnection, err)
}

// requestError maps a failed request to its exit code. A server error is
// also printed on stdout as {"error": {...}} so scripts can read it.
func requestError(err error, stdout io.Writer) error {
	var rpcErr *mcp.RPCError
	var le *mcp.LocalError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return err
	case errors.As(err, &rpcErr):
		b, _ := json.Marshal(map[string]any{"error": rpcErr})
		_ = printJSON(stdout, b)
		return withCode(exitServerError, err)
	case errors.As(err, &le) && le.Kind == mcp.Timeout:
		return withCode(exitTimeout, err)
	case errors.As(err, &le) && le.Kind == mcp.Cancelled:
		return withCode(exitConnection, err)
	case errors.As(err, &le):
		return withCode(exitConnection, err)
	}
	return withCode(exitServerError, err)
}
