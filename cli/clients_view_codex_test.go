package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// scriptedModelAPI is a model API on loopback that records every
// request's path and body, in order, and answers each with answer.
type scriptedModelAPI struct {
	url  string
	mu   sync.Mutex
	reqs []modelRequest
}

type modelRequest struct {
	path string
	body []byte
}

func startScriptedModelAPI(t *testing.T, answer func(w http.ResponseWriter, path string, body []byte, n int)) *scriptedModelAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &scriptedModelAPI{url: "http://" + ln.Addr().String()}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		f.mu.Lock()
		f.reqs = append(f.reqs, modelRequest{r.URL.Path, body})
		n := len(f.reqs)
		f.mu.Unlock()
		answer(w, r.URL.Path, body, n)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return f
}

// sent is the bodies of the requests to paths ending in suffix, in order.
func (f *scriptedModelAPI) sent(suffix string) [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out [][]byte
	for _, r := range f.reqs {
		if strings.HasSuffix(r.path, suffix) {
			out = append(out, r.body)
		}
	}
	return out
}

func (f *scriptedModelAPI) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.reqs {
		out = append(out, r.path)
	}
	return out
}

// sse writes one server-sent event of the Responses API.
func sse(w io.Writer, kind string, data map[string]any) {
	data["type"] = kind
	b, _ := json.Marshal(data)
	_, _ = io.WriteString(w, "event: "+kind+"\ndata: "+string(b)+"\n\n")
}

// codexListTools is what Codex's model runs in its exec tool to find the
// deferred tools of server wx: the exec tool's description says deferred
// tools are in ALL_TOOLS, as {name, description}.
const codexListTools = `text(JSON.stringify(ALL_TOOLS.filter(t => t.name.startsWith("mcp__wx__"))))`

// codexBig is what the model runs next: the 300 KB tool, its text as the
// exec tool's output.
const codexBig = `const r = await tools.mcp__wx__big({}); text(r.content[0].text)`

