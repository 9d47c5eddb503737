package panes

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// syncFormatLimit is the largest frame formatted on the UI goroutine when
// it opens. Bigger frames are pretty-printed by a Cmd, so a 20 MB result
// opens at once and fills in when ready.
const syncFormatLimit = 256 << 10

// maxLineBytes bounds how much of one line is sanitised and highlighted: a
// 20 MB base64 string is one JSON line, and only its first screenful of
// characters can ever be seen.
const maxLineBytes = 4096

// detailLinesMsg carries the lines of a frame formatted off the UI goroutine.
type detailLinesMsg struct {
	frame  *mcp.Frame
	pretty []string
	ok     bool // the frame was JSON and pretty-printed
}

// Detail shows one frame: a summary, the pretty-printed and highlighted
// JSON (or the raw bytes), the paired request or response one key away.
type Detail struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	frame  *mcp.Frame
	pairOf func(*mcp.Frame) *mcp.Frame
	// previewable says whether the preview key applies to a frame (a
	// tools/call, or its answer, of a tool that names a view); the root
	// handles the key, the detail only offers it in its help.
	previewable func(*mcp.Frame) bool
	// diagsOf lists a frame's diagnostics; they are explained above the
	// frame's body. diagCache holds their lines for one frame and width.
	diagsOf   func(*mcp.Frame) []*mcp.Diagnostic
	diagCache []string
	diagKey   [3]int // width, count, and whether the cache is set

	pretty    []string // pretty-printed lines (not sanitised, not styled)
	prettyOK  bool
	rawLines  []string // raw bytes cut into lines of the current width
	rawWidth  int
	formatted bool // pretty is ready
	showRaw   bool
	// body scrolls the diagnostics and the frame's lines (panes/list):
	// paging, g/G, the wheel, W to wrap long lines, ←/→ to scroll them.
	body *list.Model

	// highlighted caches styled lines of the current frame and mode by line
	// number; it is bounded (reset when large) and dropped on any change.
	highlighted map[int]string
	note        string // a passing message, e.g. "copied 120 bytes"
}

// NewDetail makes an empty detail view. pairOf finds a frame's paired
// request or response (the log knows).
func NewDetail(t *themes.Theme, k keymap.KeyMap, pairOf func(*mcp.Frame) *mcp.Frame) *Detail {
	d := &Detail{theme: t, keys: k, pairOf: pairOf, highlighted: map[int]string{}}
	kd := k.Detail
	d.body = list.New(keymap.Scroll{Up: kd.Up, Down: kd.Down, PageUp: kd.PageUp, PageDown: kd.PageDown,
		Top: kd.Top, Bottom: kd.Bottom, Left: k.Scroll.Left, Right: k.Scroll.Right, Wrap: k.Scroll.Wrap}, d.bodyLine)
	return d
}

// SetTheme switches the theme.
func (d *Detail) SetTheme(t *themes.Theme) {
	d.theme = t
	d.diagKey = [3]int{}
	d.highlighted = map[int]string{}
}

// SetDiagnostics sets where the detail finds a frame's diagnostics.
func (d *Detail) SetDiagnostics(of func(*mcp.Frame) []*mcp.Diagnostic) { d.diagsOf = of }

// SetPreviewable sets which frames offer the preview key.
func (d *Detail) SetPreviewable(of func(*mcp.Frame) bool) { d.previewable = of }

// diagLines explains the frame's diagnostics: for each, the message, why
// it matters, how to fix it and the spec reference.
func (d *Detail) diagLines() []string {
	if d.diagsOf == nil || d.frame == nil {
		return nil
	}
	ds := d.diagsOf(d.frame)
	w := max(d.w-2, 1)
	if key := [3]int{w, len(ds), 1}; key == d.diagKey {
		return d.diagCache
	}
	d.diagKey = [3]int{w, len(ds), 1}
	d.diagCache = nil
	for _, dg := range ds {
		d.diagCache = append(d.diagCache,
			SeverityStyle(d.theme, dg.Severity).Render(SeverityLetter(dg.Severity))+" "+
				d.theme.Diag.Rule.Render(termsafe.String(dg.Rule))+d.theme.Detail.Label.Render(" · "+dg.Severity.String()))
		d.diagCache = append(d.diagCache, wrapText(termsafe.String(dg.Message), w, d.theme.Detail.Value)...)
		d.diagCache = append(d.diagCache, ExplainLines(d.theme, dg, w)...)
		d.diagCache = append(d.diagCache, "")
	}
	return d.diagCache
}

