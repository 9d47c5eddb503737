package doctor

import (
	"encoding/json"
	"fmt"

	"github.com/mcpscope/mcpscope/mcp"
)

// progressNotification checks that a progress notification names an active
// request's token and that its value increases.
func (l *Linter) progressNotification(f *mcp.Frame, params map[string]json.RawMessage) {
	raw, ok := params["progressToken"]
	if !ok {
		l.report("progress/unknown-token", "notifications/progress has no progressToken.", f.Seq)
		return
	}
	tok := compact(raw)
	st := l.progress[tok]
	if st == nil {
		if l.doneTokens.has(tok) {
			l.report("progress/unknown-token", fmt.Sprintf("notifications/progress for token %s arrived after its request was answered.", tok), f.Seq)
		} else {
			l.report("progress/unknown-token", fmt.Sprintf("notifications/progress for token %s, which no active request carries.", tok), f.Seq)
		}
		return
	}
	var p float64
	if json.Unmarshal(params["progress"], &p) != nil {
		l.report("progress/not-increasing", fmt.Sprintf("notifications/progress for token %s has progress %s, not a number.", tok, compactOr(params["progress"], "missing")), f.Seq, st.reqSeq)
		return
	}
	if st.seen && p <= st.last {
		l.report("progress/not-increasing", fmt.Sprintf("Progress for token %s went from %g to %g; it must increase.", tok, st.last, p), f.Seq, st.reqSeq)
	}
	st.last, st.seen = p, true
}

// cancelled checks the server's notifications/cancelled: it may only
// cancel requests the server itself issued (legacy), and in the modern era
// only end a listen stream.
func (l *Linter) cancelled(f *mcp.Frame, params map[string]json.RawMessage) {
	raw := params["requestId"]
	id := compactOr(raw, "missing")
	if l.modern {
		if req := l.pendingByID(raw); req == nil || req.method != mcp.MethodSubscriptionsListen {
			l.report("modern/server-cancelled", fmt.Sprintf("The server sent notifications/cancelled for request %s, which is not a subscriptions/listen stream.", id), f.Seq)
		}
		return
	}
	if raw == nil || !l.serverIDs.has(compact(raw)) {
		l.report("cancel/unknown-request", fmt.Sprintf("The server cancelled request %s, which it never issued (a server may only cancel its own requests).", id), f.Seq)
	}
}

// pendingByID finds an outstanding client request by its JSON-RPC id.
func (l *Linter) pendingByID(raw json.RawMessage) *outRequest {
	if raw == nil {
		return nil
	}
	want := compact(raw)
	for _, req := range l.pending {
		if req.id == want {
			return req
		}
	}
	return nil
}
