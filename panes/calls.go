package panes

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// CallState is how a saved call last went.
type CallState uint8

// The states of a saved call.
const (
	CallNotRun CallState = iota
	CallRunning
	CallPassed
	CallFailed
)

// SavedCall is one call of the calls file as the panes show it: what it
// sends, what it expects, and how it last went.
type SavedCall struct {
	Name    string
	Method  string
	Subject string          // the tool, URI or prompt it names, "" when none
	Tool    string          // the tool of a tools/call
	Args    json.RawMessage // a tools/call's arguments
	Params  string          // the params as sent, one line
	Expects []string        // what the answer must be, one line each
	Where   string          // FILE:LINE
	State   CallState
	Took    string
	// Failures say why the last run failed, one line each; Reason is the
	// first.
	Failures []string
	// Stale says why the call may no longer fit the server (its tool is
	// gone, its arguments are refused): the call is kept and marked.
	Stale string
	// OtherServer is the server the call was saved for, when it is not
	// this one: it is listed apart, after this server's calls, not as
	// lost.
	OtherServer string
}

// Reason is why the call last failed, "" when it did not.
func (c SavedCall) Reason() string {
	if len(c.Failures) == 0 {
		return ""
	}
	return c.Failures[0]
}

// RunCallsMsg asks the root model to run saved calls in order and check
// their answers; no names runs every call of the file.
type RunCallsMsg struct{ Names []string }

// NoteMsg asks the root model to say something on the status line: the
// answer to a key that could not do what it does.
type NoteMsg struct {
	Text string
	OK   bool
}

// LoadCallMsg asks the root model to put a saved call's arguments into its
// tool's form, as a draft.
type LoadCallMsg struct{ Name string }

// callMark is a saved call's state as a glyph, styled.
func callMark(t *themes.Theme, c SavedCall) string {
	switch {
	case c.State == CallRunning:
		return t.Status.Info.Render("…")
	case c.State == CallPassed:
		return t.Status.OK.Render("✓")
	case c.State == CallFailed:
		return t.Status.Error.Render("✗")
	case c.Stale != "":
		return t.Form.Warn.Render("⚠")
	}
	return t.Caps.Missing.Render("·")
}

// callStateText says how a call last went, in words.
func callStateText(c SavedCall) string {
	switch c.State {
	case CallRunning:
		return "running…"
	case CallPassed:
		return "passed in " + c.Took
	case CallFailed:
		return "failed in " + c.Took
	}
	return "not run yet"
}

// savedCallDetails are a saved call's details as lines (folded when drawn).
func savedCallDetails(t *themes.Theme, k keymap.KeyMap, c SavedCall) []detailLine {
	label, value := t.Detail.Label, t.Detail.Value
	var out []detailLine
	field := func(name, v string) {
		out = append(out, detailLine{text: label.Render(fmt.Sprintf("%-8s", name)) + value.Render(termsafe.String(v)), hang: 8})
	}
	out = append(out, detailLine{text: t.Detail.Title.Render("Saved call ") + t.Tools.Name.Render(termsafe.String(c.Name)), hang: 2})
	field("sends", strings.TrimSpace(c.Method+" "+c.Params))
	for i, e := range c.Expects {
		name := ""
		if i == 0 {
			name = "expects"
		}
		field(name, e)
	}
	if c.Where != "" {
		field("saved", c.Where)
	}
	if c.OtherServer != "" {
		field("server", fmt.Sprintf("saved for %q, not this server (%s runs it here anyway)", c.OtherServer, k.Calls.Run.Help().Key))
	}
	state := callStateText(c)
	if c.State == CallNotRun {
		state += " (" + k.Calls.Run.Help().Key + " runs it)"
	}
	out = append(out, detailLine{text: label.Render(fmt.Sprintf("%-8s", "last")) + callMark(t, c) + " " + value.Render(state), hang: 8})
	for _, f := range c.Failures {
		out = append(out, detailLine{text: "  " + t.Detail.Problem.Render("✗ ") + value.Render(termsafe.String(f)), hang: 4})
	}
	if c.Stale != "" {
		out = append(out, detailLine{text: t.Form.Warn.Render("⚠ " + termsafe.String(c.Stale)), hang: 2})
	}
	return out
}

// Calls lists every saved call of the calls file with how it last went,
// and the selected call's details under the list: what it sends, what it
// expects, and why it failed. enter loads a tool call into its form, t
// runs the selected call, T every call.
type Calls struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	file    string // the calls file's path
	problem string // why it could not be read, "" when it could
	calls   []SavedCall
	note    string // the answer to the last key that did nothing

	list        *list.Model
	details     *list.Model
	detailLines []detailLine
	folds       map[int]string
	foldW       int
}

