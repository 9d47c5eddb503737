package panes

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// bigBlockBytes is the size above which a text block is not word-wrapped:
// wrapping 20 MB on every resize would stall the UI, so big blocks are cut
// into their own lines once and only the visible ones are styled.
const bigBlockBytes = 256 << 10

// lineKind says how a stored line becomes a rendered one. Lines are kept
// raw and styled when they scroll into view, so a 20 MB result costs one
// split, not one render per line.
type lineKind uint8

const (
	lineStyled lineKind = iota // already safe and styled
	lineJSON                   // raw pretty JSON: sanitise and highlight
	lineText                   // raw server text: sanitise
)

type resultLine struct {
	kind lineKind
	text string
}

// resultBlock is one part of a result, parsed once per result.
type resultBlock struct {
	heading string   // styled
	meta    string   // styled: type, mime, sizes
	text    string   // raw text to wrap (small) or split (big)
	json    []string // pretty JSON lines, when the part is JSON
}

// Result shows the outcome of a tools/call: each content block as MCP
// means it, structuredContent and _meta highlighted, and the three kinds of
// failure kept apart: a tool error (isError: true, the tool ran and said
// no), a server error (a JSON-RPC error response), and a local failure
// (timeout, cancel, lost connection: mcpscope's doing).
type Result struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	msg    *ToolResultMsg
	header []string // styled summary lines
	blocks []resultBlock
	lines  []resultLine // laid out at width
	width  int          // the width lines were laid out at
	top    int
	cache  map[int]string // rendered visible lines by index

	// A big result is parsed and laid out off the UI goroutine; until it
	// is ready the view says so. gen tells a stale preparation (the user
	// opened another result meanwhile) from the current one.
	gen     int
	loading bool
}

// asyncResultBytes is the size from which a result is prepared in a Cmd:
// below it parsing takes well under a frame.
const asyncResultBytes = 1 << 20

// resultReadyMsg carries a result prepared off the UI goroutine.
type resultReadyMsg struct {
	gen      int
	prepared *Result
}

// NewResult makes an empty result view.
func NewResult(t *themes.Theme, k keymap.KeyMap) *Result {
	return &Result{theme: t, keys: k, cache: map[int]string{}}
}

// SetTheme switches the theme.
func (r *Result) SetTheme(t *themes.Theme) {
	r.theme = t
	if r.msg != nil && !r.loading {
		// Re-styling a big result happens on the UI goroutine: a theme
		// change is rare and the user asked for it.
		r.parse()
		r.layout()
	}
}

// SetResult shows a tools/call outcome. A big result (a 20 MB text, say)
// opens at once with a "preparing" line; the returned Cmd parses and lays
// it out off the UI goroutine and its message completes the view.
func (r *Result) SetResult(msg ToolResultMsg) tea.Cmd {
	r.msg = &msg
	r.top = 0
	r.gen++
	r.cache = map[int]string{}
	if len(msg.Result) < asyncResultBytes {
		r.loading = false
		r.parse()
		r.layout()
		return nil
	}
	r.loading = true
	r.blocks, r.lines = nil, nil
	r.header = []string{r.theme.Detail.Hint.Render(fmt.Sprintf("preparing a %s result…", byteSize(len(msg.Result))))}
	// The Cmd works on a copy of its own and never touches r.
	prep := &Result{theme: r.theme, keys: r.keys, w: r.w, h: r.h, msg: &msg, cache: map[int]string{}}
	gen := r.gen
	return func() tea.Msg {
		prep.parse()
		prep.layout()
		return resultReadyMsg{gen: gen, prepared: prep}
	}
}

// adopt takes a prepared result, if it is still the one shown.
func (r *Result) adopt(msg resultReadyMsg) {
	if msg.gen != r.gen || !r.loading {
		return
	}
	p := msg.prepared
	r.loading = false
	r.header, r.blocks, r.lines, r.width = p.header, p.blocks, p.lines, p.width
	r.cache = map[int]string{}
	if r.width != r.w {
		r.layout() // the pane was resized while the result was prepared
	}
}

func (r *Result) Title() string {
	if r.msg == nil {
		return "Result"
	}
	return "Result · " + termsafe.String(r.msg.Name)
}

func (r *Result) SetSize(w, h int) {
	r.w, r.h = w, h
	if w != r.width {
		r.layout()
	}
	r.top = max(0, min(r.top, len(r.lines)-r.rows()))
}

func (r *Result) Focus() { r.focused = true }
func (r *Result) Blur()  { r.focused = false }

func (r *Result) rows() int { return max(r.h-2-len(r.header), 0) }

// Lines is the number of laid-out body lines (for tests and the status bar).
func (r *Result) Lines() int { return len(r.lines) }

