package panes

import (
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// ShowFrameMsg asks the root model to put the log's cursor on a frame and
// open it in the detail view (enter on a diagnostic's occurrence).
type ShowFrameMsg struct{ Frame *mcp.Frame }

// Diagnostics is the protocol doctor's pane: the diagnostics of every
// session, grouped by rule (worst severity first) with their counts, each
// rule expandable to its occurrences. Below the list, the selected row is
// explained: what is wrong, why it matters, how to fix it, and the spec.
type Diagnostics struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	groups  []*diagGroup
	byRule  map[string]*diagGroup
	byFrame map[*mcp.Frame][]*mcp.Diagnostic
	counts  [4]int // by mcp.Severity

	// The cursor is a row identity (group, occurrence or -1 for the rule
	// row), so it stays on the same row when groups are added or reordered.
	curGroup *diagGroup
	curOcc   int
	moved    bool // the user moved the cursor; until then it stays on top
	scroll   int  // first explanation line drawn

	// list scrolls the rows (panes/list: cursor, paging, g/G, the wheel,
	// W to wrap, shift+←/→ sideways); flat is its items, made again only
	// when a rule is added, opened or closed.
	list  *list.Model
	flat  []diagRow
	stale bool
}

type diagGroup struct {
	rule string
	sev  mcp.Severity
	occ  []diagOcc
	open bool
}

type diagOcc struct {
	d      *mcp.Diagnostic
	frames []*mcp.Frame // resolved from d.Frames; nil entries for frames not seen
}

// diagRow is one line of the list: a rule (occ == -1) or an occurrence.
type diagRow struct {
	g   *diagGroup
	occ int
}

// NewDiagnostics makes an empty diagnostics pane.
func NewDiagnostics(t *themes.Theme, k keymap.KeyMap) *Diagnostics {
	p := &Diagnostics{theme: t, keys: k, byRule: map[string]*diagGroup{}, byFrame: map[*mcp.Frame][]*mcp.Diagnostic{}, curOcc: -1}
	d := k.Diag
	sc := k.Scroll.ForTree()
	sc.Up, sc.Down, sc.PageUp, sc.PageDown = d.Up, d.Down, d.PageUp, d.PageDown
	p.list = list.New(sc, p.item)
	p.list.SetSelecting(true)
	return p
}

// SetTheme switches the theme.
func (p *Diagnostics) SetTheme(t *themes.Theme) { p.theme = t }

// Add records one diagnostic with the frames it names, as the root model
// resolved them (sequence numbers restart on reconnect; frames do not).
func (p *Diagnostics) Add(d *mcp.Diagnostic, frames []*mcp.Frame) {
	if d == nil {
		return
	}
	g := p.byRule[d.Rule]
	if g == nil {
		g = &diagGroup{rule: d.Rule, sev: d.Severity}
		p.byRule[d.Rule] = g
		// Worst severity first, then in the order rules first fired.
		i := len(p.groups)
		for i > 0 && p.groups[i-1].sev < g.sev {
			i--
		}
		p.groups = append(p.groups, nil)
		copy(p.groups[i+1:], p.groups[i:])
		p.groups[i] = g
		if p.curGroup == nil || !p.moved {
			p.curGroup, p.curOcc = p.groups[0], -1
		}
	}
	g.occ = append(g.occ, diagOcc{d: d, frames: frames})
	p.stale = p.stale || g.open || len(g.occ) == 1
	for _, f := range frames {
		if f != nil {
			p.byFrame[f] = append(p.byFrame[f], d)
		}
	}
	if int(d.Severity) < len(p.counts) {
		p.counts[d.Severity]++
	}
	p.clamp()
}

// Of is the diagnostics that name a frame, in the order they came.
func (p *Diagnostics) Of(f *mcp.Frame) []*mcp.Diagnostic { return p.byFrame[f] }

// Counts is how many errors, warnings and hints there are.
func (p *Diagnostics) Counts() (errors, warnings, hints int) {
	return p.counts[mcp.SeverityError], p.counts[mcp.SeverityWarning], p.counts[mcp.SeverityHint]
}

// Len is the number of diagnostics.
func (p *Diagnostics) Len() int {
	e, w, h := p.Counts()
	return e + w + h
}

