package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
)

// wsBigServer answers initialize, then sends one notification of size
// bytes, written in pieces so that the server itself holds 64 KiB of it
// (it runs in the measured process).
func wsBigServer(size int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}})
		if err != nil {
			return
		}
		conn.SetReadLimit(1 << 20)
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
			_ = json.Unmarshal(data, &m)
			switch m.Method {
			case "initialize":
				_ = conn.Write(r.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"ws","version":"1"}}}`))
			case "notifications/initialized":
				wr, err := conn.Writer(r.Context(), websocket.MessageText)
				if err != nil {
					return
				}
				head := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`)
				tail := []byte(`"}}`)
				_, _ = wr.Write(head)
				piece := bytes.Repeat([]byte("x"), 64<<10)
				for left := size - len(head) - len(tail); left > 0; left -= len(piece) {
					_, _ = wr.Write(piece[:min(left, len(piece))])
				}
				_, _ = wr.Write(tail)
				_ = wr.Close()
			}
		}
	}))
}

// A big WebSocket message costs the client at most twice its size and
// the last piece read (1 MiB) at its peak (heap and stacks, sampled), the
// message itself included: it is read in pieces and joined once (2.47×
// when it was read into a buffer that grew by doubling; 653 MB for the
// 200 MB of the report, in a whole session). 64 MB here;
// MCPSCOPE_WS_MESSAGE_MB=200 measures 200 MB.
func TestWebSocketBigMessageCostsTwiceItsSize(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory")
	}
	size := 64 << 20
	if mb, err := strconv.Atoi(os.Getenv("MCPSCOPE_WS_MESSAGE_MB")); err == nil {
		size = mb << 20
	}
	srv := wsBigServer(size)
	defer srv.Close()
	var c *mcp.Client
	var f *mcp.Frame
	peak, _ := heappeak.Of(func() {
		c = mcp.NewClient(&mcp.WebSocketTransport{URL: "ws" + strings.TrimPrefix(srv.URL, "http")}, mcp.Options{Timeout: time.Minute})
		got := make(chan *mcp.Frame, 1)
		ch := c.Events()
		go func() {
			for ev := range ch {
				if fe, ok := ev.(mcp.FrameEvent); ok && len(fe.Frame.Raw) >= size {
					got <- fe.Frame
				}
			}
		}()
		if _, err := c.Connect(context.Background()); err != nil {
			t.Fatal(err)
		}
		select {
		case f = <-got:
		case <-time.After(2 * time.Minute):
			t.Fatal("the big message never came")
		}
	})
	t.Logf("a %d MB message: peak %.1f MiB (%.2f× its size)", size>>20, float64(peak)/(1<<20), float64(peak)/float64(size))
	if len(f.Raw) != size || f.Problem != "" {
		t.Errorf("the message is %d bytes (want %d), problem %q", len(f.Raw), size, f.Problem)
	}
	if peak > 2*uint64(size)+2<<20 {
		t.Errorf("a %d MB message cost %.1f MiB at its peak: more than twice its size and 2 MiB", size>>20, float64(peak)/(1<<20))
	}
	runtime.KeepAlive(f)
	_ = c.Close()
}
