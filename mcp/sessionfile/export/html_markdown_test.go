package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"
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

// hostileMarkdown are texts a server may send to put markup, script or
// a link in the exported page.
var hostileMarkdown = map[string]string{
	"script":            "<script>alert(1)</script>\n\ntext <script>alert(2)</script>",
	"img onerror":       "<img src=x onerror=alert(1)>\n\ninline <img src=x onerror=alert(2)>",
	"iframe":            "<iframe src=\"https://evil.example\"></iframe>",
	"javascript link":   "[x](javascript:alert(1))",
	"mixed-case scheme": "[x](JaVaScRiPt:alert(1)) [y](VBScript:msgbox(1))",
	"entity scheme":     "[x](&#106;avascript:alert(1)) [y](java&#x73;cript:alert(2)) [z](&#x6A;&#x61;vascript&colon;alert(3))",
	"data html image":   "![x](data:text/html,<script>alert(1)</script>) ![y](data:text/html;base64,PHNjcmlwdD4=)",
	"image":             "![pic](https://evil.example/track.png \"t\")",
	"title breakout":    "[t](https://e.com \"a\\\" onclick=\\\"alert(1)\") [u](https://e.com 'b\\' onmouseover=\\'x')",
	"url breakout":      "[x](<https://e.com/\" onmouseover=\"alert(1)>)",
	"autolinks":         "<javascript:alert(1)> <https://e.com/x\"onclick=y> www.example.com/a\"onclick=b <a@b.c>",
	"raw anchor":        "<a href=\"javascript:alert(1)\" onclick=\"x\">a</a>",
	"fence info":        "```\"><script>alert(1)</script>\ncode\n```\n\n```go onclick=x\ny\n```",
	"task box":          "- [x] done\n- [ ] open",
	"style":             "<style>body{display:none}</style>\n\n<p style=\"color:red\">x</p>",
}

// unsafeMarkdownHTML is goldmark's HTML of src with raw HTML let through
// and its own link and image renderers: what the page would hold without
// the safe mode, the links-as-text renderer and the allowlist.
func unsafeMarkdownHTML(src string) string {
	var b bytes.Buffer
	_ = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(ghtml.WithUnsafe())).
		Convert([]byte(src), &b)
	return b.String()
}

// unsafeMarkup says what in h is markup the page must not hold: an
// element but those Markdown makes, an attribute but the classes the page
// styles and a list's start.
func unsafeMarkup(h string) []string {
	var bad []string
	z := html.NewTokenizer(strings.NewReader(h))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			if !allowedElements[tok.Data] {
				bad = append(bad, "<"+tok.Data+">")
			}
			for _, a := range tok.Attr {
				ok := tok.Data == "span" && a.Key == "class" && (a.Val == "url" || a.Val == "mute") ||
					tok.Data == "code" && a.Key == "class" && regexp.MustCompile(`^language-[\w+#.-]+$`).MatchString(a.Val) ||
					tok.Data == "ol" && a.Key == "start" && regexp.MustCompile(`^[0-9]+$`).MatchString(a.Val)
				if !ok {
					bad = append(bad, fmt.Sprintf("<%s %s=%q>", tok.Data, a.Key, a.Val))
				}
			}
		case html.CommentToken, html.DoctypeToken:
			bad = append(bad, string(z.Raw()))
		}
	}
	return bad
}

// Each hostile text comes out of the export with no markup of its own,
// and the allowlist alone cleans what goldmark writes of it when nothing
// else guards: each case fails if sanitizeHTML lets things through.
func TestHTMLMarkdownHostile(t *testing.T) {
	for name, src := range hostileMarkdown {
		t.Run(name, func(t *testing.T) {
			raw := unsafeMarkdownHTML(src)
			if len(unsafeMarkup(raw)) == 0 {
				t.Fatalf("goldmark's unsafe HTML of the case has no markup to remove; it tests nothing:\n%s", raw)
			}
			if bad := unsafeMarkup(sanitizeHTML([]byte(raw))); len(bad) > 0 {
				t.Errorf("the allowlist let %q through of:\n%s", bad, raw)
			}
			h, ok := renderMarkdownHTML(src)
			if !ok {
				t.Fatal("not rendered")
			}
			if bad := unsafeMarkup(string(h)); len(bad) > 0 {
				t.Errorf("the export holds %q:\n%s", bad, h)
			}
			if strings.Contains(strings.ToLower(string(h)), "<script") || strings.Contains(string(h), "href") {
				t.Errorf("the export holds a script or a link:\n%s", h)
			}
		})
	}
}

// The cases' text survives as text: a link's URL, even javascript:, is
// shown so the reader sees what the server sent.
func TestHTMLMarkdownHostileShownAsText(t *testing.T) {
	for src, want := range map[string]string{
		hostileMarkdown["javascript link"]: `x <span class="url">javascript:alert(1)</span>`,
		hostileMarkdown["title breakout"]:  `t <span class="url">https://e.com</span>`,
		hostileMarkdown["task box"]:        `<li><span class="mute">[x]</span> done</li>`,
		"3. three\n4. four":                `<ol start="3">`,
		"It's \"quoted\" & <b>bold</b>":    `It&#39;s &#34;quoted&#34; &amp; bold`,
	} {
		h, _ := renderMarkdownHTML(src)
		if !strings.Contains(string(h), want) {
			t.Errorf("the HTML of %q lacks %q:\n%s", src, want, h)
		}
	}
}
