package ui

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/panes"
)

// A tool result nested 9,990 deep (60 KB) is shown at once and every key
// on it is answered within 200 ms: the result, its raw response, and the
// frame's detail from the log. Indenting it uncapped made 200 MB of
// lines and froze the TUI for 13 s.
func TestDeeplyNestedResultKeepsTheTUIResponsive(t *testing.T) {
	const depth = 9990 - 3 // result, structuredContent and the message itself
	deep := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	script := mcptest.Script{
		Capabilities: json.RawMessage(`{"tools":{}}`),
		On: map[string][][]string{
			"tools/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"deep","inputSchema":{"type":"object"}}]}}`}},
			"tools/call": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"content":[{"type":"text","text":"x"}],"structuredContent":` + deep + `}}`}},
		},
	}
	m := New(Config{Target: "deep", Theme: "dark", NewClient: func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], Env: script.Env(), Grace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond}
		return mcp.NewClient(tr, mcp.Options{Timeout: 10 * time.Second})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("ready", func() bool { return m.state == mcp.StateReady })

	budget := 200 * time.Millisecond
	if raceEnabled {
		budget *= 5
	}
	start := time.Now()
	p.send(panes.CallToolMsg{Name: "deep", Args: json.RawMessage(`{}`)})
	p.until("the result", func() bool { return m.modal == modalResult && m.result.Lines() > 0 })
	t.Logf("the result shown after %v", time.Since(start))
	// Each key is timed from its Update to the frame that shows its effect.
	key := func(k string, want func() bool) {
		t.Helper()
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		default:
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		start := time.Now()
		_, cmd := m.Update(msg)
		p.run(cmd)
		p.until("the key's effect: "+k, want)
		took := time.Since(start)
		if took > budget {
			t.Errorf("key %q took %v (budget %v)", k, took, budget)
		}
	}
	key("G", func() bool { return strings.Contains(screenOf(m), "}") })
	key("v", func() bool { return strings.Contains(screenOf(m), "raw response ·") })
	key("v", func() bool { return !strings.Contains(screenOf(m), "raw response ·") })
	key("esc", func() bool { return m.modal != modalResult })
	key("1", func() bool { return m.focus == focusLog })
	key("G", func() bool {
		f := m.logPane.Selected()
		return f != nil && f.Kind == mcp.KindResponse && len(f.Raw) > len(deep)
	})
	key("enter", func() bool { return m.modal == modalDetail && strings.Contains(screenOf(m), `"structuredContent": {`) })
	key("G", func() bool { return strings.Contains(screenOf(m), "}") })
	// The detail's lines stop growing wider MaxIndentDepth levels in.
	if s := screenOf(m); strings.Contains(s, strings.Repeat(" ", 100)+"}") {
		t.Errorf("the detail indents deeper than its cap:\n%s", s)
	}
}
