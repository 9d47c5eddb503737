package panes

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/panes/markdown"
	"github.com/mcpscope/mcpscope/panes/termimage"
	"github.com/mcpscope/mcpscope/themes"
)

// Content is a scrollable modal view of something the server returned
// that is not a tool result: a resources/read result (text highlighted by
// its mime type, blobs by size), a prompts/get result (messages with roles
// and content blocks), a task's result.
type Content struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool
	title   string
	lines   []string
	lazy    *LazyLines // instead of lines: some coloured only when drawn
	// body scrolls the lines (panes/list): paging, g/G, the wheel, W to
	// wrap a resource's long lines, ←/→ to scroll them sideways.
	body *list.Model
	// folded says the lines are a failure's, shown wrapped whatever W was
	// (wasWrapped, restored by the next Set).
	folded, wasWrapped bool
	// raw is the response frame as sent, which v shows instead of lines
	// (showRaw); nil when there is no frame to show.
	raw     []string
	showRaw bool
	// doc, when set, is what lines were laid out from at the view's
	// width: Markdown parts rendered (content_markdown.go), unless
	// mdSource (m) shows their source; mdWait says one is shown as
	// source until it renders.
	doc              []DocPart
	mdSource, mdWait bool
	// base are the lines laid out from doc (or as Set), and placed the
	// images drawn among them (content_image.go): lines is base with the
	// images' lines put in. An image is a part of doc, so a Markdown
	// part laid out again moves it with the lines around it.
	base         []string
	placed       []placedImage
	images       imageSet
	laidW, laidH int
}

// NewContent makes an empty content view.
func NewContent(t *themes.Theme, k keymap.KeyMap) *Content {
	c := &Content{theme: t, keys: k}
	c.body = list.New(resultScroll(k), c.line)
	// A folded line's later rows sit under its first one's text, not at
	// the edge (an indented description, a JSON member).
	c.body.SetWrapFunc(func(i, w int) string {
		l := c.line(i)
		return strings.Join(foldLine(l, w, hangOf(l, 0)), "\n")
	})
	return c
}

// resultScroll is the Result group's movement keys with the shared
// sideways and wrap keys: what the result and content views scroll with.
func resultScroll(k keymap.KeyMap) keymap.Scroll {
	r := k.Result
	return keymap.Scroll{Up: r.Up, Down: r.Down, PageUp: r.PageUp, PageDown: r.PageDown,
		Top: r.Top, Bottom: r.Bottom, Left: k.Scroll.Left, Right: k.Scroll.Right, Wrap: k.Scroll.Wrap}
}

// SetTheme switches theme.
func (c *Content) SetTheme(t *themes.Theme) { c.theme = t }

// Set replaces what is shown.
func (c *Content) Set(title string, lines []string) {
	if c.folded {
		c.folded = false
		c.body.SetWrap(c.wasWrapped)
	}
	c.title, c.lines, c.lazy, c.raw, c.showRaw = title, lines, nil, nil, false
	c.doc, c.mdWait, c.mdSource = nil, false, false
	c.base, c.placed = lines, nil
	c.images.reset()
	c.body.SetLen(len(lines))
	c.body.Reset()
}

// SetLazy replaces what is shown with lines some of which are coloured
// only when drawn (a big exchange opens at once).
func (c *Content) SetLazy(title string, lines *LazyLines) {
	c.Set(title, nil)
	c.lazy = lines
	c.body.SetLen(lines.Len())
}

// SetRaw gives the view the response frame it shows, for v to show it as
// sent (after Set, which forgets the last one).
func (c *Content) SetRaw(frame []byte) {
	if len(frame) == 0 {
		c.raw = nil
		return
	}
	c.raw = plainLines(c.theme, string(frame))
}

// count is how many lines the body draws: the lines, or the frame's as
// sent.
func (c *Content) count() int {
	switch {
	case c.showRaw:
		return len(c.raw)
	case c.lazy != nil:
		return c.lazy.Len()
	}
	return len(c.lines)
}

// line is body line i.
func (c *Content) line(i int) string {
	switch {
	case c.showRaw:
		return c.raw[i]
	case c.lazy != nil:
		return c.lazy.Line(i)
	}
	return c.lines[i]
}

