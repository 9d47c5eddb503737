package panes

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig learns each format by import
	_ "image/jpeg"
	_ "image/png"
	"sort"
	"strings"
	"time"
	"unsafe"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/panes/markdown"
	"github.com/mcpscope/mcpscope/panes/termimage"
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
	lineSafe                   // server text already sanitised (wrapped after it): style only
)

type resultLine struct {
	kind lineKind
	text string
}

// resultBlock is one part of a result, parsed once per result.
type resultBlock struct {
	heading string // styled
	meta    string // styled: type, mime, sizes
	text    string // raw text to wrap (small) or split (big)
	// mime and uri are an embedded resource's, which pick how its text
	// is highlighted.
	mime, uri string
	// markdown says text is Markdown (a text/markdown resource, or a
	// text block under the markdown setting), rendered unless m shows
	// the source.
	markdown bool
	// json is the part pretty-printed, when it is JSON: its lines are
	// made as they are drawn (a 20 MB JSON text is 1.6 million lines,
	// and the first screen needs 30 of them).
	json *jsonview.Indented
	// quoted is a big text block's text, left in the frame's bytes and
	// decoded a screenful of lines at a time (text is then empty).
	quoted *jsonview.Quoted
	// image is the block's picture, drawn below its header line.
	image *imageRef
}

// bodySegment is a run of the body's lines: laid out ones, or a JSON
// block's pretty-printed lines, made when the list asks for them.
type bodySegment struct {
	at     int // the body index of its first line
	lines  []resultLine
	json   *jsonview.Indented
	quoted *jsonview.Quoted // a big text's lines, decoded as they are drawn
	// cut is printable ASCII cut into lines of cutWidth bytes (cells) as
	// they are drawn: a 20 MB frame in the raw view (v).
	cut      string
	cutWidth int
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
	header []string // styled summary lines, as parsed (no arguments, no rule)
	head   []string // the lines above the body at the current width: header, arguments, rule
	raw    bool     // v: the body is the response frame's bytes, not the parsed result
	blocks []resultBlock
	// segs are the body's lines laid out at width, n of them in all.
	segs  []bodySegment
	n     int
	width int            // the width lines were laid out at
	cache map[int]string // rendered visible lines by index
	// body scrolls the laid-out lines (panes/list): paging, g/G, the
	// wheel, W to wrap long JSON and big text lines, ←/→ to scroll them.
	body *list.Model

	// A big result is parsed and laid out off the UI goroutine; until it
	// is ready the view says so. gen tells a stale preparation (the user
	// opened another result meanwhile) from the current one.
	gen     int
	loading bool

	// prepared is what parse made of the result's big parts, by where
	// their bytes start: a theme change parses the result again to
	// re-style it, and a 20 MB JSON text is not decoded and indexed
	// again on the UI goroutine for that.
	prepared map[*byte]preparedPart

	// cost is what the result costs a model, once counted (result_cost.go).
	cost *tokens.ResultCost

	// images are the result's pictures (images.go, result_image.go).
	images imageSet
	laidH  int // the height images were laid out for

	media    []mediaBlob  // decodable binary contents, for w
	links    []openTarget // resources and media in the result, for o
	nextLink int

	// Markdown (result_markdown.go): mdText treats text blocks as
	// Markdown (the setting), mdSource shows Markdown as its source (m),
	// mdWait says a Markdown part is shown as source until it renders.
	mdText, mdSource, mdWait bool

	// saveQ is the question S asks (result_save.go); callsFile and
	// callNames are the calls file it saves to and the names it holds.
	saveQ     saveQuestion
	callsFile string
	callNames map[string]bool
}

// mediaBlob is one binary content block the user can write to a file.
type mediaBlob struct {
	name string // a file name stem, e.g. "add-0"; the root adds the extension
	mime string
	data string // base64, decoded only when written
}

// preparedPart is a big part of a result as parse made it.
type preparedPart struct {
	text   string // a text block's text, decoded
	json   *jsonview.Indented
	quoted *jsonview.Quoted // a big text block's, left undecoded
}

// preparedBytes is the size from which a part is kept in prepared.
const preparedBytes = 64 << 10

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
	r := &Result{theme: t, keys: k, cache: map[int]string{}}
	r.body = list.New(resultScroll(k), r.bodyLine)
	return r
}

// bodyLine is laid-out line i, rendered once and cached.
func (r *Result) bodyLine(i int) string {
	if s, ok := r.cache[i]; ok {
		return s
	}
	if len(r.cache) > 1024 {
		r.cache = map[int]string{}
	}
	s := r.renderLine(r.line(i))
	r.cache[i] = s
	return s
}

