package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// chatAnswer answers an OpenAI Chat Completions request as a model
// would, streamed when the request asks for it: while no tool result has
// come back, a call of the server's tool big (wx_big or wx-big) where
// the request offers it; then "ok". /models lists one model.
func chatAnswer(w http.ResponseWriter, path string, body []byte, _ int) {
	switch {
	case strings.HasSuffix(path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","created":0,"owned_by":"x"}]}`)
		return
	case !strings.HasSuffix(path, "/chat/completions"):
		http.NotFound(w, nil)
		return
	}
	var req struct {
		Model    string     `json:"model"`
		Stream   bool       `json:"stream"`
		Tools    []chatTool `json:"tools"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	big := ""
	for _, tl := range req.Tools {
		if n := tl.Function.Name; n == "wx_big" || n == "wx-big" {
			big = n
		}
	}
	for _, m := range req.Messages {
		if m.Role == "tool" {
			big = ""
		}
	}
	usage := map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if !req.Stream && big == "" {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": "ok"}, "finish_reason": "stop"}},
			"usage":   usage})
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any, extra map[string]any) {
		c := map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		for k, v := range extra {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		_, _ = io.WriteString(w, "data: "+string(b)+"\n\n")
	}
	if big != "" {
		call := map[string]any{"index": 0, "id": "call_big", "type": "function", "function": map[string]any{"name": big, "arguments": "{}"}}
		chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}, nil, nil)
		chunk(map[string]any{}, "tool_calls", map[string]any{"usage": usage})
	} else {
		chunk(map[string]any{"role": "assistant", "content": "ok"}, nil, nil)
		chunk(map[string]any{}, "stop", map[string]any{"usage": usage})
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

// chatTools are the function tools of a Chat Completions request body.
type chatTool struct {
	Function struct {
		Name        string          `json:"name"`
		Description *string         `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// compareChatTools fails where a client's Chat Completions request does
// not hold each tool of the view exactly as predicted: the name, the
// description and the schema, byte for byte (keys in order), and no
// other tool with the server's prefix.
func compareChatTools(t *testing.T, client string, body []byte, view clients.View, prefix string) {
	t.Helper()
	var req struct {
		Tools []chatTool `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("the request body: %v", err)
	}
	sent := map[string]chatTool{}
	for _, tl := range req.Tools {
		if strings.HasPrefix(tl.Function.Name, prefix) {
			sent[tl.Function.Name] = tl
		}
	}
	if len(sent) != len(view.Tools) {
		t.Errorf("%s sent %d tools of the server, the view %d", client, len(sent), len(view.Tools))
	}
	for _, e := range view.Tools {
		tl, ok := sent[e.Shown]
		if !ok {
			t.Errorf("the view names %q %q; %s sent no such tool", e.Name, e.Shown, client)
			continue
		}
		switch d := tl.Function.Description; {
		case d == nil:
			t.Errorf("%s: sent without a description, predicted %q", e.Shown, e.Description)
		case *d != e.Description:
			t.Errorf("%s: description sent %q, predicted %q", e.Shown, *d, e.Description)
		}
		if got, want := compactRaw(tl.Function.Parameters), string(e.Schema); got != want {
			t.Errorf("%s: schema sent\n  %s\npredicted\n  %s", e.Shown, got, want)
		}
	}
}

// toolResult is the content of the tool message answering call_big in
// the requests, "" when none does.
func toolResult(t *testing.T, reqs [][]byte) string {
	t.Helper()
	for _, b := range reqs {
		var req struct {
			Messages []struct {
				Role       string          `json:"role"`
				ToolCallID string          `json:"tool_call_id"`
				Content    json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(b, &req)
		for _, m := range req.Messages {
			if m.Role != "tool" || m.ToolCallID != "call_big" {
				continue
			}
			var text string
			if json.Unmarshal(m.Content, &text) == nil {
				return text
			}
			var parts []struct{ Text string }
			_ = json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
			return text
		}
	}
	return ""
}

// writeViewServer writes the tools server and its list into the run's
// HOME and returns the command that starts it behind `mcpscope tap
// --name wx`, so the client's MCP traffic is captured for the join.
func writeViewServer(t *testing.T, r *clientRun) []string {
	t.Helper()
	toolsFile, serverJS := filepath.Join(r.home, "tools.json"), filepath.Join(r.home, "server.js")
	for path, data := range map[string]string{toolsFile: viewTools, serverJS: toolsServerJS} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return append([]string{r.mcpscope}, wxTapArgs(serverJS, toolsFile)...)
}

func viewOf(id clients.ID) clients.View {
	var raws []json.RawMessage
	_ = json.Unmarshal([]byte(viewTools), &raws)
	return clients.Present(id, clients.Input{Server: "wx", Tools: mcp.ParseTools(raws)})
}

// opencode 1.18.33, with a provider of the OpenAI-compatible kind on a
// fake API on loopback reached through the model tap, and the server
// behind the MCP tap, sends the server's tools exactly as the opencode
// view predicts; the model capture holds them as sent, and the join
// names each change with its rule.
func testOpenCodeView(t *testing.T) {
	api := startScriptedModelAPI(t, chatAnswer)
	// Models fetch, autoupdate, share, LSP downloads and default plugins
	// off; the package registry on a closed loopback port, as opencode
	// otherwise looks its name up now and then.
	r := newClientRun(t, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=1", "NPM_CONFIG_REGISTRY=http://127.0.0.1:9/", "BUN_CONFIG_REGISTRY=http://127.0.0.1:9/")
	modelTap := r.startModelTap("openai", api.url)
	server := writeViewServer(t, r)
	dir := filepath.Join(r.home, ".config", "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{
		"autoupdate": false, "share": "disabled", "model": "fake/m",
		"provider": map[string]any{"fake": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "fake",
			"options": map[string]any{"baseURL": modelTap.url + "/v1", "apiKey": modelTapKey},
			"models":  map[string]any{"m": map[string]any{"name": "m", "tool_call": true}}}},
		"mcp": map[string]any{"wx": map[string]any{"type": "local", "command": server, "enabled": true}},
	})
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := r.run(2*time.Minute, "opencode", "run", "say ok"); err != nil {
		t.Fatalf("opencode run: %v (the model API had requests to %v)\n%s", err, api.paths(), out)
	}
	reqs := api.sent("/chat/completions")
	var withTools []byte
	for _, b := range reqs {
		if withTools == nil && strings.Contains(string(b), `"tools"`) {
			withTools = b
		}
	}
	if withTools == nil {
		t.Fatalf("opencode sent no request with tools (requests to %v)", api.paths())
	}
	compareChatTools(t, "opencode", withTools, viewOf(clients.OpenCode), "wx_")
	sameChatCapture(t, "opencode", reqs, modelTap.stop())
	// The 300 KB result reaches the model as opencode/result-limits says:
	// none of its text, the path of the file that holds it.
	result := toolResult(t, reqs)
	if !strings.Contains(result, "...307200 bytes truncated...") ||
		!strings.Contains(result, "The tool call succeeded but the output was truncated. Full output saved to: ") ||
		strings.Contains(result, "xxxxxxxx") || len(result) > 4096 {
		t.Errorf("the 300 KB result reached the model as %d bytes:\n%s", len(result), result)
	}
	if !strings.Contains(clients.OpenCodeResultNote, `"The tool call succeeded but the output was truncated. Full output saved to: PATH"`) {
		t.Errorf("the view's note does not say so: %s", clients.OpenCodeResultNote)
	}
	joined, text := modelTap.joinWx()
	checkOpenCodeJoin(t, joined, text)
}

// Copilot CLI 1.0.102, offline with a provider on a fake OpenAI-compatible
// API on loopback reached through the model tap, and the server behind
// the MCP tap, sends the server's tools exactly as the copilot view
// predicts; the model capture holds them as sent, and the join names
// each change with its rule.
func testCopilotView(t *testing.T) {
	api := startScriptedModelAPI(t, chatAnswer)
	r := newClientRun(t, "COPILOT_OFFLINE=true", "COPILOT_MODEL=gpt-4.1")
	modelTap := r.startModelTap("openai", api.url)
	r.env = append(r.env, "COPILOT_PROVIDER_BASE_URL="+modelTap.url+"/v1")
	server := writeViewServer(t, r)
	dir := filepath.Join(r.home, ".copilot")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"wx": map[string]any{
		"type": "local", "command": server[0], "args": server[1:], "tools": []string{"*"}}}})
	if err := os.WriteFile(filepath.Join(dir, "mcp-config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := r.run(2*time.Minute, "copilot", "-p", "say ok", "--allow-all-tools"); err != nil {
		t.Fatalf("copilot -p: %v (the model API had requests to %v)\n%s", err, api.paths(), out)
	}
	reqs := api.sent("/chat/completions")
	if len(reqs) == 0 {
		t.Fatalf("Copilot CLI sent no Chat Completions request (requests to %v)", api.paths())
	}
	compareChatTools(t, "Copilot CLI", reqs[0], viewOf(clients.Copilot), "wx-")
	sameChatCapture(t, "Copilot CLI", reqs, modelTap.stop())
	// The 300 KB result reaches the model as copilot/result-limits says:
	// the file's path and a 500-character preview.
	result := toolResult(t, reqs)
	head, preview, ok := strings.Cut(result, "\n\nPreview (first 500 chars):\n")
	if !ok || !strings.HasPrefix(head, "Output too large to read at once (300.0 KB). Saved to: ") || preview != strings.Repeat("x", 500) {
		t.Errorf("the 300 KB result reached the model as %d bytes:\n%.2000s", len(result), result)
	}
	if !strings.Contains(clients.CopilotResultNote, `"Output too large to read at once (300.0 KB). Saved to: PATH"`) || !strings.Contains(clients.CopilotResultNote, "first 500 characters") {
		t.Errorf("the view's note does not say so: %s", clients.CopilotResultNote)
	}
	joined, text := modelTap.joinWx()
	checkCopilotJoin(t, joined, text)
}

// sameChatCapture fails unless the model tap recorded each Chat
// Completions request the fake API got, in order, with its tools as the
// client sent them (name, description, schema).
func sameChatCapture(t *testing.T, client string, reqs [][]byte, entries []tap.ModelEntry) {
	t.Helper()
	var captured []tap.ModelEntry
	for _, e := range entries {
		if e.API == modelapi.OpenAIChat {
			captured = append(captured, e)
		}
	}
	if len(captured) != len(reqs) {
		t.Fatalf("the model tap recorded %d Chat Completions requests of %s, the API got %d", len(captured), client, len(reqs))
	}
	for i, b := range reqs {
		var req struct {
			Tools []chatTool `json:"tools"`
		}
		_ = json.Unmarshal(b, &req)
		var sent []capturedTool
		for _, tl := range req.Tools {
			d := ""
			if tl.Function.Description != nil {
				d = *tl.Function.Description
			}
			sent = append(sent, capturedTool{tl.Function.Name, d, compactRaw(tl.Function.Parameters), false})
		}
		sameCapturedTools(t, fmt.Sprintf("%s's Chat Completions request %d", client, i+1), sent, captured[i].Tools)
	}
}
