package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
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

A and B are session files (written by --record) or a live server: a URL, or a stdio
command after -- (only B). A live server is connected and listed in full.

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
			return runDiff(cmd.Context(), cmd, &f, args, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&f.format, "format", "text", "output: text, json or markdown")
	f.connect.register(cmd.Flags())
	return cmd
}

func runDiff(ctx context.Context, cmd *cobra.Command, f *diffFlags, args []string, stdout io.Writer) error {
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
		if a, err = fileSurface(args[0]); err != nil {
			return err
		}
		if len(args) == 1 {
			return withCode(exitUsage, errors.New("no command after --"))
		}
		b, err = liveSurface(ctx, cmd, &f.connect, args[1:], 0)
	case dash < 0 && len(args) == 2:
		if a, err = fileSurface(args[0]); err != nil {
			return err
		}
		if isURLTarget(args[1]) {
			b, err = liveSurface(ctx, cmd, &f.connect, args[1:2], -1)
		} else {
			b, err = fileSurface(args[1])
		}
	default:
		return withCode(exitUsage, errors.New("expected two session files, FILE -- CMD, or FILE URL"))
	}
	if err != nil {
		return err
	}
	r := surfacediff.Compare(a, b)
	if err := surfacediff.Write(stdout, f.format, r); err != nil {
		return withCode(exitUsage, err)
	}
	if r.Breaking > 0 {
		return withCode(exitServerError, fmt.Errorf("%d breaking change(s)", r.Breaking))
	}
	return nil
}

// fileSurface reads a session file's surface; a file that cannot be read
// is a usage error.
func fileSurface(path string) (*surfacediff.Surface, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	defer func() { _ = fh.Close() }() // read-only
	sf, err := record.ReadEvents(fh, true)
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("%s: %w", path, err))
	}
	s, err := surfacediff.FromEvents(path, sf.Events)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	return s, nil
}

// liveSurface connects to a live target and lists everything it declares.
func liveSurface(ctx context.Context, cmd *cobra.Command, cf *connectFlags, args []string, dash int) (*surfacediff.Surface, error) {
	t, err := cf.targetAt(cmd, args, dash)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		st.Grace = 10 * time.Millisecond
	}
	client := mcp.NewClient(t.transport, cf.clientOptions())
	early := &earlyEvents{keep: true}
	drained := drainEvents(client, early)
	defer func() {
		shutdown(client)
		<-drained
	}()
	s, err := surfacediff.Live(ctx, t.description, client)
	if err != nil && s == nil {
		shutdown(client)
		<-drained
		return nil, connectionError(explainConnect(err, early.events))
	}
	if err != nil {
		return nil, withCode(exitConnection, fmt.Errorf("%s: listing failed, so the comparison would be wrong: %w", t.description, err))
	}
	return s, nil
}