// line is laid-out line i of the body (0 <= i < n).
func (r *Result) line(i int) resultLine {
	k := sort.Search(len(r.segs), func(k int) bool { return r.segs[k].at > i }) - 1
	seg := &r.segs[k]
	switch {
	case seg.json != nil:
		return resultLine{kind: lineJSON, text: seg.json.Line(i - seg.at)}
	case seg.quoted != nil:
		return resultLine{kind: lineText, text: seg.quoted.Line(i - seg.at)}
	case seg.cutWidth > 0:
		from := (i - seg.at) * seg.cutWidth
		return resultLine{kind: lineSafe, text: seg.cut[from:min(from+seg.cutWidth, len(seg.cut))]}
	}
	return seg.lines[i-seg.at]
}

// add appends laid-out lines to the body.
func (r *Result) add(lines ...resultLine) {
	if last := len(r.segs) - 1; last < 0 || r.segs[last].json != nil || r.segs[last].quoted != nil || r.segs[last].cutWidth > 0 {
		r.segs = append(r.segs, bodySegment{at: r.n})
	}
	seg := &r.segs[len(r.segs)-1]
	seg.lines = append(seg.lines, lines...)
	r.n += len(lines)
}

// addLines appends many laid-out lines, kept as they are (not copied).
func (r *Result) addLines(lines []resultLine) {
	r.segs = append(r.segs, bodySegment{at: r.n, lines: lines})
	r.n += len(lines)
}

// addJSON appends a JSON block's lines, which are made as they are drawn.
func (r *Result) addJSON(x *jsonview.Indented) {
	r.segs = append(r.segs, bodySegment{at: r.n, json: x})
	r.n += x.Len()
}

// addQuoted appends a big text block's lines, decoded as they are drawn.
func (r *Result) addQuoted(q *jsonview.Quoted) {
	r.segs = append(r.segs, bodySegment{at: r.n, quoted: q})
	r.n += q.LineCount()
}

// sizeBody tells the body list its window and length.
func (r *Result) sizeBody() {
	r.body.SetSize(max(r.w-2, 0), r.rows())
	r.body.SetLen(r.n)
}

// SetTheme switches the theme.
func (r *Result) SetTheme(t *themes.Theme) {
	r.theme = t
	if r.msg != nil && !r.loading {
		// Re-styled on the UI goroutine: the big parts are not decoded
		// or indexed again (prepared).
		r.parse()
		r.layout()
	}
}

// SetResult shows a tools/call outcome. A big result (a 20 MB text, say)
// opens at once with a "preparing" line; the returned Cmd parses and lays
// it out off the UI goroutine and its message completes the view.
func (r *Result) SetResult(msg ToolResultMsg) tea.Cmd {
	r.images.reset()
	r.msg = &msg
	r.body.Reset()
	r.raw, r.mdSource = false, false
	r.gen++
	r.cache = map[int]string{}
	r.prepared = nil
	if len(msg.Result) < asyncResultBytes {
		r.loading = false
		r.parse()
		r.layout()
		return tea.Batch(r.countCost(msg.Result), r.decodeImages())
	}
	r.cost = nil
	r.loading = true
	r.blocks, r.segs, r.n = nil, nil, 0
	r.header = []string{r.theme.Detail.Hint.Render(fmt.Sprintf("preparing a %s result…", byteSize(len(msg.Result))))}
	r.head = r.header
	// The Cmd works on a copy of its own and never touches r.
	prep := &Result{theme: r.theme, keys: r.keys, w: r.w, h: r.h, msg: &msg, cache: map[int]string{}}
	// Images are laid out once adopted: the copy draws none.
	gen := r.gen
	return func() tea.Msg {
		prep.parse()
		prep.layout()
		return resultReadyMsg{gen: gen, prepared: prep}
	}
}

// adopt takes a prepared result, if it is still the one shown.
func (r *Result) adopt(msg resultReadyMsg) bool {
	if msg.gen != r.gen || !r.loading {
		return false
	}
	p := msg.prepared
	r.loading = false
	r.header, r.head, r.blocks, r.segs, r.n, r.width = p.header, p.head, p.blocks, p.segs, p.n, p.width
	r.media, r.links, r.nextLink = p.media, p.links, 0
	r.prepared = p.prepared
	r.cache = map[int]string{}
	if r.width != r.w || r.raw {
		r.layout() // the pane was resized (or v pressed) while the result was prepared
	}
	return true
}

func (r *Result) Title() string {
	if r.msg == nil {
		return "Result"
	}
	return "Result · " + termsafe.String(r.msg.Name) + r.costTitle()
}

func (r *Result) SetSize(w, h int) {
	r.w, r.h = w, h
	if w != r.width || h != r.laidH && len(r.images.shown) > 0 {
		r.layout()
	}
	r.sizeBody()
}

func (r *Result) Focus() { r.focused = true }
func (r *Result) Blur()  { r.focused = false }

