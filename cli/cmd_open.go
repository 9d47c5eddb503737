package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/sessionfile"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/ui"
	"github.com/spf13/cobra"
)

// openFlags are mcpscope open's options.
type openFlags struct {
	connect connectFlags // for the live session "r" starts
	theme   string
	logFile string
	profile string
	follow  bool
	noOpen  bool // --no-open: the preview key shows the view's URL
	// with are MCP captures to join a model capture with (cmd_join.go).
	with   []string
	format string
}

func newOpenCommand() *cobra.Command {
	var f openFlags
	cmd := &cobra.Command{
		Use:   "open FILE [-- CMD [ARGS...] | URL]",
		Short: "Look at a session file in the debugger (read-only)",
		Long: `Opens a session file (written by --record or a tap) in the terminal UI: every pane as in
a live session, each frame at its recorded time, and the protocol doctor run again with
today's rules (--client-profile chooses the client). Nothing can be sent; the send keys say
so, and r starts a live session (the recording stays in the log above it) on the server
given after the file (-- CMD, or a URL), or else on the recorded URL or the built-in demo
server. A command the file names is never started by r: a session file never starts a server
by itself; give it after --. A file that is still being written is followed as it grows.

A tap's capture is shown as ` + "`mcpscope taps`" + ` shows it: the client that spoke in the
header and the handshake view, the doctor with that client's profile (unless
--client-profile is given), and L, not r, for a live session on its server (the same
rule: a recorded command only when given after --).

A model tap's capture is printed as a listing of its requests; with --with, it is
joined with MCP taps' captures of the same run, tool by tool, as
` + "`mcpscope taps --join`" + ` does (--format json for JSON; --client-profile, when given,
chooses the client whose view predicts the names).`,
		Example: `  mcpscope open session.jsonl
  mcpscope open session.jsonl -- node build/index.js   # r starts this server
  mcpscope open --client-profile claude session.jsonl
  mcpscope open model.jsonl --with wx.jsonl            # the model tap joined with the MCP tap`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOpen(cmd.Context(), cmd, &f, args, cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.theme, "theme", "auto", "colour theme: auto (from the terminal background), dark or light")
	fs.StringVar(&f.logFile, "log-file", "", "write a debug log to FILE (nothing is written to the terminal while the UI runs)")
	fs.StringVar(&f.profile, "client-profile", "generic", "the protocol doctor adds the warnings of one client: generic, chatgpt, claude, vscode, gemini, codex, opencode or copilot")
	fs.BoolVar(&f.follow, "follow", true, "keep reading as the file grows (a running --record or tap)")
	fs.BoolVar(&f.noOpen, "no-open", false, noOpenUsage)
	fs.StringArrayVar(&f.with, "with", nil, "join the model tap's capture FILE with this MCP tap's capture (repeatable)")
	fs.StringVar(&f.format, "format", "text", "with --with: text or json")
	f.connect.register(fs)
	return cmd
}

func runOpen(ctx context.Context, cmd *cobra.Command, f *openFlags, args []string, stderr io.Writer) error {
	path, given := args[0], args[1:]
	switch dash := cmd.ArgsLenAtDash(); {
	case dash == 0:
		return withCode(exitUsage, errors.New("the session file comes before --"))
	case dash > 1, dash < 0 && len(given) > 1, dash < 0 && len(given) == 1 && !isURLTarget(given[0]):
		return withCode(exitUsage, fmt.Errorf("unexpected argument %q; put the server command after --", given[0]))
	case dash > 0 && len(given) == 0:
		return withCode(exitUsage, errors.New("no command after --"))
	case dash > 0:
		given = append([]string{"--"}, given...)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50) // as runTUI: the whole session is kept in memory
	}
	switch f.theme {
	case "auto", "dark", "light":
	default:
		return withCode(exitUsage, fmt.Errorf("--theme %q: expected auto, dark or light", f.theme))
	}
	profile, err := doctor.ParseProfile(f.profile)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--client-profile: %w", err))
	}
	if err := refuseOverwrite([]namedFile{{"--log-file", f.logFile}}, append(connectInputs(&f.connect), namedFile{"the session file", path})...); err != nil {
		return err
	}
	if len(f.with) > 0 || cmd.Flags().Changed("format") {
		return openJoined(cmd, f, path)
	}
	if l, ok := tap.Capture(path); ok && l.Transport == tap.TransportModel {
		return printModelCapture(cmd.OutOrStdout(), l)
	} else if ok {
		// A tap's capture is shown as `mcpscope taps` shows it: its
		// client in the header and the handshake, the doctor with that
		// client's profile (unless --client-profile says otherwise), L
		// for a live session on its server.
		if !cmd.Flags().Changed("client-profile") {
			profile = ""
		}
		return watchTap(ctx, l, tapsOptions{theme: f.theme, logFile: f.logFile, noOpen: f.noOpen, fromFile: true, live: given}, profile)
	}
	logger, closeLog, err := openDebugLog(f.logFile)
	if err != nil {
		return withCode(exitUsage, err)
	}
	defer closeLog()

	// The file is checked before the terminal is taken: a wrong file is
	// a plain error.
	src, err := sessionfile.Open(path, sessionfile.Options{Follow: f.follow})
	if err != nil {
		return withCode(exitUsage, err)
	}
	header := src.Header()
	_ = src.Close()
	live, liveErr := openLiveTarget(cmd, &f.connect, given, &header)
	if liveErr != nil && (len(given) > 0 || f.connect.configPath != "") {
		return withCode(exitUsage, liveErr) // the server the person gave is wrong
	}
	why := fmt.Sprintf("%s is a recording, read-only", filepath.Base(path))
	switch {
	case liveErr == nil:
		why += "; r starts a live session"
	case errors.Is(liveErr, errRecordedCommand):
		why += "; r starts no command a file names: give it after -- (mcpscope open FILE -- CMD)"
	default:
		why += " (and it does not say how to start its server)"
	}

	first := true
	newSource := func() session.Source {
		if first || liveErr != nil {
			first = false
			s, err := sessionfile.Open(path, sessionfile.Options{Follow: f.follow, Why: why,
				Analyzer: doctor.New(doctor.Options{Profile: profile})})
			if err != nil {
				return session.NewReplay([]mcp.Event{mcp.StateEvent{State: mcp.StateFailed, Detail: err.Error()}}, "", why)
			}
			return s
		}
		opts := f.connect.clientOptions()
		opts.Discover = true
		opts.Analyzer = doctor.New(doctor.Options{Profile: profile})
		return session.New(ctx, mcp.NewClient(live.transport, opts), session.Options{RequestTimeout: f.connect.timeout})
	}
	target := path
	if header.Target != "" {
		target = path + " · recorded from " + header.Target
	}
	m := ui.New(ui.Config{
		NewSource:      newSource,
		NoReconnect:    liveErr != nil, // r would only read the file again
		RequestTimeout: f.connect.timeout,
		Target:         strings.TrimSpace(target),
		Theme:          f.theme,
		NoColor:        os.Getenv("NO_COLOR") != "",
		Logger:         logger,
		Context:        ctx,
		NoOpen:         f.noOpen,
	})
	defer m.Close()
	logger.Info("Opening a session file", "path", path)
	if _, err := tea.NewProgram(m.Paced(), tea.WithContext(ctx)).Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}

