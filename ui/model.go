// Package ui is mcpscope's terminal UI: the one root Bubble Tea model. It
// owns the layout, focus, modals and the event pump that carries a
// session.Source's event stream into the panes; the panes themselves live
// in package panes, the protocol in package mcp/session.
//
// Rules this package keeps: Update never blocks and never does I/O
// (requests go to the source, which answers on its event stream; other
// work runs as Cmds returning messages); Cmds never touch the model;
// domain events reach panes through direct method calls, and only keys and
// mouse go through the panes' Update. It decodes no protocol payload: see
// CONTRIBUTING.md, "Routing map".
package ui

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/lib/clipboard"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/watch"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/panes/markdown"
	"github.com/mcpscope/mcpscope/panes/termimage"
	"github.com/mcpscope/mcpscope/themes"
)

// Config is what the root model needs from the command line.
type Config struct {
	// NewSource makes a fresh source for the target (a live session, a
	// replay, a tap); it is called at start and on every reconnect. When
	// it is nil, NewClient is used: each client is driven by a
	// session.Session. Both nil means no server (tests drive the model
	// with synthetic events).
	NewSource func() session.Source
	// NewClient makes a fresh, unconnected client for the target.
	NewClient func() *mcp.Client
	// Target describes the server for the header ("built-in demo server",
	// the command line).
	Target string
	// Theme is "auto" (ask the terminal), "dark" or "light".
	Theme string
	// NoColor selects the colourless theme (NO_COLOR is set).
	NoColor bool
	// Images is how images are drawn (--images): "auto" (or empty) asks
	// the terminal, "kitty", "blocks" (half-block cells) or "off".
	Images string
	Keys   keymap.KeyMap
	// Logger receives debug logs; nil discards them. Never stdout/stderr.
	Logger *slog.Logger
	// Context bounds every client call; Background when nil.
	Context context.Context
	// Roots are offered to the server (roots/list) at start (--root);
	// the roots pane edits them.
	Roots []policy.Root
	// AutoAnswer, when set, answers elicitation and sampling by policy
	// (--elicitation, --sampling) instead of asking the user.
	AutoAnswer *policy.Answers
	// RequestTimeout is the per-request timeout for requests started from
	// the UI (it restarts on progress); 60 s when zero.
	RequestTimeout time.Duration
	// LiveSession, when set, makes a separate live session on the server a
	// read-only source watches (a tap's command or URL): the LiveSession key
	// runs it in the terminal, and this view comes back when it ends.
	LiveSession func() tea.ExecCommand
	// NoReconnect says the source cannot be started again to any purpose
	// (a recording that has ended and names no server to start): the
	// reconnect key is neither offered nor taken.
	NoReconnect bool
	// ReconnectHelp, when set, is what the reconnect key is said to do in
	// the help and the status line, instead of reconnecting or restarting
	// (a tap's viewer follows the server's next tap).
	ReconnectHelp string
	// MarkdownText treats tools' text results as Markdown (--markdown):
	// rendered, as text/markdown resources, descriptions and prompt
	// messages always are.
	MarkdownText bool
	// SaveDir is where saved results, media and blobs go (--save-dir);
	// the working directory when empty.
	SaveDir string
	// CallsFile is the calls file saved calls are read from and written
	// to (--calls; mcpscope.calls.json in the working directory). Empty:
	// no saved calls.
	CallsFile string
	// Notices, when set, brings rows of mcpscope's own that belong to no
	// server's stream (the --record file could not be written): each is a
	// row of the log and the status line's note, whatever the source.
	Notices <-chan mcp.TransportEvent
	// NoOpen makes the preview key show the view's URL instead of opening
	// the browser (--no-open).
	NoOpen bool
	// Clipboard decides where a copy goes (OSC 52, or the system
	// clipboard in a tmux that swallows OSC 52); nil: the system's.
	Clipboard *clipboard.Router
}

