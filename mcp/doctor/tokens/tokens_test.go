package tokens_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/tiktoken-go/tokenizer/codec"
)

// orderedMembers decodes a JSON object into its members in order, by the
// standard decoder, so that the test's serialisation is made without the
// package's jsonview path.
func orderedMembers(t *testing.T, raw []byte) (keys []string, values []json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		values = append(values, v)
	}
	return keys, values
}

// serialise is docs/doctor.md's description of what is counted, written
// again from it for a list like server-everything's, which has no escapes,
// odd numbers or repeated keys for a re-encoding to change: the definition
// members, compacted, in the server's order, in one JSON array.
// (reference_test.go checks the re-encoding against JSON.stringify.)
func serialise(t *testing.T, tools []json.RawMessage) string {
	t.Helper()
	want := map[string]bool{"name": true, "title": true, "description": true, "inputSchema": true, "outputSchema": true, "annotations": true}
	var parts []string
	for _, tool := range tools {
		keys, values := orderedMembers(t, tool)
		var members []string
		for i, k := range keys {
			if !want[k] {
				continue
			}
			kb, _ := json.Marshal(k)
			var c bytes.Buffer
			if err := json.Compact(&c, values[i]); err != nil {
				t.Fatal(err)
			}
			members = append(members, string(kb)+":"+c.String())
		}
		parts = append(parts, "{"+strings.Join(members, ",")+"}")
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// capturedTools is server-everything's tools/list answer as Codex got it
// through a tap (testdata/captures).
func capturedTools(t *testing.T) []json.RawMessage {
	t.Helper()
	f, err := os.Open("../../../testdata/captures/codex-0.169.0-stdio.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var line struct {
			Type string `json:"type"`
			Kind string `json:"kind"`
			ID   string `json:"id"`
			Raw  string `json:"raw"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "frame" || line.Kind != "response" || line.ID != "1" {
			continue
		}
		var msg struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line.Raw), &msg); err != nil {
			t.Fatal(err)
		}
		return msg.Result.Tools
	}
	t.Fatal("no tools/list answer in the capture")
	return nil
}

// liveTools lists server-everything's tools over stdio, when
// MCPSCOPE_NODE_TESTS and MCPSCOPE_SERVER_EVERYTHING say where it is.
func liveTools(t *testing.T) []json.RawMessage {
	t.Helper()
	if os.Getenv("MCPSCOPE_NODE_TESTS") == "" {
		t.Skip("set MCPSCOPE_NODE_TESTS=1 and MCPSCOPE_SERVER_EVERYTHING (see .ci/run)")
	}
	se := os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
	node, err := exec.LookPath("node")
	if err != nil || se == "" {
		t.Fatalf("MCPSCOPE_NODE_TESTS is set but node or MCPSCOPE_SERVER_EVERYTHING is missing: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.StdioTransport{Command: node, Args: []string{se}}, mcp.Options{})
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer scancel()
		_ = c.Shutdown(sctx)
	}()
	go func() {
		for range c.Events() {
		}
	}()
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	items, _, err := c.ListAll(ctx, mcp.MethodToolsList)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// The list's count is the tokenizer library's count of the serialisation
// docs/doctor.md describes (compact JSON has no raw newline, where Count
// and the library part), for server-everything's real list: captured, and
// live when node is there.
func TestServerEverythingListCountIsTheLibrarys(t *testing.T) {
	lib := codec.NewO200kBase()
	for _, tc := range []struct {
		name  string
		tools func(*testing.T) []json.RawMessage
	}{{"captured", capturedTools}, {"live", liveTools}} {
		t.Run(tc.name, func(t *testing.T) {
			tools := tc.tools(t)
			if len(tools) < 10 {
				t.Fatalf("server-everything listed %d tools", len(tools))
			}
			text := serialise(t, tools)
			if got := string(tokens.ListText(tools)); got != text {
				t.Fatalf("the serialisation differs from docs/doctor.md's:\n got %.300s\nwant %.300s", got, text)
			}
			want, err := lib.Count(text)
			if err != nil {
				t.Fatal(err)
			}
			cost := tokens.List(tools)
			if cost.Total != want {
				t.Errorf("list: %d tokens, the library counts %d", cost.Total, want)
			}
			sum := 0
			for i, tc := range cost.Tools {
				one := serialise(t, tools[i:i+1])
				n, _ := lib.Count(one[1 : len(one)-1])
				if tc.Tokens != n || tc.Name == "" {
					t.Errorf("tool %d %q: %d tokens, the library counts %d", i, tc.Name, tc.Tokens, n)
				}
				sum += tc.Tokens
			}
			// The list is about the sum of its tools (a comma and the
			// brackets between them).
			if cost.Total < sum || cost.Total > sum+2*len(tools)+2 {
				t.Errorf("list %d tokens, its tools %d", cost.Total, sum)
			}
			t.Logf("%d tools, %d tokens (%d bytes)", len(tools), cost.Total, len(text))
		})
	}
}

// What is left out of a definition (_meta, icons, execution) is not
// counted, and what is kept is kept as sent, compacted.
func TestDefinitionKeepsTheModelsMembers(t *testing.T) {
	raw := json.RawMessage(`{"_meta":{"x":1}, "name":"a", "icons":[{"src":"data:,"}], "description":"d  e",
		"inputSchema":{ "type" : "object" }, "execution":{"taskSupport":"optional"}, "annotations":{"readOnlyHint":true}}`)
	def, ok := tokens.Definition(raw)
	if !ok {
		t.Fatal("not an object")
	}
	want := `{"name":"a","description":"d  e","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`
	if string(def) != want {
		t.Errorf("definition\n got %s\nwant %s", def, want)
	}
	if _, ok := tokens.Definition(json.RawMessage(`[1]`)); ok {
		t.Error("an array is not a tool")
	}
}

func TestCountsText(t *testing.T) {
	if n := tokens.Count(""); n != 0 {
		t.Errorf("empty: %d", n)
	}
	// Two common words are two tokens in o200k_base; a long word is more.
	if n := tokens.Count("hello world"); n != 2 {
		t.Errorf("hello world: %d tokens", n)
	}
	if n := tokens.Count(strings.Repeat("lorem ipsum ", 100)); n < 150 || n > 400 {
		t.Errorf("lorem ipsum ×100: %d tokens", n)
	}
}

func TestResultCountsWhatTheModelReceives(t *testing.T) {
	text := tokens.Count("the answer is 42")
	for _, tc := range []struct {
		name   string
		raw    string
		tokens int
		media  int
	}{
		{"text", `{"content":[{"type":"text","text":"the answer is 42"}]}`, text, 0},
		{"structured beside text", `{"content":[{"type":"text","text":"the answer is 42"}],"structuredContent":{"a":1}}`, text, 0},
		{"structured alone", `{"content":[],"structuredContent":{"answer": 42}}`, tokens.Count(`{"answer":42}`), 0},
		{"image", `{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`, 0, 1},
		{"resource text", `{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"the answer is 42"}}]}`, text, 0},
		{"nothing", `{}`, 0, 0},
	} {
		c := tokens.Result(json.RawMessage(tc.raw), tokens.MaxCounted)
		if c.Tokens != tc.tokens || c.Media != tc.media || c.Partial {
			t.Errorf("%s: %+v, want %d tokens and %d media", tc.name, c, tc.tokens, tc.media)
		}
	}
	// A text over the bound is counted on its first bytes, and the whole
	// estimated from them; an escape is never cut in two.
	big, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("a b\n", tokens.ViewCounted/2)}}})
	c := tokens.Result(big, tokens.ViewCounted)
	whole := tokens.Result(big, 4*tokens.ViewCounted)
	if !c.Partial || whole.Partial || c.Tokens < tokens.ViewCounted/8 || c.Tokens >= whole.Tokens {
		t.Fatalf("partial %+v, whole %+v", c, whole)
	}
	if d := float64(c.Estimated-whole.Tokens) / float64(whole.Tokens); d < -0.05 || d > 0.05 {
		t.Errorf("estimated %d tokens, the whole has %d", c.Estimated, whole.Tokens)
	}
}

func TestCostliestFirst(t *testing.T) {
	c := tokens.ListCost{Tools: []tokens.ToolCost{{Name: "a", Tokens: 5}, {Name: "b", Tokens: 9}, {Name: "c", Tokens: 5}, {Name: "d", Tokens: 1}}}
	got := c.Costliest(3)
	if len(got) != 3 || got[0].Name != "b" || got[1].Name != "a" || got[2].Name != "c" {
		t.Errorf("costliest: %v", got)
	}
}