func (r *Result) rows() int {
	n := r.h - 2 - len(r.head)
	if r.saveQ.open {
		n -= len(r.saveLines(max(r.w-2, 0)))
	}
	return max(n, 0)
}

// Lines is the number of laid-out body lines (for tests and the status bar).
func (r *Result) Lines() int { return r.n }

func (r *Result) Update(msg tea.Msg) tea.Cmd {
	if ready, ok := msg.(resultReadyMsg); ok {
		if r.adopt(ready) {
			// Counted once it is on screen: a count of a big text is a
			// job of its own (result_cost.go).
			return tea.Batch(r.countCost(r.msg.Result), r.decodeImages())
		}
		return nil
	}
	if d, ok := msg.(imageDecodedMsg); ok {
		if r.images.decoded(d) {
			r.layout()
		}
		return nil
	}
	if c, ok := msg.(resultCostMsg); ok {
		if c.gen == r.gen {
			r.cost = &c.cost
		}
		return nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && r.saveQ.open {
		cmd := r.updateSave(kp)
		r.sizeBody()
		return cmd
	}
	if p, ok := msg.(tea.PasteMsg); ok && r.saveQ.open {
		return r.pasteIntoSave(p)
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, r.keys.Calls.Save) && r.canSave():
			cmd := r.openSave()
			r.sizeBody()
			return cmd
		case key.Matches(kp, r.keys.Result.Close):
			return func() tea.Msg { return CloseMsg{} }
		case key.Matches(kp, r.keys.Result.Copy) && r.msg != nil:
			what := "result"
			switch {
			case r.raw && r.msg.Response != nil:
				what = "raw response"
			case len(r.msg.Result) == 0 && r.failure() != nil:
				what = "error"
			}
			msg := CopyMsg{What: what, Text: string(r.copyPayload()), Else: "s saves a file"}
			return func() tea.Msg { return msg }
		case key.Matches(kp, r.keys.Result.Raw) && r.msg != nil && !r.loading:
			r.raw = !r.raw
			r.body.Reset()
			r.layout()
			return nil
		case key.Matches(kp, r.keys.Result.Markdown) && r.hasMarkdown() && !r.raw:
			r.mdSource = !r.mdSource
			r.layout()
			return r.MarkdownCmd()
		case key.Matches(kp, r.keys.Result.Save) && r.msg != nil && !r.loading:
			return r.save()
		case key.Matches(kp, r.keys.Result.SaveMedia) && len(r.media) > 0:
			return r.saveMedia()
		case key.Matches(kp, r.keys.Result.Open) && len(r.links) > 0:
			t := r.links[r.nextLink%len(r.links)]
			r.nextLink++
			return r.open(t)
		}
	}
	r.sizeBody()
	r.body.Update(msg)
	return nil
}

