package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/panes"
)

// pendingAsk is one server request (legacy) or MRTR input request (modern)
// waiting for the user. The client's handler goroutine blocks on reply;
// Update answers with a non-blocking send (reply has room for one).
type pendingAsk struct {
	id    int
	ctx   context.Context // cancelled when the server cancels the request
	req   *mcp.ServerRequest
	reply chan askReply
}

type askReply struct {
	result json.RawMessage
	err    error
}

// askMsg brings one pendingAsk into Update.
type askMsg struct{ ask *pendingAsk }

// uiHandler is the mcp.Handler the TUI installs on every client: it hands
// each request to the model through asks and waits for the answer, so the
// client's goroutine (never the UI's) is the one that blocks.
type uiHandler struct {
	asks chan<- *pendingAsk
	seq  *atomic.Int64 // shared by every client's handler: ids stay unique across reconnects
}

func (h *uiHandler) HandleServerRequest(ctx context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
	a := &pendingAsk{id: int(h.seq.Add(1)), ctx: ctx, req: req, reply: make(chan askReply, 1)}
	select {
	case h.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-a.reply:
		return r.result, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: the request was cancelled before the user answered: %w", req.Method, ctx.Err())
	}
}

// waitForAsk is the second pump: it blocks off the UI goroutine until a
// handler hands over a request. Update re-arms it after each one.
func waitForAsk(ch <-chan *pendingAsk) tea.Cmd {
	return func() tea.Msg { return askMsg{ask: <-ch} }
}

// handler is what a new client answers server requests with: the policy
// flags first (when given), then the user.
func (m *Model) handler() mcp.Handler {
	h := &uiHandler{asks: m.asks, seq: &m.askSeq}
	if m.cfg.AutoAnswer == nil {
		return h
	}
	auto := *m.cfg.AutoAnswer
	auto.Next = h
	auto.RootsSet = false // the roots pane answers roots/list: it is editable
	return &auto
}

// handleAsk answers roots/list at once from the roots pane and queues the
// rest behind a modal.
func (m *Model) handleAsk(a *pendingAsk) tea.Cmd {
	next := waitForAsk(m.asks)
	if a.req.Method == mcp.MethodRootsList {
		a.reply <- askReply{result: policy.RootsResult(m.roots.List())}
		m.roots.Asked()
		m.setNote("answered roots/list with "+plural.S(len(m.roots.List()), "root"), true)
		return next
	}
	m.queue = append(m.queue, a)
	if m.modal != modalAsk {
		return tea.Batch(next, m.showNextAsk())
	}
	m.ask.SetPending(len(m.queue) - 1)
	return next
}

// showNextAsk opens the modal on the oldest queued request, dropping those
// the server cancelled meanwhile. Its command compiles an elicitation's
// schema for the modal's form.
func (m *Model) showNextAsk() tea.Cmd {
	for len(m.queue) > 0 && m.queue[0].ctx.Err() != nil {
		m.queue = m.queue[1:]
	}
	if len(m.queue) == 0 {
		if m.modal == modalAsk {
			m.closeModal()
		}
		return nil
	}
	a := m.queue[0]
	if m.modal != modalNone && m.modal != modalAsk {
		m.closeModal()
	}
	cmd := m.ask.SetRequest(a.id, a.req.Method, a.req.Params, a.req.InputKey)
	m.ask.SetPending(len(m.queue) - 1)
	m.openModal(modalAsk)
	return cmd
}

// answerAsk sends the user's answer to the waiting handler and shows the
// next request, if any.
func (m *Model) answerAsk(msg panes.AnswerMsg) tea.Cmd {
	if len(m.queue) == 0 || m.queue[0].id != msg.ID {
		return nil
	}
	a := m.queue[0]
	m.queue = m.queue[1:]
	// The session sees the answer on its way out and follows an accepted
	// URL elicitation until the server completes it.
	a.reply <- askReply{result: msg.Result, err: msg.Err}
	m.closeModal()
	return m.showNextAsk()
}

// OpenURLMethod names the local question "may mcpscope open this URL?"
// in the ask modal; it never goes on the wire.
const OpenURLMethod = panes.OpenURLMethod

// ConfirmOpen asks the person, in the ask modal, whether to open rawURL
// (the OAuth authorization URL a server chose). It shows the host first
// and the whole URL; it blocks the calling goroutine (never the UI's)
// until they answer, and reports yes only for an explicit yes. Safe to
// call from any goroutine.
func (m *Model) ConfirmOpen(ctx context.Context, rawURL string) (bool, error) {
	params, _ := json.Marshal(map[string]string{"url": rawURL})
	a := &pendingAsk{id: int(m.askSeq.Add(1)), ctx: ctx, req: &mcp.ServerRequest{Method: OpenURLMethod, Params: params}, reply: make(chan askReply, 1)}
	select {
	case m.asks <- a:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case r := <-a.reply:
		if r.err != nil {
			return false, nil
		}
		return panes.Accepted(r.result), nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// noticeMsg brings one of Config.Notices into Update.
type noticeMsg struct{ ev mcp.TransportEvent }

// waitForNotice is the notices' pump (nil: there are none); it ends when
// the channel closes.
func waitForNotice(ch <-chan mcp.TransportEvent) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return nil
		}
		return noticeMsg{ev: ev}
	}
}