// Model is the root model. Use it through a pointer.
type Model struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	keys   keymap.KeyMap
	theme  *themes.Theme
	// previewer is the MCP Apps preview's host (nil until the first
	// preview); lastTool the result the preview key opens the view of.
	previewer *previewer
	lastTool  panes.ToolResultMsg

	w, h   int
	layout layout

	// The source (a live session over a client, or a read-only one). gen
	// counts sources; events carry the gen of the source that produced
	// them.
	src        session.Source
	gen        int
	connecting bool
	ended      bool // the current client's stream has closed
	// reconnecting is set between "r" and the old stream's end.
	reconnecting bool
	old          session.Source
	state        mcp.State
	stateDetail  string
	handshake    *mcp.Handshake
	// sessionHandshakes holds each client session's handshake, in a tap's
	// capture that numbers them, so the header can describe the session
	// the log is looking at rather than the latest.
	sessionHandshakes map[int]*mcp.Handshake
	exit              *mcp.ExitError
	lastStderr        []string
	lastError         string
	toolStatus        string // the last tool call's outcome
	toolOK            bool
	// toolsWide is set while an arguments form is open (formPane): it is drawn
	// over the modal rectangle for room.
	toolsWide bool

	focus   focus
	modal   modal
	logPane *panes.Log
	detail  *panes.Detail
	caps    capsPane
	tools   toolsPane
	hsPane  handshakePane
	result  *panes.Result
	// screen is how images are drawn, once images finds out (images.go).
	screen *termimage.Screen
	images *termimage.Detector
	// placeArmed says a placeTickMsg is on its way (images.go).
	placeArmed bool
	placeClock func() time.Time            // nil: time.Now (tests move it by hand)
	placeTick  func(time.Duration) tea.Cmd // nil: tea.Tick (tests send placeTickMsg by hand)
	// mediaFiles are the temporary files o opened (media.go).
	mediaFiles mediaFiles
	help       help.Model
	helpBar    helpCache // the help bar's last layout, kept while its keys do not change
	// helpList scrolls the help overlay's rows (helpRows): at 60×15 they
	// do not fit.
	helpList  *list.Model
	helpLines []string

	// The protocol explorer: resources, prompts, server log, activity,
	// roots, the server's requests and the content they open.
	resources *panes.Resources
	prompts   *panes.Prompts
	serverLog *panes.ServerLog
	activity  *panes.Activity
	roots     *panes.Roots
	ask       *panes.Ask
	content   *panes.Content
	// The protocol doctor: see diagnostics.go.
	diags *panes.Diagnostics
	doc   connectDoctor
	// explorer is the pane shown in the wide layout's lower right slot.
	explorer focus
	// splitShift is how far the split key moved the wide layout's right
	// column from the width its explorer pane asks for (columns, + wider).
	splitShift int
	// asks carries server requests from the client's handler goroutines;
	// queue holds those waiting behind the open modal.
	asks   chan *pendingAsk
	queue  []*pendingAsk
	askSeq atomic.Int64
	// ops say, for each operation in flight, where its outcome is shown
	// (the session does the protocol; see ops.go).
	ops map[session.OpID]*opView
	// ticking is set while a tick is scheduled (elapsed times move).
	ticking bool
	now     time.Time
	// lists are the lists as shown (the caps pane's and the tests').
	lists map[string][]json.RawMessage
	// asked are the methods the client requested on this connection
	// (unlisted.go).
	asked map[string]bool
	// note is the last outcome of a UI action (ping, save, level...).
	note   string
	noteOK bool
	// noteOverExit: the note answers a key just pressed (why a read-only
	// source sent nothing, where a view from its capture is), so it shows
	// over how the recorded server ended.
	noteOverExit bool
	// reruns are the comparisons of the requests --rerun sent again, by
	// operation, until their answers are shown; unseenBreaking counts the
	// breaking changes of restarts not yet seen in Diagnostics (reload.go).
	reruns         map[int64]watch.RerunEvent
	unseenBreaking int
	// calls are the saved calls (calls.go); callsPane lists them all.
	calls     savedCalls
	callsPane *panes.Calls
}

