package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/calls"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/mcpscope/mcpscope/mcp/lib/resident"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/panes/termimage"
	"github.com/mcpscope/mcpscope/ui"
	"github.com/spf13/pflag"
)

// tuiFlags are the flags only the interactive UI uses.
type tuiFlags struct {
	theme       string
	images      string // --images: auto, kitty, iterm2, sixel, blocks or off
	logFile     string
	profile     string // --client-profile: the protocol doctor's client
	record      string // --record: the session file
	keepSecrets bool
	saveDir     string // --save-dir: where s and w save
	markdown    bool   // --markdown: text results are Markdown
	keepAlive   time.Duration
	policy      policyFlags // --root, --elicitation, --sampling
	calls       string      // --calls: the saved calls' file
	watch       watchFlags  // --watch, --build, --watch-ignore, --rerun
	noOpen      bool        // --no-open: the preview key shows the view's URL
	otel        otelFlags   // --otlp, --otlp-content, --propagate
}

// noOpenUsage is --no-open's help, the same on every command with a TUI.
const noOpenUsage = "the preview key (p on a tool's result, P on a tools/call frame) shows the view's URL instead of opening the browser"

// register adds the UI's flags to the root command.
func (o *tuiFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.theme, "theme", "auto", "colour theme: auto (from the terminal background), dark or light")
	fs.StringVar(&o.images, "images", "auto", "how images in results are drawn: auto (ask the terminal), kitty (its graphics protocol), iterm2 (inline images), sixel, blocks (half-block cells) or off")
	fs.StringVar(&o.logFile, "log-file", "", "write a debug log to FILE (nothing is written to the terminal while the UI runs)")
	fs.StringVar(&o.record, "record", "", "write every event of the session (reconnects included) to FILE as JSON lines (docs/session-files.md)")
	fs.BoolVar(&o.keepSecrets, "record-secrets", false, "keep environment values, URL query secrets (api_key=, token=...) and the command's secret arguments (--api-key X) in the --record file's header instead of redacting them")
	fs.StringVar(&o.saveDir, "save-dir", "", "directory for the files the TUI saves (s and w in a result, s on a resource's blob); default: the current directory. Nothing is overwritten: name-2.ext, name-3.ext...")
	fs.BoolVar(&o.markdown, "markdown", false, "render tools' text results as Markdown (text/markdown resources, descriptions and prompt messages always are); m shows the source")
	fs.DurationVar(&o.keepAlive, "keepalive", 4*time.Second, "over Streamable HTTP without an open GET stream, ping the server after this long idle so that a server that went away shows as lost (0: never)")
	fs.StringVar(&o.profile, "client-profile", "generic", "the protocol doctor adds the warnings of one client: generic, chatgpt, claude, vscode, gemini, codex, opencode or copilot")
	fs.BoolVar(&o.noOpen, "no-open", false, noOpenUsage)
	fs.StringVar(&o.calls, "calls", calls.DefaultPath, "the calls file: S on a result saves the call there, t and T run saved calls (see mcpscope test)")
	o.policy.register(fs)
	o.watch.register(fs)
	o.watch.registerRerun(fs)
	o.otel.register(fs, true)
}

