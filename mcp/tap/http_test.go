package tap

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// converseHTTP runs mcpscope's own client (Streamable HTTP, both eras'
// lists, a tool call with SSE progress) against url and returns the
// frames it received.
func converseHTTP(t *testing.T, url string, era mcp.Era) []*mcp.Frame {
	t.Helper()
	var mu sync.Mutex
	var got []*mcp.Frame
	c := mcp.NewClient(&mcp.HTTPTransport{URL: url, Header: http.Header{"Authorization": {"Bearer secret-token-123"}}},
		mcp.Options{Era: era, Discover: true, OnEvent: func(ev mcp.Event) {
			if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Inbound {
				mu.Lock()
				got = append(got, fe.Frame)
				mu.Unlock()
			}
		}})
	go func() {
		for range c.Events() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	c.DiscoverAll(ctx)
	if _, err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": "slow_count", "arguments": map[string]any{"steps": 3, "delay_ms": 1}},
		mcp.WithProgress(func(mcp.Progress) {})); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	mu.Lock()
	defer mu.Unlock()
	return got
}

func TestHTTPTapPassesStreamableHTTPThrough(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(era.String(), func(t *testing.T) {
			dir := privateDirs(t)
			var authMu sync.Mutex
			var auths []string
			handler := demo.HTTPHandler()
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				authMu.Lock()
				auths = append(auths, r.Header.Get("Authorization"))
				authMu.Unlock()
				handler.ServeHTTP(w, r)
			}))
			defer upstream.Close()
			direct := converseHTTP(t, upstream.URL+"/mcp", era)

			ctx, cancel := context.WithCancel(context.Background())
			ready := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				done <- RunHTTP(ctx, HTTPOptions{Name: "remote", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
					Ready: func(u string) { ready <- u }})
			}()
			local := <-ready
			live := listLive(t, 1)
			if live[0].Transport != "http" || live[0].URL != upstream.URL+"/mcp" {
				t.Errorf("listed as %+v", live[0])
			}
			tapped := converseHTTP(t, local, era)
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}

			if len(direct) != len(tapped) || len(direct) < 5 {
				t.Fatalf("the client got %d frames direct, %d through the tap", len(direct), len(tapped))
			}
			for i := range direct {
				if !bytes.Equal(direct[i].Raw, tapped[i].Raw) {
					t.Errorf("frame %d differs:\n direct %s\n tapped %s", i, direct[i].Raw, tapped[i].Raw)
				}
			}
			authMu.Lock()
			for _, a := range auths {
				if a != "Bearer secret-token-123" {
					t.Errorf("the server got Authorization %q", a)
				}
			}
			authMu.Unlock()

			files, _ := os.ReadDir(dir)
			if len(files) != 1 {
				t.Fatalf("session files %v", files)
			}
			b, err := os.ReadFile(dir + "/" + files[0].Name())
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("secret-token-123")) {
				t.Error("the session file holds the Authorization token")
			}
			if !bytes.Contains(b, []byte(`"Authorization","Value":"Bearer [redacted]"`)) {
				t.Error("the session file does not show the redacted Authorization header")
			}
			entries, err := record.Read(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			var in [][]byte
			sse := false
			for _, e := range entries {
				if e.Type == "frame" && e.Dir == "in" {
					raw, _ := e.RawBytes()
					in = append(in, raw)
					if strings.HasPrefix(e.Stream, "POST ") && strings.Contains(e.Method, "progress") {
						sse = true
					}
				}
			}
			if len(in) != len(tapped) {
				t.Fatalf("the session file holds %d server frames; the client got %d", len(in), len(tapped))
			}
			for i := range in {
				if !bytes.Equal(in[i], tapped[i].Raw) {
					t.Errorf("recorded frame %d: %s, the client got %s", i, in[i], tapped[i].Raw)
				}
			}
			if !sse {
				t.Error("no progress notification recorded on the tool call's SSE stream")
			}
		})
	}
}
