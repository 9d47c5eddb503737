package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// viewTools are tools built to trigger the client rules: a dot, a
// 70-character name, type [X, "null"], a top-level anyOf, a
// 3,000-character description.
var viewTools = `[
{"name":"get.weather","description":"Weather.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}},
{"name":"` + strings.Repeat("n", 35) + strings.Repeat("z", 35) + `","description":"long name","inputSchema":{"type":"object"}},
{"name":"maybe","description":"nullable","inputSchema":{"type":"object","properties":{"v":{"type":["string","null"],"description":"d"}}}},
{"name":"either","description":"Finds.","inputSchema":{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"}},"required":["name"]}]}},
{"name":"wordy","description":"` + strings.Repeat("d", 3000) + `","inputSchema":{"type":"object"}}
]`

// toolsServerJS is an MCP server (stdio, newline-delimited) that lists
// the tools in the file its first argument names. A script for node,
// which the clients need anyway: this test binary as the fake server
// (mcptest) hung Gemini CLI's discovery under the test, for a reason not
// found yet, while the same binary served it from a shell.
const toolsServerJS = `const tools = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
let buf = '';
process.stdin.on('data', d => {
  buf += d;
  for (let i; (i = buf.indexOf('\n')) >= 0;) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    const reply = {jsonrpc: '2.0', id: m.id};
    if (m.method === 'initialize') reply.result = {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'wx', version: '1'}};
    else if (m.method === 'tools/list') reply.result = {tools};
    else if (m.method === 'ping') reply.result = {};
    else reply.error = {code: -32601, message: 'method not found'};
    process.stdout.write(JSON.stringify(reply) + '\n');
  }
});
`

// fakeModelAPI records the body of every request on loopback and
// answers each as a model that says "ok" would.
type fakeModelAPI struct {
	url    string
	mu     sync.Mutex
	bodies map[string][]byte // URL path → the last body sent to it
}

func startFakeModelAPI(t *testing.T) *fakeModelAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeModelAPI{url: "http://" + ln.Addr().String(), bodies: map[string][]byte{}}
	answer := `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		f.mu.Lock()
		f.bodies[r.URL.Path] = body
		f.mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: "+answer+"\r\n\r\n")
		case strings.HasSuffix(r.URL.Path, ":generateContent"):
			// The model router asks which model to use.
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(answer, `"text":"ok"`, `"text":"{\"reasoning\":\"x\",\"model_choice\":\"flash\"}"`, 1))
		default:
			http.NotFound(w, r)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return f
}

func (f *fakeModelAPI) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for p := range f.bodies {
		out = append(out, p)
	}
	return out
}

// body is the last request sent to a path ending in suffix.
func (f *fakeModelAPI) body(suffix string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	for p, b := range f.bodies {
		if strings.HasSuffix(p, suffix) {
			return b
		}
	}
	return nil
}

// compactJSON is raw without insignificant space, keys in their order.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// Gemini CLI 0.61.0, given a server whose tools trigger its rules, sends
// its model API exactly the names, descriptions and schemas the gemini
// view predicts.
func testGeminiView(t *testing.T) {
	api := startFakeModelAPI(t)
	r := newClientRun(t, "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+api.url, "GEMINI_TELEMETRY_ENABLED=false", "NO_UPDATE_NOTIFIER=1")
	dir := filepath.Join(r.home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	toolsFile, serverJS := filepath.Join(r.home, "tools.json"), filepath.Join(r.home, "server.js")
	if err := os.WriteFile(toolsFile, []byte(viewTools), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(serverJS, []byte(toolsServerJS), 0o600); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{
		"general":    map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":    map[string]any{"usageStatisticsEnabled": false},
		"telemetry":  map[string]any{"enabled": false},
		"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"mcpServers": map[string]any{"wx": map[string]any{"command": "node", "args": []string{serverJS, toolsFile}, "trust": true}},
	})
	trusted, _ := json.Marshal(map[string]string{r.project: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), trusted, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := r.run(2*time.Minute, "gemini", "-p", "say ok"); err != nil {
		t.Fatalf("gemini -p: %v (the model API had requests to %v)\n%s", err, api.paths(), out)
	}
	body := api.body(":streamGenerateContent")
	if body == nil {
		t.Fatalf("Gemini CLI sent no streamGenerateContent request; it sent %d others", len(api.bodies))
	}
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Schema      json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("the request body: %v", err)
	}
	sent, mcpTools := map[string]int{}, 0
	for i, tl := range req.Tools {
		for j, fd := range tl.FunctionDeclarations {
			sent[fd.Name] = i<<16 | j
			if strings.HasPrefix(fd.Name, "mcp_") {
				mcpTools++
			}
		}
	}
	var raws []json.RawMessage
	_ = json.Unmarshal([]byte(viewTools), &raws)
	view := clients.Present(clients.Gemini, clients.Input{Server: "wx", Tools: mcp.ParseTools(raws)})
	if mcpTools != len(view.Tools) {
		t.Errorf("Gemini CLI sent %d MCP tools, the view %d", mcpTools, len(view.Tools))
	}
	for _, e := range view.Tools {
		at, ok := sent[e.Shown]
		if !ok {
			t.Errorf("the view names %q %q; Gemini CLI sent no such tool", e.Name, e.Shown)
			continue
		}
		fd := req.Tools[at>>16].FunctionDeclarations[at&0xffff]
		if fd.Description != e.Description {
			t.Errorf("%s: description sent %q, predicted %q", e.Shown, fd.Description, e.Description)
		}
		if got, want := compactJSON(fd.Schema), string(e.Schema); got != want {
			t.Errorf("%s: schema sent\n  %s\npredicted\n  %s", e.Shown, got, want)
		}
	}
}
