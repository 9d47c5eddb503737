package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// viewTools are tools built to trigger the client rules: a dot, a
// 70-character name, type [X, "null"], a top-level anyOf, a
// 3,000-character description, a 300 KB result (big), and a tool for MCP
// Apps views alone (visibility ["app"]).
var viewTools = `[
{"name":"get.weather","description":"Weather.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}},
{"name":"` + strings.Repeat("n", 35) + strings.Repeat("z", 35) + `","description":"long name","inputSchema":{"type":"object"}},
{"name":"maybe","description":"nullable","inputSchema":{"type":"object","properties":{"v":{"type":["string","null"],"description":"d"}}}},
{"name":"either","description":"Finds.","inputSchema":{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"}},"required":["name"]}]}},
{"name":"wordy","description":"` + strings.Repeat("d", 3000) + `","inputSchema":{"type":"object"}},
{"name":"big","description":"A 300 KB result.","inputSchema":{"type":"object"}},
{"name":"refresh","description":"Called by the view only.","inputSchema":{"type":"object"},"_meta":{"ui":{"visibility":["app"]}}}
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
    else if (m.method === 'tools/call' && m.params.name === 'big') reply.result = {content: [{type: 'text', text: 'x'.repeat(300 * 1024)}]};
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
	// messages are the bodies of the Anthropic Messages requests, in order.
	messages [][]byte
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
		if r.URL.Path == "/v1/messages" {
			f.messages = append(f.messages, body)
		}
		f.mu.Unlock()
		switch {
		case r.URL.Path == "/v1/messages":
			anthropicAnswer(w, body)
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent") && bytes.Contains(body, []byte(`"mcp_wx_big"`)) && !bytes.Contains(body, []byte(`"functionResponse"`)):
			// The model calls big once (its 300 KB result is followed by
			// the joined view), then says ok.
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: "+strings.Replace(answer, `{"text":"ok"}`, `{"functionCall":{"name":"mcp_wx_big","args":{}}}`, 1)+"\r\n\r\n")
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

// anthropicAnswer streams a model's turn: while no tool result has come
// back, a ToolSearch call that loads every mcp__wx__ tool the request
// names (Claude Code defers them); then a call of mcp__wx__big; then
// "ok".
func anthropicAnswer(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(kind string, data any) {
		b, _ := json.Marshal(data)
		_, _ = io.WriteString(w, "event: "+kind+"\ndata: "+string(b)+"\n\n")
	}
	msg := map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}}
	event("message_start", map[string]any{"type": "message_start", "message": msg})
	var names []string
	for _, n := range regexp.MustCompile(`mcp__wx__[A-Za-z0-9_-]+`).FindAllString(string(body), -1) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	stop := "end_turn"
	switch {
	case bytes.Contains(body, []byte(`"tool_result"`)) && !bytes.Contains(body, []byte(`"toolu_2"`)) && slices.Contains(names, "mcp__wx__big"):
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_2", "name": "mcp__wx__big", "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": "{}"}})
		stop = "tool_use"
	case !bytes.Contains(body, []byte(`"tool_result"`)) && len(names) > 0:
		input, _ := json.Marshal(map[string]any{"query": "select:" + strings.Join(names, ","), "max_results": len(names)})
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		stop = "tool_use"
	default:
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "ok"}})
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// modelTapKey is the API key the clients are given: it must reach the
// fake API and appear nowhere in the model tap's capture.
const modelTapKey = "sk-ant-test-MODELTAP-KEY-0042"

// runningModelTap is `mcpscope tap --model` in front of a fake model API.
type runningModelTap struct {
	t    *testing.T
	r    *clientRun
	cmd  *exec.Cmd
	url  string // what the client's base-URL setting names
	dir  string
	done bool
}

// startModelTap runs the real binary's model tap between the client and
// the fake API at upstream.
func (r *clientRun) startModelTap(provider, upstream string) *runningModelTap {
	r.t.Helper()
	port := freePort(r.t)
	cmd := startBackground(r.t, r, syscall.SIGTERM, r.mcpscope, "tap", "--model", provider, "--listen", "127.0.0.1:"+port, "--upstream", upstream)
	waitListening(r.t, "127.0.0.1:"+port, "the model tap")
	return &runningModelTap{t: r.t, r: r, cmd: cmd, url: "http://127.0.0.1:" + port, dir: filepath.Join(r.home, ".local", "state", "mcpscope", "taps")}
}

// stop ends the model tap and reads its capture, which must hold no API
// key.
func (m *runningModelTap) stop() []tap.ModelEntry {
	m.t.Helper()
	if !m.done {
		m.done = true
		_ = m.cmd.Process.Signal(syscall.SIGTERM)
		_ = m.cmd.Wait()
	}
	files, _ := filepath.Glob(filepath.Join(m.dir, "*model*.jsonl"))
	if len(files) != 1 {
		m.t.Fatalf("model tap captures: %v, want one", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		m.t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("MODELTAP-KEY")) {
		m.t.Errorf("the API key is in the model tap's capture %s", files[0])
	}
	_, entries, err := tap.ReadModel(files[0])
	if err != nil {
		m.t.Fatal(err)
	}
	listing := m.r.mcpscopeRun(m.r.elsewhere(), "open", files[0])
	if strings.Contains(listing, "MODELTAP-KEY") || !strings.Contains(listing, "tools (") {
		m.t.Errorf("mcpscope open on the model capture:\n%s", listing)
	}
	return entries
}

// capturedTool is a tool definition reduced to what the clients' views
// predict: name, description, schema (compacted) and deferral.
type capturedTool struct {
	name, description, schema string
	deferred                  bool
}

// sameCapturedTools compares the tools a request body held with those
// the model tap recorded of it.
func sameCapturedTools(t *testing.T, what string, sent []capturedTool, recorded []modelapi.Tool) {
	t.Helper()
	var got []capturedTool
	for _, tl := range recorded {
		got = append(got, capturedTool{tl.Name, tl.Description, compactRaw(tl.Schema), tl.Deferred})
	}
	if len(got) != len(sent) {
		t.Errorf("%s: %d tools sent, %d recorded by the model tap", what, len(sent), len(got))
		return
	}
	for i := range sent {
		if got[i] != sent[i] {
			t.Errorf("%s: tool %d sent as %+v, recorded as %+v", what, i, sent[i], got[i])
		}
	}
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

// compactRaw is raw without insignificant space, keys in their order.
func compactRaw(raw json.RawMessage) string {
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
	r := newClientRun(t, "GEMINI_API_KEY="+modelTapKey, "GEMINI_TELEMETRY_ENABLED=false", "NO_UPDATE_NOTIFIER=1")
	modelTap := r.startModelTap("gemini", api.url)
	r.env = append(r.env, "GOOGLE_GEMINI_BASE_URL="+modelTap.url)
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
		"mcpServers": map[string]any{"wx": map[string]any{"command": r.mcpscope, "args": wxTapArgs(serverJS, toolsFile), "trust": true}},
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
	// The model tap's capture holds the tools as Gemini CLI sent them.
	var streamed []tap.ModelEntry
	for _, e := range modelTap.stop() {
		if strings.Contains(e.Path, ":streamGenerateContent") {
			streamed = append(streamed, e)
		}
	}
	if len(streamed) == 0 {
		t.Fatal("the model tap's capture has no streamGenerateContent request")
	}
	last := streamed[len(streamed)-1]
	if !last.Stream || last.Status != 200 || last.Usage == nil || last.Usage.Input != 1 {
		t.Errorf("the model tap recorded the last request as %+v", last)
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
	var sentTools []capturedTool
	for i, tl := range req.Tools {
		for j, fd := range tl.FunctionDeclarations {
			sent[fd.Name] = i<<16 | j
			if strings.HasPrefix(fd.Name, "mcp_") {
				mcpTools++
			}
			sentTools = append(sentTools, capturedTool{fd.Name, fd.Description, compactRaw(fd.Schema), false})
		}
	}
	sameCapturedTools(t, "Gemini CLI's last streamGenerateContent", sentTools, last.Tools)
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
		if got, want := compactRaw(fd.Schema), string(e.Schema); got != want {
			t.Errorf("%s: schema sent\n  %s\npredicted\n  %s", e.Shown, got, want)
		}
	}
	// The 300 KB result reaches the model as gemini/result-limits says:
	// in <untrusted_context> tags, the first 8,000 and last 32,000
	// characters of that around a note of what was cut.
	var withResult struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Name     string `json:"name"`
					Response struct {
						Output string `json:"output"`
					} `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(body, &withResult)
	var result string
	for _, c := range withResult.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.Name == "mcp_wx_big" {
				result = p.FunctionResponse.Response.Output
			}
		}
	}
	head, rest, ok := strings.Cut(result, "\n")
	wrapped := "<untrusted_context>\n" + strings.Repeat("x", 300*1024) + "\n</untrusted_context>"
	want := wrapped[:8000] + "\n\n... [267,241 characters omitted] ...\n\n" + wrapped[len(wrapped)-32000:]
	if !ok || !strings.HasPrefix(head, "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: ") || rest != want {
		t.Errorf("the 300 KB result reached the model as %d bytes:\n%.300s", len(result), result)
	}
	if !strings.Contains(clients.GeminiResultNote, `"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: PATH"`) {
		t.Errorf("the view's note does not say so: %s", clients.GeminiResultNote)
	}
	joined, text := modelTap.joinWx()
	checkGeminiJoin(t, joined, text)
}

