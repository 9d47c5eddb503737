package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// askingJSONServer is a legacy Streamable HTTP server that answers POSTs
// with JSON (never SSE). During a tools/call it asks the client a ping on
// the standalone GET stream and sends the tool's answer only once the
// client has answered: the response headers of the tools/call POST come
// only when the tool finishes, as with real JSON-mode servers.
type askingJSONServer struct {
	stream   chan string   // messages for the GET stream
	answered chan struct{} // the client answered the ping
	once     sync.Once
}

func newAskingJSONServer() *askingJSONServer {
	return &askingJSONServer{stream: make(chan string, 4), answered: make(chan struct{})}
}

func (s *askingJSONServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case msg := <-s.stream:
				_, _ = fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case http.MethodDelete:
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
	_ = json.Unmarshal(body, &msg)
	switch {
	case msg.Method == "" && string(msg.ID) == `"ask-1"`:
		s.once.Do(func() { close(s.answered) })
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "" || len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "s")
		writeJSON(w, msg.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"asking","version":"1"}}`)
	case msg.Method == "tools/call":
		s.stream <- `{"jsonrpc":"2.0","id":"ask-1","method":"ping"}`
		select {
		case <-s.answered:
			writeJSON(w, msg.ID, `{"content":[{"type":"text","text":"answered"}]}`)
		case <-time.After(5 * time.Second):
			writeJSON(w, msg.ID, `{"content":[{"type":"text","text":"never answered"}],"isError":true}`)
		}
	default:
		writeJSON(w, msg.ID, `{}`)
	}
}

// Answering a server request during a tools/call over Streamable HTTP
// against a JSON-mode server is not held up by the tools/call's POST,
// whose headers come only when the tool ends. It used to stall 2 s (the
// wait for those headers held the write lock).
func TestAnswerDuringJSONToolCallDoesNotStall(t *testing.T) {
	srv := httptest.NewServer(newAskingJSONServer())
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 10 * time.Second})
	time.Sleep(100 * time.Millisecond) // the GET stream opens after notifications/initialized
	start := time.Now()
	resp, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{}})
	elapsed := time.Since(start)
	t.Logf("tools/call answered after %s", elapsed.Round(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Result) != `{"content":[{"type":"text","text":"answered"}]}` {
		t.Fatalf("result %s", resp.Result)
	}
	if elapsed > time.Second {
		t.Errorf("the ping's answer waited %s for the tools/call's headers; want well under 1 s", elapsed)
	}
	_ = c.Close()
	col.wait(t)
}
