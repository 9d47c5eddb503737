package ui

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/calls"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// savedCalls is what the UI knows of the calls file (Config.CallsFile) and
// of how each call last went. The file is read and written by Cmds; the
// calls are sent through the source like any request, and their answers
// judged by mcp/calls, the code mcpscope test runs.
type savedCalls struct {
	file    *calls.File
	problem string                   // why the file could not be read
	runs    map[string]calls.Outcome // the last outcome, by call name
	running map[string]bool
	queue   []string          // calls waiting to run, in order
	batch   []string          // the calls of the run in progress, for its summary
	stale   map[string]string // why a call may no longer fit, by name
	// toolsChanged is set when a new tool list arrived: which calls are
	// stale is worked out again after the message.
	toolsChanged bool
}

// callsLoadedMsg carries the calls file read by a Cmd.
type callsLoadedMsg struct {
	file *calls.File
	err  error
}

// callSavedMsg is the outcome of saving a call.
type callSavedMsg struct {
	file     *calls.File
	name     string
	replaced bool
	err      error
}

// callsStaleMsg carries which calls no longer fit the tool list.
type callsStaleMsg struct {
	file  *calls.File
	stale map[string]string
}

func (m *Model) initCalls() {
	m.calls = savedCalls{file: calls.Empty(m.cfg.CallsFile), runs: map[string]calls.Outcome{}, running: map[string]bool{}}
	m.callsPane = panes.NewCalls(m.theme, m.keys)
	m.pushCalls()
}

// loadCalls reads the calls file (Init, and each time the list opens: a
// person may have edited it meanwhile).
func (m *Model) loadCalls() tea.Cmd {
	path := m.cfg.CallsFile
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		f, err := calls.LoadOrEmpty(path)
		return callsLoadedMsg{file: f, err: err}
	}
}

// callsServer is the name the server gave itself, which a saved call
// records and the calls file is sorted by ("" before the handshake, or
// from a server that gave none: every call is for it).
func (m *Model) callsServer() string {
	if m.handshake == nil {
		return ""
	}
	return m.handshake.ServerInfo.Name
}

// staleCalls works out, off the UI goroutine, which calls the current tool
// list no longer fits (schemas are compiled for it). A call saved for
// another server is not this server's to fit.
func (m *Model) staleCalls() tea.Cmd {
	f, tools, server := m.calls.file, m.tools.Tools(), m.callsServer()
	if f == nil || len(f.Calls) == 0 || tools == nil {
		return nil
	}
	return func() tea.Msg {
		stale := map[string]string{}
		for _, c := range f.Calls {
			if !c.For(server) {
				continue
			}
			if s := calls.Stale(c, tools); s != "" {
				stale[c.Name] = s
			}
		}
		return callsStaleMsg{file: f, stale: stale}
	}
}

// handleCalls handles the saved calls' messages; ok is false for others.
func (m *Model) handleCalls(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case callsLoadedMsg:
		if msg.err != nil {
			m.calls.problem = msg.err.Error()
			m.setNote("saved calls: "+msg.err.Error(), false)
		} else {
			m.calls.problem = ""
			m.calls.file = msg.file
		}
		m.pushCalls()
		return m.staleCalls(), true
	case callsStaleMsg:
		if msg.file == m.calls.file {
			m.calls.stale = msg.stale
			m.pushCalls()
		}
		return nil, true
	case callSavedMsg:
		if msg.err != nil {
			m.setNote("the call was not saved: "+msg.err.Error(), false)
			return nil, true
		}
		m.calls.file, m.calls.problem = msg.file, ""
		delete(m.calls.runs, msg.name) // its expectations are new
		verb := "saved"
		if msg.replaced {
			verb = "replaced"
		}
		where := msg.file.Path
		if c, ok := msg.file.Find(msg.name); ok {
			where = fmt.Sprintf("%s:%d", where, c.Line)
		}
		m.setNote(fmt.Sprintf("%s %q in %s · %s runs it, %s lists all", verb, msg.name, where,
			m.keys.Calls.Run.Help().Key, m.keys.Calls.List.Help().Key), true)
		m.pushCalls()
		return m.staleCalls(), true
	case panes.SaveCallMsg:
		return m.saveCall(msg), true
	case panes.RunCallsMsg:
		return m.runCalls(msg.Names), true
	case panes.LoadCallMsg:
		return m.loadCall(msg.Name), true
	case panes.NoteMsg:
		m.setNote(msg.Text, msg.OK)
		return nil, true
	}
	return nil, false
}