// copyPayload is what c copies: the response frame's bytes in the raw
// view, else the raw result, or the error text.
func (r *Result) copyPayload() []byte {
	if r.raw && r.msg.Response != nil {
		return r.msg.Response.Raw
	}
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

// ShortHelp lists only the keys that do something for this result.
func (r *Result) ShortHelp() []key.Binding {
	k := r.keys.Result
	if r.saveQ.open {
		c := r.keys.Calls
		return []key.Binding{c.Confirm, c.Snapshot, c.Cancel}
	}
	out := []key.Binding{k.Up, k.Down, k.PageDown, r.keys.Scroll.Left, r.keys.Scroll.Wrap, k.Copy, k.Raw}
	if r.msg != nil && len(r.payload()) > 0 {
		out = append(out, k.Save)
	}
	if r.canSave() {
		out = append(out, r.keys.Calls.Save)
	}
	if len(r.media) > 0 {
		out = append(out, k.SaveMedia)
	}
	if len(r.links) > 0 {
		out = append(out, k.Open)
	}
	if r.hasMarkdown() && !r.raw {
		out = append(out, r.markdownKey())
	}
	if r.msg != nil && r.msg.Template != "" && r.msg.Result != nil {
		out = append(out, k.Preview)
	}
	return append(out, k.Close)
}

func (r *Result) FullHelp() [][]key.Binding {
	if r.saveQ.open {
		return [][]key.Binding{r.ShortHelp()}
	}
	return [][]key.Binding{r.body.FullHelp(), r.ShortHelp()[5:]}
}

// Raw reports whether the body shows the response frame's bytes (v).
func (r *Result) Raw() bool {
	return r.raw
}

// payload is what s saves: the raw result, or the server's error object.
func (r *Result) payload() []byte {
	if len(r.msg.Result) > 0 {
		return r.msg.Result
	}
	var rpcErr *mcp.RPCError
	if errors.As(r.msg.RPCError, &rpcErr) {
		b, _ := json.Marshal(rpcErr)
		return b
	}
	return nil
}

// save writes the result exactly as received; the root does the I/O.
func (r *Result) save() tea.Cmd {
	data := r.payload()
	if len(data) == 0 {
		return nil
	}
	what := "the result of tools/call " + r.msg.Name
	if len(r.msg.Result) == 0 {
		what = "the error of tools/call " + r.msg.Name
	}
	msg := SaveBlobMsg{URI: what, Name: "result-" + r.msg.Name, MimeType: "application/json", Data: data}
	return func() tea.Msg { return msg }
}

// saveMedia writes every image, audio and blob content to its own file.
func (r *Result) saveMedia() tea.Cmd {
	var cmds []tea.Cmd
	for _, m := range r.media {
		data, err := base64.StdEncoding.DecodeString(m.data)
		if err != nil {
			continue // the view already says the base64 is broken
		}
		msg := SaveBlobMsg{URI: "a " + orDash(m.mime) + " content block of tools/call " + r.msg.Name, Name: m.name, MimeType: m.mime, Data: data}
		cmds = append(cmds, func() tea.Msg { return msg })
	}
	return tea.Batch(cmds...)
}

// View draws the summary and the visible window of the body.
func (r *Result) View() string {
	if r.w <= 0 || r.h <= 0 {
		return ""
	}
	if r.msg == nil {
		return Box(r.theme, r.Title(), r.focused, r.w, r.h, []string{r.theme.Log.Empty.Render("no tool called yet")})
	}
	head := r.head
	var save []string
	if r.saveQ.open {
		// The question comes first: on a short view the summary above the
		// body gives way to it.
		save = r.saveLines(max(r.w-2, 0))
		if keep := max(r.h-2-len(save), 0); len(head) > keep {
			head = head[len(head)-keep:]
		}
	}
	body := append([]string(nil), head...)
	r.sizeBody()
	body = append(body, r.body.Render()...)
	if save != nil {
		for len(body) < len(head)+r.rows() {
			body = append(body, "")
		}
		body = append(body, save...)
	}
	tail := ""
	if p := r.body.Position(); p != "" && r.rows() > 0 {
		tail = " · " + p
	}
	return Box(r.theme, TitleKeeping(r.Title(), tail, r.w), r.focused, r.w, r.h, body)
}

func (r *Result) renderLine(l resultLine) string {
	switch l.kind {
	case lineJSON:
		return highlightJSONLine(r.theme, l.text)
	case lineSafe:
		return r.theme.Result.Content.Render(l.text)
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
	r.media, r.links, r.nextLink = nil, nil, 0
	latency := ""
	if m.Latency > 0 {
		latency = " · took " + m.Latency.Round(time.Millisecond).String()
	}
	summary := th.Detail.Label.Render("tools/call ") + th.Tools.Name.Render(termsafe.String(m.Name)) + th.Detail.Label.Render(latency)

	var rpcErr *mcp.RPCError
	var localErr *mcp.LocalError
	switch {
	case m.RPCError != nil && errors.As(m.RPCError, &rpcErr):
		r.header = append(r.header, summary, th.Result.Error.Render(fmt.Sprintf("server error %d: ", rpcErr.Code))+th.Result.Content.Render(termsafe.String(rpcErr.Message)))
		r.header = append(r.header, th.Detail.Hint.Render("a JSON-RPC error response: the server refused the request itself"))
		if len(rpcErr.Data) > 0 {
			r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("error.data"), json: r.pretty(rpcErr.Data)})
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
	if m.Compared != nil {
		r.header = append(r.header, ComparisonLines(th, m.Compared)...)
	}
}

// callResult is CallToolResult, every field raw so a malformed one is
// shown rather than hiding the rest.
type callResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
	Meta              json.RawMessage   `json:"_meta"`
}

// decodeCallResult reads a CallToolResult as json.Unmarshal into
// callResult would, in one scan of raw: the content blocks and the raw
// members are views of raw (jsonview), and only isError is decoded: the
// reader and the doctor have read a big result already, and decoding it
// here would copy it twice more.
func decodeCallResult(raw []byte) (callResult, error) {
	var res callResult
	isError := []byte{'{'}
	var content json.RawMessage
	var contentErr bool
	ok := jsonview.Each(raw, func(k []byte, v json.RawMessage) bool {
		// Names match as encoding/json matches a field's: any case.
		switch name := jsonview.Key(k); {
		case strings.EqualFold(name, "isError"):
			if len(isError) > 1 {
				isError = append(isError, ',')
			}
			isError = append(append(isError, `"isError":`...), v...)
		case strings.EqualFold(name, "content"):
			content = v // the last wins; null empties it
			contentErr = contentErr || (len(v) == 0 || v[0] != '[') && !isNullJSON(v)
		case strings.EqualFold(name, "structuredContent"):
			res.StructuredContent = v
		case strings.EqualFold(name, "_meta"):
			res.Meta = v
		}
		return true
	})
	if !ok {
		return callResult{}, json.Unmarshal(raw, &res) // not an object: its own error
	}
	if err := json.Unmarshal(append(isError, '}'), &res); err != nil {
		return res, err
	}
	if contentErr {
		return res, fmt.Errorf("json: cannot unmarshal a non-array content into Go struct field callResult.content of type []json.RawMessage")
	}
	res.Content, _ = jsonview.Array(content)
	return res, nil
}

func isNullJSON(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

// contentFields is a content block's members as the result view reads
// them.
type contentFields struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Data     string          `json:"data"`
	MimeType string          `json:"mimeType"`
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	Resource json.RawMessage `json:"resource"`
}

// decodeContent reads a content block as json.Unmarshal into
// contentFields would: the short members decoded, the text or data (the
// big ones) decoded once from their views, the embedded resource a view.
func decodeContent(raw []byte) (contentFields, error) {
	c, text, err := decodeContentView(raw)
	if err == nil && text != nil {
		c.Text, _ = jsonview.StringView(text) // the text stays in the frame's bytes
	}
	return c, err
}

// decodeContentView is decodeContent but for the text, which it leaves
// undecoded: a view of raw (nil when absent or null). A text block's
// text is decoded as it is checked for JSON (jsonview.StringIndented).
func decodeContentView(raw []byte) (contentFields, json.RawMessage, error) {
	var c contentFields
	// One scan: the short members are copied into small and decoded; of
	// text and data the last non-null one counts (null leaves a Go string
	// as it was) and only it is decoded; any of them that is not a string
	// is json.Unmarshal's error.
	small := []byte{'{'}
	var text, data json.RawMessage
	var typeErr error
	ok := jsonview.Each(raw, func(k []byte, v json.RawMessage) bool {
		name := jsonview.Key(k)
		switch {
		case strings.EqualFold(name, "type"), strings.EqualFold(name, "mimeType"), strings.EqualFold(name, "uri"), strings.EqualFold(name, "name"):
			if len(small) > 1 {
				small = append(small, ',')
			}
			small = append(append(append(append(small, '"'), k...), '"', ':'), v...)
		case strings.EqualFold(name, "resource"):
			c.Resource = v
		case strings.EqualFold(name, "text"), strings.EqualFold(name, "data"):
			if isNullJSON(v) {
				break
			}
			if (len(v) == 0 || v[0] != '"') && typeErr == nil {
				typeErr = fmt.Errorf("json: cannot unmarshal %s into Go struct field .%s of type string", jsonKindOf(v), strings.ToLower(name))
			}
			if strings.EqualFold(name, "text") {
				text = v
			} else {
				data = v
			}
		}
		return true
	})
	if !ok {
		return contentFields{}, nil, json.Unmarshal(raw, &c)
	}
	if err := json.Unmarshal(append(small, '}'), &c); err != nil {
		return c, nil, err
	}
	if typeErr != nil {
		return c, nil, typeErr
	}
	if data != nil {
		c.Data, _ = jsonview.StringView(data) // the data stays in the frame's bytes
	}
	return c, text, nil
}

// jsonKindOf names a JSON value's type as encoding/json's errors do.
func jsonKindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case '"':
		return "string"
	}
	return "number"
}