// Claude Code 2.1.328, given the same server behind a loopback
// ANTHROPIC_BASE_URL, names its tools only in the system text at first
// (deferred, with tool search); once the model loads them through
// ToolSearch it sends each one's name, description and input_schema
// exactly as the claude view predicts.
func testClaudeView(t *testing.T) {
	api := startFakeModelAPI(t)
	r := newClientRun(t, append(append([]string(nil), claudeEnv[:len(claudeEnv)-1]...), "ANTHROPIC_API_KEY="+modelTapKey)...)
	modelTap := r.startModelTap("anthropic", api.url)
	r.env = append(r.env, "ANTHROPIC_BASE_URL="+modelTap.url)
	toolsFile, serverJS, cfg := filepath.Join(r.home, "tools.json"), filepath.Join(r.home, "server.js"), filepath.Join(r.home, "mcp.json")
	mcpCfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"wx": map[string]any{"command": r.mcpscope, "args": wxTapArgs(serverJS, toolsFile)}}})
	for path, data := range map[string]string{toolsFile: viewTools, serverJS: toolsServerJS, cfg: string(mcpCfg)} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := r.run(2*time.Minute, "claude", "-p", "say ok", "--mcp-config", cfg, "--strict-mcp-config", "--allowedTools", "mcp__wx__big"); err != nil {
		t.Fatalf("claude -p: %v (the model API had requests to %v)\n%s", err, api.paths(), out)
	}
	api.mu.Lock()
	msgs := api.messages
	api.mu.Unlock()
	type apiTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"input_schema"`
		Defer       bool            `json:"defer_loading"`
	}
	if len(msgs) != 3 {
		t.Fatalf("Claude Code sent %d Messages requests, want 3: the first, after ToolSearch, after mcp__wx__big", len(msgs))
	}
	// The model tap's capture holds each request's tools as Claude Code
	// sent them, the calls the fake model made and the results passed
	// back.
	var captured []tap.ModelEntry
	for _, e := range modelTap.stop() {
		if e.API == modelapi.AnthropicMessages {
			captured = append(captured, e)
		}
	}
	if len(captured) != len(msgs) {
		t.Fatalf("the model tap recorded %d Messages requests, the API got %d", len(captured), len(msgs))
	}
	for i, m := range msgs {
		var body struct{ Tools []apiTool }
		_ = json.Unmarshal(m, &body)
		var sentTools []capturedTool
		for _, tl := range body.Tools {
			sentTools = append(sentTools, capturedTool{tl.Name, tl.Description, compactRaw(tl.Schema), tl.Defer})
		}
		sameCapturedTools(t, fmt.Sprintf("Messages request %d", i+1), sentTools, captured[i].Tools)
	}
	if c := captured[0].Calls; len(c) != 1 || c[0].Name != "ToolSearch" {
		t.Errorf("the first answer's calls were recorded as %+v, want ToolSearch", c)
	}
	if c := captured[1].Calls; len(c) != 1 || c[0].Name != "mcp__wx__big" || c[0].ID != "toolu_2" {
		t.Errorf("the second answer's calls were recorded as %+v, want mcp__wx__big", c)
	}
	if res := captured[2].Results; len(res) != 1 || res[0].ID != "toolu_2" || res[0].Size == 0 || res[0].Size > 4096 {
		t.Errorf("the big result passed back was recorded as %+v", res)
	}
	if u := captured[2].Usage; u == nil || u.Input != 1 || u.Output != 1 {
		t.Errorf("the usage was recorded as %+v", u)
	}
	var first, loaded struct{ Tools []apiTool }
	if json.Unmarshal(msgs[0], &first) != nil || json.Unmarshal(msgs[1], &loaded) != nil {
		t.Fatal("the Messages bodies are not JSON")
	}
	var raws []json.RawMessage
	_ = json.Unmarshal([]byte(viewTools), &raws)
	view := clients.Present(clients.Claude, clients.Input{Server: "wx", Tools: mcp.ParseTools(raws)})
	// Deferred: at first only the names, in the system text.
	for _, tl := range first.Tools {
		if strings.HasPrefix(tl.Name, "mcp__") {
			t.Errorf("the first request already defines %s: not deferred", tl.Name)
		}
	}
	// A tool the view says Claude Code keeps from the model (one for
	// views alone) is named nowhere; the others are.
	var kept []clients.Entry
	for _, e := range view.Tools {
		if e.Dropped != "" && !e.Refused {
			if bytes.Contains(msgs[0], []byte(e.Shown)) || bytes.Contains(msgs[1], []byte(e.Shown)) {
				t.Errorf("%s, which the view says is kept from the model (%s), was sent to it", e.Shown, e.Dropped)
			}
			continue
		}
		kept = append(kept, e)
		if !bytes.Contains(msgs[0], []byte(e.Shown)) {
			t.Errorf("the first request does not name %s", e.Shown)
		}
	}
	if len(kept) == len(view.Tools) {
		t.Error("the view keeps every tool: the tool for views alone is not dropped")
	}
	sent := map[string]apiTool{}
	for _, tl := range loaded.Tools {
		if strings.HasPrefix(tl.Name, "mcp__") {
			sent[tl.Name] = tl
		}
	}
	if len(sent) != len(kept) {
		t.Errorf("Claude Code sent %d MCP tools once loaded, the view %d", len(sent), len(kept))
	}
	for _, e := range kept {
		tl, ok := sent[e.Shown]
		switch {
		case !ok:
			t.Errorf("the view names %q %q; Claude Code sent no such tool", e.Name, e.Shown)
			continue
		case !tl.Defer:
			t.Errorf("%s: sent without defer_loading", e.Shown)
		}
		if tl.Description != e.Description {
			t.Errorf("%s: description sent %q, predicted %q", e.Shown, tl.Description, e.Description)
		}
		if got, want := compactRaw(tl.Schema), string(e.Schema); got != want {
			t.Errorf("%s: schema sent\n  %s\npredicted\n  %s", e.Shown, got, want)
		}
	}
	// The 300 KB result reaches the model as the claude/result-limits
	// rule says: an error naming the saved file, no preview.
	var last struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(msgs[2], &last)
	var result string
	if n := len(last.Messages); n > 0 {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(last.Messages[n-1].Content, &blocks)
		for _, b := range blocks {
			if b.ToolUseID == "toolu_2" {
				result = string(b.Content)
			}
		}
	}
	if !strings.Contains(result, "Error: result (307,200 characters across 1 line) exceeds maximum allowed tokens. Output has been saved to ") ||
		strings.Contains(result, "xxxxxxxx") || len(result) > 4096 {
		t.Errorf("the 300 KB result reached the model as %d bytes:\n%s", len(result), result)
	}
	if !strings.Contains(clients.ClaudeResultNote, "Error: result (N characters across L lines) exceeds maximum allowed tokens. Output has been saved to PATH.") {
		t.Errorf("the view's note does not say so: %s", clients.ClaudeResultNote)
	}
	joined, text := modelTap.joinWx()
	checkClaudeJoin(t, joined, text)
}