// New builds the root model. Nothing runs until Init.
func New(cfg Config) *Model {
	if cfg.Keys.Global.Quit.Keys() == nil {
		cfg.Keys = keymap.Default()
	}
	parent := cfg.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.NewSource == nil && cfg.NewClient != nil {
		newClient, timeout := cfg.NewClient, cfg.RequestTimeout
		cfg.NewSource = func() session.Source {
			return session.New(ctx, newClient(), session.Options{RequestTimeout: timeout})
		}
	}
	m := &Model{cfg: cfg, ctx: ctx, cancel: cancel, log: logger, keys: cfg.Keys}
	m.theme = m.initialTheme()
	m.logPane = panes.NewLog(m.theme, m.keys)
	m.detail = panes.NewDetail(m.theme, m.keys, m.logPane.Paired)
	m.caps = newCapsPane(m.theme, m.keys)
	m.tools = newToolsPane(m.theme, m.keys)
	m.hsPane = newHandshakePane(m.theme, m.keys)
	m.result = panes.NewResult(m.theme, m.keys)
	m.result.SetMarkdownText(cfg.MarkdownText)
	m.resources = panes.NewResources(m.theme, m.keys)
	m.prompts = panes.NewPrompts(m.theme, m.keys)
	m.serverLog = panes.NewServerLog(m.theme, m.keys)
	m.serverLog.SetStore(m.logPane.Store())
	m.activity = panes.NewActivity(m.theme, m.keys)
	m.roots = panes.NewRoots(m.theme, m.keys, cfg.Roots)
	m.ask = panes.NewAsk(m.theme, m.keys)
	m.content = panes.NewContent(m.theme, m.keys)
	m.initImages()
	m.initDiagnostics()
	m.initCalls()
	m.explorer = focusTools
	m.asks = make(chan *pendingAsk, 16)
	m.ops = map[session.OpID]*opView{}
	m.lists = map[string][]json.RawMessage{}
	m.asked = map[string]bool{}
	m.help = help.New()
	m.help.Styles = m.theme.Help
	m.helpList = list.New(m.keys.Scroll, func(i int) string { return m.helpLines[i] })
	m.setFocus(focusLog)
	return m
}

func (m *Model) initialTheme() *themes.Theme {
	switch {
	case m.cfg.NoColor:
		return themes.NoColor()
	case m.cfg.Theme == "light":
		return themes.Light()
	}
	return themes.Dark() // also the start for "auto", until the terminal answers
}

// Init asks the terminal for its background (for "auto") and connects.
func (m *Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if !m.cfg.NoColor && (m.cfg.Theme == "" || m.cfg.Theme == "auto") {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	cmds = append(cmds, m.connect(), waitForAsk(m.asks), m.loadCalls(), waitForNotice(m.cfg.Notices), m.images.Start())
	return tea.Batch(cmds...)
}

// quitBudget bounds Close: quitting never waits on the server for longer
// (stdin closed, then SIGTERM, then SIGKILL, fitted in it).
const quitBudget = 700 * time.Millisecond

// Close ends the connection; runTUI calls it after the program exits.
func (m *Model) Close() {
	m.cancel()
	m.mediaFiles.remove()
	ctx, cancel := context.WithTimeout(context.Background(), quitBudget)
	defer cancel()
	if m.src != nil {
		shutdownSource(ctx, m.src)
	}
	if m.old != nil {
		shutdownSource(ctx, m.old)
	}
}

// shutdownSource closes a source within ctx when it can (a live session
// stops its server in time), else plainly.
func shutdownSource(ctx context.Context, src session.Source) {
	if s, ok := src.(interface{ Shutdown(context.Context) error }); ok {
		_ = s.Shutdown(ctx)
		return
	}
	_ = src.Close()
}

// Update routes a message by family, then fits the layout to the help
// bar, whose keys change with focus and modals.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(placeTickMsg); ok {
		return m, m.placeImages()
	}
	cmd := m.update(msg)
	cmd = tea.Batch(cmd, m.markdownCmds())
	if seq := m.screen.Take(); seq != "" {
		// Images sent or deleted by the panes in this update.
		cmd = tea.Batch(cmd, tea.Raw(seq))
	}
	m.sawBreaking()
	if m.calls.toolsChanged {
		m.calls.toolsChanged = false
		cmd = tea.Batch(cmd, m.staleCalls())
	}
	if m.w > 0 && (m.helpRows() != m.layout.help.Dy() || m.wideForm() != m.toolsWide ||
		!m.layout.tabbed && m.rightWidth() != m.layout.caps.Dx()) {
		m.resize(m.w, m.h)
	}
	return m, tea.Batch(cmd, m.armPlacement())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if cmd, done := m.images.Update(msg); cmd != nil || done {
		if done {
			m.imagesDetected()
		}
		return cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		// The renderer clears the screen after a resize: images too.
		m.screen.Redraw()
		return nil
	case tea.ResumeMsg:
		// Back from a suspend, the screen is drawn anew.
		m.screen.Redraw()
		return nil
	case tea.BackgroundColorMsg:
		if !m.cfg.NoColor && (m.cfg.Theme == "" || m.cfg.Theme == "auto") {
			m.setTheme(themes.Default(msg.IsDark()))
		}
		return nil
	case eventsMsg:
		return m.handleEvents(msg)
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case markdown.RenderedMsg:
		m.markdownReady(msg)
		return nil
	}
	return m.handleResult(msg)
}