// runTUI runs the interactive debugger on one target until the user quits.
func runTUI(ctx context.Context, t *target, cf *connectFlags, o *tuiFlags) (err error) {
	if os.Getenv("GOGC") == "" {
		// The UI keeps the whole session in memory and creates garbage at
		// the rate frames arrive. Go's default lets the heap grow to twice
		// the live data between collections; half that headroom keeps a
		// flood's peak lower for a little more GC work.
		debug.SetGCPercent(50)
	}
	switch o.theme {
	case "auto", "dark", "light":
	default:
		return withCode(exitUsage, fmt.Errorf("--theme %q: expected auto, dark or light", o.theme))
	}
	if _, err := termimage.ParseMode(o.images); err != nil {
		return withCode(exitUsage, err)
	}
	if err := o.watch.check(); err != nil {
		return withCode(exitUsage, err)
	}
	profile, err := doctor.ParseProfile(o.profile)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--client-profile: %w", err))
	}
	if o.saveDir != "" {
		if info, err := os.Stat(o.saveDir); err != nil || !info.IsDir() {
			return withCode(exitUsage, fmt.Errorf("--save-dir %q: not a directory (create it first)", o.saveDir))
		}
	}
	if err := refuseOverwrite([]namedFile{{"--record", o.record}, {"--log-file", o.logFile}}, append(connectInputs(cf), namedFile{"--calls", o.calls})...); err != nil {
		return err
	}
	logger, closeLog, err := openDebugLog(o.logFile)
	if err != nil {
		return withCode(exitUsage, err)
	}
	defer closeLog()

	// Once a burst of events is over (connecting and the first listings,
	// a flood), the heap the burst needed is given back, and so is what
	// any activity, a person's keys included, needed once 30 s pass with
	// nothing.
	idle := &resident.Trimmer{Quiet: 2 * time.Second, AfterEvents: 1000, LongQuiet: 30 * time.Second}
	trimCtx, stopTrimming := context.WithCancel(ctx)
	defer stopTrimming()
	go idle.Run(trimCtx)
	onEvent := func(mcp.Event) { idle.Touch() }
	var record func(mcp.Event)
	// Two senders at most, each once: a recording that stops, an export
	// that fails.
	notices := make(chan mcp.TransportEvent, 2)
	if o.record != "" {
		rec, rerr := createRecord(o.record, t, o.keepSecrets)
		if rerr != nil {
			return withCode(exitUsage, rerr)
		}
		// A write that fails (a full disk) is a row of the log and the
		// status line at once; the exit says it again.
		rec.OnFail(func(err error) {
			cause := err.Error()
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				cause = pe.Err.Error()
			}
			notices <- mcp.TransportEvent{Time: time.Now(), Kind: "record",
				Summary: "recording stopped (" + cause + "): " + o.record + " ends here", Err: err}
		})
		// One file for the whole run: each reconnect's events follow the
		// previous session's (its state events mark where).
		onEvent = func(ev mcp.Event) {
			idle.Touch()
			rec.Event(ev)
		}
		record = rec.Event
		// Printed after the UI has ended, with a non-zero exit.
		defer closeRecord(rec, &err, os.Stderr)
	}
	tel, err := o.otel.startTUI(ctx, t, notices)
	if err != nil {
		return err
	}
	// After the UI has ended: the line about dropped spans is printed
	// then, never over the UI.
	defer tel.finish(os.Stderr)
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		// The log keeps every frame for as long as the UI runs: a long
		// line stays where it was read, outside the heap, rather than
		// being copied onto it.
		st.KeepLongLines = true
	}
	newClient := func() *mcp.Client {
		opts := cf.clientOptions()
		opts.Discover = true
		opts.KeepAlive = o.keepAlive
		opts.OnEvent = onEvent
		// Each connection (a reconnect's too) is a trace of its own.
		tel.next().hook(&opts, o.otel.propagate)
		// A linter follows one session: a fresh one per connection.
		opts.Analyzer = doctor.New(doctor.Options{Profile: profile})
		return mcp.NewClient(t.transport, opts)
	}
	answers, err := o.policy.answers(nil)
	if err != nil {
		return withCode(exitUsage, err)
	}
	var newSource func() session.Source
	if o.watch.on() {
		newSession := func() session.Source {
			return session.New(ctx, newClient(), session.Options{RequestTimeout: cf.timeout})
		}
		src, err := o.watch.source(newSession, record)
		if err != nil {
			return withCode(exitUsage, err)
		}
		// One source for the whole run: the reconnect key asks it to
		// rebuild and restart (ui/reload.go) instead of making another.
		first := true
		newSource = func() session.Source {
			if first {
				first = false
				return src
			}
			return newSession()
		}
	}
	m := ui.New(ui.Config{
		NewSource:      newSource,
		Roots:          answers.Roots,
		AutoAnswer:     answers,
		RequestTimeout: cf.timeout,
		SaveDir:        o.saveDir,
		MarkdownText:   o.markdown,
		CallsFile:      o.calls,
		Notices:        notices,
		NewClient:      newClient,
		Target:         t.shown(),
		Theme:          o.theme,
		NoOpen:         o.noOpen,
		NoColor:        os.Getenv("NO_COLOR") != "",
		Images:         o.images,
		Logger:         logger,
		Context:        ctx,
	})
	defer m.Close()
	// The OAuth flow asks the person through the UI before opening the
	// authorization URL (see openConfirmer).
	if cf.confirmOpen != nil {
		cf.confirmOpen.set(m.ConfirmOpen)
		defer cf.confirmOpen.set(nil)
	}
	logger.Info("Starting the TUI", "target", t.shown())
	if _, err := tea.NewProgram(m.Paced(), tea.WithContext(ctx), tea.WithFilter(touchOnInput(idle))).Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	if seq := m.ReleaseImages(); seq != "" {
		// The terminal keeps an image's data until told; the UI is gone,
		// so this writes nothing over it.
		_, _ = io.WriteString(os.Stdout, seq)
	}
	return nil
}

// openDebugLog opens --log-file for slog, or discards logs without one:
// the terminal belongs to the UI.
func openDebugLog(path string) (*slog.Logger, func(), error) {
	if path == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil)), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-file: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: redactLogAttr})), func() { _ = f.Close() }, nil
}

// pickServer shows the server picker with the UI's theme settings.
func (o *tuiFlags) pickServer(ctx context.Context, title string, items []panes.PickerItem) (int, error) {
	return ui.PickServer(ctx, title, items, o.theme, os.Getenv("NO_COLOR") != "")
}

// redactLogAttr keeps URL query secrets (?api_key=..., see
// redact.URLs) out of the debug log: the target, errors and
// messages may all carry the server's URL.
func redactLogAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(redact.URLs(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			a.Value = slog.StringValue(redact.URLs(err.Error()))
		}
	}
	return a
}

// touchOnInput counts a person's input as activity for the trimmer; the
// program's own messages (ticks, events) are not input.
func touchOnInput(idle *resident.Trimmer) func(tea.Model, tea.Msg) tea.Msg {
	return func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case tea.KeyMsg, tea.MouseMsg, tea.PasteMsg, tea.WindowSizeMsg:
			idle.Touch()
		}
		return msg
	}
}
