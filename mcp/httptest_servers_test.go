package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// scriptedHTTPServer is a small legacy Streamable HTTP server written for
// the transport's tests: each knob makes it misbehave (or behave) in one way
// a real server does.
type scriptedHTTPServer struct {
	// token, when set, is the bearer token every request must carry;
	// without it the server answers 401 with a WWW-Authenticate challenge.
	token string
	// dropCallStream makes tools/call answer with an SSE stream holding
	// only a priming event (id + retry), then close it before the answer,
	// which is delivered when the client resumes with Last-Event-ID.
	dropCallStream bool
	retryMS        int
	// noEventIDs drops the priming event: a dropped stream then cannot be
	// resumed.
	noEventIDs bool
	// standaloneGET answers a GET without Last-Event-ID with an SSE stream
	// that stays open (sending nothing) until the client or the server
	// drops it, as a server offering server-initiated messages does.
	standaloneGET bool
	// failGETs answers that many GETs with 503 before serving them.
	failGETs int
	// getsOpened counts standalone GET streams served.
	getsOpened int

	// modernHeaders records the modern headers of every POST:
	// "MCP-Protocol-Version Mcp-Method Mcp-Name".
	modernHeaders []string
	// paramHeaders records the Mcp-Param-Region and Mcp-Param-N headers.
	paramHeaders []string

	mu      sync.Mutex
	expired bool // forget the session: 404 for every request carrying it
	// expiredWith400 answers a forgotten session with 400 "No valid session
	// ID provided", as server-everything and the Python SDK do.
	expiredWith400 bool
	streamClosed   time.Time
	resumeAt       time.Time
	lastEventID    string
	pendingCall    json.RawMessage // the id of the tools/call awaiting resumption
	sessionsSeen   []string
	authHeaders    []string
	deleted        bool
}

const scriptedSession = "session-1"

func (s *scriptedHTTPServer) expire() {
	s.mu.Lock()
	s.expired = true
	s.mu.Unlock()
}

func (s *scriptedHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.authHeaders = append(s.authHeaders, r.Header.Get("Authorization"))
	s.sessionsSeen = append(s.sessionsSeen, r.Header.Get("Mcp-Session-Id"))
	expired := s.expired
	s.mu.Unlock()
	if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://example.invalid/.well-known/oauth-protected-resource"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if expired && r.Header.Get("Mcp-Session-Id") != "" {
		w.Header().Set("Content-Type", "application/json")
		if s.expiredWith400 {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.serveGET(w, r)
		return
	case http.MethodDelete:
		s.mu.Lock()
		s.deleted = true
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.modernHeaders = append(s.modernHeaders, r.Header.Get("MCP-Protocol-Version")+" "+r.Header.Get("Mcp-Method")+" "+r.Header.Get("Mcp-Name"))
	if region, n := r.Header.Get("Mcp-Param-Region"), r.Header.Get("Mcp-Param-N"); region != "" || n != "" {
		s.paramHeaders = append(s.paramHeaders, "Region="+region+" N="+n)
	}
	s.mu.Unlock()
	if len(msg.ID) == 0 || msg.Method == "" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch msg.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", scriptedSession)
		writeJSON(w, msg.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}`)
	case "ping":
		writeJSON(w, msg.ID, `{}`)
	case "server/discover":
		writeJSON(w, msg.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}}}`)
	case "tools/list":
		writeJSON(w, msg.ID, `{"tools":[{"name":"wait","inputSchema":{"type":"object"}},`+
			`{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},`+
			`"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}}]}`)
	case "tools/call":
		if !s.dropCallStream {
			writeJSON(w, msg.ID, `{"content":[{"type":"text","text":"done"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if s.noEventIDs {
			_, _ = fmt.Fprint(w, ": stream opened\n\n")
		} else {
			_, _ = fmt.Fprintf(w, ": stream opened\n\nid: ev-1\nretry: %d\ndata: \n\n", s.retryMS)
		}
		w.(http.Flusher).Flush()
		s.mu.Lock()
		s.pendingCall = msg.ID
		s.streamClosed = time.Now()
		s.mu.Unlock()
		// Returning closes the stream gracefully, before the answer.
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, msg.ID)
	}
}

// serveGET resumes a dropped tools/call stream when asked with
// Last-Event-ID; it offers no standalone stream (405), which is allowed.
func (s *scriptedHTTPServer) serveGET(w http.ResponseWriter, r *http.Request) {
	last := r.Header.Get("Last-Event-ID")
	s.mu.Lock()
	pending := s.pendingCall
	if last != "" {
		s.resumeAt, s.lastEventID = time.Now(), last
	}
	s.mu.Unlock()
	if last == "" && s.standaloneGET {
		s.mu.Lock()
		fail := s.failGETs > 0
		if fail {
			s.failGETs--
		} else {
			s.getsOpened++
		}
		s.mu.Unlock()
		if fail {
			http.Error(w, "temporarily unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	if last == "" || pending == nil {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprintf(w, "id: ev-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\n", pending)
	_, _ = fmt.Fprintf(w, "data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n")
}

func writeJSON(w http.ResponseWriter, id json.RawMessage, result string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
}