func (m *Model) resize(w, h int) {
	m.w, m.h = w, h
	m.layout = computeLayout(w, h, m.helpRows(), m.rightWidth())
	l := m.layout
	m.logPane.SetSize(l.log.Dx(), l.log.Dy())
	m.caps.SetSize(l.caps.Dx(), l.caps.Dy())
	m.toolsWide = m.wideForm()
	toolsAt := l.tools
	if m.toolsEditing() {
		toolsAt = l.modal
	}
	m.tools.SetSize(toolsAt.Dx(), toolsAt.Dy())
	// The mouse tells the list from the details by where it is.
	m.tools.SetOrigin(toolsAt.Min.X, toolsAt.Min.Y)
	for _, p := range []panes.Pane{m.resources, m.prompts, m.serverLog, m.activity, m.roots, m.diags} {
		if p == m.formPane() {
			p.SetSize(l.modal.Dx(), l.modal.Dy())
			continue
		}
		p.SetSize(l.tools.Dx(), l.tools.Dy())
	}
	m.ask.SetSize(l.modal.Dx(), l.modal.Dy())
	m.callsPane.SetSize(l.modal.Dx(), l.modal.Dy())
	m.content.SetSize(l.modal.Dx(), l.modal.Dy())
	m.detail.SetSize(l.modal.Dx(), l.modal.Dy())
	m.hsPane.SetSize(l.modal.Dx(), l.modal.Dy())
	m.result.SetSize(l.modal.Dx(), l.modal.Dy())
	m.help.SetWidth(w)
}

// rightWidth is the wide layout's right column: while the keyboard is in
// it, what the explorer pane shown there asks for (panes.Measured); while
// the log has it, the log's share. Either is moved by the split key.
func (m *Model) rightWidth() int {
	need, want := m.explorerWidths()
	r, _ := rightColumnWidth(m.w, need, want, m.splitShift)
	return r
}

func (m *Model) explorerWidths() (need, want int) {
	if m.focus == focusLog {
		return 0, 0
	}
	if p, ok := m.pane(m.explorer).(panes.Measured); ok {
		return p.ContentWidth()
	}
	return 0, 0
}

// moveSplit moves the wide layout's split by delta columns (negative: to
// the left, widening the right column).
func (m *Model) moveSplit(delta int) {
	need, want := m.explorerWidths()
	_, m.splitShift = rightColumnWidth(m.w, need, want, m.splitShift-delta)
	m.resize(m.w, m.h)
}

