package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// sessionWithAnswer is a session file of one tools/call and its answer.
func sessionWithAnswer(t *testing.T, result any) *Session {
	t.Helper()
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"md","arguments":{}}}`
	res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": result})
	line := func(seq int, dir, kind, method, raw string) string {
		b, _ := json.Marshal(map[string]any{"type": "frame", "time": fmt.Sprintf("2026-11-30T11:48:4%d.000Z", seq), "seq": seq, "dir": dir,
			"transport": "stdio", "kind": kind, "method": method, "id": "1", "size": len(raw), "raw": raw})
		return string(b)
	}
	file := `{"type":"session","time":"2026-11-30T11:48:40Z","format":1,"mcpscope":"test","target":"srv"}` + "\n" +
		line(1, "out", "request", "tools/call", req) + "\n" + line(2, "in", "response", "", string(res)) + "\n"
	sf, err := record.ReadEvents(strings.NewReader(file), true)
	if err != nil {
		t.Fatal(err)
	}
	return FromEvents("s.jsonl", sf.Header, sf.Events)
}

func htmlOf(t *testing.T, s *Session) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A text/markdown resource in an answer is rendered under the frame's
// JSON: headings, lists, code, tables; links as their text and URL.
func TestHTMLRendersMarkdown(t *testing.T) {
	md := "# Report\n\n- one\n- two\n\n```go\nx := 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSee [the docs](https://example.com/d).\n"
	page := htmlOf(t, sessionWithAnswer(t, map[string]any{"content": []any{
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "demo://r.md", "mimeType": "text/markdown", "text": md}}}}))
	for _, want := range []string{`<div class="md">`, "<h1>Report</h1>", "<li>one</li>", `<code class="language-go">x := 1`, "<table>", "<td>1</td>",
		`the docs <span class="url">https://example.com/d</span>`, "Markdown of demo://r.md, rendered"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The JSON as sent stays above it.
	if !strings.Contains(page, `&#34;mimeType&#34;: &#34;text/markdown&#34;`) {
		t.Error("the answer's JSON is gone")
	}
}

// A server's Markdown cannot put markup, script or a link in the page.
func TestHTMLMarkdownIsEscaped(t *testing.T) {
	evil := "# hi\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[click](javascript:alert(3)) and <javascript:alert(4)>\n\n" +
		"![pic](https://evil.example/t.png) <a href=\"https://evil.example\">a</a> <iframe src=x></iframe>\n\n" +
		"[x](https://e.com/\" onmouseover=\"alert(5))\n"
	page := htmlOf(t, sessionWithAnswer(t, map[string]any{"contents": []any{
		map[string]any{"uri": "r.md", "mimeType": "text/markdown", "text": evil}},
		"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": evil}}}}))
	if !strings.Contains(page, "<h1>hi</h1>") || !strings.Contains(page, "rendered as Markdown") {
		t.Fatal("the Markdown was not rendered")
	}
	// The frames' JSON holds the same strings as escaped text; the
	// rendered parts must hold no markup of the server's.
	rendered := strings.Join(regexp.MustCompile(`(?s)<div class="md">.*?</div>`).FindAllString(page, -1), "\n")
	if strings.Count(rendered, `<div class="md">`) != 2 {
		t.Fatalf("want the resource and the message rendered, got:\n%s", rendered)
	}
	for _, banned := range []string{"<script", "<img", "<iframe", " src=", " href=", "onerror=", "onmouseover=\"", "<a "} {
		if strings.Contains(rendered, banned) {
			i := strings.Index(rendered, banned)
			t.Errorf("the rendered Markdown holds %q: …%s…", banned, rendered[max(i-80, 0):min(i+80, len(rendered))])
		}
	}
	for _, banned := range []string{"<script", "<img", "<iframe", "<a "} {
		if strings.Contains(page, banned) {
			t.Errorf("the page holds %q", banned)
		}
	}
	if !strings.Contains(page, `<span class="url">javascript:alert(3)</span>`) {
		t.Error("the javascript: link is not shown as text")
	}
}

// Whatever the Markdown, the HTML made of it has no element or attribute
// that runs, loads or links anything.
func FuzzMarkdownHTML(f *testing.F) {
	f.Add("# t\n\n<script>alert(1)</script>[x](javascript:alert(1))")
	f.Add("![i](https://e.com/i.png \"t\") <a href=x onclick=y>z</a>")
	f.Add("<https://e.com/x\" onmouseover=\"a>")
	// Text's < is &lt;: a < in the HTML opens a real element.
	bad := regexp.MustCompile(`(?i)<(script|img|iframe|a|object|embed|style|link|svg|form|input)\b|<[^>]*\s(href|src|on[a-z]+|style)\s*=`)
	f.Fuzz(func(t *testing.T, src string) {
		h, ok := renderMarkdownHTML(src)
		if !ok {
			return
		}
		if m := bad.FindString(string(h)); m != "" {
			t.Fatalf("%q in the HTML of %q:\n%s", m, src, h)
		}
	})
}

// The Markdown report quotes a failing answer's JSON, which holds its
// Markdown as sent; the HTML rendering of it is no part of the report,
// not even as an empty block under its title.
func TestMarkdownReportQuotesNoRendering(t *testing.T) {
	s := sessionWithAnswer(t, map[string]any{"isError": true, "content": []any{
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "demo://r.md", "mimeType": "text/markdown", "text": "# Report\n\n- one"}}}})
	var b bytes.Buffer
	if err := Markdown(&b, s); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, `"text": "# Report\n\n- one"`) {
		t.Fatalf("the report does not quote the answer's Markdown as sent:\n%s", md)
	}
	if strings.Contains(md, "rendered") || strings.Contains(md, "```\n\n```") {
		t.Errorf("the report has a block for the HTML rendering:\n%s", md)
	}
}
