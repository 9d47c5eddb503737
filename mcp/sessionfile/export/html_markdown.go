package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Markdown in an answer (a text/markdown resource read or embedded in a
// tool's result, a prompt's messages) is shown rendered under the frame's
// JSON, as the TUI shows it. A server's Markdown is markup from a
// stranger: goldmark renders it without raw HTML (omitted), links and
// images become their text and URL as text (the page links to nothing
// and loads nothing), and bluemonday's UGC policy cleans what comes out.

// maxMarkdownHTML is the largest text rendered; a bigger one is left to
// the frame's JSON above it.
const maxMarkdownHTML = 1 << 20

var markdownHTML = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(linksAsText{}, 100))),
	)
})

// markdownPolicy is bluemonday's policy for user content, and the classes
// the page styles: a URL, a muted note, a code block's language.
var markdownPolicy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^(url|mute|language-[\w+#.-]+)$`)).OnElements("span", "code")
	return p
})

// renderMarkdownHTML is src as safe HTML; false when it is too big or
// goldmark fails.
func renderMarkdownHTML(src string) (template.HTML, bool) {
	if len(src) > maxMarkdownHTML {
		return "", false
	}
	var b bytes.Buffer
	if err := markdownHTML().Convert([]byte(src), &b); err != nil {
		return "", false
	}
	// The policy's output is safe to put in the page as it is.
	return template.HTML(markdownPolicy().SanitizeBytes(b.Bytes())), true
}

// linksAsText draws a link as its text and its URL, an image as its alt
// text and URL, all as text.
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