func (m *Model) setTheme(t *themes.Theme) {
	m.theme = t
	m.help.Styles = t.Help
	m.helpBar = helpCache{} // the styles changed
	for _, p := range []any{m.logPane, m.detail, m.caps, m.tools, m.hsPane, m.result,
		m.resources, m.prompts, m.serverLog, m.activity, m.roots, m.ask, m.content, m.diags, m.callsPane} {
		if p, ok := p.(themed); ok {
			p.SetTheme(t)
		}
	}
}

// pane returns the pane with a focus name.
func (m *Model) pane(f focus) panes.Pane {
	switch f {
	case focusCaps:
		return m.caps
	case focusTools:
		return m.tools
	case focusResources:
		return m.resources
	case focusPrompts:
		return m.prompts
	case focusServerLog:
		return m.serverLog
	case focusActivity:
		return m.activity
	case focusRoots:
		return m.roots
	case focusDiagnostics:
		return m.diags
	}
	return m.logPane
}

func (m *Model) setFocus(f focus) {
	m.pane(m.focus).Blur()
	m.focus = f
	if f >= firstExplorer {
		m.explorer = f
	}
	m.pane(f).Focus()
}

// modalPane is the pane shown in the overlay, or nil.
func (m *Model) modalPane() panes.Pane {
	switch m.modal {
	case modalDetail:
		return m.detail
	case modalHandshake:
		return m.hsPane
	case modalResult:
		return m.result
	case modalAsk:
		return m.ask
	case modalContent:
		return m.content
	case modalCalls:
		return m.callsPane
	}
	return nil
}

func (m *Model) openModal(md modal) {
	switch {
	case md == modalResult && m.modal != modalResult:
		m.result.ShowImages()
	case md == modalContent && m.modal != modalContent:
		m.content.ShowImages()
	}
	m.modal = md
	if p := m.modalPane(); p != nil {
		p.Focus()
	}
}

func (m *Model) closeModal() {
	if p := m.modalPane(); p != nil {
		p.Blur()
	}
	switch m.modal {
	case modalResult:
		// Leaving the view deletes what it drew with a graphics
		// protocol; half-block cells go with the view.
		m.result.ReleaseImages()
	case modalContent:
		m.content.ReleaseImages()
	}
	m.modal = modalNone
}