func (r *Result) parseResult(summary string) {
	th := r.theme
	res, err := decodeCallResult(r.msg.Result)
	if err != nil {
		r.header = append(r.header, summary, th.Detail.Problem.Render("the result is not a CallToolResult: "+termsafe.String(err.Error())))
		r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("raw result"), text: string(r.msg.Result)})
		return
	}
	status := th.Result.OK.Render("ok")
	if res.IsError {
		status = th.Result.Error.Render("tool error") + th.Detail.Hint.Render("  isError: true — the tool ran and reported a failure")
	}
	r.header = append(r.header, summary+th.Detail.Label.Render(" · ")+status+th.Detail.Label.Render(" · "+plural.Of(len(res.Content), "content block", "content blocks")))
	if line := r.outputCheck(res); line != "" {
		r.header = append(r.header, line)
	}
	for i, raw := range res.Content {
		r.blocks = append(r.blocks, r.contentBlock(i, raw))
	}
	if len(res.StructuredContent) > 0 {
		r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("structuredContent"), json: r.pretty(res.StructuredContent)})
	}
	if len(res.Meta) > 0 {
		r.blocks = append(r.blocks, resultBlock{heading: th.Detail.Title.Render("_meta"), json: r.pretty(res.Meta)})
	}
}

// outputCheck validates structuredContent against the tool's outputSchema
// ("Servers MUST provide structured results that conform to this schema.
// Clients SHOULD validate."): one header line, flagged when it fails.
func (r *Result) outputCheck(res callResult) string {
	th := r.theme
	if len(r.msg.OutputSchema) == 0 {
		return ""
	}
	if len(res.StructuredContent) == 0 {
		if res.IsError {
			return "" // a tool error need not carry structured output
		}
		return th.Result.Error.Render("✗ outputSchema declared, but the result has no structuredContent")
	}
	sch, err := schema.Compile(r.msg.OutputSchema)
	if err != nil {
		return th.Detail.Problem.Render("outputSchema cannot be compiled, so structuredContent was not checked: " + termsafe.String(err.Error()))
	}
	issues := sch.ValidateJSON(res.StructuredContent)
	if len(issues) == 0 {
		return th.Result.OK.Render("✓ structuredContent matches outputSchema")
	}
	msgs := make([]string, 0, len(issues))
	for _, is := range issues {
		msgs = append(msgs, is.String())
	}
	return th.Result.Error.Render("✗ structuredContent does not match outputSchema: ") + th.Result.Content.Render(termsafe.String(strings.Join(msgs, "; ")))
}

