package cli

// mcpscope test: the saved calls of a calls file, run headless (CI). The
// file is named cmd_testcalls.go, not cmd_test.go, which Go would take for
// a test file.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/calls"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/replay"
	"github.com/spf13/cobra"
)

// testFlags are mcpscope test's options.
type testFlags struct {
	connect     connectFlags
	policy      policyFlags
	calls       string
	format      string
	only        []string
	update      bool
	from        string
	record      string
	keepSecrets bool
	otel        otelFlags
}

const testExitCodes = `Exit codes:
  0  every call passed
  1  some calls failed
  2  usage, a calls file that does not parse (its file, line and column are named), or a
     --record file that could not be written whole (a full disk)
  3  connection or handshake failure (or the connection was lost)
  4  a call timed out`

func newTestCommand() *cobra.Command {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "test [--calls FILE] [-- CMD [ARGS...] | URL | --config FILE --server NAME]",
		Short: "Run the saved calls of a calls file and check their answers (CI)",
		Long: `Runs every call of a calls file (by default ` + calls.DefaultPath + ` in the working
directory; --calls for another) in order, in one session, and checks each answer against what
the call expects: isError, error, equals and matches (JSON pointers into the result or the
error), schema ("output" for the tool's outputSchema, or a schema), snapshot (the whole answer,
compared as mcpscope replay compares, with the same ignore paths) and maxMs. Each call passes
or fails with the difference. Save calls from the TUI (S on a result) or write the file:

  {"calls": [{"name": "add small numbers", "method": "tools/call",
              "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
              "expect": {"isError": false, "equals": {"/structuredContent/sum": 3}}}]}

A call saved from the TUI names its server ("server": its serverInfo.name): one calls file
serves every server started in a folder, so the calls saved for another server are skipped,
and the report names them (--only runs one anyway). A call without "server" is for any.

--update takes the current answers as the new snapshots (only calls that have one), as
golden files are updated. --from SESSION.jsonl writes a calls file from a recording: one call
per request the client sent, its recorded answer as the snapshot. The file is edited in place:
comments and layout elsewhere are kept.

` + testExitCodes,
		Example: `  mcpscope test
  mcpscope test --format junit -- node build/index.js > mcpscope-test.xml
  mcpscope test --calls smoke.calls.json --only "add small numbers" https://example.com/mcp
  mcpscope test --update -- ./server
  mcpscope test --from session.jsonl --calls seeded.calls.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTest(cmd.Context(), cmd, &f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.calls, "calls", calls.DefaultPath, "the calls file")
	fs.StringVar(&f.format, "format", "text", "output: text, json or junit (one testcase per call)")
	fs.StringArrayVar(&f.only, "only", nil, "run only the call called NAME (repeatable)")
	fs.BoolVar(&f.update, "update", false, "take the current answers as the new snapshots, and write them to the calls file")
	fs.StringVar(&f.from, "from", "", "write a new calls file from a session file's requests (their answers as snapshots) and stop")
	fs.StringVar(&f.record, "record", "", "write every event of the session to FILE as JSON lines")
	fs.BoolVar(&f.keepSecrets, "record-secrets", false, "keep environment values, URL query secrets and the command's secret arguments in the --record file's header instead of redacting them")
	f.connect.register(fs)
	f.policy.register(fs)
	f.otel.register(fs, true)
	return cmd
}

func runTest(ctx context.Context, cmd *cobra.Command, f *testFlags, args []string, stdout, stderr io.Writer) (err error) {
	switch f.format {
	case "text", "json", "junit":
	default:
		return withCode(exitUsage, fmt.Errorf("--format %q: expected text, json or junit", f.format))
	}
	if f.from != "" {
		if err := refuseOverwrite([]namedFile{{"--calls", f.calls}}, namedFile{"--from", f.from}); err != nil {
			return err
		}
		if len(args) > 0 || f.update || len(f.only) > 0 {
			return withCode(exitUsage, errors.New("--from writes a calls file and connects to nothing: give it alone (with --calls)"))
		}
		return seedCalls(f.from, f.calls, stdout, stderr)
	}
	if err := refuseOverwrite([]namedFile{{"--record", f.record}}, append(connectInputs(&f.connect), namedFile{"--calls", f.calls})...); err != nil {
		return err
	}
	file, err := calls.Load(f.calls)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return withCode(exitUsage, fmt.Errorf("no calls file %s: save calls from the TUI (S on a result), write one (see mcpscope test --help), or seed one with --from SESSION.jsonl", f.calls))
	case err != nil:
		return withCode(exitUsage, err)
	case len(file.Calls) == 0:
		return withCode(exitUsage, fmt.Errorf("%s holds no calls: nothing to test", f.calls))
	}
	opts := calls.Options{Only: f.only, Update: f.update}
	if _, err := calls.Select(file, opts); err != nil {
		return withCode(exitUsage, err)
	}
	t, err := f.connect.target(cmd, args)
	if err != nil {
		return withCode(exitUsage, err)
	}
	copts := f.connect.clientOptions()
	if err := f.policy.apply(&copts, stderr); err != nil {
		return err
	}
	if f.record != "" {
		rec, rerr := createRecord(f.record, t, f.keepSecrets)
		if rerr != nil {
			return withCode(exitUsage, rerr)
		}
		copts.OnEvent = rec.Event
		defer closeRecord(rec, &err, stderr)
	}
	orun, oerr := f.otel.start(ctx, t)
	if oerr != nil {
		return oerr
	}
	orun.hook(&copts, f.otel.propagate)
	// After the client's shutdown (deferred later, run first): every
	// event is seen before the connection's span ends.
	defer orun.finish(stderr)
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		st.Grace = 10 * time.Millisecond // the report is written before shutdown starts
	}
	client := mcp.NewClient(t.transport, copts)
	early := &earlyEvents{keep: true}
	drained := drainEvents(client, early)
	defer func() {
		shutdown(client)
		<-drained
	}()
	hs, err := client.Connect(ctx)
	if err != nil {
		shutdown(client)
		<-drained
		return connectionError(explainConnect(err, early.events))
	}
	early.stop()
	opts.Server = hs.ServerInfo.Name

	report, runErr := calls.Run(ctx, client, file, opts)
	if report == nil {
		return withCode(exitUsage, runErr)
	}
	report.Target = t.shown()
	if snaps := report.Snapshots(); len(snaps) > 0 {
		if _, err := calls.Edit(f.calls, func(cur *calls.File) ([]byte, error) { return cur.WithSnapshots(snaps) }); err != nil {
			return withCode(exitUsage, fmt.Errorf("the new snapshots were not written: %w", err))
		}
	}
	if err := calls.Write(terminalOutput(stdout, formOf(f.format)), f.format, report); err != nil {
		return withCode(exitUsage, err)
	}
	if len(report.Outcomes) == 0 && len(report.Skipped) > 0 {
		return withCode(exitUsage, fmt.Errorf("%s holds no call for the server %q: each was saved for another server (--only NAME runs one anyway)", f.calls, opts.Server))
	}
	if report.Updated > 0 {
		_, _ = fmt.Fprintf(stderr, "mcpscope: wrote %s to %s\n", plural.Of(report.Updated, "new snapshot", "new snapshots"), f.calls)
	}
	switch {
	case report.Interrupted != "":
		return withCode(exitConnection, runErr)
	case runErr != nil && ctx.Err() != nil:
		return withCode(exitConnection, runErr)
	case report.TimedOut() && f.format == "text":
		return withCode(exitTimeout, errors.New("a call timed out (--timeout gives more time)"))
	case report.TimedOut():
		return withCode(exitTimeout, fmt.Errorf("%s; a call timed out (--timeout gives more time)", report.Summary()))
	case report.Failed > 0 && f.format == "text":
		// The report ends with the summary: stderr would repeat it.
		return withCodeShown(exitServerError, errors.New(report.Summary()))
	case report.Failed > 0:
		return withCode(exitServerError, errors.New(report.Summary()))
	}
	return nil
}

// seedCalls writes a new calls file from a recording's requests.
func seedCalls(from, to string, stdout, stderr io.Writer) error {
	fh, err := os.Open(from)
	if err != nil {
		return withCode(exitUsage, err)
	}
	sf, err := record.ReadEvents(fh, true)
	_ = fh.Close()
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("%s: %w", from, err))
	}
	if sf.Cut != nil {
		sayCut(stderr, from+": "+sf.Cut.Error())
	}
	script, err := replay.FromEvents(sf.Events)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("%s: %w", from, err))
	}
	cs, skipped := calls.FromRecording(script)
	if len(cs) == 0 {
		return withCode(exitUsage, fmt.Errorf("%s: the client sent no request that was answered: nothing to keep", from))
	}
	if _, err := os.Lstat(to); err == nil {
		return withCode(exitUsage, fmt.Errorf("%s exists and is left as it is: give --calls NEW.json to write another file", to))
	}
	text, err := calls.NewText(cs)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if err := calls.Save(to, text); err != nil {
		return withCode(exitUsage, err)
	}
	msg := fmt.Sprintf("wrote %s to %s, each with its recorded answer as its snapshot", plural.S(len(cs), "call"), to)
	if skipped > 0 {
		msg += " (" + plural.S(skipped, "request") + " without an answer left out)"
	}
	_, err = fmt.Fprintln(stdout, msg)
	return err
}
