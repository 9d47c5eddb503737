package doctor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// The SSE rules read the transport's events of kind "sse" (one per SSE
// event that carried an id, a retry, comments or a priming), "reconnect"
// (a stream resumed with Last-Event-ID) and the "http" failure of a stream
// that broke before its answer. Their fields: stream (e.g. "POST /mcp
// tools/call (id 3)"), id, event, retry, comment; "request id", "retry
// from server", "Last-Event-ID". The summary of a priming event reads "SSE
// priming event, id …".

// legacy1125 reports whether the SSE stream rules of 2025-11-25 apply.
func (l *Linter) legacy1125() bool {
	return !l.modern && l.version != "" && l.version >= mcp.Version20251125
}

func (l *Linter) sseEvent(e mcp.TransportEvent) {
	stream, _ := field(e, "stream")
	id, hasID := field(e, "id")
	if !hasID {
		return
	}
	if l.sseIDs.has(id) {
		l.report("http/duplicate-event-id", fmt.Sprintf("SSE event id %q on %s was already used in this session.", id, orUnknown(stream)))
	}
	l.sseIDs.add(id)
	if stream == "" {
		return
	}
	l.sseStreamIDs.add(stream)
	if strings.HasPrefix(stream, "POST ") && !l.sseStreamFirst.has(stream) {
		l.sseStreamFirst.add(stream)
		if l.legacy1125() && !strings.Contains(e.Summary, "priming event") {
			l.report("http/sse-no-priming", fmt.Sprintf("The SSE stream of %s began with event id %q carrying a message, not with a priming event (an id and empty data).", stream, id))
		}
	}
}

// httpFailure reads a failed exchange: a response stream that broke.
func (l *Linter) httpFailure(e mcp.TransportEvent) {
	stream, _ := field(e, "stream")
	reqID, isStream := field(e, "request id")
	if !isStream || stream == "" || l.modern || !errors.Is(e.Err, mcp.ErrStreamBroken) {
		return
	}
	if !l.sseStreamIDs.has(stream) {
		l.report("http/sse-unresumable", fmt.Sprintf("The SSE stream of %s ended before the response to request %s and never gave an event id, so it could not be resumed.", stream, reqID))
	}
}

func (l *Linter) reconnectEvent(e mcp.TransportEvent) {
	stream, _ := field(e, "stream")
	if id := streamRequestID(stream); id != "" {
		if _, cancelled := l.cancelledAt.get(id); cancelled {
			return // mcpscope cancelled it: the server may end the stream
		}
	}
	if v, ok := field(e, "retry from server"); ok && v == "false" && l.legacy1125() {
		l.reportOnce("no-retry:"+stream, "http/sse-no-retry", fmt.Sprintf("The SSE stream of %s ended before the response without a retry field; mcpscope had to guess the reconnection delay.", orUnknown(stream)))
	}
}

// streamRequestID reads the request id from a stream name such as
// "POST /mcp tools/call (id 21)".
func streamRequestID(stream string) string {
	i := strings.LastIndex(stream, "(id ")
	if i < 0 || !strings.HasSuffix(stream, ")") {
		return ""
	}
	return stream[i+len("(id ") : len(stream)-1]
}