// NewCalls makes the list of saved calls.
func NewCalls(t *themes.Theme, k keymap.KeyMap) *Calls {
	p := &Calls{theme: t, keys: k}
	// The details take ctrl+u and ctrl+d first (as in the tools pane),
	// so the list pages with pgup and pgdn.
	sc := k.Scroll
	sc.Up, sc.Down = k.Calls.Up, k.Calls.Down
	sc.Left, sc.Right, sc.Wrap = key.Binding{}, key.Binding{}, key.Binding{}
	p.list = list.New(sc, p.row)
	p.list.SetSelecting(true)
	// Wrapping only to let the first call of other servers carry the
	// section's rule above it (rows are cut to the width, never folded).
	p.list.SetWrap(true)
	p.list.SetWrapFunc(p.foldRow)
	p.details = list.New(detailKeys(k), func(i int) string { return p.detailLines[i].text })
	p.details.SetWrapFunc(p.fold)
	p.details.SetWrap(true)
	return p
}

// SetTheme switches the theme.
func (p *Calls) SetTheme(t *themes.Theme) {
	p.theme = t
	p.syncDetails()
}

// SetCalls replaces what is shown: the file's path, why it could not be
// read ("" when it could), and its calls. The cursor stays on the call of
// the same name, unless it went to the other servers' calls (the server
// became known): it stays in this server's.
func (p *Calls) SetCalls(file, problem string, calls []SavedCall) {
	selected, had := p.Selected()
	p.file, p.problem, p.calls = file, problem, calls
	p.list.SetLen(len(calls))
	if had {
		for i, c := range calls {
			if c.Name == selected.Name && (c.OtherServer == "" || selected.OtherServer != "") {
				p.list.Select(i)
			}
		}
	}
	p.resize() // the split follows the number of calls
}

// Selected is the call under the cursor.
func (p *Calls) Selected() (SavedCall, bool) {
	i := p.list.Cursor()
	if i < 0 || i >= len(p.calls) {
		return SavedCall{}, false
	}
	return p.calls[i], true
}

// Select puts the cursor on the call called name.
func (p *Calls) Select(name string) {
	for i, c := range p.calls {
		if c.Name == name {
			p.list.Select(i)
			p.syncDetails()
		}
	}
}

func (p *Calls) Title() string {
	passed, failed := 0, 0
	for _, c := range p.calls {
		switch c.State {
		case CallPassed:
			passed++
		case CallFailed:
			failed++
		}
	}
	others := p.others()
	t := fmt.Sprintf("Saved calls · %d", len(p.calls)-others)
	if passed+failed > 0 {
		t += fmt.Sprintf(" · %d passed, %d failed", passed, failed)
	}
	if others > 0 {
		t += fmt.Sprintf(" · %d for other servers", others)
	}
	return t
}

// others counts the calls saved for other servers (listed last).
func (p *Calls) others() int {
	n := 0
	for _, c := range p.calls {
		if c.OtherServer != "" {
			n++
		}
	}
	return n
}

func (p *Calls) SetSize(w, h int) {
	p.w, p.h = w, h
	p.resize()
}

func (p *Calls) Focus() { p.focused = true }
func (p *Calls) Blur()  { p.focused = false }

// layout: the file line, the list, a rule, the details.
func (p *Calls) layout() (listRows, detailRows int) {
	inner := max(p.h-3, 0) // the border, and the file line
	if len(p.calls) == 0 {
		return 0, 0
	}
	if inner < 5 {
		return inner, 0
	}
	// The details say why a call failed: they keep at least two rows.
	rows := len(p.calls)
	if p.others() > 0 {
		rows++ // the other servers' section's rule
	}
	listRows = min(rows, max(2, inner/2))
	return listRows, inner - listRows - 1
}

func (p *Calls) resize() {
	listRows, detailRows := p.layout()
	p.list.SetSize(max(p.w-2, 0), listRows)
	p.details.SetSize(max(p.w-2, 0), detailRows)
	p.syncDetails()
}

func (p *Calls) syncDetails() {
	c, ok := p.Selected()
	if !ok {
		p.detailLines = nil
		p.details.SetLen(0)
		return
	}
	p.detailLines = savedCallDetails(p.theme, p.keys, c)
	p.folds = nil
	p.details.SetLen(len(p.detailLines))
}

func (p *Calls) fold(i, width int) string {
	return foldCached(&p.folds, &p.foldW, p.detailLines, i, width)
}

// foldRow is a call's row, with the rule that opens the section of the
// other servers' calls above the first of them.
func (p *Calls) foldRow(i, width int) string {
	row := p.row(i)
	if p.calls[i].OtherServer == "" || (i > 0 && p.calls[i-1].OtherServer != "") {
		return row
	}
	t := p.theme
	label := "── saved for other servers "
	return t.Caps.Missing.Render(Fit(label+strings.Repeat("─", max(width-len([]rune(label)), 0)), width)) + "\n" + row
}

