package panes

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/panes/markdown"
	"github.com/mcpscope/mcpscope/themes"
)

const mdReport = "# Report\n\n- **one**\n- two\n\n```go\nx := 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSee [docs](https://example.com/d).\n"

// mdResult is a tools/call result with a text block and an embedded
// text/markdown resource, both holding text.
func mdResult(text, resource string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"content": []any{
		map[string]any{"type": "text", "text": text},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "demo://r.md", "mimeType": "text/markdown", "text": resource}},
	}})
	return b
}

func plainView(s string) string { return ansi.Strip(s) }

// A text/markdown resource in a result is rendered; a text block is only
// under the markdown setting; m shows the source and back; c copies the
// result as it came, whichever is shown.
func TestResultRendersMarkdown(t *testing.T) {
	r := NewResult(themes.Dark(), keymap.Default())
	r.SetSize(100, 60)
	raw := mdResult("# Text block\n\n- item", mdReport)
	r.SetResult(ToolResultMsg{Name: "md", Result: raw})
	v := plainView(r.View())
	if !strings.Contains(v, "• one") || strings.Contains(v, "**one**") || !strings.Contains(v, "docs https://example.com/d") {
		t.Errorf("the text/markdown resource is not rendered:\n%s", v)
	}
	if !strings.Contains(v, "# Text block") || !strings.Contains(v, "- item") {
		t.Errorf("without the setting, the text block is not its source:\n%s", v)
	}
	r.SetMarkdownText(true)
	v = plainView(r.View())
	if !strings.Contains(v, "• item") || !strings.Contains(v, "text (Markdown)") {
		t.Errorf("with the setting, the text block is not rendered:\n%s", v)
	}
	if !helpHas(r.ShortHelp(), "m") {
		t.Error("the help offers no m on a result with Markdown")
	}
	r.Update(press("m"))
	v = plainView(r.View())
	if !strings.Contains(v, "**one**") || !strings.Contains(v, "- item") {
		t.Errorf("m did not show the source:\n%s", v)
	}
	cmd := r.Update(press("c"))
	if cp, ok := cmd().(CopyMsg); !ok || cp.Text != string(raw) {
		t.Errorf("c copied %q, want the result as it came", cp.Text)
	}
	r.Update(press("m"))
	if v = plainView(r.View()); !strings.Contains(v, "• one") {
		t.Errorf("m again did not render:\n%s", v)
	}
	plain := NewResult(themes.Dark(), keymap.Default())
	plain.SetSize(100, 30)
	plain.SetResult(ToolResultMsg{Name: "p", Result: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)})
	if helpHas(plain.ShortHelp(), "m") {
		t.Error("the help offers m on a result without Markdown")
	}
}

// A Markdown text over SyncBytes is shown as source under a note while a
// Cmd renders it, then rendered; one over MaxBytes stays source, saying
// why.
func TestResultMarkdownRendersOffTheUIGoroutine(t *testing.T) {
	r := NewResult(themes.Dark(), keymap.Default())
	r.SetSize(100, 40)
	big := strings.Repeat("Some **bold** prose.\n\n", markdown.SyncBytes/20+8)
	r.SetResult(ToolResultMsg{Name: "md", Result: mdResult("x", big)})
	if v := plainView(r.View()); !strings.Contains(v, markdown.PendingNote) || !strings.Contains(v, "**bold**") {
		t.Fatalf("before rendering, no note and source:\n%s", v)
	}
	cmd := r.MarkdownCmd()
	if cmd == nil {
		t.Fatal("no Cmd renders the pending Markdown")
	}
	msg := runBatch(cmd)
	if _, ok := msg.(markdown.RenderedMsg); !ok {
		t.Fatalf("the Cmd answered %T", msg)
	}
	r.MarkdownReady()
	if v := plainView(r.View()); strings.Contains(v, markdown.PendingNote) || strings.Contains(v, "**bold**") {
		t.Errorf("after rendering, still the source:\n%s", v)
	}
	huge := strings.Repeat("word ", markdown.MaxBytes/5+10)
	r.SetResult(ToolResultMsg{Name: "md", Result: mdResult("x", huge)})
	if v := plainView(r.View()); !strings.Contains(v, "shown as source") {
		t.Errorf("a Markdown text over MaxBytes does not say it is shown as source:\n%s", v)
	}
	if r.MarkdownCmd() != nil {
		t.Error("a Cmd was made to render a text over MaxBytes")
	}
}

