package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/surfacediff"
	"github.com/spf13/cobra"
)

// diffFlags are mcpscope diff's options.
type diffFlags struct {
	connect connectFlags
	format  string
}

func newDiffCommand() *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff A B | diff FILE -- CMD [ARGS...] | diff FILE URL",
		Short: "Compare what a client sees of two servers: capabilities, tools, resources, templates, prompts",
		Long: `Compares the surface a client sees: the protocol version and capabilities, and the
tools, resources, templates and prompts added, removed or changed. Each schema change is
classed breaking (a removed tool or property, a new required property, a narrowed type or
enum, a tighter bound) or compatible (a new optional property, a description change).

A and B are session files (written by --record, call, check, a tap of any client, or a
replay) or a live server: a URL, or a stdio command after -- (only B). A live server is
connected as A's client (its era, offered version, capabilities and info) and listed in
full. A list one side never listed is not compared, and said so. When the two clients
declared different capabilities, both are shown, and an item offered on one side only that
names a capability only that side's client declared (get-roots-list and roots) is shown as
following the client, not as added or removed.

Exit codes:
  0  nothing breaking changed
  1  something breaking changed
  2  usage or invalid input (an unreadable session file)
  3  connection or handshake failure`,
		Example: `  mcpscope diff v1.jsonl v2.jsonl
  mcpscope diff known-good.jsonl -- node build/index.js
  mcpscope diff --format markdown v1.jsonl https://example.com/mcp`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.Context(), cmd, &f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&f.format, "format", "text", "output: text, json or markdown")
	f.connect.register(cmd.Flags())
	return cmd
}

func runDiff(ctx context.Context, cmd *cobra.Command, f *diffFlags, args []string, stdout, stderr io.Writer) error {
	switch f.format {
	case "text", "json", "markdown", "md":
	default:
		return withCode(exitUsage, fmt.Errorf("--format %q: expected text, json or markdown", f.format))
	}
	dash := cmd.ArgsLenAtDash()
	var a, b *surfacediff.Surface
	var err error
	switch {
	case dash == 1:
		if a, err = fileSurface(args[0], stderr); err != nil {
			return err
		}
		if len(args) == 1 {
			return withCode(exitUsage, errors.New("no command after --"))
		}
		b, err = liveSurface(ctx, cmd, &f.connect, args[1:], 0, a)
	case dash < 0 && len(args) == 2:
		if a, err = fileSurface(args[0], stderr); err != nil {
			return err
		}
		if isURLTarget(args[1]) {
			b, err = liveSurface(ctx, cmd, &f.connect, args[1:2], -1, a)
		} else {
			b, err = fileSurface(args[1], stderr)
		}
	default:
		return withCode(exitUsage, errors.New("expected two session files, FILE -- CMD, or FILE URL"))
	}
	if err != nil {
		return err
	}
	r := surfacediff.Compare(a, b)
	if err := surfacediff.Write(terminalOutput(stdout, formOf(f.format)), f.format, r); err != nil {
		return withCode(exitUsage, err)
	}
	if r.Breaking > 0 {
		return withCode(exitServerError, fmt.Errorf("%s", plural.S(r.Breaking, "breaking change")))
	}
	return nil
}

// fileSurface reads a session file's surface; a file that cannot be read
// is a usage error; one cut mid-line is read to its last complete line,
// and stderr says so.
func fileSurface(path string, stderr io.Writer) (*surfacediff.Surface, error) {
	sf, err := reading.ReadFile(path, true)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	sayCut(stderr, sf.CutNote())
	s, err := surfacediff.FromSession(sf)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	return s, nil
}

// liveSurface connects to a live target as the client that saw as (when
// set) and lists everything it declares.
func liveSurface(ctx context.Context, cmd *cobra.Command, cf *connectFlags, args []string, dash int, as *surfacediff.Surface) (*surfacediff.Surface, error) {
	t, err := cf.targetAt(cmd, args, dash)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		st.Grace = 10 * time.Millisecond
	}
	opts := cf.clientOptions()
	if as != nil {
		// What a client sees depends on the client: B is listed as A's
		// client saw A, unless the flags say otherwise.
		flags := opts
		opts = as.ClientOptions(opts)
		if cmd.Flags().Changed("era") {
			opts.Era = flags.Era
		}
		if cmd.Flags().Changed("protocol-version") {
			opts.ProtocolVersion = flags.ProtocolVersion
		}
	}
	client := mcp.NewClient(t.transport, opts)
	early := &earlyEvents{keep: true}
	drained := drainEvents(client, early)
	defer func() {
		shutdown(client)
		<-drained
	}()
	s, err := surfacediff.Live(ctx, t.shown(), client)
	if err != nil && s == nil {
		shutdown(client)
		<-drained
		return nil, connectionError(explainConnect(err, early.events))
	}
	if err != nil {
		return nil, withCode(exitConnection, fmt.Errorf("%s: listing failed, so the comparison would be wrong: %w", t.shown(), err))
	}
	return s, nil
}
