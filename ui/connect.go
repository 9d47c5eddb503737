package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/panes"
)

// connectedMsg is the outcome of Client.Connect. The handshake itself
// arrives as a HandshakeEvent; this only reports failure.
type connectedMsg struct {
	gen int
	err error
}

// closedMsg reports that an old client finished closing.
type closedMsg struct{ gen int }

// listedMsg is the outcome of a re-list after list_changed.
type listedMsg struct {
	gen    int
	method string
	items  []json.RawMessage
	err    error
}

// connect makes a client, subscribes to its events before connecting (so
// the handshake frames show live) and starts Connect as a Cmd.
func (m *Model) connect() tea.Cmd {
	if m.cfg.NewClient == nil {
		return nil
	}
	c := m.cfg.NewClient()
	m.gen++
	m.client = c
	m.connecting, m.ended = true, false
	m.handshake, m.exit, m.lastError, m.lastStderr, m.toolStatus = nil, nil, "", nil, ""
	c.SetHandler(m.handler())
	m.doc.reset()
	m.listing, m.relistAgain = map[string]bool{}, map[string]bool{}
	m.listenURIs, m.listenOp = map[string]bool{}, 0 // subscriptions belong to a connection
	ch := c.Events()
	return tea.Batch(waitForEvents(m.gen, ch), connectCmd(m.ctx, m.gen, c))
}

func connectCmd(ctx context.Context, gen int, c *mcp.Client) tea.Cmd {
	return func() tea.Msg {
		_, err := c.Connect(ctx)
		return connectedMsg{gen: gen, err: err}
	}
}

// reconnect closes the current client (in a Cmd: closing waits for the
// process) and, once its stream has ended, starts a new one behind a
// separator. The old frames stay in the log.
func (m *Model) reconnect() tea.Cmd {
	if m.cfg.NewClient == nil || m.reconnecting {
		return nil
	}
	if m.client == nil || m.ended {
		// Nothing left to drain: the old session is over.
		return m.finishReconnect()
	}
	m.reconnecting = true
	old, gen := m.client, m.gen
	m.old = old
	return func() tea.Msg {
		_ = old.Close()
		return closedMsg{gen: gen}
	}
}

// finishReconnect runs when the old stream has ended.
func (m *Model) finishReconnect() tea.Cmd {
	m.reconnecting = false
	m.old = nil
	m.logPane.AppendSeparator(time.Now(), "reconnected")
	m.logPane.SetFollow(true)
	m.state, m.stateDetail = 0, ""
	return m.connect()
}

// toolCalledMsg wraps a tool call's outcome with its response frame.
type toolCalledMsg struct {
	result panes.ToolResultMsg
	frame  *mcp.Frame
}

// toolResultLine summarises a tool call for the status bar.
func toolResultLine(r panes.ToolResultMsg) (string, bool) {
	d := r.Latency.Round(time.Millisecond)
	switch {
	case r.Err != nil:
		return fmt.Sprintf("tools/call %s failed after %v (local): %v", r.Name, d, r.Err), false
	case r.RPCError != nil:
		return fmt.Sprintf("tools/call %s: server error after %v: %v", r.Name, d, r.RPCError), false
	}
	if mcp.IsToolError(r.Result) {
		return fmt.Sprintf("tools/call %s returned isError: true in %v", r.Name, d), false
	}
	return fmt.Sprintf("tools/call %s ok in %v", r.Name, d), true
}