// pretty is raw JSON's pretty-printed lines, or nil when raw is not
// JSON.
func (r *Result) pretty(raw []byte) *jsonview.Indented {
	if p, ok := r.preparedFor(raw); ok {
		return p.json
	}
	x, _ := jsonview.ValidIndentLines(bytes.TrimSpace(raw), "  ")
	r.keep(raw, preparedPart{json: x})
	return x
}

// preparedFor is what parse made of raw (a part of the result) before.
func (r *Result) preparedFor(raw []byte) (preparedPart, bool) {
	if len(raw) < preparedBytes {
		return preparedPart{}, false
	}
	p, ok := r.prepared[&raw[0]]
	return p, ok
}

// keep remembers what parse made of a big part of the result.
func (r *Result) keep(raw []byte, p preparedPart) {
	if len(raw) < preparedBytes {
		return
	}
	if r.prepared == nil {
		r.prepared = map[*byte]preparedPart{}
	}
	r.prepared[&raw[0]] = p
}

// contentBlock describes one content block as the spec defines its type.
func (r *Result) contentBlock(i int, raw json.RawMessage) resultBlock {
	th := r.theme
	heading := func(s string) string { return th.Detail.Title.Render(fmt.Sprintf("[%d] %s", i, s)) }
	label := th.Detail.Label.Render
	value := func(s string) string { return th.Detail.Value.Render(termsafe.String(s)) }
	c, text, err := decodeContentView(raw)
	if err != nil {
		return resultBlock{heading: heading("undecodable content block"), json: r.pretty(raw), text: string(raw)}
	}
	switch c.Type {
	case "text":
		// Decoded (a view when it has no escapes), and when it is a JSON
		// object or array, checked and its lines indexed, in one go: a
		// 20 MB text is decoded and indexed at once on two goroutines.
		var x *jsonview.Indented
		var q *jsonview.Quoted
		if p, ok := r.preparedFor(text); ok {
			c.Text, x, q = p.text, p.json, p.quoted
		} else if text != nil {
			c.Text, x, q = decodeText(text)
			r.keep(text, preparedPart{text: c.Text, json: x, quoted: q})
		}
		b := resultBlock{heading: heading("text"), text: c.Text, quoted: q}
		if x != nil {
			b.heading = heading("text (JSON)")
			b.json = x
		} else if r.mdText {
			b.heading, b.markdown = heading("text (Markdown)"), true
		}
		return b
	case "image", "audio":
		meta := label("mime ") + value(orDash(c.MimeType)) + label("  size ") + value(byteSize(base64Len(c.Data)))
		var ref *imageRef
		if c.Type == "image" {
			meta += imageDimensions(c.Data, label, value)
			ref = newImageRef(c.Data, c.MimeType)
		}
		if c.Type == "audio" {
			meta += durationMeta(c.Data, c.MimeType, label, value)
		}
		blob := mediaBlob{name: fmt.Sprintf("%s-%d", r.msg.Name, i), mime: c.MimeType, data: c.Data}
		r.media = append(r.media, blob)
		r.links = append(r.links, openTarget{media: &blob})
		return resultBlock{heading: heading(c.Type), meta: meta + label("  (w writes it to a file)"), image: ref}
	case "resource_link":
		r.links = append(r.links, openTarget{uri: c.URI})
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
		if res.URI != "" {
			r.links = append(r.links, openTarget{uri: res.URI})
		}
		meta := label("uri ") + value(res.URI) + label("  mime ") + value(orDash(res.MimeType))
		b := resultBlock{heading: heading("resource (embedded)"), meta: meta, mime: res.MimeType, uri: res.URI, markdown: markdown.IsMIME(res.MimeType)}
		switch {
		case res.Text != nil:
			b.text = *res.Text
		case res.Blob != nil:
			b.meta += label("  blob ") + value(byteSize(base64Len(*res.Blob)))
			if termimage.IsImageMIME(res.MimeType) {
				b.image = newImageRef(*res.Blob, res.MimeType)
			}
			r.media = append(r.media, mediaBlob{name: fmt.Sprintf("%s-%d", r.msg.Name, i), mime: res.MimeType, data: *res.Blob})
		}
		return b
	}
	return resultBlock{heading: heading("unknown content type " + strings.TrimSpace(termsafe.String(fmt.Sprintf("%q", c.Type)))), json: r.pretty(raw)}
}

