package main

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// Finding 2: `check --call-tools` on a tool whose schema asks for a
// 99999999999-character string reports the tool as untestable and does
// not call it (it used to die: runtime: out of memory); the other tools
// are still called.
func TestCheckCallToolsRefusesOversizedSchemas(t *testing.T) {
	h := mcptest.StartHostile(t, &mcptest.Hostile{Tools: `[
		{"name":"huge","inputSchema":{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":99999999999}}}},
		{"name":"many","inputSchema":{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":200000000}}}},
		{"name":"fine","inputSchema":{"type":"object"}}]`}, false)
	out, _, _ := runCLI(t, "check", "--call-tools", "--no-oauth", h.URL())
	for _, want := range []string{"call huge → not called, untestable", "minLength 99999999999 is over the cap", "call many → not called, untestable", "call fine {} → ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	var calls []string
	for _, r := range h.Requests() {
		if strings.Contains(r.Body, `"tools/call"`) {
			calls = append(calls, r.Body)
		}
	}
	if len(calls) != 1 || !strings.Contains(calls[0], `"fine"`) {
		t.Fatalf("tools/call sent: %q", calls)
	}
}