// SetFolded shows lines wrapped to the view (a failure's explanation, a
// prompt's messages: prose read whole at once); W still unwraps them.
func (c *Content) SetFolded(title string, lines []string) {
	c.Set(title, lines)
	c.folded, c.wasWrapped = true, c.body.Wrapping()
	c.body.SetWrap(true)
}

// Lines is the rendered body (for tests).
func (c *Content) Lines() []string {
	if c.lazy != nil {
		out := make([]string, c.lazy.Len())
		for i := range out {
			out[i] = c.lazy.Line(i)
		}
		return out
	}
	return c.lines
}

func (c *Content) Title() string { return termsafe.String(c.title) }
func (c *Content) SetSize(w, h int) {
	c.w, c.h = w, h
	if c.doc != nil && (w != c.laidW || h != c.laidH && len(c.placed) > 0) {
		// Markdown is rendered at the width, and a picture sized to the
		// pane: both are laid out again.
		c.layoutDoc()
	}
	c.body.SetSize(max(w-2, 0), c.rows())
}
func (c *Content) Focus() { c.focused = true }
func (c *Content) Blur()  { c.focused = false }

func (c *Content) rows() int { return max(c.h-2, 0) }

// Update scrolls and closes.
func (c *Content) Update(msg tea.Msg) tea.Cmd {
	if d, ok := msg.(imageDecodedMsg); ok {
		if c.images.decoded(d) {
			c.placeImages()
		}
		return nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, c.keys.Result.Close) {
		return func() tea.Msg { return CloseMsg{} }
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, c.keys.Result.Raw) && c.raw != nil {
		c.showRaw = !c.showRaw
		c.body.SetLen(c.count())
		c.body.Reset()
		return nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, c.keys.Result.Markdown) && c.hasMarkdown() && !c.showRaw {
		c.mdSource = !c.mdSource
		c.layoutDoc()
		return c.MarkdownCmd()
	}
	c.body.Update(msg)
	return nil
}

func (c *Content) ShortHelp() []key.Binding {
	r := c.keys.Result
	raw := r.Raw
	raw.SetEnabled(c.raw != nil)
	if c.showRaw {
		raw.SetHelp(raw.Help().Key, "formatted")
	}
	out := []key.Binding{r.Up, r.Down, r.PageDown, c.keys.Scroll.Left, c.keys.Scroll.Wrap, raw}
	if c.hasMarkdown() && !c.showRaw {
		out = append(out, markdownToggle(r.Markdown, c.mdSource))
	}
	return append(out, r.Close)
}

func (c *Content) FullHelp() [][]key.Binding {
	more := []key.Binding{c.keys.Result.Raw}
	if c.hasMarkdown() && !c.showRaw {
		more = append(more, markdownToggle(c.keys.Result.Markdown, c.mdSource))
	}
	return [][]key.Binding{c.body.FullHelp(), append(more, c.keys.Result.Close)}
}

func (c *Content) View() string {
	tail := ""
	if c.showRaw {
		tail = " · as sent"
	}
	if p := c.body.Position(); p != "" {
		tail += " (" + p + ")"
	}
	return Box(c.theme, TitleKeeping(c.Title(), tail, c.w), c.focused, c.w, c.h, c.body.Render())
}

// ReadResultLines renders a resources/read result: each content's URI and
// mime type, text highlighted by mime type, blobs by decoded size. A
// Markdown text is its source here; ReadResultDoc has it to render.
func ReadResultLines(t *themes.Theme, raw json.RawMessage) []string {
	return DocLines(ReadResultDoc(t, raw))
}