// Frame is the frame shown, or nil.
func (d *Detail) Frame() *mcp.Frame { return d.frame }

// Title names the pane after the frame.
func (d *Detail) Title() string {
	if d.frame == nil {
		return "Frame"
	}
	mode := "pretty"
	if d.showing() == nil {
		mode = "raw"
	}
	t := fmt.Sprintf("Frame #%d · %s", d.frame.Seq, mode)
	if p := d.body.Position(); p != "" {
		t += " · " + p
	}
	if d.note != "" {
		t += " · " + d.note
	}
	return t
}

func (d *Detail) SetSize(w, h int) {
	if w != d.w {
		d.rawLines = nil
		d.highlighted = map[int]string{}
	}
	d.w, d.h = w, h
	d.clamp()
}

func (d *Detail) Focus() { d.focused = true }
func (d *Detail) Blur()  { d.focused = false }

// SetFrame shows a frame. Small frames are formatted at once; big ones by
// the returned Cmd, while the view shows the raw bytes (cheap: only the
// visible slice is drawn) with a note.
func (d *Detail) SetFrame(f *mcp.Frame) tea.Cmd {
	d.frame = f
	d.pretty, d.prettyOK, d.formatted = nil, false, false
	d.rawLines, d.rawWidth = nil, 0
	d.body.Reset()
	d.note = ""
	d.highlighted = map[int]string{}
	d.diagKey = [3]int{}
	d.showRaw = f != nil && f.Kind == mcp.KindInvalid
	if f == nil {
		return nil
	}
	if len(f.Raw) <= syncFormatLimit {
		d.applyLines(formatFrame(f))
		return nil
	}
	return func() tea.Msg { return formatFrame(f) }
}

func formatFrame(f *mcp.Frame) detailLinesMsg {
	// jsonview.Indent caps the indentation: a frame nested thousands deep
	// costs what its bytes do, not their square.
	if !jsonview.Valid(f.Raw) {
		return detailLinesMsg{frame: f}
	}
	pretty := jsonview.Indent(make([]byte, 0, len(f.Raw)+len(f.Raw)/4), f.Raw, "  ")
	return detailLinesMsg{frame: f, pretty: strings.Split(string(pretty), "\n"), ok: true}
}

func (d *Detail) applyLines(msg detailLinesMsg) {
	if msg.frame != d.frame {
		return // the user moved on before formatting finished
	}
	d.pretty, d.prettyOK, d.formatted = msg.pretty, msg.ok, true
	d.highlighted = map[int]string{}
	d.clamp()
}

// showing is the pretty lines when they are what is on screen, else nil.
func (d *Detail) showing() []string {
	if d.showRaw || !d.formatted || !d.prettyOK {
		return nil
	}
	return d.pretty
}