// decodeText reads a text block's text (raw, a JSON string): decoded, and
// when it is a JSON object or array, its pretty-printed lines
// (jsonview.StringIndented). A text too big to be word-wrapped is not
// decoded whole: q holds it in the frame's bytes, and its lines, or its
// JSON's, are decoded as they are drawn, so a 20 MB text costs its
// frame and a few marks, not a second copy.
func decodeText(raw []byte) (text string, x *jsonview.Indented, q *jsonview.Quoted) {
	if len(raw) > bigBlockBytes {
		if q, ok := jsonview.NewQuoted(raw, "  "); ok && q.Len() > bigBlockBytes {
			if x, settled := q.JSONLines(); settled {
				if x != nil {
					return "", x, nil
				}
				return "", nil, q
			}
			// A token longer than the window JSONLines reads at a time
			// (a long string in the JSON): the whole text is read.
		}
	}
	text, x, _ = jsonview.StringIndented(raw, "  ")
	return text, x, nil
}

// imageDimensions reads an image's size from its header (PNG, JPEG, GIF),
// decoding only the first bytes of the base64.
func imageDimensions(data string, label func(...string) string, value func(string) string) string {
	head := data
	if len(head) > 64<<10 {
		head = head[:64<<10] // a JPEG's size can sit behind its metadata; 48 KB is plenty
	}
	raw, _ := base64.StdEncoding.DecodeString(head[:len(head)/4*4])
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return label("  dimensions ") + value("unreadable ("+err.Error()+")")
	}
	return label("  dimensions ") + value(fmt.Sprintf("%d×%d %s", cfg.Width, cfg.Height, format))
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
	return plural.S(n, "byte")
}

// layout turns the blocks into lines at the current width. Small text is
// word-wrapped; big text and JSON are referenced line by line, unwrapped.
func (r *Result) layout() {
	r.width, r.laidH = r.w, r.h
	r.cache = map[int]string{}
	r.segs, r.n = nil, 0
	r.mdWait = false
	w := max(r.w-2, 1)
	// The summary lines are folded, never cut: the status and its
	// explanation are what the view is for.
	var header []string
	for _, l := range r.header {
		header = append(header, foldLine(l, w, 2)...)
	}
	r.head = header
	if r.msg == nil || r.loading {
		return
	}
	args := r.argumentLines(w)
	r.head = append(append(header, args.head...), r.theme.Caps.Missing.Render(strings.Repeat("─", w)))
	if r.raw {
		r.layoutRaw(w)
		return
	}
	for bi, b := range r.blocks {
		if bi > 0 {
			r.add(resultLine{kind: lineStyled})
		}
		r.add(resultLine{kind: lineStyled, text: b.heading})
		if b.meta != "" {
			r.add(resultLine{kind: lineStyled, text: "  " + b.meta})
		}
		if b.image != nil {
			for _, l := range r.imageLines(b.image, w) {
				r.add(resultLine{kind: lineStyled, text: l})
			}
		}
		switch {
		case b.json != nil:
			r.addJSON(b.json)
		case b.quoted != nil:
			r.addQuoted(b.quoted)
		case len(b.text) > bigBlockBytes:
			// One allocation for the index, and no []string of the
			// lines in between: a 20 MB text is 260,000 lines.
			lines := make([]resultLine, 0, strings.Count(b.text, "\n")+1)
			for rest, more := b.text, true; more; {
				var l string
				l, rest, more = strings.Cut(rest, "\n")
				lines = append(lines, resultLine{kind: lineText, text: l})
			}
			r.addLines(lines)
		case b.markdown && r.addMarkdown(b, w):
		case b.text != "":
			r.addText(b, w)
		}
	}
	if len(args.body) > 0 {
		r.add(resultLine{kind: lineStyled}, resultLine{kind: lineStyled, text: r.theme.Detail.Title.Render("arguments sent")})
		for _, l := range args.body {
			r.add(resultLine{kind: lineStyled, text: l})
		}
	}
}

// addText lays out a small text block: an embedded resource's text
// highlighted as its MIME type or URI says, else word-wrapped, with its
// fenced code blocks highlighted (code is cut at the edge, not wrapped).
func (r *Result) addText(b resultBlock, w int) {
	if lines := highlight(r.theme, b.mime, b.uri, b.text); lines != nil {
		for _, l := range lines {
			r.add(resultLine{kind: lineStyled, text: l})
		}
		return
	}
	for _, run := range highlightFences(r.theme, strings.TrimRight(termsafe.Block(b.text), "\n")) {
		for _, l := range run.lines {
			if run.code {
				r.add(resultLine{kind: lineStyled, text: l})
				continue
			}
			for _, row := range wrapBlock(l, w, 0) {
				r.add(resultLine{kind: lineStyled, text: r.theme.Result.Content.Render(row)})
			}
		}
	}
}