// handleEvents applies one batch from a client's stream and re-arms the
// pump for that stream exactly once.
func (m *Model) handleEvents(msg eventsMsg) tea.Cmd {
	var cmds []tea.Cmd
	stale := msg.gen != m.gen
	for _, ev := range msg.events {
		if cmd := m.apply(ev, stale); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	switch {
	case !msg.closed:
		if ch := m.streamOf(msg.gen); ch != nil {
			cmds = append(cmds, waitForEvents(msg.gen, ch))
		}
	case msg.gen == m.gen && m.reconnecting:
		// The old session's last events are in; now the new one.
		cmds = append(cmds, m.finishReconnect())
	case msg.gen == m.gen:
		m.ended = true
		m.log.Debug("Event stream ended", "gen", msg.gen)
		m.explainFailure()
		m.explainUnlisted()
	}
	return tea.Batch(cmds...)
}

// streamOf is the event channel of connection gen, or nil if it is not
// the current one. Events() returns the same channel on every call.
func (m *Model) streamOf(gen int) <-chan mcp.Event {
	if gen == m.gen && m.src != nil {
		return m.src.Events()
	}
	return nil
}

// apply feeds one event to the panes. stale events come from a source
// that was replaced (drained after a reconnect): their lists and pages are
// not shown over the new source's.
func (m *Model) apply(ev mcp.Event, stale bool) tea.Cmd {
	if cmd, ok := m.applySession(ev, stale); ok {
		return cmd
	}
	if m.applyReload(ev) {
		return nil
	}
	m.doc.observe(ev)
	m.logPane.Append(ev)
	switch ev := ev.(type) {
	case mcp.StderrEvent:
		m.lastStderr = append(m.lastStderr, ev.Line)
		if len(m.lastStderr) > 3 {
			m.lastStderr = m.lastStderr[1:]
		}
	case mcp.StateEvent:
		m.state, m.stateDetail = ev.State, ev.Detail
		if ev.State == mcp.StateFailed && m.handshake == nil {
			m.caps.SetFailed(ev.Detail)
		}
	case mcp.HandshakeEvent:
		m.handshake = ev.Handshake
		if ev.ClientSession != 0 {
			if m.sessionHandshakes == nil {
				m.sessionHandshakes = map[int]*mcp.Handshake{}
			}
			m.sessionHandshakes[ev.ClientSession] = ev.Handshake
		}
		m.caps.SetHandshake(ev.Handshake)
		m.hsPane.SetHandshake(ev.Handshake)
		m.tools.SetServer(ev.Handshake.ServerInfo)
		m.pushCalls() // which saved calls are this server's
		if c := ev.Handshake.ClientInfo; c.Name != "" && c.Name != "mcpscope" {
			// A tap: the list starts as the client that spoke presents it.
			m.tools.SetClient(clients.For(c))
		}
		m.applyGates()
	case mcp.FrameEvent:
		if f := ev.Frame; !stale && f.Kind == mcp.KindRequest && f.Dir == mcp.Outbound {
			m.asked[f.Method] = true
		}
	case mcp.ListEvent:
		return m.applyList(ev.Method, ev.Items, ev.Err)
	case mcp.ExitEvent:
		m.exit = ev.Exit
	case mcp.LocalErrorEvent:
		m.lastError = ev.Err.Error()
	case mcp.DiagnosticEvent:
		m.addDiagnostic(ev.Diagnostic)
	}
	return nil
}

// applyList feeds a complete list (every page) to the panes that show it,
// and remembers it so the next re-list can say what changed. Its Cmd
// counts a tool list's tokens.
func (m *Model) applyList(method string, items []json.RawMessage, err error) tea.Cmd {
	var cmd tea.Cmd
	if err != nil {
		m.lastError = method + ": " + err.Error()
	}
	m.lists[method] = items
	m.caps.SetList(method, items)
	switch method {
	case mcp.MethodToolsList:
		cmd = m.tools.SetTools(mcp.ParseTools(items))
		m.calls.toolsChanged = true
	case mcp.MethodResourcesList, mcp.MethodResourceTemplatesList:
		m.resources.SetPage(method, items, true, "")
	case mcp.MethodPromptsList:
		m.prompts.SetPage(items, true, "")
	}
	if err != nil {
		m.listFailed(method, err)
	}
	return cmd
}

// listFailed shows a failed listing where its items would have been: the
// pane of the list and the capabilities tree, with the error and what to
// try, never as an empty list.
func (m *Model) listFailed(method string, err error) {
	l, _ := mcp.LookupList(method)
	f := panes.Failure{Method: method, Err: err, Declared: m.handshake != nil && m.handshake.HasCapability(l.Capability)}
	m.caps.SetListFailed(f)
	switch method {
	case mcp.MethodToolsList:
		m.tools.SetFailed(f)
	case mcp.MethodResourcesList, mcp.MethodResourceTemplatesList:
		m.resources.SetFailed(f)
	case mcp.MethodPromptsList:
		m.prompts.SetFailed(f)
	}
}

// State is the connection state.
func (m *Model) State() mcp.State { return m.state }

var _ tea.Model = (*Model)(nil)

// formPane is the pane whose arguments form is open (a tool's, a resource
// template's, a prompt's), nil when none: it is drawn over the body, with
// the room of a modal, whichever pane it belongs to.
func (m *Model) formPane() panes.Pane {
	switch {
	case m.toolsEditing():
		return m.tools
	case m.resources.Form() != nil:
		return m.resources
	case m.prompts.Form() != nil:
		return m.prompts
	}
	return nil
}

// wideForm reports whether an arguments form is open (formPane).
func (m *Model) wideForm() bool { return m.formPane() != nil }

// toolsEditing reports whether the tools pane has its arguments editor open.
func (m *Model) toolsEditing() bool {
	return m.tools.Editing()
}
