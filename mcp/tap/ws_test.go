package tap

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// runHTTPTapFor runs an HTTP tap in front of target until the test ends and
// returns its local URL and a function that stops it and returns the
// session file's entries.
func runHTTPTapFor(t *testing.T, dir, target string) (string, func() []record.Entry) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "remote", Listen: "127.0.0.1:0", Target: target, Ready: func(u string) { ready <- u }})
	}()
	local := <-ready
	stopped := false
	stop := func() []record.Entry {
		t.Helper()
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("session files %v", files)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("secret-token-123")) {
			t.Error("the session file holds the Authorization token")
		}
		entries, err := record.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return entries
	}
	t.Cleanup(func() { stop() })
	return local, stop
}

// WebSocket messages through the HTTP tap reach each side unchanged and
// are recorded as frames, both directions, in order: plain, fragmented,
// and compressed with permessage-deflate (with and without context
// takeover, which makes each message depend on the ones before it).
func TestHTTPTapRecordsWebSocketMessages(t *testing.T) {
	modes := map[string]websocket.CompressionMode{"plain": websocket.CompressionDisabled,
		"deflate": websocket.CompressionContextTakeover, "deflate-no-takeover": websocket.CompressionNoContextTakeover}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			dir := privateDirs(t)
			gotAuth := make(chan string, 1)
			var serverGot []string
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotAuth <- r.Header.Get("Authorization")
				c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}, CompressionMode: mode, CompressionThreshold: 1})
				if err != nil {
					return
				}
				defer func() { _ = c.CloseNow() }()
				for {
					_, msg, err := c.Read(r.Context())
					if err != nil {
						return
					}
					serverGot = append(serverGot, string(msg))
					// Each request gets an answer and, on the way, a
					// notification sent in three fragments.
					nw, err := c.Writer(r.Context(), websocket.MessageText)
					if err != nil {
						return
					}
					for _, part := range []string{`{"jsonrpc":"2.0","method":"notifications/progress",`, `"params":{"progress":1,`, `"progressToken":"t"}}`} {
						_, _ = nw.Write([]byte(part))
					}
					_ = nw.Close()
					answer := strings.Replace(string(msg), `"method":"ping"`, `"result":{"echo":"`+strings.Repeat("ab", 300)+`"}`, 1)
					if err := c.Write(r.Context(), websocket.MessageText, []byte(answer)); err != nil {
						return
					}
				}
			}))
			defer upstream.Close()
			local, stop := runHTTPTapFor(t, dir, upstream.URL+"/ws")

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			//nolint:bodyclose // websocket.Dial closes the body itself
			c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(local, "http"), &websocket.DialOptions{
				Subprotocols: []string{"mcp"}, CompressionMode: mode, CompressionThreshold: 1,
				HTTPHeader: http.Header{"Authorization": {"Bearer secret-token-123"}}})
			if err != nil {
				t.Fatal(err)
			}
			if a := <-gotAuth; a != "Bearer secret-token-123" {
				t.Errorf("the server got Authorization %q", a)
			}
			var sent, clientGot []string
			for i := 0; i < 5; i++ {
				msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
				if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
					t.Fatal(err)
				}
				sent = append(sent, msg)
				for j := 0; j < 2; j++ {
					_, got, err := c.Read(ctx)
					if err != nil {
						t.Fatal(err)
					}
					clientGot = append(clientGot, string(got))
				}
			}
			_ = c.Close(websocket.StatusNormalClosure, "done")
			entries := stop()

			var out, in []string
			opened, closed := false, false
			for _, e := range entries {
				switch {
				case e.Type == "frame" && e.Dir == "out":
					raw, _ := e.RawBytes()
					out = append(out, string(raw))
				case e.Type == "frame" && e.Dir == "in":
					raw, _ := e.RawBytes()
					in = append(in, string(raw))
					if e.Problem != "" {
						t.Errorf("frame %q recorded with a problem: %s", raw, e.Problem)
					}
				case e.Type == "transport" && strings.HasPrefix(e.Summary, "WebSocket opened"):
					opened = true
					deflate := strings.Contains(fmt.Sprint(e.Fields), "permessage-deflate")
					if deflate != (mode != websocket.CompressionDisabled) {
						t.Errorf("compression %s, yet the opening's fields are %v", name, e.Fields)
					}
					if takeover := !strings.Contains(fmt.Sprint(e.Fields), "no_context_takeover"); deflate && takeover != (mode == websocket.CompressionContextTakeover) {
						t.Errorf("compression %s, yet the opening's fields are %v", name, e.Fields)
					}
				case e.Type == "transport" && strings.HasPrefix(e.Summary, "WebSocket closed by the client (1000)"):
					closed = true
				}
			}
			if strings.Join(out, "\n") != strings.Join(sent, "\n") || strings.Join(serverGot, "\n") != strings.Join(sent, "\n") {
				t.Errorf("the client sent:\n%s\nthe server got:\n%s\nthe record holds:\n%s", strings.Join(sent, "\n"), strings.Join(serverGot, "\n"), strings.Join(out, "\n"))
			}
			if len(clientGot) != 10 || strings.Join(in, "\n") != strings.Join(clientGot, "\n") {
				t.Errorf("the client got:\n%s\nthe record holds:\n%s", strings.Join(clientGot, "\n"), strings.Join(in, "\n"))
			}
			if !opened || !closed {
				t.Errorf("the record should say the WebSocket opened (%v) and the client closed it (%v)", opened, closed)
			}
		})
	}
}
