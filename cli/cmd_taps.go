package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/ui"
	"github.com/spf13/cobra"
)

// tapsOptions are the flags of `mcpscope taps`.
type tapsOptions struct {
	list    bool
	theme   string
	logFile string
	noOpen  bool // --no-open: the preview key shows the view's URL
	// fromFile: the capture was named by a path (mcpscope open), not
	// found among this machine's taps. Its live-session key runs live (the
	// target given after the file: "--" and a command, or a URL) or the
	// recorded URL, never a command the file names.
	fromFile bool
	live     []string
	// join: the arguments are a model capture and MCP captures, joined
	// (cmd_join.go).
	join     bool
	joinOpts joinOptions
}

func newTapsCommand() *cobra.Command {
	var o tapsOptions
	cmd := &cobra.Command{
		Use:   "taps [--list] [ID] | --join MODEL_ID [MCP_ID...]",
		Short: "List the live taps and recent captures; pick one to watch it in the TUI",
		Long: `taps lists the conversations ` + "`mcpscope tap`" + ` is watching (live) and has recorded
(recent captures, newest first). Pick one to open it in the TUI: the log,
handshake, capabilities, the lists the client was given, and the doctor on the
real traffic, with the client's profile. Attaching late shows everything from
the start. Nothing can be sent into a client's conversation; L opens a
separate live session on the same server for experiments (its command, run
where the tap ran it, or its URL; with your environment, as the client's is
not recorded), and the view comes back when it ends.

With --list (or when stdout is not a terminal) the list is printed instead.
An ID (or a unique prefix of one, or a tap's name) opens that tap directly.

With --join, a model tap's capture (mcpscope tap --model) is joined with the MCP
taps' captures of the same run, tool by tool: what the server sent, what the
client presented to its model (renamed, cut, rewritten, deferred, dropped: each
change with its rule, and whether the client's view predicted it), what the
model called, what the client called on the server, what came back and what the
model was given of it, with our token counts beside the API's. Without MCP_ID,
the MCP captures whose time meets the model capture's are joined.`,
		Example: `  mcpscope taps --join 20261203-153012-model-anthropic wx
  mcpscope taps --join 20261203-153012-model-anthropic wx --format json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.join {
				return cobra.MinimumNArgs(1)(cmd, args)
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTaps(cmd.Context(), cmd.OutOrStdout(), o, args)
		},
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "print the list instead of opening a picker")
	cmd.Flags().StringVar(&o.theme, "theme", "auto", "colour theme: auto (from the terminal background), dark or light")
	cmd.Flags().StringVar(&o.logFile, "log-file", "", "write a debug log to FILE (nothing is written to the terminal while the UI runs)")
	cmd.Flags().BoolVar(&o.noOpen, "no-open", false, noOpenUsage)
	cmd.Flags().BoolVar(&o.join, "join", false, "join a model tap's capture with MCP taps' captures of the same run, tool by tool")
	cmd.Flags().StringVar(&o.joinOpts.format, "format", "text", "with --join: text or json")
	cmd.Flags().StringVar(&o.joinOpts.client, "client-profile", "", "with --join: the client whose view predicts the names (default: from the MCP capture's clientInfo)")
	return cmd
}

func runTaps(ctx context.Context, out io.Writer, o tapsOptions, args []string) error {
	taps, err := tap.List()
	if err != nil {
		return withCode(exitUsage, err)
	}
	if !o.join && (o.joinOpts.client != "" || o.joinOpts.format != "text") {
		return withCode(exitUsage, errors.New("--format and --client-profile go with --join"))
	}
	if o.join {
		var ls []tap.Listed
		for _, a := range args {
			l, err := findTap(taps, a)
			if err != nil {
				return withCode(exitUsage, err)
			}
			ls = append(ls, l)
		}
		return runJoin(out, ls[0], ls[1:], o.joinOpts)
	}
	if len(args) == 1 {
		l, err := findTap(taps, args[0])
		if err != nil {
			return withCode(exitUsage, err)
		}
		if l.Transport == tap.TransportModel {
			return printModelCapture(out, l)
		}
		return watchTap(ctx, l, o, "")
	}
	if o.list || !isTerminal(out) {
		printTaps(out, taps)
		return nil
	}
	// The list is kept up to date while it is shown: a client starts its
	// servers (and their taps) when it starts, and ends them when it ends.
	dir, _ := tap.StateDir()
	empty := "No taps yet: waiting for one. Put `mcpscope tap --name NAME --` before a server's command in a client's config (or run `mcpscope tap install`) and start the client; its conversations are recorded in " + dir + "."
	load := func() ([]panes.PickerItem, error) {
		taps, err := tap.List()
		return tapItems(taps), err
	}
	it, ok, err := ui.PickLive(ctx, "Taps (live first, then recent captures)", empty, tapItems(taps), load, o.theme, os.Getenv("NO_COLOR") != "")
	if err != nil || !ok {
		return err
	}
	// Listed again: the tap chosen may have ended since the list was drawn.
	if taps, err = tap.List(); err != nil {
		return withCode(exitUsage, err)
	}
	l, err := findTap(taps, it.Key)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if l.Transport == tap.TransportModel {
		return printModelCapture(out, l)
	}
	return watchTap(ctx, l, o, "")
}

// tapItems are the picker's rows for the listed taps, each keyed by its ID.
func tapItems(taps []tap.Listed) []panes.PickerItem {
	items := make([]panes.PickerItem, len(taps))
	for i, l := range taps {
		kind := "ended"
		switch {
		case l.Live:
			kind = "live"
		case l.Cut != "":
			kind = "cut"
		}
		items[i] = panes.PickerItem{Name: l.Label(), Kind: kind, Detail: tapDetail(l), Key: l.ID}
	}
	return items
}

func findTap(taps []tap.Listed, key string) (tap.Listed, error) {
	var found []tap.Listed
	for _, l := range taps {
		if l.ID == key || l.Name == key || l.File == key {
			return l, nil
		}
		if strings.HasPrefix(l.ID, key) {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return tap.Listed{}, fmt.Errorf("no tap %q (mcpscope taps --list shows them)", key)
	}
	return tap.Listed{}, fmt.Errorf("%q matches %d taps; give more of the id", key, len(found))
}

func tapDetail(l tap.Listed) string {
	// A live tap's command and URL come from its live file, as the client
	// gave them: shown, their secrets are redacted as in the capture.
	what := strings.Join(redact.Args(l.Command), " ")
	if l.URL != "" {
		what = redact.URLs(l.URL)
	}
	when := l.Started.Local().Format("Jan 2 15:04:05")
	if l.Started.IsZero() {
		when = l.Modified.Local().Format("Jan 2 15:04:05")
	}
	d := fmt.Sprintf("%s · %s · %s", when, humanSize(l.Size), what)
	if l.Live {
		d = fmt.Sprintf("pid %d · %s", l.PID, d)
	}
	if l.Cut != "" {
		d = "capture incomplete: " + l.Cut + " · " + d
	}
	return d
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func printTaps(out io.Writer, taps []tap.Listed) {
	if len(taps) == 0 {
		dir, _ := tap.StateDir()
		_, _ = fmt.Fprintf(out, "No taps yet. Put `mcpscope tap --name NAME --` before a server's command in a client's config;\nits conversations are recorded in %s.\n", dir)
		return
	}
	for _, l := range taps {
		state := "ended"
		switch {
		case l.Live:
			state = "LIVE "
		case l.Cut != "":
			state = "CUT  " // an ended capture that is not whole
		}
		_, _ = fmt.Fprintf(out, "%s  %-24s  %s\n        id %s  %s\n", state, termsafe.String(l.Label()), termsafe.String(tapDetail(l)), l.ID, filepath.Base(l.File))
	}
}

// liveSessionCommand is a new mcpscope, in the terminal, on the server a
// tap watches (the viewer's live-session key): the same command, run
// where the tap ran it, or the same URL. It runs with the viewer's
// environment: the client's environment values are not recorded.
func liveSessionCommand(l tap.Listed, o tapsOptions) (*exec.Cmd, error) {
	target, dir, err := o.live, "", error(nil)
	switch {
	case len(target) > 0:
	case o.fromFile && l.URL == "":
		return nil, fmt.Errorf("a session file never starts a server by itself: give it after the file (mcpscope open FILE -- %s)", shellLine(l.Command))
	default:
		if target, dir, err = tap.LiveTarget(l); err != nil {
			return nil, err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("no mcpscope to run: %w", err)
	}
	cmd := exec.Command(exe, append([]string{"--theme", o.theme}, target...)...)
	cmd.Dir = dir
	return cmd, nil
}

// execCmd lends the terminal to a command (tea.ExecCommand).
type execCmd struct{ *exec.Cmd }

func (c execCmd) SetStdin(r io.Reader) {
	if c.Stdin == nil {
		c.Stdin = r
	}
}

func (c execCmd) SetStdout(w io.Writer) {
	if c.Stdout == nil {
		c.Stdout = w
	}
}

func (c execCmd) SetStderr(w io.Writer) {
	if c.Stderr == nil {
		c.Stderr = w
	}
}

// failedExec says why no live session could be started.
type failedExec struct{ err error }

func (f failedExec) Run() error        { return f.err }
func (failedExec) SetStdin(io.Reader)  {}
func (failedExec) SetStdout(io.Writer) {}
func (failedExec) SetStderr(io.Writer) {}

// watchTap opens the TUI on one tap, or on one capture (`mcpscope taps`
// and `mcpscope open` alike); profile, when set, is the doctor's client
// profile instead of the one the client's clientInfo picks.
func watchTap(ctx context.Context, l tap.Listed, o tapsOptions, profile doctor.Profile) error {
	logger, closeLog, err := openDebugLog(o.logFile)
	if err != nil {
		return withCode(exitUsage, err)
	}
	defer closeLog()
	target := "tap " + l.Label()
	if !l.Live {
		target = "recorded tap " + l.Label()
	}
	watched := false
	m := ui.New(ui.Config{
		NewSource: func() session.Source {
			s := tap.NewSource(l)
			if watched { // the reconnect key: the tap again, or its server's next one
				s = tap.NewNextSource(l)
			}
			watched = true
			s.Profile = profile
			return s
		},
		// An ended capture reads the same again; the live-session key is
		// the way to talk to its server.
		NoReconnect:   !l.Live,
		ReconnectHelp: "reattach / next tap",
		Target:        target,
		Theme:         o.theme,
		NoOpen:        o.noOpen,
		NoColor:       os.Getenv("NO_COLOR") != "",
		Logger:        logger,
		Context:       ctx,
		LiveSession: func() tea.ExecCommand {
			cmd, err := liveSessionCommand(l, o)
			if err != nil {
				logger.Debug("No live session", "err", err)
				return failedExec{err}
			}
			return execCmd{cmd}
		},
	})
	defer m.Close()
	if _, err := tea.NewProgram(m.Paced(), tea.WithContext(ctx)).Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}