// openCalls opens the list of every saved call, reading the file again.
func (m *Model) openCalls() tea.Cmd {
	m.openModal(modalCalls)
	return m.loadCalls()
}

// saveCall writes the call a result came from into the calls file: a Cmd
// reads the file afresh, changes that call's bytes only, and writes it
// whole.
func (m *Model) saveCall(msg panes.SaveCallMsg) tea.Cmd {
	path := m.cfg.CallsFile
	if path == "" {
		m.setNote("there is no calls file here to save to", false)
		return nil
	}
	if msg.Response == nil {
		m.setNote("only a call the server answered can be saved", false)
		return nil
	}
	call := calls.Saved(msg.Name, mcp.MethodToolsCall, calls.ToolParams(msg.Tool, msg.Args),
		calls.AnswerOf(msg.Response.Raw, msg.Latency), msg.Snapshot, msg.OutputSchema)
	call.Server = m.callsServer()
	return func() tea.Msg {
		replaced := false
		f, err := calls.Edit(path, func(cur *calls.File) ([]byte, error) {
			_, replaced = cur.Find(call.Name)
			return cur.WithCall(call)
		})
		return callSavedMsg{file: f, name: call.Name, replaced: replaced, err: err}
	}
}

// runCalls queues calls to run in order (every call when names is empty)
// and starts the first; each is sent when the one before it has answered,
// as mcpscope test sends them.
func (m *Model) runCalls(names []string) tea.Cmd {
	if m.calls.problem != "" {
		m.setNote("saved calls: "+m.calls.problem, false)
		return nil
	}
	if len(names) == 0 {
		// Every call of this server: the others' are shown apart, and
		// run only one by one.
		server := m.callsServer()
		for _, c := range m.calls.file.Calls {
			if c.For(server) {
				names = append(names, c.Name)
			}
		}
		if len(names) == 0 && len(m.calls.file.Calls) > 0 {
			m.setNote(fmt.Sprintf("no saved calls for %q: the %s in the file were saved for other servers (%s lists them)",
				server, plural.S(len(m.calls.file.Calls), "call"), m.keys.Calls.List.Help().Key), false)
			return nil
		}
	}
	if len(names) == 0 {
		m.setNote("no saved calls yet: "+m.keys.Calls.Save.Help().Key+" on a tool's result saves one", false)
		return nil
	}
	if len(m.calls.queue) == 0 && len(m.calls.running) == 0 {
		m.calls.batch = nil
	}
	for _, n := range names {
		if !slices.Contains(m.calls.queue, n) && !m.calls.running[n] {
			m.calls.queue = append(m.calls.queue, n)
			m.calls.batch = append(m.calls.batch, n)
		}
	}
	if len(m.calls.running) == 0 {
		m.runNext()
	}
	m.pushCalls()
	return nil
}

// runNext sends the next queued call. A source that cannot send fails it
// with the reason, and the rest of the queue with it.
func (m *Model) runNext() {
	for len(m.calls.queue) > 0 {
		name := m.calls.queue[0]
		m.calls.queue = m.calls.queue[1:]
		c, ok := m.calls.file.Find(name)
		if !ok {
			continue // removed from the file meanwhile
		}
		err := m.send(func(s session.Sender) (session.Op, error) { return s.Request(c.Method, c.Params) }, opView{savedCall: name})
		if err != nil {
			for _, n := range append([]string{name}, m.calls.queue...) {
				m.calls.runs[n] = calls.Outcome{Name: n, Error: "not sent: " + err.Error()}
			}
			m.calls.queue = nil
			m.setNote("saved calls not sent: "+err.Error(), false)
			return
		}
		m.calls.running[name] = true
		return
	}
}

