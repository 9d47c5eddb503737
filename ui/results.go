package ui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/clipboard"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// toolResultLine summarises a tool call for the status bar.
func toolResultLine(r panes.ToolResultMsg, isError bool) (string, bool) {
	d := r.Latency.Round(time.Millisecond)
	switch {
	case r.Err != nil:
		return fmt.Sprintf("tools/call %s failed after %v (local): %v", r.Name, d, r.Err), false
	case r.RPCError != nil:
		return fmt.Sprintf("tools/call %s: server error after %v: %v", r.Name, d, r.RPCError), false
	}
	if isError {
		return fmt.Sprintf("tools/call %s returned isError: true in %v", r.Name, d), false
	}
	return fmt.Sprintf("tools/call %s ok in %v", r.Name, d), true
}

// handleResult handles Cmd results and pane requests.
func (m *Model) handleResult(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.handleCalls(msg); ok {
		return cmd
	}
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
	case liveSessionDoneMsg:
		m.liveSessionDone(msg)
	case tickMsg:
		m.ticking = false
		m.now = time.Time(msg)
		m.activity.SetNow(m.now)
		if m.activity.Running() != nil {
			return m.tick()
		}
	case notedMsg:
		m.setNote(msg.text, msg.ok)
	case panes.CopyMsg:
		return m.copyText(msg)
	case copiedMsg:
		m.setNote(copyNote(msg.CopyMsg, msg.to), msg.to.Via != clipboard.OSC52 || msg.to.Why == "")
		if msg.to.Via == clipboard.OSC52 {
			return tea.SetClipboard(msg.Text)
		}
	case askMsg:
		return m.handleAsk(msg.ask)
	case noticeMsg:
		// The row holds the whole error; the status line its summary.
		m.logPane.Append(msg.ev)
		m.setNote(msg.ev.Summary, false)
		return waitForNotice(m.cfg.Notices)
	case panes.AnswerMsg:
		return m.answerAsk(msg)
	case panes.OpenURLMsg:
		return openURL(msg.URL)
	case panes.RefusedURLMsg:
		m.setNote(msg.Why, false)
	case panes.ListPageMsg:
		m.listPage(msg.Method, msg.Cursor)
	case panes.SendAnywayMsg:
		m.setNote("sending "+msg.Method+" although the server did not declare the capability", true)
		m.listPage(msg.Method, "")
	case panes.ReadResourceMsg:
		m.sendOrNote(mcp.MethodResourcesRead, func(s session.Sender) (session.Op, error) { return s.ReadResource(msg.URI) }, opView{})
	case panes.SubscribeMsg:
		m.sendOrNote("subscribe", func(s session.Sender) (session.Op, error) { return s.Subscribe(msg.URI, msg.On) }, opView{})
	case panes.SaveBlobMsg:
		return saveBlob(m.cfg.SaveDir, msg)
	case panes.GetPromptMsg:
		m.sendOrNote(mcp.MethodPromptsGet, func(s session.Sender) (session.Op, error) { return s.GetPrompt(msg.Name, msg.Args) }, opView{})
	case panes.CompleteMsg:
		m.complete(m.focus, msg)
	case panes.SetLevelMsg:
		m.sendOrNote(mcp.MethodLoggingSetLevel, func(s session.Sender) (session.Op, error) { return s.SetLogLevel(msg.Level) }, opView{})
	case panes.CancelOpMsg:
		m.cancelOp(msg.ID)
	case panes.TaskResultMsg:
		m.sendOrNote(mcp.MethodTasksResult, func(s session.Sender) (session.Op, error) { return s.TaskResult(msg.TaskID) }, opView{})
	case panes.TaskCancelMsg:
		m.sendOrNote(mcp.MethodTasksCancel, func(s session.Sender) (session.Op, error) { return s.CancelTask(msg.TaskID) }, opView{})
	case panes.RootsChangedMsg:
		m.rootsChanged()
	case panes.ShowFrameMsg:
		m.showFrame(msg.Frame)
	case panes.OpenLinesMsg:
		var cmd tea.Cmd
		if msg.Doc != nil {
			cmd = m.content.SetDoc(msg.Title, msg.Doc, msg.Fold)
		} else if msg.Fold {
			m.content.SetFolded(msg.Title, msg.Lines)
		} else {
			m.content.Set(msg.Title, msg.Lines)
		}
		m.openOver(modalContent)
		return cmd
	case panes.OpenExchangeMsg:
		m.content.SetLazy(panes.ExchangeLines(m.theme, msg))
		m.openOver(modalContent)
	case panes.OpenFrameMsg:
		cmd := m.detail.SetFrame(msg.Frame)
		m.openModal(modalDetail)
		return cmd
	case panes.OpenMediaMsg:
		return m.openMedia(msg)
	case panes.CloseMsg:
		m.closeModal()
		if m.modal == modalNone && len(m.queue) > 0 {
			return m.showNextAsk()
		}
	case panes.CallToolMsg:
		return m.callTool(msg)
	case previewMsg:
		m.showPreview(msg)
	case appRowsMsg:
		for _, r := range msg.rows {
			m.logPane.Append(r)
		}
		return m.previewer.waitRows()
	case toolCalledMsg:
		m.lastTool = msg.result
		line, ok := toolResultLine(msg.result, msg.isError)
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
			m.resources, m.prompts, m.serverLog, m.activity, m.roots, m.ask, m.content} {
			cmds = append(cmds, p.Update(msg))
		}
		return tea.Batch(cmds...)
	}
	return nil
}

// copiedMsg says where a copy went (copyText's Cmd).
type copiedMsg struct {
	panes.CopyMsg
	to clipboard.Result
}

// copyText works out where a copy goes in a Cmd: in tmux that means
// asking tmux, and perhaps running the system's clipboard tool, which
// Update must not wait for.
func (m *Model) copyText(msg panes.CopyMsg) tea.Cmd {
	router := m.cfg.Clipboard
	if router == nil {
		router = clipboard.Default()
	}
	ctx := m.ctx
	return func() tea.Msg { return copiedMsg{CopyMsg: msg, to: router.Copy(ctx, msg.Text)} }
}

// copyNote says what was copied and where, short enough for 80 columns.
// OSC 52 is carried out by the terminal, which never says whether it did
// (some terminals refuse it), so it says what to do then; a tmux that
// swallows it is named.
func copyNote(msg panes.CopyMsg, to clipboard.Result) string {
	n := "copied " + msg.What + ", " + byteCount(len(msg.Text)) + ", " + to.Where()
	switch {
	case to.Via == clipboard.OSC52 && to.Why != "":
		n += " · " + to.Why + ": set -g set-clipboard on"
	case to.Via == clipboard.OSC52 && msg.Else != "":
		return n + " · refused? " + msg.Else
	case to.Via == clipboard.OSC52:
		return n + " · no paste? the terminal refused"
	}
	if msg.Else != "" {
		n += "; " + msg.Else
	}
	return n
}

// byteCount is a size in words: 640 B, 1.2 kB, 3.4 MB.
func byteCount(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
