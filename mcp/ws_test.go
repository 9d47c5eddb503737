package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpscope/mcpscope/mcp"
)

// wsServer is a minimal MCP server over WebSocket: initialize and
// tools/list, one message per text frame.
func wsServer(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ws-token" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}})
		if err != nil {
			return
		}
		defer func() { _ = conn.CloseNow() }()
		for {
			_, data, err := conn.Read(r.Context())
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(data, &m) != nil || len(m.ID) == 0 {
				continue
			}
			result := `{"tools":[{"name":"ws_tool","inputSchema":{"type":"object"}}]}`
			if m.Method == "initialize" {
				result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"ws","version":"1"}}`
			}
			if err := conn.Write(r.Context(), websocket.MessageText, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)); err != nil {
				return
			}
		}
	}))
}

func TestWebSocketTransport(t *testing.T) {
	srv := wsServer(t)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/mcp"
	tr := &mcp.WebSocketTransport{URL: url, Header: http.Header{"Authorization": {"Bearer ws-token"}}}
	c, col := connect(t, tr, mcp.Options{Timeout: 5 * time.Second, Discover: true})
	if c.Handshake().ServerInfo.Name != "ws" {
		t.Errorf("server info = %+v", c.Handshake().ServerInfo)
	}
	_ = c.Close()
	var handshake bool
	for _, ev := range col.wait(t) {
		switch ev := ev.(type) {
		case mcp.ListEvent:
			if ev.Method == "tools/list" && (len(ev.Items) != 1 || !strings.Contains(string(ev.Items[0]), "ws_tool")) {
				t.Errorf("tools/list over WebSocket = %s", ev.Items)
			}
		case mcp.TransportEvent:
			if ev.Kind == "websocket" && strings.Contains(ev.Summary, "101") && strings.Contains(ev.Summary, "subprotocol mcp") {
				handshake = true
			}
			for _, f := range ev.Fields {
				if strings.Contains(f.Value, "ws-token") {
					t.Errorf("the token shows in field %s", f.Key)
				}
			}
		}
	}
	if !handshake {
		t.Error("no websocket handshake event naming 101 and the mcp subprotocol")
	}
}

func TestWebSocketUnauthorized(t *testing.T) {
	srv := wsServer(t)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	c := mcp.NewClient(&mcp.WebSocketTransport{URL: url}, mcp.Options{})
	col := collect(c)
	_, err := c.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), `WWW-Authenticate: Bearer realm="test"`) {
		t.Errorf("Connect error = %v; want the 401 and its WWW-Authenticate", err)
	}
	_ = c.Close()
	col.wait(t)
}
