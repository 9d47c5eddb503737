package ui

import (
	"context"
	"encoding/json"
	"errors"
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

// relist re-reads a list after the server said it changed.
func (m *Model) relist(method string) tea.Cmd {
	c, gen, ctx := m.client, m.gen, m.ctx
	if c == nil {
		return nil
	}
	return func() tea.Msg {
		items, _, err := c.ListAll(ctx, method)
		return listedMsg{gen: gen, method: method, items: items, err: err}
	}
}

// callTool runs tools/call as a Cmd; the frames appear in the log through
// the event stream, the result goes back to the panes as ToolResultMsg.
func (m *Model) callTool(msg panes.CallToolMsg) tea.Cmd {
	c, ctx := m.client, m.ctx
	if c == nil {
		return func() tea.Msg {
			return toolCalledMsg{result: panes.ToolResultMsg{Name: msg.Name, Args: msg.Args, Err: mcp.ErrClosed}}
		}
	}
	return func() tea.Msg {
		params := map[string]any{"name": msg.Name}
		if len(msg.Args) > 0 {
			params["arguments"] = msg.Args
		}
		res := panes.ToolResultMsg{Name: msg.Name, Args: msg.Args}
		start := time.Now()
		resp, err := c.Call(ctx, "tools/call", params)
		res.Latency = time.Since(start)
		var frame *mcp.Frame
		if resp != nil && resp.Frame != nil {
			res.Seq, frame = resp.Frame.Seq, resp.Frame
			if resp.Frame.Latency > 0 {
				res.Latency = resp.Frame.Latency
			}
		}
		var rpcErr *mcp.RPCError
		switch {
		case errors.As(err, &rpcErr):
			res.RPCError = rpcErr
		case err != nil:
			res.Err = err
		case resp.Error != nil:
			res.RPCError = resp.Error
		default:
			res.Result = resp.Result
		}
		return toolCalledMsg{result: res, frame: frame}
	}
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
	var body struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(r.Result, &body)
	if body.IsError {
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
				m.lastError = msg.err.Error()
				m.log.Debug("Connect failed", "err", msg.err)
			}
		}
	case closedMsg:
		m.log.Debug("Old client closed", "gen", msg.gen)
	case listedMsg:
		if msg.gen == m.gen {
			m.applyList(msg.method, msg.items, msg.err)
		}
	case panes.OpenFrameMsg:
		cmd := m.detail.SetFrame(msg.Frame)
		m.openModal(modalDetail)
		return cmd
	case panes.CloseMsg:
		m.closeModal()
	case panes.CallToolMsg:
		return m.callTool(msg)
	case toolCalledMsg:
		line, ok := toolResultLine(msg.result)
		m.toolStatus, m.toolOK = line, ok
		cmd := m.tools.Update(msg.result)
		m.result.SetResult(msg.result)
		if m.modal == modalNone {
			m.openModal(modalResult)
		}
		return cmd
	default:
		// Pane-internal results (e.g. the detail's formatting) go to
		// every pane that might own them; each ignores what is not its.
		var cmds []tea.Cmd
		for _, p := range []panes.Pane{m.detail, m.logPane, m.caps, m.tools, m.hsPane, m.result} {
			cmds = append(cmds, p.Update(msg))
		}
		return tea.Batch(cmds...)
	}
	return nil
}
