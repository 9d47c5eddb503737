package panes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// argsOf makes arguments whose words are numbered, so a test can tell
// that every one of them reached the screen.
func argsOf(words int) (json.RawMessage, []string) {
	var ws []string
	for i := range words {
		ws = append(ws, fmt.Sprintf("w%03d", i))
	}
	raw, _ := json.Marshal(map[string]string{"text": strings.Join(ws, " ")})
	return raw, ws
}

func resultFor(w, h int, msg ToolResultMsg) *Result {
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(w, h)
	r.Focus()
	r.SetResult(msg)
	return r
}

// screenText is every line the view shows, unstyled, scrolling to the end.
func screenText(r *Result) string {
	var b strings.Builder
	b.WriteString(ansi.Strip(r.View()))
	r.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	b.WriteString(ansi.Strip(r.View()))
	return b.String()
}

// The arguments sent are wrapped, never cut at the pane's width.
func TestResultArgumentsAreWrappedNotCut(t *testing.T) {
	for _, words := range []int{30, 300} { // in the header; at the end of the body
		args, ws := argsOf(words)
		r := resultFor(80, 24, ToolResultMsg{Name: "echo", Args: args, Latency: 42 * time.Millisecond,
			Result: json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)})
		v := screenText(r)
		if words > 100 {
			// Too long for the header: it says where they are, and G shows them.
			if !strings.Contains(ansi.Strip(r.head[1]), "in full at the end") {
				t.Errorf("%d words: the header does not say where the arguments are: %q", words, ansi.Strip(r.head[1]))
			}
			r.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
			v = ansi.Strip(r.View())
			for range r.Lines() / max(r.rows()-1, 1) {
				r.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
				v += ansi.Strip(r.View())
			}
		}
		for _, w := range ws {
			if !strings.Contains(v, w) {
				t.Fatalf("%d words: %s is not on screen:\n%s", words, w, v)
			}
		}
		if !strings.Contains(v, "took 42ms") {
			t.Errorf("no duration:\n%s", v)
		}
	}
}

// v shows the response frame exactly as received, in the help bar; v
// again goes back; c copies the frame's bytes meanwhile.
func TestResultRawResponseOneKeyAway(t *testing.T) {
	rawFrame := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("é", 90) + `"}],"_meta":{"x":1}}}`
	r := resultFor(80, 24, ToolResultMsg{Name: "echo", Args: json.RawMessage(`{"text":"hi"}`), Seq: 9,
		Response: &mcp.Frame{Seq: 9, Raw: []byte(rawFrame)},
		Result:   json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("é", 90) + `"}],"_meta":{"x":1}}`)})
	inHelp := false
	for _, b := range r.ShortHelp() {
		if key.Matches(tea.KeyPressMsg{Code: 'v', Text: "v"}, b) && b.Help().Desc == "raw response" {
			inHelp = true
		}
	}
	if !inHelp {
		t.Error("v raw response is not in the help bar")
	}
	if strings.Contains(ansi.Strip(r.View()), `"jsonrpc":"2.0"`) {
		t.Fatal("the raw frame shows before v")
	}
	r.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	if !r.Raw() {
		t.Fatal("v did not switch to the raw response")
	}
	v := ansi.Strip(r.View())
	if !strings.Contains(v, "raw response · frame #9") {
		t.Errorf("no raw response header:\n%s", v)
	}
	// Every byte of the frame is on screen, in order, wrapped at the width.
	var body strings.Builder
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSuffix(strings.TrimPrefix(line, "│"), "│")
		if strings.HasPrefix(line, `{"jsonrpc"`) || body.Len() > 0 && !strings.HasPrefix(line, "─") && !strings.HasPrefix(line, "╰") {
			body.WriteString(strings.TrimRight(line, " "))
		}
	}
	if got := body.String(); got != rawFrame {
		t.Errorf("the raw view shows\n%s\nwant\n%s", got, rawFrame)
	}
	if got := string(r.copyPayload()); got != rawFrame {
		t.Errorf("c copies %q in the raw view", got)
	}
	r.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	if r.Raw() || strings.Contains(ansi.Strip(r.View()), `"jsonrpc"`) {
		t.Error("v did not go back to the result")
	}
	// A call without a response frame says so.
	r = resultFor(80, 24, ToolResultMsg{Name: "echo", Err: &mcp.LocalError{Kind: mcp.Timeout, Method: "tools/call", ID: "3"}})
	r.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	if v := ansi.Strip(r.View()); !strings.Contains(v, "no response frame came") {
		t.Errorf("raw view of a local failure:\n%s", v)
	}
}
