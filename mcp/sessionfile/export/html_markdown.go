package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp/lib/mdparse"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"
)

// Markdown in an answer (a text/markdown resource read or embedded in a
// tool's result, a prompt's messages) is shown rendered under the frame's
// JSON, as the TUI shows it. A server's Markdown is markup from a
// stranger: goldmark renders it in its safe mode (raw HTML omitted),
// links and images become their text and URL as text (the page links to
// nothing and loads nothing), and a task's box is text. What comes out
// then passes an allowlist (sanitizeHTML): only the elements Markdown
// makes, with no attribute but the classes the page styles and a list's
// start, so what goldmark's safe mode lets through (it checks a link's
// scheme before resolving &#106; into javascript:, and an autolink's not
// at all) never reaches the page.

// maxMarkdownHTML is the largest text rendered; a bigger one is left to
// the frame's JSON above it.
const maxMarkdownHTML = 1 << 20

var markdownHTML = sync.OnceValue(func() goldmark.Markdown {
	return mdparse.New(
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(linksAsText{}, 100))),
	)
})

// allowedElements are the elements Markdown makes that the page keeps.
var allowedElements = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"ul": true, "ol": true, "li": true, "em": true, "strong": true, "del": true, "code": true, "pre": true,
	"blockquote": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"hr": true, "br": true, "span": true,
}

// allowedAttrs are the only attributes kept, by element: the classes the
// page styles (a URL, a muted note, a code block's language) and an
// ordered list's first number.
var allowedAttrs = map[string]map[string]*regexp.Regexp{
	"span": {"class": regexp.MustCompile(`^(url|mute)$`)},
	"code": {"class": regexp.MustCompile(`^language-[\w+#.-]+$`)},
	"ol":   {"start": regexp.MustCompile(`^[0-9]{1,9}$`)},
}

// droppedWithContent are elements whose content goes with them: their
// text is code or markup, not prose.
var droppedWithContent = map[string]bool{"script": true, "style": true, "iframe": true, "object": true,
	"embed": true, "noscript": true, "template": true, "textarea": true, "title": true, "xmp": true,
	"noembed": true, "noframes": true, "plaintext": true, "svg": true, "math": true}

// sanitizeHTML keeps of h the allowed elements and attributes and the
// text, escaped again; comments, doctypes and every other element (its
// tags, or for droppedWithContent its content too) go.
func sanitizeHTML(h []byte) string {
	var b strings.Builder
	b.Grow(len(h))
	z := html.NewTokenizer(bytes.NewReader(h))
	skip := 0 // depth inside droppedWithContent elements
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.WriteString(html.EscapeString(string(z.Text())))
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			if droppedWithContent[tok.Data] {
				switch {
				case tt == html.StartTagToken:
					skip++
				case tt == html.EndTagToken && skip > 0:
					skip--
				}
				continue
			}
			if skip > 0 || !allowedElements[tok.Data] {
				continue
			}
			if tt == html.EndTagToken {
				b.WriteString("</" + tok.Data + ">")
				continue
			}
			b.WriteString("<" + tok.Data)
			for _, a := range tok.Attr {
				if re := allowedAttrs[tok.Data][a.Key]; re != nil && a.Namespace == "" && re.MatchString(a.Val) {
					b.WriteString(" " + a.Key + `="` + html.EscapeString(a.Val) + `"`)
				}
			}
			if tt == html.SelfClosingTagToken {
				b.WriteString("/")
			}
			b.WriteString(">")
		}
	}
}

// renderMarkdownHTML is src as safe HTML; false when it is too big or
// goldmark fails.
func renderMarkdownHTML(src string) (template.HTML, bool) {
	if len(src) > maxMarkdownHTML {
		return "", false
	}
	var b bytes.Buffer
	if err := markdownHTML().Convert([]byte(mdparse.CapNesting(src)), &b); err != nil {
		return "", false
	}
	// sanitizeHTML's output is safe to put in the page as it is.
	return template.HTML(sanitizeHTML(b.Bytes())), true
}

// linksAsText draws a link as its text and its URL, an image as its alt
// text and URL, all as text, and a task's box as [x] or [ ].
type linksAsText struct{}

func (linksAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindLink, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			writeURL(w, n.(*ast.Link).Destination)
		}
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindAutoLink, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.Write(util.EscapeHTML(n.(*ast.AutoLink).URL(source)))
		}
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindImage, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<span class="mute">[image: `)
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString("]</span>")
		writeURL(w, n.(*ast.Image).Destination)
		return ast.WalkContinue, nil
	})
	reg.Register(east.KindTaskCheckBox, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			box := "[ ]"
			if n.(*east.TaskCheckBox).IsChecked {
				box = "[x]"
			}
			_, _ = w.WriteString(`<span class="mute">` + box + "</span> ")
		}
		return ast.WalkContinue, nil
	})
}

func writeURL(w util.BufWriter, url []byte) {
	_, _ = w.WriteString(` <span class="url">`)
	_, _ = w.Write(util.EscapeHTML(url))
	_, _ = w.WriteString("</span>")
}

// markdownParts are the Markdown texts in an answer, rendered: each
// text/markdown content of a resources/read result or embedded resource
// of a tools/call result, and each text block of a prompts/get result's
// messages.
func markdownParts(raw []byte) []part {
	var msg struct {
		Result struct {
			Content  []json.RawMessage `json:"content"`
			Contents []textResource    `json:"contents"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		} `json:"result"`
	}
	if json.Unmarshal(raw, &msg) != nil {
		return nil
	}
	var out []part
	add := func(title, text string) {
		if h, ok := renderMarkdownHTML(text); ok {
			out = append(out, part{Title: title, HTML: h})
		}
	}
	for _, c := range msg.Result.Contents {
		if c.markdown() {
			add("Markdown of "+c.URI+", rendered", c.Text)
		}
	}
	for i, raw := range msg.Result.Content {
		var b struct {
			Type     string       `json:"type"`
			Resource textResource `json:"resource"`
		}
		if json.Unmarshal(raw, &b) == nil && b.Type == "resource" && b.Resource.markdown() {
			add(fmt.Sprintf("content[%d], Markdown of %s, rendered", i, b.Resource.URI), b.Resource.Text)
		}
	}
	for i, m := range msg.Result.Messages {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(m.Content, &b) == nil && b.Type == "text" && b.Text != "" {
			add(fmt.Sprintf("message %d (%s), rendered as Markdown", i+1, m.Role), b.Text)
		}
	}
	return out
}

// textResource is a resource's contents as far as Markdown goes.
type textResource struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

func (r textResource) markdown() bool {
	m := strings.ToLower(strings.TrimSpace(strings.SplitN(r.MimeType, ";", 2)[0]))
	return r.Text != "" && (m == "text/markdown" || m == "text/x-markdown")
}