// header is the summary above the body.
func (d *Detail) header() []string {
	f := d.frame
	t := d.theme.Detail
	lbl := func(s string) string { return t.Label.Render(s) }
	val := func(s string) string { return t.Value.Render(termsafe.String(s)) }
	// What the frame is in words: a kind and its label once each ("←
	// invalid invalid" said one thing twice), and an id only when it has one.
	what := f.Kind.String() + " " + f.Label()
	switch f.Kind {
	case mcp.KindInvalid:
		what = "not a JSON-RPC message"
	case mcp.KindBatch:
		what = "batch"
	}
	line1 := val(f.Dir.Arrow()) + " " + val(what)
	if id := f.ID.String(); id != "" {
		line1 += "  " + lbl("id") + " " + val(id)
	}
	line1 += fmt.Sprintf("  %s %s  %s %s", lbl("size"), val(fmtSize(f.Size())), lbl("at"), val(f.Time.Format("15:04:05.000")))
	if f.Latency > 0 {
		line1 += "  " + lbl("latency") + " " + val(fmtLatency(f.Latency))
	}
	lines := []string{line1}
	if f.Stream != "" {
		lines = append(lines, lbl("stream ")+val(f.Stream))
	}
	var flags []string
	if f.Probe {
		flags = append(flags, "probe")
	}
	if f.ByTap {
		flags = append(flags, "written by the tap itself, not by the client or the server")
	}
	if f.UnknownID {
		flags = append(flags, "unknown id")
	}
	if f.Duplicate {
		flags = append(flags, "duplicate response")
	}
	if f.BatchSeq != 0 {
		flags = append(flags, fmt.Sprintf("element of batch #%d", f.BatchSeq))
	}
	if len(flags) > 0 {
		lines = append(lines, lbl("flags ")+val(strings.Join(flags, ", ")))
	}
	if d.diagsOf != nil {
		if n := len(d.diagsOf(f)); n > 0 {
			lines = append(lines, t.Problem.Render("the doctor found "+plural.Of(n, "problem", "problems")+" in this frame")+t.Hint.Render(": explained below, before the frame itself"))
		}
	}
	if f.Kind == mcp.KindErrorResponse {
		lines = append(lines, t.Problem.Render(fmt.Sprintf("server error %d: ", f.ErrorCode))+val(f.ErrorMessage))
	}
	if f.Problem != "" {
		lines = append(lines, t.Problem.Render("problem: ")+val(f.Problem))
	}
	if p := d.paired(); p != nil {
		lines = append(lines, lbl("paired ")+val(fmt.Sprintf("#%d %s %s %s", p.Seq, p.Dir.Arrow(), p.Kind, p.Label()))+t.Hint.Render("  (p to open)"))
	} else if f.Kind == mcp.KindRequest {
		lines = append(lines, lbl("paired ")+t.Hint.Render("no response yet"))
	}
	if len(f.Raw) > syncFormatLimit && !d.formatted {
		lines = append(lines, t.Hint.Render("formatting a large frame… showing raw bytes meanwhile"))
	} else if !d.showRaw && d.formatted && !d.prettyOK {
		lines = append(lines, t.Hint.Render("not JSON: showing raw bytes"))
	}
	return append(lines, t.Hint.Render(strings.Repeat("─", max(d.w-2, 0))))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func (d *Detail) paired() *mcp.Frame {
	if d.pairOf == nil || d.frame == nil {
		return nil
	}
	return d.pairOf(d.frame)
}

// bodyRows is the number of body lines that fit under the header.
func (d *Detail) bodyRows() int {
	if d.frame == nil {
		return max(d.h-2, 0)
	}
	return max(d.h-2-len(d.header()), 0)
}

// lineCount is the number of body lines in the current mode.
func (d *Detail) lineCount() int {
	if d.frame == nil {
		return 0
	}
	return len(d.diagLines()) + d.contentCount()
}

// contentCount is the number of lines of the frame itself.
func (d *Detail) contentCount() int {
	if p := d.showing(); p != nil {
		return len(p)
	}
	if d.bigRaw() {
		inner := max(d.w-2, 1)
		return (len(d.frame.Raw) + inner - 1) / inner
	}
	return len(d.raw())
}

// bigRaw reports whether the raw view cuts the bytes by offset rather
// than wrapping the sanitised text: for a 20 MB frame that pass alone
// would stall the first draw. Valid JSON holds no control characters, so
// the two agree on every well-formed frame; where an escape widens a line,
// Fit cuts it with an ellipsis.
func (d *Detail) bigRaw() bool { return len(d.frame.Raw) > syncFormatLimit }

// rawChunk is line i of a big frame's raw view: about one inner width of
// bytes, both ends moved forward to a rune start.
func (d *Detail) rawChunk(i int) string {
	inner := max(d.w-2, 1)
	raw := d.frame.Raw
	align := func(off int) int {
		off = min(off, len(raw))
		for off < len(raw) && off > 0 && !utf8.RuneStart(raw[off]) {
			off++
		}
		return off
	}
	return string(raw[align(i*inner):align((i+1)*inner)])
}

// line is body line i in the current mode.
func (d *Detail) line(i int, pretty []string) string {
	switch {
	case pretty != nil:
		return pretty[i]
	case d.bigRaw():
		return d.rawChunk(i)
	}
	return d.raw()[i]
}

// raw cuts the raw bytes, sanitised, into lines of the inner width. It is
// computed once per frame and width, and only when the raw view is shown.
func (d *Detail) raw() []string {
	inner := max(d.w-2, 1)
	if d.rawLines != nil && d.rawWidth == inner {
		return d.rawLines
	}
	d.rawWidth = inner
	d.rawLines = wrapRunes(termsafe.String(string(d.frame.Raw)), inner)
	return d.rawLines
}

// wrapRunes cuts s into lines of at most w runes. The sanitised raw text is
// single-width except for wide characters, which Fit trims.
func wrapRunes(s string, w int) []string {
	lines := make([]string, 0, len(s)/w+1)
	for len(s) > 0 {
		i, n := 0, 0
		for i < len(s) && n < w {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	if len(lines) == 0 {
		lines = append(lines, "")
	}
	return lines
}

// clamp tells the body list its size and length, which follow the frame,
// the mode, the width and the diagnostics that arrive after the frame.
func (d *Detail) clamp() {
	d.body.SetSize(max(d.w-2, 0), d.bodyRows())
	d.body.SetLen(d.lineCount())
}

// bodyLine is body line i: a diagnostic's line, or the frame's line
// sanitised and highlighted (cached by line number).
func (d *Detail) bodyLine(i int) string {
	diags := d.diagLines()
	if i < len(diags) {
		return diags[i]
	}
	i -= len(diags)
	if s, ok := d.highlighted[i]; ok {
		return s
	}
	if len(d.highlighted) > 4096 {
		d.highlighted = map[int]string{}
	}
	pretty := d.showing()
	s := d.renderLine(d.line(i, pretty), pretty != nil)
	d.highlighted[i] = s
	return s
}

// Update handles the detail's keys and its formatting result.
func (d *Detail) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case detailLinesMsg:
		d.applyLines(msg)
	case tea.KeyPressMsg:
		return d.handleKey(msg)
	case tea.MouseWheelMsg:
		d.clamp()
		d.body.Update(msg)
	}
	return nil
}

func (d *Detail) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if d.frame == nil {
		if key.Matches(msg, d.keys.Detail.Close) {
			return func() tea.Msg { return CloseMsg{} }
		}
		return nil
	}
	k := d.keys.Detail
	d.clamp()
	if d.body.Update(msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.ToggleRaw):
		d.showRaw = !d.showRaw
		d.highlighted = map[int]string{}
		d.body.Reset()
		d.clamp()
	case key.Matches(msg, k.Paired):
		if p := d.paired(); p != nil {
			return d.SetFrame(p)
		}
		d.note = "no paired frame"
	case key.Matches(msg, k.Copy):
		return d.copy()
	case key.Matches(msg, k.Close):
		return func() tea.Msg { return CloseMsg{} }
	}
	return nil
}