func (r *Result) Update(msg tea.Msg) tea.Cmd {
	if ready, ok := msg.(resultReadyMsg); ok {
		r.adopt(ready)
		return nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, r.keys.Result.Close):
			return func() tea.Msg { return CloseMsg{} }
		case key.Matches(kp, r.keys.Result.Copy) && r.msg != nil:
			return tea.SetClipboard(string(r.copyPayload()))
		}
	}
	scrollKeys(r.keys.Result, msg, &r.top, len(r.lines), r.rows())
	return nil
}

// copyPayload is what c copies: the raw result, or the error text.
func (r *Result) copyPayload() []byte {
	if len(r.msg.Result) > 0 {
		return r.msg.Result
	}
	if err := r.failure(); err != nil {
		return []byte(err.Error())
	}
	return nil
}

func (r *Result) failure() error {
	if r.msg.RPCError != nil {
		return r.msg.RPCError
	}
	return r.msg.Err
}

func (r *Result) ShortHelp() []key.Binding {
	k := r.keys.Result
	return []key.Binding{k.Up, k.Down, k.PageDown, k.Copy, k.Close}
}

func (r *Result) FullHelp() [][]key.Binding {
	k := r.keys.Result
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Copy, k.Close}}
}

// View draws the summary and the visible window of the body.
func (r *Result) View() string {
	if r.w <= 0 || r.h <= 0 {
		return ""
	}
	if r.msg == nil {
		return Box(r.theme, r.Title(), r.focused, r.w, r.h, []string{r.theme.Log.Empty.Render("no tool called yet")})
	}
	body := append([]string(nil), r.header...)
	if len(r.cache) > 1024 {
		r.cache = map[int]string{}
	}
	for i := r.top; i < len(r.lines) && i < r.top+r.rows(); i++ {
		s, ok := r.cache[i]
		if !ok {
			s = r.renderLine(r.lines[i])
			r.cache[i] = s
		}
		body = append(body, s)
	}
	return Box(r.theme, r.Title(), r.focused, r.w, r.h, body)
}

func (r *Result) renderLine(l resultLine) string {
	switch l.kind {
	case lineJSON:
		return highlightJSONLine(r.theme, l.text)
	case lineText:
		return r.theme.Result.Content.Render(termsafe.String(clipLine(l.text)))
	}
	return l.text
}

// parse reads the result once: the summary and the blocks.
func (r *Result) parse() {
	th := r.theme
	m := r.msg
	r.blocks = nil
	r.header = nil
	latency := ""
	if m.Latency > 0 {
		latency = " · " + m.Latency.Round(time.Millisecond).String()
	}
	summary := th.Detail.Label.Render("tools/call ") + th.Tools.Name.Render(termsafe.String(m.Name)) + th.Detail.Label.Render(latency)

	var rpcErr *mcp.RPCError
	var localErr *mcp.LocalError
	switch {
	case m.RPCError != nil && errors.As(m.RPCError, &rpcErr):
		r.header = append(r.header, summary, th.Result.Error.Render(fmt.Sprintf("server error %d: ", rpcErr.Code))+th.Result.Content.Render(termsafe.String(rpcErr.Message)))
		r.header = append(r.header, th.Detail.Hint.Render("a JSON-RPC error response: the server refused the request itself"))
		if len(rpcErr.Data) > 0 {
			r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("error.data"), json: prettyLines(rpcErr.Data)})
		}
	case m.RPCError != nil:
		r.header = append(r.header, summary, th.Result.Error.Render("server error: ")+th.Result.Content.Render(termsafe.String(m.RPCError.Error())))
	case m.Err != nil && errors.As(m.Err, &localErr):
		r.header = append(r.header, summary, th.Log.BadgeLocalError.Render(" LOCAL "+strings.ToUpper(localErr.Kind.String())+" ")+" "+th.Log.LocalError.Render(termsafe.String(localErr.Error())))
		r.header = append(r.header, th.Detail.Hint.Render("mcpscope gave up on this call; the server sent no answer"))
	case m.Err != nil:
		r.header = append(r.header, summary, th.Log.BadgeLocalError.Render(" LOCAL ")+" "+th.Log.LocalError.Render(termsafe.String(m.Err.Error())))
	default:
		r.parseResult(summary)
	}
	if len(m.Args) > 0 {
		r.header = append(r.header, th.Detail.Label.Render("arguments ")+th.Detail.Value.Render(termsafe.String(clipLine(string(m.Args)))))
	}
	r.header = append(r.header, th.Caps.Missing.Render(strings.Repeat("─", max(r.w-2, 1))))
}

// callResult is CallToolResult, every field raw so a malformed one is
// shown rather than hiding the rest.
type callResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
	Meta              json.RawMessage   `json:"_meta"`
}

