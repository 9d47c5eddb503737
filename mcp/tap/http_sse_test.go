package tap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// primingServer answers as the TypeScript SDK's Streamable HTTP transport
// does (server-everything): every request's answer is an event stream that
// opens with a priming event (an id, an empty data line), then the answer
// as a message event with an id of its own.
func primingServer(t *testing.T) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no GET stream", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if req.Method == mcp.MethodServerDiscover {
			// The SDK's answer to a request before initialize.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)
			return
		}
		result := `{}`
		switch req.Method {
		case mcp.MethodInitialize:
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"priming","version":"1"}}`
		case mcp.MethodToolsList:
			result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", "s-1")
		fl := w.(http.Flusher)
		_, _ = fmt.Fprintf(w, "id: prime-%s\ndata: \n\n", req.ID)
		fl.Flush()
		_, _ = fmt.Fprintf(w, ": a comment\n\nevent: message\nid: answer-%s\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, req.ID, result)
		fl.Flush()
	}))
}

// sseRows connects mcpscope's client to url, lists the tools and returns
// the SSE rows of its timeline and the inbound frames' kinds.
func sseRows(t *testing.T, url string) (rows []string, kinds []mcp.Kind) {
	t.Helper()
	var mu sync.Mutex
	c := mcp.NewClient(&mcp.HTTPTransport{URL: url}, mcp.Options{OnEvent: func(ev mcp.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case mcp.TransportEvent:
			// Of a keep-alive run's reports, a record keeps the last.
			if e.Kind == "sse" && (e.Run == nil || e.Run.Done) {
				rows = append(rows, e.Summary)
			}
		case mcp.FrameEvent:
			if e.Frame.Dir == mcp.Inbound {
				kinds = append(kinds, e.Frame.Kind)
			}
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
	if _, err := c.Call(ctx, mcp.MethodToolsList, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	mu.Lock()
	defer mu.Unlock()
	return rows, kinds
}

// A priming event carries no message: the tap must record it as the
// client reads it (a row), not as an empty, invalid frame that the doctor
// then blames on the server.
func TestHTTPTapReadsPrimingEventsAsTheClientDoes(t *testing.T) {
	dir := privateDirs(t)
	upstream := primingServer(t)
	defer upstream.Close()
	directRows, directKinds := sseRows(t, upstream.URL+"/mcp")
	if len(directRows) == 0 {
		t.Fatal("mcpscope's client showed no SSE rows for the priming events")
	}

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "priming", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
			Ready: func(u string) { ready <- u }})
	}()
	local := <-ready
	tappedRows, tappedKinds := sseRows(t, local+"mcp") // the same path as direct, for the same stream names
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(directKinds, tappedKinds) || !slices.Equal(directRows, tappedRows) {
		t.Fatalf("the client saw different things through the tap:\n direct %v %q\n tapped %v %q", directKinds, directRows, tappedKinds, tappedRows)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	entries, err := record.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// The header names the server, so the capture is found as one, with
	// its URL and transport, wherever it is.
	if h := entries[0]; h.Recorder != "tap" || h.URL != upstream.URL+"/mcp" {
		t.Errorf("header recorder %q url %q", h.Recorder, h.URL)
	}
	if l, ok := Capture(files[0]); !ok || l.Transport != "http" || l.URL != upstream.URL+"/mcp" {
		t.Errorf("the capture is described as %+v (%v)", l, ok)
	}
	var rows []string
	var kinds []string
	for _, e := range entries {
		switch {
		case e.Type == "transport" && e.TransportKind == "sse":
			rows = append(rows, e.Summary)
		case e.Type == "frame" && e.Dir == "in":
			kinds = append(kinds, e.Kind)
		}
	}
	for _, k := range kinds {
		if k == mcp.KindInvalid.String() {
			t.Errorf("the tap recorded an invalid frame; inbound frames %v", kinds)
		}
	}
	if len(kinds) != len(directKinds) {
		t.Errorf("the tap recorded %d server frames, the client got %d", len(kinds), len(directKinds))
	}
	// The rows are the client's own: the same reader and classifier.
	if !slices.Equal(rows, directRows) {
		t.Errorf("the tap's SSE rows differ from the client's:\n tap    %q\n client %q", rows, directRows)
	}

	// The viewer's doctor finds nothing wrong with the stream.
	src := NewSource(Listed{Info: Info{File: files[0], Transport: "http"}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for ev := range src.Events() {
		if d, ok := ev.(mcp.DiagnosticEvent); ok && strings.HasPrefix(d.Diagnostic.Rule, "framing/") {
			t.Errorf("the doctor raised %s: %s", d.Diagnostic.Rule, d.Diagnostic.Message)
		}
	}
	_ = src.Close()
}

// A client that speaks both eras (Claude Code) first sends server/discover
// and falls back to initialize; a legacy server over HTTP refuses it with
// 400 and an id-less error, as the transport allows. The doctor judges
// that exchange through a tap as it judges mcpscope's own probe: no
// framing/null-id-error against the server.
func TestHTTPTapJudgesAClientsEraProbeAsMcpscopesOwn(t *testing.T) {
	dir := privateDirs(t)
	upstream := primingServer(t)
	defer upstream.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "probe", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
			Ready: func(u string) { ready <- u }})
	}()
	local := <-ready
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.328"}}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.328"}}}`,
	} {
		req, _ := http.NewRequest(http.MethodPost, local, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	for _, e := range readRecord(t, files[0]) {
		if e.Type == "frame" && e.Dir == "out" && e.Probe != (e.Method == mcp.MethodServerDiscover) {
			t.Errorf("%s marked as a probe: %v", e.Method, e.Probe)
		}
	}
	src := NewSource(Listed{Info: Info{File: files[0], Transport: "http"}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for ev := range src.Events() {
		if d, ok := ev.(mcp.DiagnosticEvent); ok && (d.Diagnostic.Severity == mcp.SeverityError || d.Diagnostic.Severity == mcp.SeverityWarning) {
			t.Errorf("the doctor raised %s: %s", d.Diagnostic.Rule, d.Diagnostic.Message)
		}
	}
	_ = src.Close()
}
