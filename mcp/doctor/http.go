package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// The HTTP rules read mcp.TransportEvent fields of kind "http", one event
// per exchange. Field names are matched case-insensitively:
//
//	method          the HTTP method (POST, GET, DELETE)
//	status          the response status code
//	Content-Type    the response's content type
//	response Mcp-Session-Id  the session id the response carried (the
//	                plain "Mcp-Session-Id" field is the request header
//	                mcpscope sent, which says nothing about the server)
//	WWW-Authenticate the challenge on a 401
//	Message-Kind    optional: request, notification or response, what a
//	                POST carried; without it the kind of the latest message
//	                sent over http is used
func field(e mcp.TransportEvent, key string) (string, bool) {
	for _, f := range e.Fields {
		if strings.EqualFold(f.Key, key) {
			return f.Value, true
		}
	}
	return "", false
}

func (l *Linter) observeTransport(e mcp.TransportEvent) {
	switch e.Kind {
	case "sse":
		l.sseEvent(e)
		return
	case "reconnect":
		l.reconnectEvent(e)
		return
	case "oauth":
		l.oauthStep(e)
		return
	case "http":
	default:
		return
	}
	if e.Err != nil {
		l.httpFailure(e)
		return
	}
	method, _ := field(e, "method")
	method = strings.ToUpper(method)
	statusText, _ := field(e, "status")
	status, _ := strconv.Atoi(strings.Fields(statusText + " 0")[0])
	ctype, _ := field(e, "Content-Type")
	mediaType := strings.ToLower(strings.TrimSpace(strings.Split(ctype, ";")[0]))
	summary := e.Summary
	if summary == "" {
		summary = fmt.Sprintf("%s → %d %s", method, status, ctype)
	}

	if sid, ok := field(e, "response Mcp-Session-Id"); ok && sid != "" {
		l.sessionIDRules(sid, summary, l.exchangeModern(e), l.carriedFrame(e))
	}
	if status == 401 {
		if wa, _ := field(e, "WWW-Authenticate"); !strings.Contains(wa, "resource_metadata") {
			l.reportOnce("auth-challenge", "http/auth-challenge", fmt.Sprintf("%s: a 401 without WWW-Authenticate resource_metadata (clients must then guess the well-known URLs).", summary))
		}
	}
	switch method {
	case "GET":
		if status >= 200 && status < 300 && mediaType != "text/event-stream" || status == 404 || status >= 300 && status < 400 {
			l.report("http/get-stream", fmt.Sprintf("%s: the GET stream was answered %d %s, not text/event-stream or 405.", summary, status, ctype))
		}
	case "POST":
		kind, ok := field(e, "Message-Kind")
		if !ok {
			kind = l.lastHTTPOutbound.String()
		}
		switch strings.ToLower(kind) {
		case "request":
			if status >= 200 && status < 300 && status != 202 && mediaType != "application/json" && mediaType != "text/event-stream" {
				l.report("http/content-type", fmt.Sprintf("%s: a request was answered with Content-Type %q.", summary, ctype), l.carriedFrame(e))
			}
		case "notification", "response", "error":
			if status >= 200 && status < 300 && status != 202 {
				what := "a " + kind
				if kind == "error" {
					what = "an error response"
				}
				if m, ok := field(e, "Message-Method"); ok && m != "" {
					what += " (" + m + ")"
				} else if id, ok := field(e, "Message-Id"); ok {
					what += " (to id " + id + ")"
				}
				l.report("http/accepted-status", fmt.Sprintf("%s: %s was answered %d instead of 202 Accepted.", summary, what, status), l.carriedFrame(e))
			}
		}
	}
}

// exchangeModern says which era one HTTP exchange belongs to, by its own
// MCP-Protocol-Version header: under --era auto the discover probe is
// modern and the legacy initialize that follows it is not, whatever the
// linter believed a moment before.
func (l *Linter) exchangeModern(e mcp.TransportEvent) bool {
	if v, ok := field(e, "MCP-Protocol-Version"); ok && v != "" {
		return mcp.IsModernVersion(v)
	}
	if m, ok := field(e, "Message-Method"); ok && m == "initialize" {
		return false
	}
	return l.modern
}

// carriedFrame is the Seq of the outbound frame a POST carried, from the
// exchange's Message-Id or Message-Method; 0 when unknown.
func (l *Linter) carriedFrame(e mcp.TransportEvent) int64 {
	kind, _ := field(e, "Message-Kind")
	if id, ok := field(e, "Message-Id"); ok {
		return l.sentFrames[sentKey(kind == "request", id)]
	}
	if m, ok := field(e, "Message-Method"); ok {
		return l.sentFrames[m]
	}
	return 0
}

// noteSent remembers the latest outbound frame per id (responses) or
// method (notifications), for carriedFrame.
func (l *Linter) noteSent(f *mcp.Frame) {
	if f.Transport != "http" {
		return
	}
	if l.sentFrames == nil || len(l.sentFrames) > 1024 {
		l.sentFrames = map[string]int64{}
	}
	if f.ID != "" {
		l.sentFrames[sentKey(f.Kind == mcp.KindRequest, string(f.ID))] = f.Seq
	} else if f.Method != "" {
		l.sentFrames[f.Method] = f.Seq
	}
}

func (l *Linter) sessionIDRules(sid, summary string, modern bool, frame int64) {
	if modern {
		l.reportOnce("modern-session", "http/modern-session-id", fmt.Sprintf("%s: a 2026-07-28 exchange carried Mcp-Session-Id %q.", summary, sid), frame)
	}
	for _, r := range sid {
		if r < 0x21 || r > 0x7e {
			l.reportOnce("sid-chars:"+sid, "http/session-id-characters", fmt.Sprintf("%s: Mcp-Session-Id %q holds %U, outside 0x21–0x7E.", summary, sid, r), frame)
			break
		}
	}
	if l.sessionID != "" && sid != l.sessionID {
		l.report("http/session-id-changed", fmt.Sprintf("%s: Mcp-Session-Id changed from %q to %q.", summary, l.sessionID, sid), frame)
	}
	if l.sessionID == "" || sid != l.sessionID {
		l.sessionID = sid
	}
}

// sentKey keeps mcpscope's request ids apart from the ids of the server
// requests it answered: both start at 1.
func sentKey(request bool, id string) string {
	if request {
		return "request " + id
	}
	return "response " + id
}