func (r *Result) parseResult(summary string) {
	th := r.theme
	var res callResult
	if err := json.Unmarshal(r.msg.Result, &res); err != nil {
		r.header = append(r.header, summary, th.Detail.Problem.Render("the result is not a CallToolResult: "+termsafe.String(err.Error())))
		r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("raw result"), text: string(r.msg.Result)})
		return
	}
	status := th.Result.OK.Render("ok")
	if res.IsError {
		status = th.Result.Error.Render("tool error") + th.Detail.Hint.Render("  isError: true — the tool ran and reported a failure")
	}
	r.header = append(r.header, summary+th.Detail.Label.Render(" · ")+status+th.Detail.Label.Render(fmt.Sprintf(" · %d content blocks", len(res.Content))))
	for i, raw := range res.Content {
		r.blocks = append(r.blocks, r.contentBlock(i, raw))
	}
	if len(res.StructuredContent) > 0 {
		r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("structuredContent"), json: prettyLines(res.StructuredContent)})
	}
	if len(res.Meta) > 0 {
		r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("_meta"), json: prettyLines(res.Meta)})
	}
}

func prettyLines(raw []byte) []string {
	lines, ok := prettyJSON(raw)
	if !ok {
		return nil
	}
	return lines
}

// contentBlock describes one content block as the spec defines its type.
func (r *Result) contentBlock(i int, raw json.RawMessage) resultBlock {
	th := r.theme
	var c struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Data     string          `json:"data"`
		MimeType string          `json:"mimeType"`
		URI      string          `json:"uri"`
		Name     string          `json:"name"`
		Resource json.RawMessage `json:"resource"`
	}
	heading := func(s string) string { return th.Detail.Title.Render(fmt.Sprintf("[%d] %s", i, s)) }
	label := th.Detail.Label.Render
	value := func(s string) string { return th.Detail.Value.Render(termsafe.String(s)) }
	if err := json.Unmarshal(raw, &c); err != nil {
		return resultBlock{heading: heading("undecodable content block"), json: prettyLines(raw), text: string(raw)}
	}
	switch c.Type {
	case "text":
		b := resultBlock{heading: heading("text"), text: c.Text}
		if t := strings.TrimSpace(c.Text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
			b.heading = heading("text (JSON)")
			b.json = prettyLines([]byte(t))
		}
		return b
	case "image", "audio":
		return resultBlock{heading: heading(c.Type), meta: label("mime ") + value(orDash(c.MimeType)) + label("  size ") + value(byteSize(base64Len(c.Data)))}
	case "resource_link":
		meta := label("uri ") + value(c.URI)
		if c.MimeType != "" {
			meta += label("  mime ") + value(c.MimeType)
		}
		if c.Name != "" {
			meta += label("  name ") + value(c.Name)
		}
		return resultBlock{heading: heading("resource_link"), meta: meta}
	case "resource":
		var res struct {
			URI      string  `json:"uri"`
			MimeType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		}
		_ = json.Unmarshal(c.Resource, &res)
		meta := label("uri ") + value(res.URI) + label("  mime ") + value(orDash(res.MimeType))
		b := resultBlock{heading: heading("resource (embedded)"), meta: meta}
		switch {
		case res.Text != nil:
			b.text = *res.Text
		case res.Blob != nil:
			b.meta += label("  blob ") + value(byteSize(base64Len(*res.Blob)))
		}
		return b
	}
	return resultBlock{heading: heading("unknown content type " + strings.TrimSpace(termsafe.String(fmt.Sprintf("%q", c.Type)))), json: prettyLines(raw)}
}

// base64Len is the decoded size of base64 text, without decoding it.
func base64Len(s string) int {
	n := len(s)
	pad := 0
	for pad < 2 && n-pad > 0 && s[n-pad-1] == '=' {
		pad++
	}
	return n*3/4 - pad
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB (%d bytes)", float64(n)/(1<<10), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// layout turns the blocks into lines at the current width. Small text is
// word-wrapped; big text and JSON are referenced line by line, unwrapped.
func (r *Result) layout() {
	r.width = r.w
	r.cache = map[int]string{}
	r.lines = r.lines[:0]
	w := max(r.w-2, 1)
	if r.msg != nil {
		// The header's rule depends on the width too.
		if n := len(r.header); n > 0 {
			r.header[n-1] = r.theme.Caps.Missing.Render(strings.Repeat("─", w))
		}
	}
	for bi, b := range r.blocks {
		if bi > 0 {
			r.lines = append(r.lines, resultLine{kind: lineStyled})
		}
		r.lines = append(r.lines, resultLine{kind: lineStyled, text: b.heading})
		if b.meta != "" {
			r.lines = append(r.lines, resultLine{kind: lineStyled, text: "  " + b.meta})
		}
		switch {
		case b.json != nil:
			for _, l := range b.json {
				r.lines = append(r.lines, resultLine{kind: lineJSON, text: l})
			}
		case len(b.text) > bigBlockBytes:
			for _, l := range strings.Split(b.text, "\n") {
				r.lines = append(r.lines, resultLine{kind: lineText, text: l})
			}
		case b.text != "":
			for _, l := range wrapBlock(b.text, w, 0) {
				r.lines = append(r.lines, resultLine{kind: lineStyled, text: r.theme.Result.Content.Render(l)})
			}
		}
	}
}

var _ Pane = (*Result)(nil)