// CountText is "3 errors · 2 warnings · 1 hint", or "" when there is none.
func CountText(errors, warnings, hints int) string {
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{errors, "error"}, {warnings, "warning"}, {hints, "hint"}} {
		if c.n > 0 {
			parts = append(parts, plural.S(c.n, c.noun))
		}
	}
	return strings.Join(parts, " · ")
}

// SeverityLetter is the badge letter of a severity: E, W or H.
func SeverityLetter(s mcp.Severity) string {
	switch s {
	case mcp.SeverityError:
		return "E"
	case mcp.SeverityWarning:
		return "W"
	}
	return "H"
}

// SeverityStyle is the theme's badge style of a severity.
func SeverityStyle(t *themes.Theme, s mcp.Severity) lipgloss.Style {
	switch s {
	case mcp.SeverityError:
		return t.Diag.Error
	case mcp.SeverityWarning:
		return t.Diag.Warning
	}
	return t.Diag.Hint
}

// Title names the pane with its counts.
func (p *Diagnostics) Title() string {
	if c := CountText(p.Counts()); c != "" {
		return "Diagnostics · " + c
	}
	return "Diagnostics"
}

func (p *Diagnostics) SetSize(w, h int) {
	p.w, p.h = w, h
	listH, _ := p.layoutRows()
	p.list.SetSize(max(w-2, 0), listH)
	p.clamp()
}

func (p *Diagnostics) Focus() { p.focused = true }
func (p *Diagnostics) Blur()  { p.focused = false }

// rows lists the visible list rows: each rule, and the occurrences of the
// rules that are open. It is made again only when that changed.
func (p *Diagnostics) rows() []diagRow {
	if !p.stale && p.flat != nil {
		return p.flat
	}
	out := make([]diagRow, 0, len(p.groups))
	for _, g := range p.groups {
		out = append(out, diagRow{g: g, occ: -1})
		if g.open {
			for i := range g.occ {
				out = append(out, diagRow{g: g, occ: i})
			}
		}
	}
	p.flat, p.stale = out, false
	p.list.SetLen(len(out))
	return out
}

// cursor is the index of the selected row in rows: where the list's
// cursor is when it is still on that row (every move), else a search.
func (p *Diagnostics) cursor(rows []diagRow) int {
	if c := p.list.Cursor(); c < len(rows) && rows[c].g == p.curGroup && rows[c].occ == p.curOcc {
		return c
	}
	for i, r := range rows {
		if r.g == p.curGroup && r.occ == p.curOcc {
			return i
		}
	}
	return 0
}

// layoutRows splits the inner height between the list and the explanation.
func (p *Diagnostics) layoutRows() (list, explain int) {
	inner := max(p.h-2, 0)
	if inner < 8 {
		return inner, 0
	}
	explain = inner * 45 / 100
	return inner - explain - 1, explain // one row for the rule between them
}

// clamp puts the list's cursor on the selected row (which keeps its
// identity while rules are added, opened and closed).
func (p *Diagnostics) clamp() {
	rows := p.rows()
	if len(rows) == 0 {
		return
	}
	cur := p.cursor(rows)
	p.curGroup, p.curOcc = rows[cur].g, rows[cur].occ
	if p.list.Cursor() != cur {
		p.list.Select(cur)
	}
}

// Update handles the pane's keys and the wheel.
func (p *Diagnostics) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p.handleKey(msg)
	case tea.MouseWheelMsg:
		p.scrolled(msg)
	}
	return nil
}

// scrolled lets the list move for msg, and takes the row it moved to as
// the selected one.
func (p *Diagnostics) scrolled(msg tea.Msg) bool {
	rows := p.rows()
	before := p.list.Cursor()
	if !p.list.Update(msg) {
		return false
	}
	if c := p.list.Cursor(); c != before && c < len(rows) {
		p.moved = true
		p.curGroup, p.curOcc = rows[c].g, rows[c].occ
		p.scroll = 0
	}
	return true
}