// row draws one call: its state, its name, what it sends to, and why it
// failed when it did.
func (p *Calls) row(i int) string {
	c := p.calls[i]
	t := p.theme
	w := p.list.Width()
	mark := "  "
	if i == p.list.Cursor() {
		mark = "▸ "
	}
	s := mark + callMark(t, c) + " " + t.Tools.Name.Render(termsafe.String(c.Name)) + "  " +
		t.Tools.Title.Render(termsafe.String(strings.TrimSpace(c.Method+" "+c.Subject)))
	switch {
	case c.State == CallFailed && c.Reason() != "":
		s += "  " + t.Detail.Problem.Render(termsafe.String(c.Reason()))
	case c.State == CallPassed:
		s += "  " + t.Log.Latency.Render(c.Took)
	case c.Stale != "":
		s += "  " + t.Form.Warn.Render(termsafe.String(c.Stale))
	case c.OtherServer != "":
		s += "  " + t.Caps.Missing.Render("for "+termsafe.String(c.OtherServer))
	}
	s = Fit(s, w)
	if i == p.list.Cursor() {
		st := t.Tools.Selected
		if !p.focused && !t.Plain {
			st = st.Faint(true)
		}
		s = highlightRow(st, s)
	}
	return s
}

func (p *Calls) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if p.list.Update(msg) {
			p.syncDetails()
		}
		return nil
	}
	k := p.keys.Calls
	p.note = ""
	switch {
	case key.Matches(km, k.Close):
		return func() tea.Msg { return CloseMsg{} }
	case key.Matches(km, k.RunAll):
		if len(p.calls) == 0 {
			return nil
		}
		return func() tea.Msg { return RunCallsMsg{} }
	case key.Matches(km, k.Run):
		if c, ok := p.Selected(); ok {
			return func() tea.Msg { return RunCallsMsg{Names: []string{c.Name}} }
		}
		return nil
	case key.Matches(km, k.Load):
		c, ok := p.Selected()
		switch {
		case !ok:
		case c.Tool == "":
			p.note = c.Method + " has no form: " + k.Run.Help().Key + " runs it as saved"
		default:
			return func() tea.Msg { return LoadCallMsg{Name: c.Name} }
		}
		return nil
	}
	if p.details.Rows() > 0 && p.details.Update(km) {
		return nil
	}
	if p.list.Update(km) {
		p.syncDetails()
	}
	return nil
}

func (p *Calls) ShortHelp() []key.Binding {
	k := p.keys.Calls
	if len(p.calls) == 0 {
		return []key.Binding{k.Close}
	}
	load := k.Load
	c, _ := p.Selected()
	load.SetEnabled(c.Tool != "")
	return []key.Binding{k.Up, k.Down, load, k.Run, k.RunAll, p.keys.Tools.ScrollDown, k.Close}
}

func (p *Calls) FullHelp() [][]key.Binding {
	k, sc := p.keys.Calls, p.keys.Scroll
	return [][]key.Binding{
		{k.Up, k.Down, sc.Top, sc.Bottom},
		{p.keys.Tools.ScrollUp, p.keys.Tools.ScrollDown, p.keys.Tools.DetailUp, p.keys.Tools.DetailDown, sc.Wrap},
		{k.Load, k.Run, k.RunAll, k.Close},
	}
}

// head is the line above the list, folded to width: the file, or a note
// or the file's problem in its place.
func (p *Calls) head(width int) []string {
	t := p.theme
	head := t.Detail.Label.Render(termsafe.String(p.file))
	switch {
	case p.note != "":
		head = t.Form.Warn.Render(termsafe.String(p.note))
	case p.problem != "":
		head = t.Detail.Problem.Render(termsafe.String(p.problem))
	}
	return foldLine(head, width, 2)
}

// ClickRow selects the call drawn on row y of the pane (0 is the top
// border), as the keys would.
func (p *Calls) ClickRow(y int) {
	if i := p.list.ItemAt(y - 1 - len(p.head(max(p.w-2, 0)))); i >= 0 {
		p.list.Select(i)
		p.syncDetails()
	}
}

// View draws the file line, the list and the selected call's details.
func (p *Calls) View() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	t := p.theme
	inner := max(p.w-2, 0)
	body := p.head(inner)
	if len(p.calls) == 0 && p.problem == "" {
		body = append(body, t.Log.Empty.Render("no saved calls yet: "+p.keys.Calls.Save.Help().Key+" on a tool's result saves the call"))
	}
	listRows, detailRows := p.layout()
	if over := len(body) - 1; over > 0 {
		// A long problem takes rows from the details, then the list.
		cut := min(over, detailRows)
		detailRows -= cut
		listRows = max(listRows-(over-cut), 0)
		p.list.SetSize(inner, listRows)
		p.details.SetSize(inner, detailRows)
	}
	if listRows > 0 {
		body = append(body, p.list.Render()...)
		for len(body) < 1+listRows {
			body = append(body, "")
		}
	}
	if detailRows > 0 {
		body = append(body, t.Caps.Missing.Render(strings.Repeat("─", inner)))
		body = append(body, p.details.Render()...)
	}
	title := p.Title()
	tail := ""
	if p.list.Len() > 0 && !(p.list.Top() == 0 && p.list.AtBottom()) {
		// The list wraps only to draw the section's rule: not worth a word.
		tail = " · " + strings.TrimSuffix(p.list.Position(), " · wrap")
	}
	return Box(t, TitleKeeping(title, tail, p.w), p.focused, p.w, p.h, body)
}

var _ Pane = (*Calls)(nil)
