package tap

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/watch"
)

// An HTTP tap with --watch: the server is replaced (a new one, whose
// sessions start empty) and a watched file saved; the tap opens the
// client's session again upstream, and the client, which kept its
// session id, goes on being answered. Without the mapping the new server
// answers the old id 404.
func TestHTTPTapReconnectsUpstreamAfterARestart(t *testing.T) {
	privateDirs(t)
	var mu sync.Mutex
	handler := demo.HTTPHandler()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := handler
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer upstream.Close()
	watched := filepath.Join(t.TempDir(), "server.go")
	if err := os.WriteFile(watched, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "reload", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
			Ready: func(u string) { ready <- u }, Reload: &ReloadOptions{Watch: watch.Options{Paths: []string{watched}}}})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	local := <-ready
	c := mcp.NewClient(&mcp.HTTPTransport{URL: local}, mcp.Options{})
	go func() {
		for range c.Events() {
		}
	}()
	defer func() { _ = c.Close() }()
	cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer ccancel()
	if _, err := c.Connect(cctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ListAll(cctx, mcp.MethodToolsList); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	handler = demo.HTTPHandler() // the restarted server
	mu.Unlock()
	if err := os.WriteFile(watched, []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !recordSays(t, "the client's session now goes to the restarted server's") {
		if time.Now().After(deadline) {
			t.Fatal("the tap did not reopen the client's session upstream")
		}
		time.Sleep(20 * time.Millisecond)
	}
	items, _, err := c.ListAll(cctx, mcp.MethodToolsList)
	if err != nil || len(items) == 0 {
		t.Fatalf("the client's session after the restart: %d tools, %v", len(items), err)
	}
	if !recordSays(t, `"byTap":true`) || !recordSays(t, `"transportKind":"restart"`) {
		t.Error("the record lacks the restart or the tap's own frames")
	}
}

// recordSays reports whether the tap's record (flushed so far) holds s.
func recordSays(t *testing.T, s string) bool {
	dir := filepath.Join(os.Getenv("HOME"), ".local", "state", "mcpscope", "taps")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