// runBatch runs a Cmd, the first of a batch's.
func runBatch(cmd tea.Cmd) tea.Msg {
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var last tea.Msg
		for _, c := range b {
			if c != nil {
				last = c()
			}
		}
		return last
	}
	return msg
}

var nonSGR = regexp.MustCompile("\x1b(?:[^\\[]|\\[[0-9;:]*[^0-9;:m])")

// A server's Markdown cannot drive the terminal through any view that
// renders it: the result, a resource read, a prompt's messages, a tool's
// description.
func TestHostileMarkdownInEveryView(t *testing.T) {
	evil := "# t\x1b]0;title\x07\n\n[x](https://e.com/\x1b]52;c;ZXZpbA==\x07)\n\n```sh\necho \x1b[2J\x9b31m\n```\n"
	screens := map[string]string{}

	r := NewResult(themes.Dark(), keymap.Default())
	r.SetSize(100, 40)
	r.SetMarkdownText(true)
	r.SetResult(ToolResultMsg{Name: "md", Result: mdResult(evil, evil)})
	screens["result"] = r.View()

	c := NewContent(themes.Dark(), keymap.Default())
	c.SetSize(100, 40)
	read, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": "x.md", "mimeType": "text/markdown", "text": evil}}})
	c.SetDoc("read", ReadResultDoc(themes.Dark(), read), false)
	screens["resource"] = c.View()
	prompt, _ := json.Marshal(map[string]any{"description": evil, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": evil}}}})
	c.SetDoc("prompt", PromptResultDoc(themes.Dark(), prompt), true)
	screens["prompt"] = c.View()

	tools := NewTools(themes.Dark(), keymap.Default())
	tools.SetSize(120, 40)
	desc, _ := json.Marshal(evil)
	tools.SetTools(mcp.ParseTools([]json.RawMessage{json.RawMessage(`{"name":"t","description":` + string(desc) + `,"inputSchema":{"type":"object"}}`)}))
	screens["tool description"] = tools.View()

	for where, s := range screens {
		if m := nonSGR.FindString(s); m != "" {
			t.Errorf("%s: %q reaches the terminal", where, m)
		}
		for _, bad := range []string{"\x07", "\u009b"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s: %q reaches the terminal raw", where, bad)
			}
		}
		if !strings.Contains(ansi.Strip(s), `\x1b`) {
			t.Errorf("%s: the server's ESC is not shown as \\x1b:\n%s", where, ansi.Strip(s))
		}
	}
}

// A text/markdown resource read and a prompt's messages are rendered at
// the content view's width, again when it changes; m shows the source.
func TestContentRendersMarkdown(t *testing.T) {
	c := NewContent(themes.Dark(), keymap.Default())
	c.SetSize(100, 40)
	read, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": "r.md", "mimeType": "text/markdown", "text": mdReport}}})
	c.SetDoc("read", ReadResultDoc(themes.Dark(), read), false)
	v := plainView(c.View())
	if !strings.Contains(v, "• one") || strings.Contains(v, "**one**") {
		t.Fatalf("the resource is not rendered:\n%s", v)
	}
	wide := 0
	for _, l := range c.Lines() {
		wide = max(wide, ansi.StringWidth(l))
	}
	c.SetSize(50, 40)
	for _, l := range c.Lines() {
		if ansi.StringWidth(l) > 48 {
			t.Errorf("at 50 columns a line is %d wide (was %d at 100): not laid out again: %q", ansi.StringWidth(l), wide, ansi.Strip(l))
		}
	}
	c.Update(press("m"))
	if v = plainView(c.View()); !strings.Contains(v, "**one**") {
		t.Errorf("m did not show the source:\n%s", v)
	}
	c.Update(press("m"))
	prompt, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Review **this**:\n\n- a\n- b"}}}})
	c.SetDoc("prompt", PromptResultDoc(themes.Dark(), prompt), true)
	if v = plainView(c.View()); !strings.Contains(v, "• a") || strings.Contains(v, "**this**") || !strings.Contains(v, "── 1 user ──") {
		t.Errorf("the prompt's message is not rendered:\n%s", v)
	}
	if got := strings.Join(PromptResultLines(themes.Dark(), prompt), "\n"); !strings.Contains(ansi.Strip(got), "**this**") {
		t.Errorf("PromptResultLines is not the source: %q", got)
	}
}

// A tool's description is rendered in the details; m shows its source.
func TestToolDescriptionRendersMarkdown(t *testing.T) {
	p := NewTools(themes.Dark(), keymap.Default())
	p.SetSize(120, 35)
	p.Focus()
	p.SetTools(mcp.ParseTools([]json.RawMessage{json.RawMessage(`{"name":"t","description":"Does **things**:\n\n- first\n- second","inputSchema":{"type":"object"}}`)}))
	details := func() string { return ansi.Strip(strings.Join(p.DetailLines(), "\n")) }
	if d := details(); !strings.Contains(d, "• first") || strings.Contains(d, "**things**") {
		t.Fatalf("the description is not rendered:\n%s", d)
	}
	p.Update(press("m"))
	if d := details(); !strings.Contains(d, "**things**") || !strings.Contains(d, "- first") {
		t.Errorf("m did not show the source:\n%s", d)
	}
	p.Update(press("m"))
	if d := details(); !strings.Contains(d, "• first") {
		t.Errorf("m again did not render:\n%s", d)
	}
}

func helpHas(keys []key.Binding, k string) bool {
	for _, b := range keys {
		if b.Enabled() && b.Help().Key == k {
			return true
		}
	}
	return false
}

// m is for the view open: the next result, resource or prompt opens
// rendered again.
func TestMarkdownSourceIsPerView(t *testing.T) {
	c := NewContent(themes.Dark(), keymap.Default())
	c.SetSize(100, 40)
	read, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": "r.md", "mimeType": "text/markdown", "text": mdReport}}})
	c.SetDoc("read", ReadResultDoc(themes.Dark(), read), false)
	c.Update(press("m"))
	c.SetDoc("read", ReadResultDoc(themes.Dark(), read), false)
	if v := plainView(c.View()); !strings.Contains(v, "• one") {
		t.Errorf("the next read opened as source:\n%s", v)
	}
	r := NewResult(themes.Dark(), keymap.Default())
	r.SetSize(100, 60)
	r.SetResult(ToolResultMsg{Name: "md", Result: mdResult("x", mdReport)})
	r.Update(press("m"))
	r.SetResult(ToolResultMsg{Name: "md", Result: mdResult("x", mdReport)})
	if v := plainView(r.View()); !strings.Contains(v, "• one") {
		t.Errorf("the next result opened as source:\n%s", v)
	}
}

// Goldens of a result whose embedded text/markdown resource is rendered:
// heading, emphasis, a task list, a highlighted code block, a table, a
// quote and a link, at the three sizes.
func TestResultMarkdownGoldens(t *testing.T) {
	report := "# Checks\n\nThe **demo** server *answers*; see [the spec](https://modelcontextprotocol.io/specification).\n\n" +
		"- [x] handshake\n- [ ] `tools/list`\n  - with annotations\n\n" +
		"```go\nres, err := session.CallTool(ctx, params)\n```\n\n" +
		"| tool | calls | p95 |\n|------|------:|----:|\n| add | 12 | 8 ms |\n| slow_count | 1 | 5.1 s |\n\n> Made-up numbers.\n"
	for _, dark := range []bool{true, false} {
		for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
			t.Run(fmt.Sprintf("dark=%t/%dx%d", dark, sz.w, sz.h), func(t *testing.T) {
				r := NewResult(themes.Default(dark), keymap.Default())
				r.SetSize(sz.w, sz.h)
				r.SetResult(ToolResultMsg{Name: "md", Result: mdResult("x", report)})
				golden.RequireEqual(t, r.View())
			})
		}
	}
}