// savedCallDone judges a saved call's answer, shows it, and sends the next.
func (m *Model) savedCallDone(name string, ev session.OpDoneEvent) {
	delete(m.calls.running, name)
	c, ok := m.calls.file.Find(name)
	if ok {
		var o calls.Outcome
		if ev.Frame != nil {
			o = calls.Judge(c, calls.AnswerOf(ev.Frame.Raw, ev.Latency), m.tools.Tools())
		} else {
			o = calls.Outcome{Name: c.Name, Method: c.Method, Line: c.Line, Error: errText(ev.Err)}
		}
		m.calls.runs[name] = o
		if o.Pass {
			m.setNote(fmt.Sprintf("✓ %q passed (%s)", name, calls.Took(o.Ms)), true)
		} else {
			m.setNote(fmt.Sprintf("✗ %q failed: %s", name, o.Reason()), false)
		}
	}
	m.runNext()
	if len(m.calls.running) == 0 && len(m.calls.queue) == 0 && len(m.calls.batch) > 1 {
		passed := 0
		for _, n := range m.calls.batch {
			if m.calls.runs[n].Pass {
				passed++
			}
		}
		m.setNote(fmt.Sprintf("%s: %d passed, %d failed (%s lists them)", plural.S(len(m.calls.batch), "saved call"), passed,
			len(m.calls.batch)-passed, m.keys.Calls.List.Help().Key), passed == len(m.calls.batch))
	}
	m.pushCalls()
}

func errText(err error) string {
	if err == nil {
		return "no answer"
	}
	return err.Error()
}

// loadCall puts a saved call's arguments into its tool's form.
func (m *Model) loadCall(name string) tea.Cmd {
	c, ok := m.savedCall(name)
	if !ok {
		return nil
	}
	if m.modal == modalCalls {
		m.closeModal()
	}
	m.setFocus(focusTools)
	cmd, err := m.tools.LoadCall(c)
	if err != nil {
		m.setNote(err.Error(), false)
		return nil
	}
	m.setNote(fmt.Sprintf("loaded %q into the form: %s sends it", name, m.keys.Form.Send.Help().Key), true)
	return cmd
}

// savedCall is a call of the file as the panes show it.
func (m *Model) savedCall(name string) (panes.SavedCall, bool) {
	c, ok := m.calls.file.Find(name)
	if !ok {
		return panes.SavedCall{}, false
	}
	return m.toSaved(c), true
}

func (m *Model) toSaved(c calls.Call) panes.SavedCall {
	s := panes.SavedCall{Name: c.Name, Method: c.Method, Subject: c.Subject(), Tool: c.Tool(), Args: c.Arguments(),
		Params: string(c.Params), Expects: c.Expect.Describe(), Stale: m.calls.stale[c.Name]}
	if !c.For(m.callsServer()) {
		s.OtherServer, s.Stale = c.Server, ""
	}
	if c.Line > 0 {
		s.Where = fmt.Sprintf("%s:%d", m.calls.file.Path, c.Line)
	}
	switch o, ran := m.calls.runs[c.Name]; {
	case m.calls.running[c.Name] || slices.Contains(m.calls.queue, c.Name):
		s.State = panes.CallRunning
	case !ran:
	case o.Pass:
		s.State, s.Took = panes.CallPassed, calls.Took(o.Ms)
	default:
		s.State, s.Took = panes.CallFailed, calls.Took(o.Ms)
		if o.Error != "" {
			s.Failures = append(s.Failures, "no answer: "+o.Error)
		}
		for _, f := range o.Failures {
			s.Failures = append(s.Failures, f.String())
		}
	}
	return s
}

// pushCalls gives the panes the calls as they now stand: the tools pane
// this server's, the list of all calls this server's and then, apart,
// those saved for other servers.
func (m *Model) pushCalls() {
	f := m.calls.file
	mine := make([]panes.SavedCall, 0, len(f.Calls))
	var others []panes.SavedCall
	for _, c := range f.Calls {
		if s := m.toSaved(c); s.OtherServer != "" {
			others = append(others, s)
		} else {
			mine = append(mine, s)
		}
	}
	m.tools.SetSavedCalls(mine)
	m.callsPane.SetCalls(f.Path, m.calls.problem, append(slices.Clip(mine), others...))
	m.result.SetCalls(f.Path, f.Names())
}
