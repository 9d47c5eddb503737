package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modelKey is an API key that must appear in no capture, listing or
// export.
const modelKey = "sk-ant-api03-MODELTAP-RECOGNISABLE"

// tap --model prints the base URL to give the client, forwards to
// --upstream, and its capture is listed by taps and shown by taps ID and
// open: per request the tools (name, description length, schema), the
// model's calls, the results and the API's token counts, without the key.
func TestTapModelRecordsAndLists(t *testing.T) {
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home")) // where taps record
	t.Setenv("XDG_RUNTIME_DIR", base)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"model":"claude-x","content":[{"type":"tool_use","id":"toolu_7","name":"mcp__wx__get_weather","input":{"city":"Lima"}}],"usage":{"input_tokens":321,"output_tokens":12}}`)
	}))
	defer upstream.Close()
	root := newRootCommand()
	var out lockedBuffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"tap", "--model", "anthropic", "--listen", "127.0.0.1:0", "--upstream", upstream.URL})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
	defer stop()
	var baseURL string
	for deadline := time.Now().Add(10 * time.Second); baseURL == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, rest, ok := strings.Cut(out.String(), "ANTHROPIC_BASE_URL="); ok {
			baseURL, _, _ = strings.Cut(rest, " ")
		}
	}
	if !strings.HasPrefix(baseURL, "http://127.0.0.1:") {
		t.Fatalf("no base URL printed: %q", out.String())
	}
	body := `{"model":"claude-x","tools":[{"name":"mcp__wx__get_weather","description":"Weather now.","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],"messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequest("POST", baseURL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("X-Api-Key", modelKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()

	list, _, code := runCLI(t, "taps", "--list")
	if code != exitOK || !strings.Contains(list, "LIVE") || !strings.Contains(list, "model anthropic") {
		t.Errorf("taps --list while the model tap runs (exit %d):\n%s", code, list)
	}
	stop()
	files, _ := filepath.Glob(filepath.Join(base, "home", ".local", "state", "mcpscope", "taps", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("captures %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	shown, _, code := runCLI(t, "taps", id)
	opened, _, code2 := runCLI(t, "open", files[0])
	for what, s := range map[string]string{"taps ID": shown, "open": opened} {
		for _, want := range []string{
			"POST /v1/messages → 200  anthropic-messages  claude-x",
			"tokens (the API's count): 321 in, 12 out",
			`mcp__wx__get_weather  description 12 characters  schema {"type":"object","properties":{"city":{"type":"string"}}}`,
			`the model called mcp__wx__get_weather (toolu_7) {"city":"Lima"}`,
		} {
			if !strings.Contains(s, want) {
				t.Errorf("%s does not show %q:\n%s", what, want, s)
			}
		}
		if strings.Contains(s, "RECOGNISABLE") {
			t.Errorf("%s shows the API key:\n%s", what, s)
		}
	}
	if code != exitOK || code2 != exitOK {
		t.Errorf("taps ID exit %d, open exit %d", code, code2)
	}
	raw, _ := os.ReadFile(files[0])
	if strings.Contains(string(raw), "RECOGNISABLE") || !strings.Contains(string(raw), `"X-Api-Key","Value":"[redacted]"`) {
		t.Errorf("the capture:\n%s", raw)
	}
	// Read as an MCP session, a model capture would be one where nothing
	// happened: export, diff and replay say what it is instead.
	for _, args := range [][]string{{"export", "--format", "md", files[0]}, {"export", "--format", "har", files[0]}, {"diff", files[0], files[0]}, {"replay", files[0]}} {
		said, err, code := runCLI(t, args...)
		if err != nil {
			said += err.Error()
		}
		if code != exitUsage || !strings.Contains(said, "a model tap's capture") || strings.Contains(said, "RECOGNISABLE") {
			t.Errorf("%s: exit %d:\n%s", args[0], code, said)
		}
	}
}
