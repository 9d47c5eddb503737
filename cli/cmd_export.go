package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/export"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/spf13/cobra"
)

// exportFlags are mcpscope export's options.
type exportFlags struct {
	format  string
	output  string
	profile string
	otel    otelFlags
}

func newExportCommand() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export FILE --format html|md|har|otlp",
		Short: "Export a session file: a self-contained HTML page, a Markdown bug report, HAR, or OpenTelemetry spans",
		Long: `Exports a session file (written by --record or a tap) for someone else:

  html  one self-contained page (no network access at all): the handshake, the timeline of
        exchanges that open to their exact JSON and show their images, the capabilities and
        the diagnostics; readable in a browser and in print
  md    a bug-report excerpt: the server and versions, the handshake, the exchanges that
        failed, the diagnostics
  har   HAR 1.2 of the HTTP exchanges, for browser devtools
  otlp  OpenTelemetry spans with their recorded times, as the live --otlp sends them
        (docs/otel.md): OTLP/JSON lines, or sent to a collector with --otlp URL

The diagnostics are the protocol doctor's, run again with today's rules (--client-profile).
Environment values, Authorization and cookie headers and secret URL parameters are redacted,
even in a file recorded with --record-secrets.`,
		Example: `  mcpscope export session.jsonl --format html -o session.html
  mcpscope export session.jsonl --format md | pbcopy
  mcpscope export session.jsonl --format har -o session.har
  mcpscope export session.jsonl --format otlp --otlp http://127.0.0.1:4318`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), &f, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.format, "format", "html", "html, md, har or otlp")
	f.otel.register(fs, false)
	fs.StringVarP(&f.output, "output", "o", "", "write to FILE instead of stdout")
	fs.StringVar(&f.profile, "client-profile", "generic", "the protocol doctor adds the warnings of one client: generic, chatgpt, claude, vscode, gemini, codex, opencode or copilot")
	return cmd
}

func runExport(_ context.Context, f *exportFlags, path string, stdout, stderr io.Writer) (err error) {
	var write func(io.Writer, *export.Session) error
	switch f.format {
	case "html":
		write = export.HTML
	case "md", "markdown":
		write = export.Markdown
	case "har":
		write = func(w io.Writer, s *export.Session) error { return export.HAR(w, s, version) }
	case "otlp":
	default:
		return withCode(exitUsage, fmt.Errorf("--format %q: expected html, md, har or otlp", f.format))
	}
	if (f.otel.endpoint != "" || f.otel.content) && f.format != "otlp" {
		return withCode(exitUsage, errors.New("--otlp and --otlp-content go with --format otlp"))
	}
	if f.format == "otlp" && f.otel.endpoint != "" && f.output != "" {
		return withCode(exitUsage, errors.New("--format otlp sends to --otlp URL or writes to -o FILE, not both"))
	}
	profile, err := doctor.ParseProfile(f.profile)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--client-profile: %w", err))
	}
	if err := refuseOverwrite([]namedFile{{"-o", f.output}}, namedFile{"the session file", path}); err != nil {
		return err
	}
	fh, err := os.Open(path)
	if err != nil {
		return withCode(exitUsage, err)
	}
	sf, err := record.ReadEvents(fh, true)
	_ = fh.Close()
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("%s: %w", path, err))
	}
	if sf.Cut != nil {
		sayCut(stderr, path+": "+sf.Cut.Error())
	}
	// Today's doctor, as in mcpscope open.
	events := export.WithDoctor(sf.Events, doctor.New(doctor.Options{Profile: profile}))
	s := export.FromEvents(filepath.Base(path), sf.Header, events)
	if sf.Cut != nil {
		s.Cut = sf.Cut.Error()
	}
	if f.format == "otlp" && f.otel.endpoint != "" {
		return exportOTLP(f, sf.Header, events, nil, stderr)
	}

	out := terminalOutput(stdout, formOf(f.format))
	if f.output != "" {
		file, err := os.OpenFile(f.output, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return withCode(exitUsage, err)
		}
		defer func() {
			if cerr := file.Close(); cerr != nil && err == nil {
				err = withCode(exitUsage, cerr)
			}
		}()
		out = file
	}
	if f.format == "otlp" {
		return exportOTLP(f, sf.Header, events, out, stderr)
	}
	if err := write(out, s); err != nil {
		return withCode(exitUsage, fmt.Errorf("export: %w", err))
	}
	return nil
}
