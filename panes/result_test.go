package panes

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

const fixtureResult = `{
	"content": [
		{"type": "text", "text": "Paris: 18°C, light rain. Wind 12 km/h from the south-west, gusting to 30 km/h in the afternoon; humidity 81%."},
		{"type": "text", "text": "{\"tempC\": 18, \"conditions\": \"rain\"}"},
		{"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"},
		{"type": "resource_link", "uri": "file:///forecast/paris.json", "name": "forecast", "mimeType": "application/json"},
		{"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "bring an umbrella"}}
	],
	"structuredContent": {"tempC": 18, "conditions": "rain"},
	"_meta": {"trace": "abc"}
}`

func newFixtureResult(dark bool, w, h int) *Result {
	r := NewResult(themes.Default(dark), keymap.Default())
	r.SetSize(w, h)
	r.Focus()
	r.SetResult(ToolResultMsg{Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`), Result: json.RawMessage(fixtureResult), Latency: 123 * time.Millisecond})
	return r
}

func TestResultView(t *testing.T) {
	goldenViews(t, func(dark bool, w, h int) interface{ View() string } {
		return newFixtureResult(dark, w, h)
	})
}

func resultText(r *Result) string {
	var b strings.Builder
	for _, h := range r.head {
		b.WriteString(ansi.Strip(h) + "\n")
	}
	for i := range r.Lines() {
		b.WriteString(ansi.Strip(r.renderLine(r.line(i))) + "\n")
	}
	return b.String()
}

func TestResultBlocks(t *testing.T) {
	r := newFixtureResult(true, 120, 35)
	text := resultText(r)
	for _, want := range []string{
		"tools/call get_weather · took 123ms · ok · 5 content blocks",
		`arguments {"city":"Paris"}`,
		"[0] text", "Paris: 18°C, light rain.",
		"[1] text (JSON)", `"conditions": "rain"`,
		"[2] image", "mime image/png  size 16 bytes",
		"[3] resource_link", "uri file:///forecast/paris.json  mime application/json  name forecast",
		"[4] resource (embedded)", "bring an umbrella",
		"structuredContent", "_meta", `"trace": "abc"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
}

// The three failures must never look alike: each has its own words and
// its own style.
func TestResultFailureKinds(t *testing.T) {
	th := themes.Default(true)
	cases := []struct {
		name  string
		msg   ToolResultMsg
		words string
		style string // a styled fragment only this kind uses
	}{
		{"tool error", ToolResultMsg{Name: "x", Result: json.RawMessage(`{"content":[{"type":"text","text":"city not found"}],"isError":true}`)},
			"tool error", th.Result.Error.Render("tool error")},
		{"server error", ToolResultMsg{Name: "x", RPCError: &mcp.RPCError{Code: -32602, Message: "unknown tool: x"}},
			"server error -32602: unknown tool: x", th.Result.Error.Render("server error -32602: ")},
		{"local timeout", ToolResultMsg{Name: "x", Err: &mcp.LocalError{Kind: mcp.Timeout, Method: "tools/call", ID: "7", Elapsed: 30 * time.Second}},
			"LOCAL TIMEOUT", th.Log.BadgeLocalError.Render(" LOCAL TIMEOUT ")},
		{"local other", ToolResultMsg{Name: "x", Err: errors.New("client closed")},
			"LOCAL", th.Log.BadgeLocalError.Render(" LOCAL ")},
	}
	for _, tc := range cases {
		r := NewResult(th, keymap.Default())
		r.SetSize(100, 20)
		r.SetResult(tc.msg)
		v := r.View()
		if !strings.Contains(ansi.Strip(v), tc.words) {
			t.Errorf("%s: view lacks %q:\n%s", tc.name, tc.words, ansi.Strip(v))
		}
		if !strings.Contains(v, tc.style) {
			t.Errorf("%s: view lacks its style", tc.name)
		}
		for _, other := range cases {
			if other.name != tc.name && other.words != "LOCAL" && tc.words != "LOCAL" && strings.Contains(ansi.Strip(v), other.words) {
				t.Errorf("%s: view also says %q", tc.name, other.words)
			}
		}
	}
}

func TestResultHuge(t *testing.T) {
	// 20 MB of text in one block: laid out once, only the window rendered.
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, 200_000)
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": big}}})
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(120, 35)
	start := time.Now()
	prepare := r.SetResult(ToolResultMsg{Name: "dump", Result: raw})
	v := r.View()
	// It opens at once: the work happens in the Cmd, off the UI goroutine.
	if d := time.Since(start); d > 250*time.Millisecond { // microseconds when quiet; generous for loaded CI
		t.Errorf("opening a 20 MB result blocked the UI for %v", d)
	}
	assertPaneSize(t, v, 120, 35)
	if !strings.Contains(ansi.Strip(v), "preparing a 19.3 MB") {
		t.Errorf("the view does not say the result is being prepared:\n%s", ansi.Strip(v))
	}
	if prepare == nil {
		t.Fatal("a 20 MB result returned no preparing Cmd")
	}
	ready := prepare()
	r.SetSize(100, 35) // a resize while preparing must not lose the result
	r.Update(ready)
	if r.Lines() < 200_000 {
		t.Fatalf("%d lines, want every line of the text", r.Lines())
	}
	r.Update(press("G"))
	start = time.Now()
	for range 100 {
		r.Update(press("up"))
		_ = r.View()
	}
	limit := time.Second
	if raceEnabled {
		limit = 5 * time.Second
	}
	if d := time.Since(start); d > limit {
		t.Errorf("100 scroll steps took %v, over %v", d, limit)
	}
	if len(r.cache) > 200 {
		t.Errorf("render cache holds %d lines; only visible lines should be rendered", len(r.cache))
	}
}

func TestResultSecurity(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	evil := fmt.Sprintf(`{"content":[{"type":"text","text":%s},{"type":"resource_link","uri":%s,"name":"n"}],"structuredContent":{"k":%s}}`,
		q("title \x1b]0;pwned\x07 and \x1b[2J"), q("file:///\x1b]52;c;aGk=\x07"), q("\u009b2J"))
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(120, 35)
	r.SetResult(ToolResultMsg{Name: "evil\x1b[2J", Result: json.RawMessage(evil)})
	v := r.View()
	assertPaneSize(t, v, 120, 35)
	assertNoRawEscapes(t, v, `title \x1b]0;pwned\x07 and \x1b[2J`, `file:///\x1b]52;c;aGk=\x07`, `evil\x1b[2J`)
	r.SetResult(ToolResultMsg{Name: "x", RPCError: &mcp.RPCError{Code: 1, Message: "\x1b]0;pwned\x07"}})
	assertNoRawEscapes(t, r.View(), `\x1b]0;pwned\x07`)
}

// "1 content blocks" was seen on the memory server's read_graph.
func TestResultHeaderCountsOneBlock(t *testing.T) {
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(100, 20)
	r.SetResult(ToolResultMsg{Name: "read_graph", Args: json.RawMessage(`{}`), Result: json.RawMessage(`{"content":[{"type":"text","text":"{}"}]}`), Latency: time.Millisecond})
	if text := resultText(r); !strings.Contains(text, "ok · 1 content block\n") {
		t.Errorf("the header does not say 1 content block:\n%s", text)
	}
}

// An embedded resource's text is highlighted as its MIME type says, a
// text block's fenced code as its language; plain text stays as it was
// (wrapped), and NO_COLOR colours nothing.
func TestResultHighlightsCode(t *testing.T) {
	const res = `{"content": [
		{"type": "text", "text": "Run this:\n` + "```python" + `\nimport os\n` + "```" + `\nthen look."},
		{"type": "resource", "resource": {"uri": "file:///x/main.go", "mimeType": "text/x-go", "text": "package main\n\nfunc main() {}\n"}}
	]}`
	for _, th := range []*themes.Theme{themes.Dark(), themes.NoColor()} {
		r := NewResult(th, keymap.Default())
		r.SetSize(100, 30)
		r.SetResult(ToolResultMsg{Name: "code", Result: json.RawMessage(res)})
		lines := map[string]string{}
		for i := range r.Lines() {
			l := r.renderLine(r.line(i))
			lines[strings.TrimSpace(ansi.Strip(l))] = l
		}
		kw := sgr(themes.Dark().Palette.JSONBool)
		for _, c := range []struct{ plain, coloured string }{
			{"import os", kw + "import"}, {"package main", kw + "package"}, {"func main() {}", kw + "func"},
		} {
			l, ok := lines[c.plain]
			if !ok {
				t.Fatalf("%q is not in the result: %q", c.plain, lines)
			}
			if got := strings.Contains(l, c.coloured); got == th.Plain {
				t.Errorf("plain=%v: %q highlighted is %v: %q", th.Plain, c.plain, got, l)
			}
		}
		for _, p := range []string{"Run this:", "then look."} {
			if l := lines[p]; strings.Contains(l, "\x1b[38;2;199") {
				t.Errorf("the prose %q is in a syntax colour: %q", p, l)
			}
		}
	}
}