// handleResult handles Cmd results and pane requests.
func (m *Model) handleResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case connectedMsg:
		if msg.gen == m.gen {
			m.connecting = false
			if msg.err != nil {
				m.connectFailed(msg.err)
				m.log.Debug("Connect failed", "err", msg.err)
			}
		}
	case closedMsg:
		m.log.Debug("Old client closed", "gen", msg.gen)
	case listedMsg:
		return m.relisted(msg)
	case listedPageMsg:
		if msg.gen == m.gen {
			m.applyPage(msg)
		}
	case opDoneMsg:
		return m.handleOpDone(msg)
	case tickMsg:
		m.ticking = false
		m.now = time.Time(msg)
		m.activity.SetNow(m.now)
		if m.activity.Running() != nil {
			return m.tick()
		}
	case pingMsg:
		if msg.err != nil {
			m.setNote("ping: "+msg.err.Error(), false)
		} else {
			m.setNote("ping: round trip "+msg.rtt.Round(10*time.Microsecond).String(), true)
		}
	case notedMsg:
		m.setNote(msg.text, msg.ok)
	case completedMsg:
		switch msg.focus {
		case focusResources:
			m.resources.SetCompletions(msg.msg)
		case focusPrompts:
			m.prompts.SetCompletions(msg.msg)
		}
	case askMsg:
		return m.handleAsk(msg.ask)
	case panes.AnswerMsg:
		return m.answerAsk(msg)
	case panes.OpenURLMsg:
		return openURL(msg.URL)
	case panes.RefusedURLMsg:
		m.setNote(msg.Why, false)
	case panes.ListPageMsg:
		return m.listPage(msg.Method, msg.Cursor)
	case panes.SendAnywayMsg:
		m.setNote("sending "+msg.Method+" although the server did not declare the capability", true)
		return m.listPage(msg.Method, "")
	case panes.ReadResourceMsg:
		return m.startOp(&op{kind: opRead, label: "resources/read " + msg.URI, method: mcp.MethodResourcesRead, params: map[string]any{"uri": msg.URI}, uri: msg.URI})
	case panes.SubscribeMsg:
		if m.handshake != nil && m.handshake.Era == mcp.EraModern {
			return m.listen(msg)
		}
		method := mcp.MethodResourcesUnsubscribe
		if msg.On {
			method = mcp.MethodResourcesSubscribe
		}
		return m.startOp(&op{kind: opSubscribe, label: method + " " + msg.URI, method: method, params: map[string]any{"uri": msg.URI}, uri: msg.URI, on: msg.On})
	case panes.SaveBlobMsg:
		return saveBlob(msg)
	case panes.GetPromptMsg:
		params := map[string]any{"name": msg.Name}
		if len(msg.Args) > 0 {
			params["arguments"] = msg.Args
		}
		return m.startOp(&op{kind: opPrompt, label: "prompts/get " + msg.Name, method: mcp.MethodPromptsGet, params: params})
	case panes.CompleteMsg:
		return m.complete(m.focus, msg)
	case panes.SetLevelMsg:
		return m.setLevel(msg.Level)
	case panes.CancelOpMsg:
		m.cancelOp(msg.ID)
	case taskPollMsg:
		return m.pollTask(msg)
	case panes.TaskResultMsg:
		return m.startOp(&op{kind: opTaskResult, label: "tasks/result " + msg.TaskID, method: mcp.MethodTasksResult, params: map[string]any{"taskId": msg.TaskID}, task: msg.TaskID})
	case panes.TaskCancelMsg:
		return m.startOp(&op{kind: opTaskCancel, label: "tasks/cancel " + msg.TaskID, method: mcp.MethodTasksCancel, params: map[string]any{"taskId": msg.TaskID}, task: msg.TaskID})
	case panes.RootsChangedMsg:
		return m.rootsChanged()
	case panes.ShowFrameMsg:
		m.showFrame(msg.Frame)
	case panes.OpenLinesMsg:
		m.content.Set(msg.Title, msg.Lines)
		m.openOver(modalContent)
	case panes.OpenFrameMsg:
		cmd := m.detail.SetFrame(msg.Frame)
		m.openModal(modalDetail)
		return cmd
	case panes.CloseMsg:
		m.closeModal()
		if m.modal == modalNone && len(m.queue) > 0 {
			return m.showNextAsk()
		}
	case panes.CallToolMsg:
		return m.callTool(msg)
	case toolCalledMsg:
		line, ok := toolResultLine(msg.result)
		m.toolStatus, m.toolOK = line, ok
		cmd := m.tools.Update(msg.result)
		prepare := m.result.SetResult(msg.result)
		if m.modal == modalNone {
			m.openModal(modalResult)
		}
		return tea.Batch(cmd, prepare)
	default:
		// Pane-internal results (e.g. the detail's formatting) go to
		// every pane that might own them; each ignores what is not its.
		var cmds []tea.Cmd
		for _, p := range []panes.Pane{m.detail, m.logPane, m.caps, m.tools, m.hsPane, m.result,
			m.resources, m.prompts, m.serverLog, m.activity, m.roots, m.ask} {
			cmds = append(cmds, p.Update(msg))
		}
		return tea.Batch(cmds...)
	}
	return nil
}