// maxHeadArgLines is how many wrapped lines of arguments sit above the
// body at most (fewer in a short pane: a quarter of its rows); longer
// arguments are shown in full at the end of the body.
const maxHeadArgLines = 4

type argLines struct{ head, body []string }

// argumentLines wraps the arguments sent (never cut): in the header when
// they take at most maxHeadArgLines, else at the end of the body with a
// line in the header saying so.
func (r *Result) argumentLines(w int) argLines {
	th := r.theme
	if len(r.msg.Args) == 0 {
		return argLines{}
	}
	label := "arguments "
	text := string(r.msg.Args)
	if len(text) <= bigBlockBytes {
		wrapped := wrapBlock(text, w, len(label))
		if len(wrapped) <= max(min(maxHeadArgLines, (r.h-2)/4), 1) {
			out := make([]string, len(wrapped))
			for i, l := range wrapped {
				out[i] = th.Detail.Value.Render(l)
			}
			out[0] = th.Detail.Label.Render(label) + th.Detail.Value.Render(strings.TrimPrefix(wrapped[0], strings.Repeat(" ", len(label))))
			return argLines{head: out}
		}
	}
	note := th.Detail.Label.Render(label) + th.Detail.Value.Render(byteSize(len(text))) + th.Detail.Hint.Render(" · in full at the end (G)")
	var body []string
	if len(text) > bigBlockBytes {
		for _, l := range hardWrap(termsafe.String(text), w) {
			body = append(body, th.Detail.Value.Render(l))
		}
	} else {
		for _, l := range wrapBlock(text, w, 0) {
			body = append(body, th.Detail.Value.Render(l))
		}
	}
	return argLines{head: []string{note}, body: body}
}

// layoutRaw lays the response frame's bytes out as they came, wrapped at
// the width (v): what the server sent, before any reading of it.
func (r *Result) layoutRaw(w int) {
	th := r.theme
	f := r.msg.Response
	if f == nil {
		r.head = append(r.head[:len(r.head)-1], th.Detail.Hint.Render("raw response: none: no response frame came (v back)"), r.head[len(r.head)-1])
		return
	}
	line := th.Detail.Label.Render(fmt.Sprintf("raw response · frame #%d · %s as received", f.Seq, byteSize(len(f.Raw)))) + th.Detail.Hint.Render(" · v back · c copies it")
	r.head = append(r.head[:len(r.head)-1], line, r.head[len(r.head)-1])
	if len(f.Raw) > 0 && printableASCII(f.Raw) {
		// Nothing to escape and one cell a byte: line i is bytes
		// i*w to (i+1)*w of the frame, cut from its bytes (a frame's
		// never change) as it is drawn, so a big frame is not copied,
		// escaped and cut into strings on the UI goroutine.
		r.segs = append(r.segs, bodySegment{at: r.n, cut: unsafe.String(&f.Raw[0], len(f.Raw)), cutWidth: w})
		r.n += (len(f.Raw) + w - 1) / w
		return
	}
	wrapped := hardWrap(termsafe.String(string(f.Raw)), w)
	lines := make([]resultLine, len(wrapped))
	for i, l := range wrapped {
		lines[i] = resultLine{kind: lineSafe, text: l}
	}
	r.addLines(lines)
}

// printableASCII reports whether b is all printable ASCII (0x20-0x7e),
// which termsafe leaves as it is and draws one cell a byte. It reads
// eight bytes at a time.
func printableASCII(b []byte) bool {
	const lanes, high = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		del := w ^ (lanes * 0x7f)
		// A byte below 0x20, a byte from 0x80 up, or a 0x7f.
		if (w-lanes*0x20)&^w&high != 0 || w&high != 0 || (del-lanes)&^del&high != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 || b[i] > 0x7e {
			return false
		}
	}
	return true
}

// hardWrap cuts s (already sanitised) into lines of at most w cells,
// keeping its own line breaks. It walks the runes once: a 20 MB frame is
// cut in one pass, not measured line by line.
func hardWrap(s string, w int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		start, width := 0, 0
		for i, c := range para {
			cw := 1
			if c >= 0x1100 {
				cw = ansi.StringWidth(string(c))
			}
			if width+cw > w && i > start {
				out = append(out, para[start:i])
				start, width = i, 0
			}
			width += cw
		}
		out = append(out, para[start:])
	}
	return out
}

var _ Pane = (*Result)(nil)
