package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// connectedMsg is the outcome of Source.Start. The handshake itself
// arrives as a HandshakeEvent; this only reports failure.
type connectedMsg struct {
	gen int
	err error
}

// closedMsg reports that an old source finished closing.
type closedMsg struct{ gen int }

// connect makes a source, subscribes to its events before starting it (so
// the handshake frames show live) and starts it as a Cmd.
func (m *Model) connect() tea.Cmd {
	if m.cfg.NewSource == nil {
		return nil
	}
	src := m.cfg.NewSource()
	m.gen++
	m.src = src
	m.connecting, m.ended = true, false
	m.handshake, m.exit, m.lastError, m.lastStderr, m.toolStatus = nil, nil, "", nil, ""
	m.sessionHandshakes = nil
	m.asked = map[string]bool{}
	// What the status line said was of the old connection (a refusal by its
	// closed client, an answer it gave): the new one starts without it.
	m.setNote("", false)
	// A source that sends nothing (a recording, a tap) says so on every
	// form as it opens, not only once it is sent.
	why := ""
	if r, ok := src.(session.Refuser); ok {
		why = r.ReadOnlyWhy()
	}
	m.tools.SetReadOnly(why)
	m.prompts.SetReadOnly(why)
	m.resources.SetReadOnly(why)
	src.SetHandler(m.handler())
	m.doc.reset()
	ch := src.Events()
	return tea.Batch(waitForEvents(m.gen, ch), startCmd(m.ctx, m.gen, src))
}

func startCmd(ctx context.Context, gen int, src session.Source) tea.Cmd {
	return func() tea.Msg {
		return connectedMsg{gen: gen, err: src.Start(ctx)}
	}
}

// reconnect closes the current client (in a Cmd: closing waits for the
// process) and, once its stream has ended, starts a new one behind a
// separator. The old frames stay in the log.
func (m *Model) reconnect() tea.Cmd {
	if m.cfg.NewSource == nil {
		m.setNote("nothing to reconnect: this view was not started on a server", false)
		return nil
	}
	if m.reconnecting {
		return nil
	}
	if r, ok := m.reloads(); ok {
		m.reload(r)
		return nil
	}
	if m.src == nil || m.ended {
		// Nothing left to drain: the old session is over.
		return m.finishReconnect()
	}
	m.reconnecting = true
	old, gen := m.src, m.gen
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
