package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// A prompt's messages are prose: they open wrapped to the view, not cut
// ("How would you like me to proce…"), at 60×15 and 80×24.
func TestPromptMessagesWrap(t *testing.T) {
	const msg = "How would you like me to proceed with the refactoring of the payment module: split it first, or write the tests first?"
	raw := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"` + msg + `"}}]}`)
	for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}} {
		m := newTestModel("dark", sz.w, sz.h)
		feed(m, sessionEvents())
		op := session.Op{ID: 9, Kind: session.KindPrompt, Method: mcp.MethodPromptsGet, Label: "prompts/get plan"}
		feed(m, []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusOK, Result: &session.PromptResult{Name: "plan", Raw: raw}}})
		if m.modal != modalContent {
			t.Fatalf("%dx%d: the prompt did not open", sz.w, sz.h)
		}
		s := ansi.Strip(content(m))
		var words []string
		for _, l := range strings.Split(s, "\n") {
			words = append(words, strings.Fields(strings.Trim(l, "│ "))...)
		}
		if !strings.Contains(strings.Join(words, " "), msg) {
			t.Errorf("%dx%d: the message is not shown whole:\n%s", sz.w, sz.h, s)
		}
	}
}
