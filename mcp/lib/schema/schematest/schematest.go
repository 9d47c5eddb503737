// Package schematest holds the schema corpus that mcp/lib/schema and the form
// engine (panes/form) are both tested against, so there is one copy of it:
// the demo server's tools, every tool of @modelcontextprotocol/server-everything
// (saved with `mcpscope call --method tools/list`), and a hand-written set
// covering each JSON Schema construct the form renders.
package schematest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// dir is this package's testdata folder, wherever the test runs from.
func dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("schematest: cannot locate its testdata")
	}
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Tools reads a saved tools/list result ("demo-tools.json" or
// "server-everything-tools.json") and returns each tool's inputSchema by name.
func Tools(t testing.TB, file string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir(t), file))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, tl := range list.Tools {
		out[tl.Name] = tl.InputSchema
	}
	return out
}

// Corpus is every schema of the corpus, keyed "demo/NAME",
// "everything/NAME" and "hand/NAME".
func Corpus(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for name, raw := range Tools(t, "demo-tools.json") {
		out["demo/"+name] = raw
	}
	everything := Tools(t, "server-everything-tools.json")
	if len(everything) < 10 {
		t.Fatalf("server-everything corpus has %d tools", len(everything))
	}
	for name, raw := range everything {
		out["everything/"+name] = raw
	}
	b, err := os.ReadFile(filepath.Join(dir(t), "constructs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hand map[string]json.RawMessage
	if err := json.Unmarshal(b, &hand); err != nil {
		t.Fatal(err)
	}
	for name, raw := range hand {
		out["hand/"+name] = raw
	}
	return out
}

// SuiteRoot is the checkout of the official JSON-Schema-Test-Suite named by
// MCPSCOPE_JSON_SCHEMA_SUITE (the folder holding tests/). The test skips
// when the variable is not set, and fails when it names no such checkout.
func SuiteRoot(t testing.TB) string {
	t.Helper()
	root := os.Getenv("MCPSCOPE_JSON_SCHEMA_SUITE")
	if root == "" {
		t.Skip("MCPSCOPE_JSON_SCHEMA_SUITE is not set")
	}
	if _, err := os.Stat(filepath.Join(root, "tests", "draft2020-12")); err != nil {
		t.Fatalf("MCPSCOPE_JSON_SCHEMA_SUITE=%s: %v", root, err)
	}
	return root
}
