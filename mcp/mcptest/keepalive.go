package mcptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// KeepAliveEvent is one SSE keep-alive as a KeepAliveServer sends it: a
// comment line and the blank line that ends the event.
const KeepAliveEvent = ": k\n\n"

// KeepAliveServer is a legacy Streamable HTTP server (an http.Handler)
// that answers Method with an SSE stream of keep-alives before the
// answer: the flood a debugger must show as what it is without drowning
// in it. initialize and server/discover answer as a server with one tool
// ("slow"), tools/list lists it unless it is Method, anything else
// answers {}.
type KeepAliveServer struct {
	// Method is the request whose answer is flooded (tools/call when
	// empty).
	Method string
	// Bytes of keep-alives are sent before the answer (rounded up to
	// whole events).
	Bytes int
	// Stop, when set, makes the flood go on until it is closed (and
	// Bytes were sent).
	Stop <-chan struct{}
	// NoAnswer keeps the stream open after the flood, without the answer,
	// until the client goes.
	NoAnswer bool
	// Pause waits this long before the last keep-alive.
	Pause time.Duration
	// Sent counts the keep-alive bytes written so far.
	Sent atomic.Int64
}

func (s *KeepAliveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &msg)
	method := s.Method
	if method == "" {
		method = "tools/call"
	}
	w.Header().Set("Content-Type", "application/json")
	answer := func(result string) {
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch {
	case len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == method:
		s.flood(w, r, msg.ID)
	case msg.Method == "initialize":
		answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"keep-alive","version":"1"}}`)
	case msg.Method == "server/discover":
		answer(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`)
	case msg.Method == "tools/list":
		answer(`{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}`)
	default:
		answer(`{}`)
	}
}

func (s *KeepAliveServer) flood(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	const perChunk = 4096
	chunk := strings.Repeat(KeepAliveEvent, perChunk)
	left := (s.Bytes + len(KeepAliveEvent) - 1) / len(KeepAliveEvent)
	if s.Pause > 0 && left > 0 {
		left--
	}
	for {
		n := min(left, perChunk)
		if n == 0 && s.Stop != nil {
			select {
			case <-s.Stop:
			default:
				n = perChunk // until told to stop
			}
		}
		if n == 0 {
			break
		}
		if _, err := io.WriteString(w, chunk[:n*len(KeepAliveEvent)]); err != nil {
			return
		}
		s.Sent.Add(int64(n * len(KeepAliveEvent)))
		left = max(left-n, 0)
	}
	w.(http.Flusher).Flush()
	if s.Pause > 0 {
		time.Sleep(s.Pause)
		_, _ = io.WriteString(w, KeepAliveEvent)
		s.Sent.Add(int64(len(KeepAliveEvent)))
		w.(http.Flusher).Flush()
	}
	if s.NoAnswer {
		<-r.Context().Done()
		return
	}
	result := `{"content":[{"type":"text","text":"done"}]}`
	if strings.HasSuffix(s.Method, "/list") {
		result = `{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}`
	}
	_, _ = fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, result)
}