// copy asks the root to put what is shown on the clipboard (by OSC 52, or
// where it arrives in a tmux that swallows OSC 52: mcp/lib/clipboard), and
// to say where.
func (d *Detail) copy() tea.Cmd {
	text, what := string(d.frame.Raw), fmt.Sprintf("frame #%d", d.frame.Seq)
	if p := d.showing(); p != nil {
		text = strings.Join(p, "\n")
	}
	d.note = fmt.Sprintf("copied %s", fmtSize(len(text)))
	msg := CopyMsg{What: what, Text: text}
	return func() tea.Msg { return msg }
}

// ShortHelp lists the detail's main keys.
func (d *Detail) ShortHelp() []key.Binding {
	k := d.keys.Detail
	b := []key.Binding{k.Up, k.Down, k.PageDown, d.keys.Scroll.Left, d.keys.Scroll.Wrap, k.ToggleRaw, k.Paired, k.Copy}
	if d.frame != nil && d.previewable != nil && d.previewable(d.frame) {
		b = append(b, k.Preview)
	}
	return append(b, k.Close)
}

// FullHelp lists every detail key.
func (d *Detail) FullHelp() [][]key.Binding {
	k := d.keys.Detail
	return [][]key.Binding{d.body.FullHelp(), {k.ToggleRaw, k.Paired, k.Copy, k.Preview, k.Close}}
}

// View draws the header and the visible body lines only; each visible line
// is sanitised and highlighted once and cached.
func (d *Detail) View() string {
	if d.w <= 0 || d.h <= 0 {
		return ""
	}
	if d.frame == nil {
		return Box(d.theme, d.Title(), d.focused, d.w, d.h, []string{d.theme.Detail.Hint.Render("no frame selected")})
	}
	body := d.header()
	d.clamp()
	body = append(body, d.body.Render()...)
	return Box(d.theme, d.Title(), d.focused, d.w, d.h, body)
}

// renderLine sanitises a line (server data never reaches the terminal raw)
// and, for JSON, highlights it with the theme's chroma style.
func (d *Detail) renderLine(line string, isJSON bool) string {
	if len(line) > maxLineBytes {
		cut := maxLineBytes
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + "…"
	}
	line = termsafe.String(line)
	if !isJSON {
		return d.theme.Detail.Raw.Render(line)
	}
	return colorJSON(d.theme, line)
}

var _ Pane = (*Detail)(nil)
var _ Pane = (*Log)(nil)
