package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A read-only view (a tap) can open a separate live session on the same
// server for experiments: Config.LiveSession makes it (a new mcpscope on
// the tap's command or URL), Bubble Tea hands it the terminal, and this
// view, still following the client's conversation, comes back when it
// ends. Nothing is sent into the watched conversation.

// liveSessionDoneMsg says the live session has ended and the terminal is
// this view's again.
type liveSessionDoneMsg struct{ err error }

// liveSessionKey is the LiveSession binding, shown only where it applies.
func (m *Model) liveSessionKey() key.Binding {
	b := m.keys.Global.LiveSession
	b.SetEnabled(m.cfg.LiveSession != nil)
	return b
}

func (m *Model) openLiveSession() tea.Cmd {
	c := m.cfg.LiveSession()
	if c == nil {
		m.setNote("no live session can be opened on this server", false)
		return nil
	}
	return tea.Exec(settledExec{c}, func(err error) tea.Msg { return liveSessionDoneMsg{err: err} })
}

// execSettleTime is the least time a command run with the terminal takes.
//
// It works around a race in Bubble Tea's renderer (v2.1.1; upstream
// https://github.com/charmbracelet/bubbletea/issues/1778, fix proposed in
// https://github.com/charmbracelet/bubbletea/pull/1781): releasing the
// terminal stops the renderer by handing its goroutine a value, and that
// goroutine stops the frame ticker only once it runs again. A command that
// ends before it has run (a live session that fails at once, or a busy
// machine) lets the restart reset the ticker first; the late Stop then
// freezes the screen for good. Waiting a moment before handing the
// terminal back gives that goroutine its turn; once a Bubble Tea release
// waits for it (the pull request above), this can go, and
// TestLiveSessionComesBackFromAnInstantSession says whether it may.
const execSettleTime = 100 * time.Millisecond

// settledExec runs a command with the terminal and returns no sooner than
// execSettleTime after it started.
type settledExec struct{ tea.ExecCommand }

func (s settledExec) Run() error {
	start := time.Now()
	err := s.ExecCommand.Run()
	if rest := execSettleTime - time.Since(start); rest > 0 {
		time.Sleep(rest)
	}
	return err
}

func (m *Model) liveSessionDone(msg liveSessionDoneMsg) {
	if msg.err != nil {
		m.setNote("the live session: "+msg.err.Error(), false)
		// Why the read-only view could not start one outranks how the
		// recording ended, as a send key's refusal does.
		m.noteOverExit = true
		return
	}
	m.setNote("back from the live session; this view kept following the tap", true)
}