// codexAnswer answers a Responses request as Codex's model would: first
// an exec call that lists the deferred MCP tools, then one that calls
// big, then "ok".
func codexAnswer(w http.ResponseWriter, path string, body []byte, n int) {
	if !strings.HasSuffix(path, "/responses") {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := "resp_" + string(rune('0'+n%10))
	sse(w, "response.created", map[string]any{"response": map[string]any{"id": id}})
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id,
		"content": []any{map[string]any{"type": "output_text", "text": "ok"}}}
	switch strings.Count(string(body), `"type":"custom_tool_call_output"`) {
	case 0:
		item = map[string]any{"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "exec", "input": codexListTools}
	case 1:
		item = map[string]any{"type": "custom_tool_call", "id": "ctc_2", "call_id": "call_2", "name": "exec", "input": codexBig}
	}
	sse(w, "response.output_item.done", map[string]any{"output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"response": map[string]any{"id": id,
		"usage": map[string]int{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})
}

// Codex 0.169.0, given a server whose tools trigger its rules, defers
// them (the first request names only the namespace mcp__wx); its model
// reads ALL_TOOLS in the exec tool, and what Codex gives back holds each
// tool's name and description exactly as the codex view predicts them.
// Its model API is reached through the model tap and the server sits
// behind the MCP tap: the model capture holds the tools Codex sent, and
// the join follows the 300 KB result through the exec script.
func testCodexView(t *testing.T) {
	api := startScriptedModelAPI(t, codexAnswer)
	r := newClientRun(t, "OPENAI_API_KEY="+modelTapKey)
	modelTap := r.startModelTap("openai", api.url)
	dir := filepath.Join(r.home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	toolsFile, serverJS := filepath.Join(r.home, "tools.json"), filepath.Join(r.home, "server.js")
	var args []string
	for _, a := range wxTapArgs(serverJS, toolsFile) {
		args = append(args, string(jsonString(a)))
	}
	cfg := strings.Replace(codexConfig, "http://127.0.0.1:9/v1", modelTap.url+"/v1", 1) +
		"\n[mcp_servers.wx]\ncommand = " + string(jsonString(r.mcpscope)) + "\nargs = [" + strings.Join(args, ", ") + "]\n"
	for path, data := range map[string]string{toolsFile: viewTools, serverJS: toolsServerJS, filepath.Join(dir, "config.toml"): cfg} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Without the bypass, Codex refuses the model's MCP call: "approval
	// policy is never".
	if out, err := r.run(2*time.Minute, "codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "say ok"); err != nil {
		t.Fatalf("codex exec: %v (the model API had requests to %v)\n%s", err, api.paths(), out)
	}
	reqs := api.sent("/responses")
	if len(reqs) != 3 {
		t.Fatalf("Codex sent %d Responses requests, want 3: the first, and one after each exec call", len(reqs))
	}
	var raws []json.RawMessage
	_ = json.Unmarshal([]byte(viewTools), &raws)
	view := clients.Present(clients.Codex, clients.Input{Server: "wx", Tools: mcp.ParseTools(raws)})

	// Deferred: the first request defines none of them and names only the
	// namespace.
	if !strings.Contains(string(reqs[0]), `Deferred tool namespaces:\n- mcp__wx`) {
		t.Error("the first request does not name the namespace mcp__wx as deferred")
	}
	for _, e := range view.Tools {
		if strings.Contains(string(reqs[0]), e.Shown) {
			t.Errorf("the first request already names %s: not deferred", e.Shown)
		}
	}

	// The exec call's output, as Codex gives it back to its model.
	var listed []struct{ Name, Description string }
	if text := codexOutput(t, reqs[1], "call_1"); text != "" {
		if err := json.Unmarshal([]byte(text[strings.Index(text, "["):]), &listed); err != nil {
			t.Fatalf("ALL_TOOLS as the exec tool gave it back: %v\n%s", err, text)
		}
	}
	sent := map[string]string{}
	for _, l := range listed {
		sent[l.Name] = l.Description
	}
	var kept []clients.Entry
	for _, e := range view.Tools {
		if e.Dropped == "" {
			kept = append(kept, e)
		} else if _, ok := sent[e.Shown]; ok {
			t.Errorf("%s, which the view says is kept from the model (%s), was listed to it", e.Shown, e.Dropped)
		}
	}
	if len(kept) == len(view.Tools) {
		t.Error("the view keeps every tool: the tool for views alone is not dropped")
	}
	if len(sent) != len(kept) {
		t.Errorf("Codex listed %d MCP tools, the view %d: %v", len(sent), len(kept), listed)
	}
	for _, e := range kept {
		d, ok := sent[e.Shown]
		if !ok {
			t.Errorf("the view names %q %q; Codex listed no such tool", e.Name, e.Shown)
			continue
		}
		if d != e.Description {
			t.Errorf("%s: description sent\n  %q\npredicted\n  %q", e.Shown, d, e.Description)
		}
		if e.Schema != nil {
			t.Errorf("%s: the view predicts a JSON Schema; Codex sends its model none", e.Shown)
		}
	}

	// The 300 KB result reaches the model as codex/result-limits says: its
	// first and last 20,000 bytes around a note of what was cut.
	big := codexOutput(t, reqs[2], "call_2")
	want := "Warning: truncated output (original token count: 76800)\nTotal output lines: 1\n\n" +
		strings.Repeat("x", 20000) + "\u202666800 tokens truncated\u2026" + strings.Repeat("x", 20000)
	if !strings.HasSuffix(big, want) {
		t.Errorf("the 300 KB result reached the model as %d bytes:\n%.300s", len(big), big)
	}
	if !strings.Contains(clients.CodexResultNote, "Warning: truncated output (original token count: N)") {
		t.Errorf("the view's note does not say so: %s", clients.CodexResultNote)
	}
	sameResponsesCapture(t, reqs, modelTap.stop())
	files, _ := filepath.Glob(filepath.Join(modelTap.dir, "*model*.jsonl"))
	listing := r.mcpscopeRun(r.elsewhere(), append([]string{"open"}, files...)...)
	for _, want := range []string{"exec [custom] (namespace functions)", "sleep (namespace clock)", "the model's exec script (call_2) calls mcp__wx__big"} {
		if !strings.Contains(listing, want) {
			t.Errorf("mcpscope open on the model capture does not say %q:\n%s", want, listing)
		}
	}
	joined, text := modelTap.joinWx()
	checkCodexJoin(t, joined, text)
}

// sameResponsesCapture fails unless the model tap recorded each
// Responses request the fake API got, in order, with its tools as Codex
// sent them (name, description, schema, namespace): Codex 0.169.0 sends
// none in tools, all in an additional_tools input item, in namespaces.
func sameResponsesCapture(t *testing.T, reqs [][]byte, entries []tap.ModelEntry) {
	t.Helper()
	var captured []tap.ModelEntry
	for _, e := range entries {
		if e.API == modelapi.OpenAIResponses {
			captured = append(captured, e)
		}
	}
	if len(captured) != len(reqs) {
		t.Fatalf("the model tap recorded %d Responses requests of Codex, the API got %d", len(captured), len(reqs))
	}
	type tool struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Tools       []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	for i, b := range reqs {
		var req struct {
			Tools []tool `json:"tools"`
			Input []struct {
				Type  string `json:"type"`
				Tools []tool `json:"tools"`
			} `json:"input"`
		}
		_ = json.Unmarshal(b, &req)
		if len(req.Tools) != 0 {
			t.Errorf("Codex's Responses request %d has %d tools in tools: the test expects them in additional_tools", i+1, len(req.Tools))
		}
		var sent []capturedTool
		var namespaces []string
		for _, it := range req.Input {
			if it.Type != "additional_tools" {
				continue
			}
			for _, ns := range it.Tools {
				for _, tl := range ns.Tools {
					sent = append(sent, capturedTool{tl.Name, tl.Description, compactRaw(tl.Parameters), false})
					namespaces = append(namespaces, ns.Name)
				}
			}
		}
		if !slices.ContainsFunc(sent, func(c capturedTool) bool { return c.name == "exec" }) {
			t.Errorf("Codex's Responses request %d defines no exec tool", i+1)
		}
		sameCapturedTools(t, fmt.Sprintf("Codex's Responses request %d", i+1), sent, captured[i].Tools)
		for j, tl := range captured[i].Tools {
			if j < len(namespaces) && tl.Namespace != namespaces[j] {
				t.Errorf("Codex's Responses request %d: %s recorded in namespace %q, sent in %q", i+1, tl.Name, tl.Namespace, namespaces[j])
			}
		}
	}
	// The exec script that calls big is recorded as a call of it, via
	// exec, with the exec call's ID.
	if c := captured[1].Calls; len(c) != 2 || c[0].Name != "exec" || c[1].Name != "mcp__wx__big" || c[1].Via != "exec" || c[1].ID != "call_2" {
		t.Errorf("the second answer's calls were recorded as %+v, want exec and mcp__wx__big via exec", c)
	}
}

// codexOutput is the text of the exec call's output that Codex gave
// back to its model in a request.
func codexOutput(t *testing.T, body []byte, callID string) string {
	t.Helper()
	var req struct {
		Input []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Output []struct {
				Text string `json:"text"`
			} `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("a Responses request: %v", err)
	}
	var text string
	for _, it := range req.Input {
		if it.Type == "custom_tool_call_output" && it.CallID == callID {
			for _, o := range it.Output {
				text += o.Text
			}
		}
	}
	return text
}

// jsonString is s as a JSON (and TOML basic) string.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
