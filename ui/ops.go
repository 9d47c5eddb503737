package ui

import (
	"errors"
	"fmt"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// opView is what the UI keeps of an operation in flight: where its outcome
// is shown. The protocol itself (params, results, polling) is the
// session's; this is only "operation id -> what to show".
type opView struct {
	label string
	// tool is the call a tools/call answers, for the result view.
	tool panes.CallToolMsg
	// completeFor is the pane a completion answers, with the form's seq.
	completeFor focus
	completeSeq int
	// savedCall is the saved call a request runs (calls.go).
	savedCall string
}

type tickMsg time.Time

// notedMsg is the outcome of a Cmd that only reports (a save, a browser).
type notedMsg struct {
	text string
	ok   bool
}

// toolCalledMsg wraps a tool call's outcome with its response frame.
type toolCalledMsg struct {
	result  panes.ToolResultMsg
	frame   *mcp.Frame
	isError bool // the result says isError: true
}

func (m *Model) setNote(s string, ok bool) {
	m.note, m.noteOK, m.toolStatus, m.noteOverExit = s, ok, "", false
}

// errNoServer is what a send key answers when nothing is connected.
var errNoServer = errors.New("no server is connected")

// send starts an operation through the source and remembers where its
// outcome goes. A source that cannot send (a session file, a tap) says
// why, and the status line shows it.
func (m *Model) send(start func(session.Sender) (session.Op, error), view opView) error {
	if m.src == nil {
		return errNoServer
	}
	o, err := start(m.src)
	if err != nil {
		m.setNote(err.Error(), false)
		// A read-only source's answer is shown even over how the
		// recorded server ended: it answers the key just pressed.
		var ro *session.ReadOnlyError
		m.noteOverExit = errors.As(err, &ro)
		return err
	}
	if o.ID != 0 {
		view.label = o.Label
		m.ops[o.ID] = &view
	}
	return nil
}

// sendOrNote is send for the keys whose failure only needs the status
// line.
func (m *Model) sendOrNote(what string, start func(session.Sender) (session.Op, error), view opView) {
	if err := m.send(start, view); errors.Is(err, errNoServer) {
		m.setNote(what+": "+err.Error(), false)
	}
}

func (m *Model) tick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(200*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// cancelOp cancels a request in flight; the client sends
// notifications/cancelled and the op ends as cancelled.
func (m *Model) cancelOp(id int) {
	v, ok := m.ops[session.OpID(id)]
	if !ok || m.src == nil {
		return
	}
	if err := m.src.Cancel(session.OpID(id)); err != nil {
		m.setNote(err.Error(), false)
		return
	}
	m.setNote("cancelling "+v.label+" (notifications/cancelled sent)", true)
}

// opStatus is the activity pane's word for how an operation ended.
func opStatus(s session.Status) string {
	switch s {
	case session.StatusOK:
		return panes.OpOK
	case session.StatusCancelled:
		return panes.OpCancelled
	case session.StatusTimeout:
		return panes.OpTimeout
	case session.StatusLost:
		return panes.OpLost
	}
	return panes.OpError
}

// opStarted shows an operation the session started (the user's or its
// own, such as a task's tasks/get) as running.
func (m *Model) opStarted(o session.Op) tea.Cmd {
	if v, ok := m.ops[o.ID]; ok {
		v.label = o.Label
	} else {
		m.ops[o.ID] = &opView{label: o.Label}
	}
	if !o.Tracked() {
		return nil
	}
	m.activity.SetNow(o.Started)
	m.activity.Start(panes.Op{ID: int(o.ID), Label: o.Label, Token: o.Token, Started: o.Started})
	return m.tick()
}

// opDone routes a finished operation's outcome to where it is shown.
func (m *Model) opDone(ev session.OpDoneEvent, stale bool) tea.Cmd {
	v, ok := m.ops[ev.Op.ID]
	if !ok {
		v = &opView{label: ev.Op.Label}
	}
	delete(m.ops, ev.Op.ID)
	if ev.Op.Tracked() {
		at := ev.Time
		if at.IsZero() {
			at = time.Now()
		}
		m.activity.End(int(ev.Op.ID), opStatus(ev.Status), at, ev.Latency)
		m.activity.Answered(int(ev.Op.ID), ev.Frame)
	}
	if v.savedCall != "" {
		m.savedCallDone(v.savedCall, ev)
		return nil
	}
	fail := func(what string) { m.setNote(what+": "+ev.Err.Error(), false) }
	var cmd tea.Cmd
	switch r := ev.Result.(type) {
	case *session.ToolResult:
		cmd = m.toolDone(v, ev, r)
	case *session.ReadResult:
		m.resources.SetRead(r.URI, r.Raw)
		cmd = m.content.SetDoc(ev.Op.Label, append([]panes.DocPart{{Lines: comparisonLines(m, m.rerunOf(int64(ev.Op.ID)))}}, panes.ReadResultDoc(m.theme, r.Raw)...), false)
		if ev.Frame != nil {
			m.content.SetRaw(ev.Frame.Raw)
		}
		m.setNote(fmt.Sprintf("read %s in %v", r.URI, ev.Latency.Round(time.Millisecond)), true)
		m.openOver(modalContent)
	case *session.PromptResult:
		// A prompt's messages are prose: wrapped, not cut (W unwraps).
		cmd = m.content.SetDoc(ev.Op.Label, append([]panes.DocPart{{Lines: comparisonLines(m, m.rerunOf(int64(ev.Op.ID)))}}, panes.PromptResultDoc(m.theme, r.Raw)...), true)
		if ev.Frame != nil {
			m.content.SetRaw(ev.Frame.Raw)
		}
		m.setNote(ev.Op.Label+" ok", true)
		m.openOver(modalContent)
	case *session.Page:
		if !stale {
			cmd = m.applyPage(r)
		}
	case *session.Completion:
		m.completed(v, panes.CompletionsMsg{Seq: v.completeSeq, Values: r.Values, Total: r.Total, More: r.HasMore})
	case *session.Pong:
		m.setNote("ping: round trip "+r.RTT.Round(10*time.Microsecond).String(), true)
	case *session.ListenEnded:
		switch {
		case r.Superseded: // replaced by a listen with the new set of URIs
		case ev.Err != nil:
			fail(mcp.MethodSubscriptionsListen)
		default:
			m.setNote("the server ended the subscriptions/listen stream", false)
		}
	case *session.TaskPayload:
		lines := panes.BlockLines(m.theme, r.Content)
		if len(r.Content) == 0 {
			lines = panes.BlockLines(m.theme, r.Raw)
		}
		m.content.Set(ev.Op.Label, lines)
		m.openOver(modalContent)
	case *session.Task:
		if ev.Op.Kind == session.KindTaskCancel {
			m.setNote(ev.Op.Label+" ok", true)
		}
	case nil:
		switch {
		case ev.Op.Kind == session.KindTool:
			cmd = m.toolDone(v, ev, nil)
		case ev.Op.Kind == session.KindComplete:
			m.completed(v, panes.CompletionsMsg{Seq: v.completeSeq, Err: ev.Err})
		case (ev.Op.Kind == session.KindPrompt || ev.Op.Kind == session.KindRead) && ev.Err != nil:
			// Shown where its result would have been, not only as a note.
			retry := "enter on the prompt sends it again"
			if ev.Op.Kind == session.KindRead {
				retry = "enter on the resource reads it again"
			}
			f := panes.Failure{Method: ev.Op.Method, Err: ev.Err, Declared: true, Retry: retry}
			m.content.SetFolded(ev.Op.Label+" failed", panes.FailureLines(m.theme, f))
			fail(ev.Op.Label)
			m.openOver(modalContent)
		case ev.Op.Kind == session.KindPage && ev.Err != nil:
			if !stale {
				m.listFailed(ev.Op.Method, ev.Err)
			}
			fail(ev.Op.Label)
		case ev.Err != nil:
			fail(ev.Op.Label)
		case ev.Op.Kind == session.KindSubscribe:
			m.setNote(ev.Op.Label+" ok", true)
		}
	}
	if ev.Problem != nil {
		m.setNote(ev.Problem.Error(), false)
	}
	return cmd
}

// completed routes a completion answer to the form that asked.
func (m *Model) completed(v *opView, msg panes.CompletionsMsg) {
	switch v.completeFor {
	case focusResources:
		m.resources.SetCompletions(msg)
	case focusPrompts:
		m.prompts.SetCompletions(msg)
	}
}

// openOver opens a result modal unless the user is answering the server.
func (m *Model) openOver(md modal) {
	if m.modal == modalAsk {
		return
	}
	if m.modal != modalNone {
		m.closeModal()
	}
	m.openModal(md)
}

// callTool starts tools/call (as a task when the tool and the server allow
// it: the session decides). Without a source that can send, the result
// view says why the call failed.
func (m *Model) callTool(msg panes.CallToolMsg) tea.Cmd {
	err := m.send(func(s session.Sender) (session.Op, error) { return s.CallTool(msg.Name, msg.Args) }, opView{tool: msg})
	if err == nil {
		return nil
	}
	failed := toolCalledMsg{result: panes.ToolResultMsg{Name: msg.Name, Args: msg.Args, Err: err}}
	return func() tea.Msg { return failed }
}

// outputSchema is the listed tool's outputSchema, nil when it has none.
func (m *Model) outputSchema(name string) []byte {
	for _, t := range m.tools.Tools() {
		if t.Name == name {
			return t.OutputSchema
		}
	}
	return nil
}

// toolDone shows a tool call's outcome; r is nil when the call failed.
func (m *Model) toolDone(v *opView, ev session.OpDoneEvent, r *session.ToolResult) tea.Cmd {
	name, args := v.tool.Name, v.tool.Args
	if name == "" && r != nil { // a call the UI did not start (--rerun's)
		name, args = r.Name, r.Args
	}
	res := panes.ToolResultMsg{Name: name, Args: args, Latency: ev.Latency, OutputSchema: m.outputSchema(name),
		Client: m.tools.ViewAs(), Compared: m.rerunOf(int64(ev.Op.ID)), Template: m.templateOf(name)}
	if ev.Frame != nil {
		res.Seq, res.Response = ev.Frame.Seq, ev.Frame
	}
	var rpcErr *mcp.RPCError
	switch {
	case errors.As(ev.Err, &rpcErr):
		res.RPCError = rpcErr
	case ev.Err != nil:
		res.Err = ev.Err
	case r.Task != nil:
		m.setNote("tools/call "+v.tool.Name+" created a task: see Activity (7); o fetches its result", true)
		return nil
	default:
		res.Result = r.Raw
	}
	return m.handleResult(toolCalledMsg{result: res, frame: ev.Frame, isError: r != nil && r.IsError})
}

// applyPage shows one page of a list ("load more", "send anyway").
func (m *Model) applyPage(p *session.Page) tea.Cmd {
	var cmd tea.Cmd
	first := p.Cursor == ""
	switch p.Method {
	case mcp.MethodResourcesList, mcp.MethodResourceTemplatesList:
		m.resources.SetPage(p.Method, p.Items, first, p.Next)
	case mcp.MethodPromptsList:
		m.prompts.SetPage(p.Items, first, p.Next)
	case mcp.MethodToolsList:
		cmd = m.tools.SetTools(mcp.ParseTools(p.Items))
		m.calls.toolsChanged = true
	}
	if first {
		m.lists[p.Method] = p.Items
		m.caps.SetList(p.Method, p.Items)
	}
	n := p.Method + ": " + plural.S(len(p.Items), "item")
	if p.Next != "" {
		n += "; more on the server (m loads the next page)"
	}
	m.setNote(n, true)
	return cmd
}

// listPage asks for one page of a list method.
func (m *Model) listPage(method, cursor string) {
	m.sendOrNote(method, func(s session.Sender) (session.Op, error) { return s.ListPage(method, cursor) }, opView{})
}

// complete runs completion/complete for the focused form.
func (m *Model) complete(f focus, msg panes.CompleteMsg) {
	req := session.CompleteRequest{Ref: msg.Ref, Argument: msg.Arg, Value: msg.Value, Context: msg.Context}
	m.sendOrNote(mcp.MethodCompletionComplete, func(s session.Sender) (session.Op, error) { return s.Complete(req) },
		opView{completeFor: f, completeSeq: msg.Seq})
}

// ping sends ping; the outcome is the round trip.
func (m *Model) ping() {
	m.sendOrNote(mcp.MethodPing, session.Sender.Ping, opView{})
}

// rootsChanged tells the server its roots changed (legacy era only: the
// modern era removed notifications/roots/list_changed).
func (m *Model) rootsChanged() {
	if m.src == nil {
		return
	}
	sent, err := m.src.NotifyRootsChanged()
	switch {
	case err != nil:
		m.setNote(err.Error(), false)
	case sent:
		m.roots.SetNote("sent notifications/roots/list_changed")
	default:
		m.roots.SetNote("roots changed; 2026-07-28 has no roots/list_changed: the next input request gets the new list")
	}
}

// openURL opens a URL elicitation's page, only ever on the user's key
// and only an http(s) URL (package openurl holds the rule).
func openURL(u string) tea.Cmd {
	return func() tea.Msg {
		opener, err := openurl.Open(u)
		if err != nil {
			return notedMsg{text: "not opened: " + err.Error(), ok: false}
		}
		return notedMsg{text: "opened the URL with " + opener, ok: true}
	}
}