func (p *Diagnostics) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.keys.Diag
	g := p.curGroup
	switch {
	case key.Matches(msg, k.ExplainUp):
		p.scroll = max(p.scroll-max(p.explainRows()-1, 1), 0)
	case key.Matches(msg, k.ExplainDown):
		p.scroll += max(p.explainRows()-1, 1)
	case p.scrolled(msg):
	case g == nil:
	case key.Matches(msg, k.Expand):
		g.open, p.stale = true, true
		p.clamp()
	case key.Matches(msg, k.Collapse):
		g.open, p.stale = false, true
		p.curOcc = -1
		p.clamp()
	case key.Matches(msg, k.Open):
		if p.curOcc < 0 {
			g.open, p.stale = !g.open, true
			p.clamp()
			return nil
		}
		if f := g.occ[p.curOcc].firstFrame(); f != nil {
			return func() tea.Msg { return ShowFrameMsg{Frame: f} }
		}
	}
	return nil
}

func (o diagOcc) firstFrame() *mcp.Frame {
	for _, f := range o.frames {
		if f != nil {
			return f
		}
	}
	return nil
}

// Select puts the cursor on the first occurrence of a rule, opening it
// (tests and the log's badge use it).
func (p *Diagnostics) Select(rule string) bool {
	g := p.byRule[rule]
	if g == nil {
		return false
	}
	g.open, p.stale = true, true
	p.curGroup, p.curOcc = g, 0
	p.clamp()
	return true
}

// ShortHelp lists the pane's main keys.
func (p *Diagnostics) ShortHelp() []key.Binding {
	k := p.keys.Diag
	sc := p.list.Keys()
	return enabledIf(p.list.Len() > 0, k.Up, k.Down, k.Open, k.Collapse, k.PageDown, k.ExplainDown, sc.Left, sc.Wrap)
}

// FullHelp lists every key of the pane.
func (p *Diagnostics) FullHelp() [][]key.Binding {
	k := p.keys.Diag
	return helpOnce([]key.Binding{k.Up, k.Down, k.Open, k.Expand, k.Collapse}, p.list.FullHelp(), []key.Binding{k.ExplainUp, k.ExplainDown})
}

// View draws the list and the selected row's explanation in w×h cells.
func (p *Diagnostics) View() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	inner := max(p.w-2, 0)
	t := p.theme
	rows := p.rows()
	if len(rows) == 0 {
		// Folded to the pane, so a narrow terminal reads it whole: the
		// empty pane offers no key to wrap or scroll it.
		body := list.Fold(t.Log.Empty.Render("no diagnostics: nothing wrong seen so far"), inner, 0)
		body = append(body, "")
		body = append(body, list.Fold(t.Detail.Hint.Render("The protocol doctor checks every frame, stderr line and exit as it arrives; what a server gets wrong shows here, and the frame carries an E, W or H badge in the log."), inner, 0)...)
		return Box(t, p.Title(), p.focused, p.w, p.h, body)
	}
	tail := ""
	if pos := p.list.Position(); pos != "" {
		tail = " · " + pos
	}
	title := TitleKeeping(p.Title(), tail, p.w)
	listH, explainH := p.layoutRows()
	p.clamp()
	cur := p.cursor(rows)
	body := make([]string, 0, p.h)
	for _, r := range p.list.RenderRows() {
		text := r.Text
		if r.Item == cur {
			// The selected row's background runs to the edge.
			if gap := inner - ansi.StringWidth(text); gap > 0 {
				text += t.Log.Selected.Render(strings.Repeat(" ", gap))
			}
		}
		body = append(body, text)
	}
	if explainH > 0 {
		for len(body) < listH {
			body = append(body, "")
		}
		body = append(body, t.Detail.Hint.Render(strings.Repeat("─", inner)))
		lines := p.explain(rows[cur], inner)
		p.scroll = min(p.scroll, max(len(lines)-explainH, 0))
		for i := p.scroll; i < len(lines) && i < p.scroll+explainH; i++ {
			body = append(body, lines[i])
		}
	}
	return Box(t, title, p.focused, p.w, p.h, body)
}

func (p *Diagnostics) explainRows() int {
	_, e := p.layoutRows()
	return e
}

// item is row i of the list, whole (the list cuts it or scrolls it).
func (p *Diagnostics) item(i int) string {
	return p.renderRow(p.flat[i], math.MaxInt32, i == p.list.Cursor())
}