// ReadResultDoc is ReadResultLines with each text/markdown content as a
// Markdown part, which the content view renders at its width, and each
// blob of an image type followed by an image part, drawn below its size
// line.
func ReadResultDoc(t *themes.Theme, raw json.RawMessage) []DocPart {
	var res struct {
		Contents []struct {
			URI      string  `json:"uri"`
			MimeType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return []DocPart{{Lines: append([]string{t.Result.Error.Render("the result is not a ReadResourceResult: " + termsafe.String(err.Error()))}, highlightJSON(t, raw, 0)...)}}
	}
	var doc docBuilder
	out := doc.lines()
	if len(res.Contents) == 0 {
		out = append(out, t.Form.Warn.Render("no contents"))
	}
	for i, c := range res.Contents {
		head := fmt.Sprintf("[%d] %s", i+1, termsafe.String(c.URI))
		if c.MimeType != "" {
			head += "  " + t.Detail.Label.Render(termsafe.String(c.MimeType))
		}
		out = append(out, t.Detail.Title.Render(head))
		switch {
		case c.Text != nil:
			text := *c.Text
			if pretty, ok := prettyJSONText(c.MimeType, c.URI, text); ok {
				// A JSON resource reads as a tool's JSON text does: indented
				// (v shows the response as sent).
				text = pretty
				out = append(out, t.Detail.Hint.Render("JSON, indented; v shows the response as sent"))
			}
			lines := highlight(t, c.MimeType, c.URI, text)
			if lines == nil {
				lines = plainLines(t, text)
			}
			if markdown.IsMIME(c.MimeType) {
				doc.flush(out)
				doc.markdown(text, lines, 0)
				out = doc.lines()
				break
			}
			out = append(out, lines...)
		case c.Blob != nil:
			n, err := base64.StdEncoding.DecodeString(*c.Blob)
			if err != nil {
				out = append(out, t.Result.Error.Render("blob is not valid base64: "+termsafe.String(err.Error())))
			} else {
				out = append(out, t.Result.Content.Render(fmt.Sprintf("binary, %s (press w in the resources pane to save it)", byteSize(len(n)))))
				if termimage.IsImageMIME(c.MimeType) {
					doc.flush(out)
					doc.image(newImageRef(*c.Blob, c.MimeType))
					out = doc.lines()
				}
			}
		default:
			out = append(out, t.Result.Error.Render("neither text nor blob"))
		}
		out = append(out, "")
	}
	doc.flush(out)
	return doc.parts
}

// prettyJSONText is a resource's text indented when its MIME type (or,
// without one, its name) says JSON and it is valid JSON on fewer lines
// than it would take indented; ok is false otherwise, and the text is
// shown as it came.
func prettyJSONText(mime, uri, text string) (string, bool) {
	m := strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	isJSON := m == "application/json" || strings.HasSuffix(m, "+json") || m == "text/json" ||
		m == "" && strings.HasSuffix(strings.ToLower(uri), ".json")
	if !isJSON || len(text) > maxHighlightBytes || !json.Valid([]byte(text)) {
		return "", false
	}
	b := string(jsonview.Indent(nil, []byte(text), "  "))
	if b == text {
		return "", false
	}
	return b, true
}

// BlobOf returns the first blob of a resources/read result, decoded.
func BlobOf(raw json.RawMessage) (data []byte, uri, mimeType string, ok bool) {
	var res struct {
		Contents []struct {
			URI      string  `json:"uri"`
			MimeType string  `json:"mimeType"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return nil, "", "", false
	}
	for _, c := range res.Contents {
		if c.Blob != nil {
			b, err := base64.StdEncoding.DecodeString(*c.Blob)
			if err == nil {
				return b, c.URI, c.MimeType, true
			}
		}
	}
	return nil, "", "", false
}

// PromptResultLines renders a prompts/get result: its description, then
// each message under its role with its content blocks. Markdown is its
// source here; PromptResultDoc has it to render.
func PromptResultLines(t *themes.Theme, raw json.RawMessage) []string {
	return DocLines(PromptResultDoc(t, raw))
}

// PromptResultDoc is PromptResultLines with the description and each
// text block as Markdown parts, which the content view renders at its
// width: prompts are written for models, in Markdown more often than not.
func PromptResultDoc(t *themes.Theme, raw json.RawMessage) []DocPart {
	var res struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return []DocPart{{Lines: append([]string{t.Result.Error.Render("the result is not a GetPromptResult: " + termsafe.String(err.Error()))}, highlightJSON(t, raw, 0)...)}}
	}
	var doc docBuilder
	if res.Description != "" {
		doc.markdown(res.Description, []string{t.Detail.Hint.Render(termsafe.String(res.Description))}, 0)
		doc.flush([]string{""})
	}
	for i, m := range res.Messages {
		doc.flush([]string{t.Detail.Title.Render(fmt.Sprintf("── %d %s ──", i+1, termsafe.String(m.Role)))})
		doc.parts = append(doc.parts, blockDoc(t, m.Content)...)
		doc.flush([]string{""})
	}
	return doc.parts
}

// blockDoc is BlockLines with each text block a Markdown part.
func blockDoc(t *themes.Theme, raw json.RawMessage) []DocPart {
	if s := strings.TrimSpace(string(raw)); strings.HasPrefix(s, "[") {
		var blocks []json.RawMessage
		_ = json.Unmarshal(raw, &blocks)
		var out []DocPart
		for _, b := range blocks {
			out = append(out, blockDoc(t, b)...)
		}
		return out
	}
	var b struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	lines := BlockLines(t, raw)
	if json.Unmarshal(raw, &b) == nil && b.Type == "text" && b.Text != "" {
		return []DocPart{{Markdown: b.Text, Source: lines, Indent: 2}}
	}
	return []DocPart{{Lines: lines}}
}

// BlockLines renders one content block (or an array of them).
func BlockLines(t *themes.Theme, raw json.RawMessage) []string {
	if s := strings.TrimSpace(string(raw)); strings.HasPrefix(s, "[") {
		var blocks []json.RawMessage
		_ = json.Unmarshal(raw, &blocks)
		var out []string
		for _, b := range blocks {
			out = append(out, BlockLines(t, b)...)
		}
		return out
	}
	var b struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Data     string          `json:"data"`
		MimeType string          `json:"mimeType"`
		URI      string          `json:"uri"`
		Name     string          `json:"name"`
		Resource json.RawMessage `json:"resource"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return highlightJSON(t, raw, 2)
	}
	switch b.Type {
	case "text":
		var out []string
		for _, run := range highlightFences(t, termsafe.Block(b.Text)) {
			for _, l := range run.lines {
				if !run.code {
					l = t.Result.Content.Render(l)
				}
				out = append(out, "  "+l)
			}
		}
		return out
	case "image", "audio":
		return []string{"  " + t.Tools.Badge.Render(fmt.Sprintf("[%s %s, %s]", b.Type, termsafe.String(b.MimeType), byteSize(base64Len(b.Data))))}
	case "resource_link":
		return []string{"  " + t.Tools.Badge.Render("[link] ") + termsafe.String(b.URI) + " " + t.Detail.Label.Render(termsafe.String(b.Name))}
	case "resource":
		var r struct {
			URI      string  `json:"uri"`
			MimeType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		}
		_ = json.Unmarshal(b.Resource, &r)
		out := []string{"  " + t.Tools.Badge.Render("[resource] ") + termsafe.String(r.URI)}
		if r.Text != nil {
			lines := highlight(t, r.MimeType, r.URI, *r.Text)
			if lines == nil {
				lines = plainLines(t, *r.Text)
			}
			for _, l := range lines {
				out = append(out, "  "+l)
			}
		} else if r.Blob != nil {
			out = append(out, "  "+byteSize(base64Len(*r.Blob)))
		}
		return out
	}
	return highlightJSON(t, raw, 2)
}

// LazyLines are a view's lines, some of which are a frame's JSON lines,
// sanitised, and coloured only when first drawn: chroma colours about ten
// thousand lines in a quarter of a second, and a view shows a screenful.
type LazyLines struct {
	theme *themes.Theme
	text  []string
	json  []bool         // text[i] is a JSON line still to colour
	done  map[int]string // the JSON lines coloured so far (bounded)
}

// NewLazyLines starts an empty list of lines in theme t's colours.
func NewLazyLines(t *themes.Theme) *LazyLines {
	return &LazyLines{theme: t, done: map[int]string{}}
}

// Add appends lines drawn as they are.
func (l *LazyLines) Add(lines ...string) {
	l.text = append(l.text, lines...)
	l.json = append(l.json, make([]bool, len(lines))...)
}

// AddJSON appends JSON lines already sanitised, to colour when drawn.
func (l *LazyLines) AddJSON(lines ...string) {
	l.text = append(l.text, lines...)
	for range lines {
		l.json = append(l.json, true)
	}
}

// Len is the number of lines.
func (l *LazyLines) Len() int { return len(l.text) }

// Line is line i as drawn.
func (l *LazyLines) Line(i int) string {
	if !l.json[i] {
		return l.text[i]
	}
	if s, ok := l.done[i]; ok {
		return s
	}
	if len(l.done) > 4096 {
		l.done = map[int]string{}
	}
	s := colorJSON(l.theme, l.text[i])
	l.done[i] = s
	return s
}
