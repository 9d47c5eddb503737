package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
)

// sseBigServer is a Streamable HTTP server whose answer to ping is an SSE
// stream: one notification of size bytes on one data line, written in
// 64 KiB pieces, then the ping's result.
func sseBigServer(size int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sse","version":"1"}}}`))
		case "ping":
			w.Header().Set("Content-Type", "text/event-stream")
			head := []byte(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`)
			tail := []byte("\"}}\n\n")
			_, _ = w.Write(head)
			piece := bytes.Repeat([]byte("x"), 64<<10)
			for left := size - (len(head) - len("data: ")) - (len(tail) - 2); left > 0; left -= len(piece) {
				_, _ = w.Write(piece[:min(left, len(piece))])
			}
			_, _ = w.Write(tail)
			_, _ = w.Write([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":" + string(m.ID) + ",\"result\":{}}\n\n"))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
}

// A big SSE line costs the client at most twice its size at its peak
// (heap and stacks, sampled), the message itself included. 64 MB here;
// MCPSCOPE_SSE_MESSAGE_MB=300 measures the 300 MB of the report.
func TestSSEBigLineCostsTwiceItsSize(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory")
	}
	size := 64 << 20
	if mb, err := strconv.Atoi(os.Getenv("MCPSCOPE_SSE_MESSAGE_MB")); err == nil {
		size = mb << 20
	}
	srv := sseBigServer(size)
	defer srv.Close()
	var c *mcp.Client
	var f *mcp.Frame
	peak, _ := heappeak.Of(func() {
		c = mcp.NewClient(&mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: time.Minute})
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
		if _, err := c.Call(context.Background(), "ping", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case f = <-got:
		case <-time.After(2 * time.Minute):
			t.Fatal("the big message never came")
		}
	})
	t.Logf("a %d MB SSE line: peak %.1f MiB (%.2f× its size); the frame %d bytes, problem %q", size>>20, float64(peak)/(1<<20), float64(peak)/float64(size), len(f.Raw), f.Problem)
	if peak > 2*uint64(size)+2<<20 {
		t.Errorf("a %d MB SSE line cost %.1f MiB at its peak: more than twice its size and 2 MiB", size>>20, float64(peak)/(1<<20))
	}
	runtime.KeepAlive(f)
	_ = c.Close()
}