// errRecordedCommand says a live session would run the command a session
// file names, which only a person may ask for (after --).
var errRecordedCommand = errors.New("the recording names a command to start")

// openLiveTarget is where r starts a live session: the server given after
// the file (-- CMD or a URL) or by --config; else the recorded URL or the
// built-in demo server. A command the file names is never started.
func openLiveTarget(cmd *cobra.Command, cf *connectFlags, given []string, h *record.Entry) (*target, error) {
	switch {
	case len(given) > 0 && given[0] == "--":
		return cf.targetAt(cmd, given[1:], 0)
	case len(given) > 0:
		return cf.targetAt(cmd, given, -1)
	case cf.configPath != "":
		return cf.targetAt(cmd, nil, -1)
	case !recordedDemo(h) && len(h.Command) > 0:
		return nil, errRecordedCommand
	}
	return recordedTarget(cmd, cf, h, io.Discard)
}

// openJoined joins the model capture at path with the MCP captures
// --with names.
func openJoined(cmd *cobra.Command, f *openFlags, path string) error {
	if len(f.with) == 0 {
		return withCode(exitUsage, errors.New("--format goes with --with"))
	}
	model, ok := tap.Capture(path)
	if !ok {
		return withCode(exitUsage, fmt.Errorf("%s is not a tap's capture", path))
	}
	var servers []tap.Listed
	for _, w := range f.with {
		l, ok := tap.Capture(w)
		if !ok {
			return withCode(exitUsage, fmt.Errorf("--with %s: not an MCP tap's capture", w))
		}
		servers = append(servers, l)
	}
	o := joinOptions{format: f.format}
	if cmd.Flags().Changed("client-profile") {
		o.client = f.profile
	}
	return runJoin(cmd.OutOrStdout(), model, servers, o)
}