// renderRow draws a row in at most w cells, each segment cut on its own.
func (p *Diagnostics) renderRow(r diagRow, w int, selected bool) string {
	t := p.theme
	var segs []segment
	g := r.g
	if r.occ < 0 {
		arrow := "▸"
		if g.open {
			arrow = "▾"
		}
		segs = []segment{
			{text: arrow, style: t.Log.Time},
			{text: SeverityLetter(g.sev), style: SeverityStyle(t, g.sev)},
			{text: fmt.Sprintf("%3d×", len(g.occ)), style: t.Caps.Count},
			{text: termsafe.String(g.rule), style: t.Diag.Rule},
			{text: termsafe.String(g.occ[0].d.Message), style: t.Tools.Description},
		}
	} else {
		o := g.occ[r.occ]
		where := "no frame"
		st := t.Log.Time
		if f := o.firstFrame(); f != nil {
			where = fmt.Sprintf("#%d %s %s", f.Seq, f.Dir.Arrow(), termsafe.String(f.Label()))
			st = t.Log.Incoming
			if f.Dir == mcp.Outbound {
				st = t.Log.Outgoing
			}
		}
		segs = []segment{
			{text: "   ", style: lipgloss.NewStyle()},
			{text: where, style: st},
			{text: termsafe.String(o.d.Message), style: t.Log.Method},
		}
	}
	var b strings.Builder
	left := w
	sel := t.Log.Selected
	for i, s := range segs {
		if left <= 0 {
			break
		}
		text := s.text
		if i > 0 {
			text = " " + text
		}
		if ansi.StringWidth(text) > left {
			text = ansi.Truncate(text, left, "…")
		}
		left -= ansi.StringWidth(text)
		st := s.style
		if selected {
			st = st.Inherit(sel)
		}
		b.WriteString(st.Render(text))
	}
	if selected && left > 0 && w < math.MaxInt32 {
		b.WriteString(sel.Render(strings.Repeat(" ", left)))
	}
	return b.String()
}

// explain is the selected row's explanation, wrapped to w: the message,
// the frames, why it matters, how to fix it, and the spec reference.
func (p *Diagnostics) explain(r diagRow, w int) []string {
	o := r.g.occ[0]
	if r.occ >= 0 {
		o = r.g.occ[r.occ]
	}
	t := p.theme
	d := o.d
	lines := []string{SeverityStyle(t, d.Severity).Render(SeverityLetter(d.Severity)) + " " +
		t.Diag.Rule.Render(termsafe.String(d.Rule)) + t.Detail.Label.Render(" · "+d.Severity.String())}
	lines = append(lines, wrapText(termsafe.String(d.Message), w, t.Detail.Value)...)
	if len(d.Frames) > 0 {
		var fs []string
		for i, seq := range d.Frames {
			s := fmt.Sprintf("#%d", seq)
			if i < len(o.frames) && o.frames[i] == nil {
				s += " (not in this session)"
			}
			fs = append(fs, s)
		}
		lines = append(lines, t.Diag.Label.Render("frames ")+t.Detail.Value.Render(strings.Join(fs, " ")))
	} else {
		lines = append(lines, t.Diag.Label.Render("frames ")+t.Detail.Hint.Render("none (stderr, exit or transport)"))
	}
	return append(lines, ExplainLines(t, d, w)...)
}

// ExplainLines are the "why", "fix" and "spec" paragraphs of a diagnostic,
// wrapped to w. The detail view shows them too.
func ExplainLines(t *themes.Theme, d *mcp.Diagnostic, w int) []string {
	var lines []string
	for _, part := range []struct{ label, text string }{{"why", d.Why}, {"fix", d.Fix}, {"spec", d.SpecRef}} {
		if part.text == "" {
			continue
		}
		label := fmt.Sprintf("%-5s", part.label)
		wrapped := wrapText(termsafe.String(part.text), max(w-5, 10), t.Detail.Value)
		for i, l := range wrapped {
			if i == 0 {
				lines = append(lines, t.Diag.Label.Render(label)+l)
			} else {
				lines = append(lines, "     "+l)
			}
		}
	}
	return lines
}

// wrapText word-wraps plain (already sanitised) text to w cells and styles
// each line.
func wrapText(s string, w int, st lipgloss.Style) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(ansi.Wrap(s, w, ""), "\n") {
		out = append(out, st.Render(para))
	}
	return out
}

var _ Pane = (*Diagnostics)(nil)

// Rules lists the rule ids in the pane's order.
func (p *Diagnostics) Rules() []string {
	out := make([]string, len(p.groups))
	for i, g := range p.groups {
		out[i] = g.rule
	}
	return out
}
