package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/replay"
	"github.com/spf13/cobra"
)

// replayFlags are mcpscope replay's options.
type replayFlags struct {
	connect     connectFlags
	format      string
	ignore      []string
	only        []string
	strict      bool
	record      string
	keepSecrets bool
	otel        otelFlags
}

func newReplayCommand() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay FILE [-- CMD [ARGS...] | URL]",
		Short: "Run a recorded session's requests again and compare the answers",
		Long: `Runs the client side of a session file again against a server: the same handshake
(era, protocol version, capabilities), the same requests in the same order, the server's own
requests (sampling, elicitation, roots) answered as they were answered in the recording. Each answer is compared with the recorded one as JSON.

Values that change from run to run are ignored: the JSON-RPC id, _meta, progress tokens,
session and task ids, timestamps (keys such as createdAt, and any two RFC 3339 strings).
--ignore adds paths: a JSON pointer into the answer (/result/content/0/text) or a dotted
pattern (result.content.*.text, **.version; * is one segment, ** any number). --strict
compares the volatile values too. --only narrows the replay to some methods.

The server is the one given after the file (-- CMD, or a URL). Without one, replay shows the
server the file was recorded against (its command, directory and the environment values the
file sets, or its URL) and starts it only when you answer yes on a terminal: a session file
never starts anything by itself. Not on a terminal, that is an error (exit 2) that names the
recorded server and how to give it. A recording of the built-in demo server replays against
it without asking.

The replay is written as a new session file (--record; by default FILE.replay.jsonl), never
over the file it replays.

Exit codes:
  0  every answer matches
  1  some answers differ
  2  usage or invalid input, or a --record file that could not be written whole
  3  connection or handshake failure (or the connection was lost)`,
		Example: `  mcpscope replay known-good.jsonl -- node build/index.js
  mcpscope replay known-good.jsonl             # asks before it starts the recorded server
  mcpscope replay --only tools/call --ignore '**.text' known-good.jsonl https://example.com/mcp
  mcpscope replay --format junit known-good.jsonl -- ./server > replay.xml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd.Context(), cmd, &f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.format, "format", "text", "output: text, json or junit")
	fs.StringArrayVar(&f.ignore, "ignore", nil, "do not compare the values at PATH (a JSON pointer or a dotted pattern; repeatable)")
	fs.StringArrayVar(&f.only, "only", nil, "replay only the requests of METHOD (repeatable)")
	fs.BoolVar(&f.strict, "strict", false, "compare the volatile values too (ids in results, _meta, timestamps...)")
	fs.StringVar(&f.record, "record", "", "write the replay's session to FILE (default: the input's name with .replay.jsonl)")
	fs.BoolVar(&f.keepSecrets, "record-secrets", false, "keep environment values and the command's secret arguments in the --record file instead of redacting them")
	f.connect.register(fs)
	f.otel.register(fs, false)
	return cmd
}

func runReplay(ctx context.Context, cmd *cobra.Command, f *replayFlags, args []string, stdout, stderr io.Writer) (err error) {
	switch f.format {
	case "text", "json", "junit":
	default:
		return withCode(exitUsage, fmt.Errorf("--format %q: expected text, json or junit", f.format))
	}
	if _, err := replay.NewMatcher(f.ignore, f.strict); err != nil {
		return withCode(exitUsage, err)
	}
	path := args[0]
	dash := cmd.ArgsLenAtDash()
	if dash == 0 {
		return withCode(exitUsage, errors.New("the session file comes before --"))
	}
	out := f.record
	if out == "" {
		out = strings.TrimSuffix(path, ".jsonl") + ".replay.jsonl"
	}
	if err := refuseOverwrite([]namedFile{{"--record", out}}, append(connectInputs(&f.connect), namedFile{"the session file", path})...); err != nil {
		return err
	}
	sf, err := reading.ReadFile(path, true)
	if err != nil {
		return withCode(exitUsage, err)
	}
	sayCut(stderr, sf.CutNote())
	script, err := replay.FromSession(sf)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("%s: %w", path, err))
	}

	var t *target
	switch {
	case dash > 0:
		t, err = f.connect.targetAt(cmd, args[dash:], 0)
	case len(args) == 2:
		t, err = f.connect.targetAt(cmd, args[1:], -1)
	case len(args) > 2:
		err = fmt.Errorf("unexpected argument %q; put the server command after --", args[2])
	case f.connect.configPath != "":
		t, err = f.connect.targetAt(cmd, nil, -1)
	default:
		// A session file is handed around; what it names is started only
		// when the person says so (-- CMD, a URL, or yes on a terminal).
		if err := consentToRecorded(cmd.InOrStdin(), stderr, "mcpscope replay", path, &sf.Header); err != nil {
			return err
		}
		t, err = recordedTarget(cmd, &f.connect, &sf.Header, stderr)
	}
	if err != nil {
		return withCode(exitUsage, err)
	}

	// The record sits beside the file it replays (often a capture in the
	// taps directory); its header says it is a replay, so that it is never
	// listed as a capture.
	rec, err := createRecord(out, t, f.keepSecrets, func(s *record.Session) {
		s.Recorder, s.ReplayOf = record.RecorderReplay, filepath.Base(path)
	})
	if err != nil {
		return withCode(exitUsage, err)
	}
	defer closeRecord(rec, &err, stderr)
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		st.Grace = 10 * time.Millisecond
	}
	base := f.connect.clientOptions()
	base.OnEvent = rec.Event
	orun, oerr := f.otel.start(ctx, t)
	if oerr != nil {
		return oerr
	}
	// A replay sends what was recorded: no traceparent is added.
	orun.hook(&base, false)
	defer orun.finish(stderr)
	opts := script.ClientOptions(base)
	if f.connect.noApps && len(opts.Capabilities) > 0 {
		// The recording's capabilities replace the defaults; --no-apps
		// still holds for them.
		opts.Capabilities = apps.WithoutExtension(opts.Capabilities)
	}
	client := mcp.NewClient(t.transport, opts)
	early := &earlyEvents{keep: true}
	drained := drainEvents(client, early)
	defer func() {
		shutdown(client)
		<-drained
	}()

	res, err := replay.Run(ctx, client, script, replay.Options{Only: f.only, Ignore: f.ignore, Strict: f.strict})
	if res == nil {
		if replay.IsConnectError(err) {
			shutdown(client)
			<-drained
			return connectionError(explainConnect(errors.Unwrap(err), early.events))
		}
		return withCode(exitUsage, err)
	}
	early.stop()
	res.Source, res.Target = path, t.shown()
	if werr := replay.Write(terminalOutput(stdout, formOf(f.format)), f.format, res); werr != nil {
		return withCode(exitUsage, werr)
	}
	_, _ = fmt.Fprintf(stderr, "mcpscope: the replay was recorded in %s\n", out)
	switch {
	case err != nil && replay.IsConnectError(err):
		return withCode(exitConnection, err)
	case err != nil:
		return withCode(exitUsage, err)
	case res.Differed > 0:
		return withCode(exitServerError, fmt.Errorf("%d of %s differ", res.Differed, plural.S(len(res.Exchanges), "exchange")))
	}
	return nil
}

// recordedTarget is the server the session file was recorded against: the
// demo server, the stdio command (in its recorded directory) or the URL.
// The server runs with the current environment (and -e); recorded values
// are redacted, so the person is told which recorded variables the
// current environment lacks, to give with -e if the server needs them.
// The demo server is this mcpscope's own and gets nothing the file sets
// (values recorded with --record-secrets, such as LD_PRELOAD, would run
// what the file says in it).
func recordedTarget(cmd *cobra.Command, cf *connectFlags, h *record.Entry, stderr io.Writer) (*target, error) {
	if recordedDemo(h) {
		return cf.targetAt(cmd, nil, -1)
	}
	if cf.cwd == "" {
		cf.cwd = h.Cwd
	}
	var missing []string
	for k, v := range h.Env {
		if _, here := os.LookupEnv(k); here || hasEnv(cf.env, k) {
			continue
		}
		if v != record.Redacted { // recorded with --record-secrets
			cf.env = append(cf.env, k+"="+v)
			continue
		}
		missing = append(missing, termsafe.String(k))
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		_, _ = fmt.Fprintf(stderr, "mcpscope: the server runs with this environment; %d variable(s) the recording's server had are not set here (their values are not recorded), give them if it needs them: -e %s=...\n",
			len(missing), strings.Join(missing, "=... -e "))
	}
	switch {
	case len(h.Command) > 0:
		return cf.targetAt(cmd, h.Command, 0)
	case isURLTarget(h.Target):
		return cf.targetAt(cmd, []string{h.Target}, -1)
	}
	return nil, fmt.Errorf("the recording does not say how to start its server (target %q): give it after --", h.Target)
}

func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}
