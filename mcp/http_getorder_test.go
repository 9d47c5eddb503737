package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// The standalone GET stream is answered before the first request after
// notifications/initialized goes out, so a server never has to choose a
// stream for an answer while the client's GET is still on its way.
func TestHTTPOpensGETStreamBeforeNextRequest(t *testing.T) {
	var mu sync.Mutex
	var getAnswered, listArrived time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			time.Sleep(200 * time.Millisecond) // a slow stream set-up
			// Noted before the headers go out: the client cannot have seen
			// them earlier than this.
			mu.Lock()
			getAnswered = time.Now()
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusOK)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		w.Header().Set("Mcp-Session-Id", "s1")
		switch req.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"g","version":"1"}}}`))
		case "tools/list":
			mu.Lock()
			listArrived = time.Now()
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"tools":[]}}`))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{})
	if _, err := c.Call(context.Background(), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	col.wait(t)
	mu.Lock()
	defer mu.Unlock()
	if getAnswered.IsZero() || !listArrived.After(getAnswered) {
		t.Errorf("tools/list arrived at %v, the GET stream was answered at %v: the request went out first", listArrived, getAnswered)
	}
}
