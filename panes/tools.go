package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/form"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
	"github.com/sahilm/fuzzy"
)

// Tools lists the server's tools with their annotations, filters them
// fuzzily, shows the selected tool's description and schemas, and hosts
// the JSON arguments editor (enter) that sends a tools/call.
//
// The editor lives inside the pane rather than in a modal so that the ui
// needs no extra wiring: while Editing() the pane captures every key, and
// the root may give the pane more room.
type Tools struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	tools  []mcp.Tool
	loaded bool // SetTools was called: an empty list is the server's answer
	// gate is set when the server did not declare tools: the pane says so
	// (instead of waiting for a list a correct client never asks for) and
	// offers to send tools/list anyway.
	gate  Gate
	gated bool
	// readOnly says why nothing is sent (a recording, a tap), "" when it
	// is: a form says so as it opens.
	readOnly string
	// failed is the last failed tools/list, nil once a list arrives.
	failed *Failure
	// unlisted says why no list will come (SetUnlisted), "" once one does.
	unlisted string

	// shown holds indexes into tools, in display order; matched holds the
	// fuzzy-matched rune positions of each shown tool's row text.
	shown   []int
	matched map[int][]int
	// saved are the saved calls of each tool (SetSavedCalls), listed under
	// it; rows is what the list shows: each shown tool, then its calls.
	// cost is what the tools cost a model and how each client presents
	// them (tools_cost.go).
	cost costState

	saved  map[string][]SavedCall
	rows   []toolRow
	savedW int // the width the saved calls' rows ask for
	// list scrolls the rows (panes/list: cursor, paging, g/G, the wheel);
	// its cursor indexes rows. listW is the width rows are drawn at.
	list  *list.Model
	listW int
	// ox, oy is where the pane is drawn on the screen (SetOrigin), so that
	// a click or the wheel can tell the list from the details.
	ox, oy int

	filtering   bool
	filterText  string
	filterInput textinput.Model

	showDetails bool
	// details scrolls the selected tool's details beside or under the
	// list (panes/list: wrapped at word boundaries, W cuts the lines
	// instead and ←/→ scroll them sideways). detailLines are its items,
	// built for one tool at one width, never per frame; folds caches each
	// item folded at foldW.
	details     *list.Model
	detailLines []detailLine
	detailKey   string
	// The description is Markdown (tools_markdown.go): mdSource shows
	// its source (m), mdWait says it is shown as source until it
	// renders, descriptionRendered that the last details drew it
	// rendered.
	mdSource, mdWait, descriptionRendered bool

	detailTool string
	folds      map[int]string
	foldW      int

	// The widths the list needs, measured when the list changes (never per
	// frame): the widest name, the widest title (with its two-space gap),
	// the widest badges (short form), and the widest line of the input
	// schemas as the details print them.
	nameW, titleW, badgeW, longBadgeW, schemaW int

	editor   *JSONEdit
	lastArgs map[string]json.RawMessage // per tool: reopening the editor resumes them

	// form is the schema form (panes/form) that enter opens; the JSON
	// editor above is its fallback for a schema that is not JSON.
	form     *form.Form
	formTool string
	history  *form.History // per tool ("tool:NAME"), kept while mcpscope runs
	// drafts are the forms closed with "keep draft", by tool name, for as
	// long as mcpscope runs; each remembers the schema it was built for.
	drafts       map[string]toolDraft
	editorDrafts map[string]*JSONEdit // the same for the JSON editor
}

// detailLine is one line of a tool's details, styled, and how far its
// continuation rows hang when it is folded.
type detailLine struct {
	text string
	hang int
}

// toolRow is one row of the list: a tool (call < 0), or the call-th of
// its saved calls.
type toolRow struct{ tool, call int }

// toolDraft is a kept arguments form and the inputSchema it was made for.
type toolDraft struct {
	form   *form.Form
	schema string
	// refused is why the tool as listed now refuses the draft (see
	// checkDrafts); nil while it fits.
	refused []string
}

// NewTools makes an empty tools list.
func NewTools(t *themes.Theme, k keymap.KeyMap) *Tools {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "fuzzy filter"
	ti.SetStyles(t.TextInput)
	p := &Tools{
		theme:        t,
		keys:         k,
		filterInput:  ti,
		showDetails:  true,
		matched:      map[int][]int{},
		lastArgs:     map[string]json.RawMessage{},
		history:      form.NewHistory(20),
		drafts:       map[string]toolDraft{},
		editorDrafts: map[string]*JSONEdit{},
	}
	p.list = list.New(toolsListKeys(k), func(i int) string { return p.renderRow(i, p.listW) })
	p.list.SetSelecting(true)
	p.details = list.New(detailKeys(k), func(i int) string { return p.detailLines[i].text })
	p.details.SetWrapFunc(p.foldDetail)
	p.details.SetWrap(true)
	return p
}

// toolsListKeys move the list: the scroll keys, with up and down as the
// tools name them. The sideways keys and wrap go to the details, whose
// lines are the long ones (a row is fitted to the list's width).
func toolsListKeys(k keymap.KeyMap) keymap.Scroll {
	sc := k.Scroll
	sc.Up, sc.Down = k.Tools.Up, k.Tools.Down
	sc.Left, sc.Right, sc.Wrap = key.Binding{}, key.Binding{}, key.Binding{}
	return sc
}

// detailKeys scroll the details: a page with ScrollUp and ScrollDown, a
// line with DetailUp and DetailDown, sideways and wrap with the scroll
// keys.
func detailKeys(k keymap.KeyMap) keymap.Scroll {
	return keymap.Scroll{
		Up: k.Tools.DetailUp, Down: k.Tools.DetailDown,
		PageUp: k.Tools.ScrollUp, PageDown: k.Tools.ScrollDown,
		Left: k.Scroll.Left, Right: k.Scroll.Right, Wrap: k.Scroll.Wrap,
	}
}

// SetOrigin says where the pane is drawn on the screen (its top left
// cell), for the mouse.
func (p *Tools) SetOrigin(x, y int) { p.ox, p.oy = x, y }

// SetReadOnly says why the source sends nothing (a recording, a tap), or
// "" when it sends: every form opened from here says so at once.
func (p *Tools) SetReadOnly(why string) {
	p.readOnly = why
	if p.form != nil {
		p.form.SetReadOnly(why)
	}
}

// SetGate says whether the server declared tools (Gate.OK).
func (p *Tools) SetGate(g Gate) { p.gate, p.gated = g, !g.OK }

// SetTheme switches the theme.
func (p *Tools) SetTheme(t *themes.Theme) {
	p.theme = t
	p.filterInput.SetStyles(t.TextInput)
	p.detailKey = ""
	p.folds = nil
	if p.editor != nil {
		p.editor.SetTheme(t)
	}
	if p.form != nil {
		p.form.SetTheme(t)
	}
}

// SetTools replaces the list (tools/list, again after
// notifications/tools/list_changed). The selection stays on the tool of the
// same name, or on the same saved call of it, when it still exists. The
// Cmd counts what the list costs and how each client presents it (a
// ToolViewsMsg back to the pane).
func (p *Tools) SetTools(tools []mcp.Tool) tea.Cmd {
	p.failed, p.unlisted = nil, ""
	tool, call := p.cursorRow()
	p.tools = tools
	p.loaded = true
	p.cost.views = nil
	p.checkDrafts()
	p.measure()
	p.refilter()
	p.rebuildRows()
	p.restoreRow(tool, call)
	p.detailKey = ""
	p.resize()
	return p.countCmd()
}

// SetFailed shows a tools/list that failed where the tools would have
// been, while none are listed (an earlier list stays as it was).
func (p *Tools) SetFailed(f Failure) {
	if f.Retry == "" {
		f.Retry = "R lists again"
	}
	p.failed = &f
}

// SetUnlisted says why no tools/list will come (a recording in which the
// client never asked; a connection that ended first): shown instead of
// waiting for one.
func (p *Tools) SetUnlisted(why string) { p.unlisted = why }

// SetSavedCalls gives the saved calls of the calls file; each tool lists
// its own under it (a call whose tool is gone is in the list of all
// saved calls only). The cursor stays on the row it was on.
func (p *Tools) SetSavedCalls(calls []SavedCall) {
	tool, call := p.cursorRow()
	p.saved = map[string][]SavedCall{}
	p.savedW = 0
	for _, c := range calls {
		if c.Tool != "" {
			p.saved[c.Tool] = append(p.saved[c.Tool], c)
			// A saved call's row: the cursor, "↳ ✓ " and its name, which
			// may cut beyond maxSavedW (its details hold it whole).
			p.savedW = max(p.savedW, 6+min(ansi.StringWidth(termsafe.String(c.Name)), maxSavedW))
		}
	}
	p.rebuildRows()
	p.restoreRow(tool, call)
	p.detailKey = ""
	p.resize()
}

// cursorRow names the row under the cursor: its tool's name ("" when
// there is none) and which of the tool's saved calls (-1: the tool).
func (p *Tools) cursorRow() (tool string, call int) {
	if cur := p.list.Cursor(); cur >= 0 && cur < len(p.rows) {
		return p.tools[p.rows[cur].tool].Name, p.rows[cur].call
	}
	return "", -1
}

// restoreRow puts the cursor back on the row cursorRow named after the
// rows were rebuilt, so that data arriving after the person moved (a
// token count, a re-list, new saved calls) never moves it: the same
// saved call, or the last one left, or else the tool.
func (p *Tools) restoreRow(tool string, call int) {
	if tool == "" {
		return
	}
	if call >= 0 && p.selectRow(tool, min(call, len(p.saved[tool])-1)) {
		return
	}
	p.selectRow(tool, -1)
}

// rebuildRows lists each shown tool and, under it, its saved calls.
func (p *Tools) rebuildRows() {
	p.rows = p.rows[:0]
	for _, idx := range p.shown {
		p.rows = append(p.rows, toolRow{tool: idx, call: -1})
		for j := range p.saved[p.tools[idx].Name] {
			p.rows = append(p.rows, toolRow{tool: idx, call: j})
		}
	}
	p.list.SetLen(len(p.rows))
}

// selectRow puts the cursor on a tool's row (call < 0) or on one of its
// saved calls.
func (p *Tools) selectRow(tool string, call int) bool {
	for i, r := range p.rows {
		if p.tools[r.tool].Name == tool && r.call == call {
			p.list.Select(i)
			return true
		}
	}
	return false
}

// SelectedCall is the saved call under the cursor, if the cursor is on one.
func (p *Tools) SelectedCall() (SavedCall, bool) {
	cur := p.list.Cursor()
	if cur < 0 || cur >= len(p.rows) || p.rows[cur].call < 0 {
		return SavedCall{}, false
	}
	r := p.rows[cur]
	return p.saved[p.tools[r.tool].Name][r.call], true
}

// Tools returns the current list.
func (p *Tools) Tools() []mcp.Tool { return p.tools }

// Selected is the tool under the cursor.
func (p *Tools) Selected() (mcp.Tool, bool) {
	cur := p.list.Cursor()
	if cur < 0 || cur >= len(p.rows) {
		return mcp.Tool{}, false
	}
	return p.tools[p.rows[cur].tool], true
}

// Select moves the cursor to the tool called name, if it is shown.
func (p *Tools) Select(name string) bool {
	if p.selectRow(name, -1) {
		p.resize()
		return true
	}
	return false
}

// Editing reports whether the arguments editor is open.
func (p *Tools) Editing() bool { return p.editor != nil || p.form != nil }

// Editor is the open arguments editor, or nil.
func (p *Tools) Editor() *JSONEdit { return p.editor }

// Form is the open schema form, or nil.
func (p *Tools) Form() *form.Form { return p.form }

// Capturing is true while the filter input or the editor has the keyboard.
func (p *Tools) Capturing() bool { return p.filtering || p.cost.picking || p.Editing() }

// SetFilter applies a fuzzy filter ("" shows every tool).
func (p *Tools) SetFilter(s string) {
	p.filterText = s
	p.filterInput.SetValue(s)
	p.refilter()
	p.rebuildRows()
	p.list.Home()
	p.resize()
}

// rowText is the plain text the filter matches and the row shows: the
// name (what a call names, so it comes first and is never cut while there
// is room), then the title when the server gave one that differs.
func rowText(t *mcp.Tool) string {
	name := termsafe.String(t.Name)
	display := termsafe.String(t.DisplayName())
	if display == name {
		return name
	}
	return name + "  " + display
}

// Widths inside the pane: the details beside the list need at least
// minDetailW columns (else they go under it), and ask for the widest schema
// line within [minDetailW, maxDetailW].
const (
	minDetailW = 30
	maxDetailW = 72
)

// measure records the widths the list and the details need (see nameW).
func (p *Tools) measure() {
	p.nameW, p.titleW, p.badgeW, p.longBadgeW, p.schemaW = 0, 0, 0, 0, 0
	for i := range p.tools {
		t := &p.tools[i]
		name := termsafe.String(t.Name)
		p.nameW = max(p.nameW, ansi.StringWidth(name))
		if d := termsafe.String(t.DisplayName()); d != name {
			p.titleW = max(p.titleW, 2+ansi.StringWidth(d))
		}
		short, long := 0, 0
		for _, b := range toolBadges(t) {
			short += len(b.short) + 1
			long += len(b.long) + 1
		}
		p.badgeW = max(p.badgeW, short)
		p.longBadgeW = max(p.longBadgeW, long)
		if p.schemaW < maxDetailW {
			lines, _ := prettyJSON(t.InputSchema)
			for _, l := range lines {
				p.schemaW = max(p.schemaW, 2+ansi.StringWidth(termsafe.String(clipLine(l))))
			}
		}
	}
}

// maxSavedW is how much of a saved call's name the list makes room for.
const maxSavedW = 32

// draftBadge marks a tool with a kept draft.
const draftBadge = "✎ draft"

// listWant is the list's width for every name and badge uncut: the cursor
// mark, the widest name, and the widest badges after a space (and the
// draft badge when a draft is kept).
func (p *Tools) listWant() int {
	w := 2 + max(p.nameW, 8) + p.badgeW + p.costCellW()
	if len(p.drafts) > 0 {
		w += ansi.StringWidth(p.widestDraftBadge()) + 1
	}
	return max(w, p.savedW)
}

// listExtra is what the list would use beyond listWant: the titles, and
// the badges spelled out.
func (p *Tools) listExtra() int { return p.titleW + p.longBadgeW - p.badgeW }

// detailWant is the width the details ask for beside the list.
func (p *Tools) detailWant() int {
	return max(minDetailW, min(p.schemaW, maxDetailW))
}

// ContentWidth (Measured): the list uncut with the narrowest details
// beside it, and with the widest schema line beside it; 0, 0 until the
// list is known.
func (p *Tools) ContentWidth() (need, want int) {
	if !p.loaded || len(p.tools) == 0 {
		return 0, 0
	}
	return 2 + p.listWant() + 1 + minDetailW, 2 + p.listWant() + p.listExtra() + 1 + p.detailWant()
}

// columns splits the inner width: the list, then the details beside it
// (detailW 0: the details go under the list, for want of room, or are
// hidden). Room beyond what both want goes to the titles and the badges
// spelled out, then to the details.
func (p *Tools) columns() (listW, detailW int) {
	inner := max(p.w-2, 0)
	if !p.showDetails || len(p.shown) == 0 {
		return inner, 0
	}
	lw := p.listWant()
	if inner-lw-1 < minDetailW {
		return inner, 0
	}
	if extra := inner - lw - 1 - p.detailWant(); extra > 0 {
		lw += min(extra, p.listExtra())
	}
	return lw, inner - lw - 1
}

func (p *Tools) refilter() {
	p.shown = p.shown[:0]
	p.matched = map[int][]int{}
	defer p.sortByCost()
	if p.filterText == "" {
		for i := range p.tools {
			p.shown = append(p.shown, i)
		}
		return
	}
	texts := make([]string, len(p.tools))
	for i := range p.tools {
		texts[i] = rowText(&p.tools[i])
	}
	for _, m := range fuzzy.Find(p.filterText, texts) {
		p.shown = append(p.shown, m.Index)
		p.matched[m.Index] = m.MatchedIndexes
	}
}

func (p *Tools) Title() string {
	switch {
	case p.form != nil:
		return p.form.Title()
	case p.editor != nil:
		return p.editor.Title()
	case p.filterText != "":
		return fmt.Sprintf("Tools%s · %d of %d", p.asTitle(), len(p.shown), len(p.tools)) + p.costTitle()
	}
	if !p.loaded {
		return "Tools" + p.asTitle() // no count: there is no list yet
	}
	return fmt.Sprintf("Tools%s · %d", p.asTitle(), len(p.tools)) + p.costTitle()
}

func (p *Tools) SetSize(w, h int) {
	p.w, p.h = w, h
	p.filterInput.SetWidth(max(w-6, 1))
	if p.editor != nil {
		p.editor.SetSize(w, h)
	}
	if p.form != nil {
		p.form.SetSize(w, h)
	}
	p.resize()
}

func (p *Tools) Focus() {
	p.focused = true
	if p.editor != nil {
		p.editor.Focus()
	}
	if p.form != nil {
		p.form.Focus()
	}
}

func (p *Tools) Blur() {
	p.focused = false
	p.stopFiltering()
	if p.editor != nil {
		p.editor.Blur()
	}
	if p.form != nil {
		p.form.Blur()
	}
}

// layout splits the inner rows between the filter line, the list and the
// details: beside the list they get every row, under it what the list
// leaves.
func (p *Tools) layout() (filterRows, listRows, detailRows int) {
	inner := max(p.h-2, 0)
	if p.filtering || p.filterText != "" {
		filterRows = 1
	}
	filterRows += p.viewRows() // the client picker, or the view's summary
	rest := inner - filterRows
	if _, dw := p.columns(); dw > 0 {
		return filterRows, rest, rest
	}
	if !p.showDetails || rest < 8 {
		return filterRows, rest, 0
	}
	listRows = min(max(len(p.rows), 1), max(3, rest*2/5))
	detailRows = rest - listRows - 1 // one row for the separator
	return filterRows, listRows, detailRows
}

// resize gives the list and the details their windows for the current
// size, filter line and split (the list's width changes with the drafts'
// badge), and brings the details up to date with the selected tool.
func (p *Tools) resize() {
	_, listRows, detailRows := p.layout()
	listW, detailW := p.columns()
	p.listW = listW
	p.list.SetSize(listW, listRows)
	if detailW == 0 {
		detailW = max(p.w-2, 0)
	}
	p.details.SetSize(detailW, detailRows)
	p.syncDetails()
}

// OpenEditor opens the arguments editor on the selected tool: its kept
// draft as it was left (values, cursor, raw view), else a new form.
func (p *Tools) OpenEditor() tea.Cmd {
	t, ok := p.Selected()
	if !ok {
		return nil
	}
	var initial json.RawMessage
	if d, ok := p.drafts[t.Name]; ok {
		delete(p.drafts, t.Name)
		if d.schema == string(t.InputSchema) {
			p.form, p.formTool = d.form, t.Name
			d.form.SetReadOnly(p.readOnly)
			d.form.SetTheme(p.theme)
			d.form.SetSize(p.w, p.h)
			if p.focused {
				d.form.Focus()
			}
			return nil
		}
		// The server changed the schema since: start from the draft's
		// value (what no longer fits becomes JSON text, nothing is lost).
		initial, _ = d.form.Value()
	}
	if f, err := form.New(t.InputSchema, form.Options{
		Title: "Call " + termsafe.String(t.Name), Theme: p.theme, Keys: p.keys,
		History: p.history.Get("tool:" + t.Name), Initial: initial, KeepDrafts: true,
	}); err == nil {
		p.form, p.formTool = f, t.Name
		f.SetReadOnly(p.readOnly)
		f.SetSize(p.w, p.h)
		if p.focused {
			f.Focus()
		}
		return f.Init()
	}
	if d := p.editorDrafts[t.Name]; d != nil {
		delete(p.editorDrafts, t.Name)
		p.editor = d
		p.editor.SetTheme(p.theme)
		p.editor.SetSize(p.w, p.h)
		if p.focused {
			p.editor.Focus()
		}
		return nil
	}
	p.editor = NewJSONEdit(p.theme, p.keys, t, p.lastArgs[t.Name])
	p.editor.SetSize(p.w, p.h)
	if p.focused {
		p.editor.Focus()
	}
	return nil
}

// HasDraft reports whether a tool has a kept draft.
func (p *Tools) HasDraft(name string) bool { _, ok := p.drafts[name]; return ok }

// CloseEditor closes the editor without sending.
func (p *Tools) CloseEditor() { p.editor, p.form = nil, nil }

func (p *Tools) startFiltering() tea.Cmd {
	p.filtering = true
	p.filterInput.SetValue(p.filterText)
	p.filterInput.CursorEnd()
	p.resize()
	return p.filterInput.Focus()
}

func (p *Tools) stopFiltering() {
	p.filtering = false
	p.filterInput.Blur()
	p.resize()
}

func (p *Tools) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(ToolViewsMsg); ok {
		p.setViews(msg)
		return nil
	}
	if p.form != nil {
		cmd := p.updateForm(msg)
		p.resize() // a kept draft widens the list by its badge
		return cmd
	}
	if p.editor != nil {
		return p.updateEditor(msg)
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if p.filtering {
			return p.updateFilter(msg)
		}
		if p.cost.picking {
			return p.updatePicker(msg)
		}
		return p.handleKey(msg)
	case tea.MouseWheelMsg:
		if p.overDetails(msg.Mouse()) {
			p.details.Update(msg)
		} else {
			p.list.Update(msg)
			p.syncDetails()
		}
	case tea.MouseClickMsg:
		if m := msg.Mouse(); m.Button == tea.MouseLeft && !p.overDetails(m) {
			p.ClickRow(m.Y - p.oy)
		}
	}
	return nil
}

// ClickRow puts the cursor on the tool drawn on row y of the pane (0 is
// the top border).
func (p *Tools) ClickRow(y int) {
	filterRows, _, _ := p.layout()
	if i := p.list.ItemAt(y - 1 - filterRows); i >= 0 {
		p.list.Select(i)
		p.syncDetails()
	}
}

// overDetails reports whether the mouse is over the details: right of the
// rule beside the list, or under the rule below it.
func (p *Tools) overDetails(m tea.Mouse) bool {
	filterRows, listRows, detailRows := p.layout()
	if detailRows == 0 {
		return false
	}
	if listW, detailW := p.columns(); detailW > 0 {
		return m.X-p.ox > listW+1
	}
	return m.Y-p.oy > filterRows+listRows+1
}

func (p *Tools) updateEditor(msg tea.Msg) tea.Cmd {
	kp, isKey := msg.(tea.KeyPressMsg)
	closed, isClosed := msg.(editorClosedMsg)
	switch {
	case isClosed && closed.e == p.editor:
		// The JSON editor (for a schema the form cannot read) keeps its
		// text as a draft for the session when asked to, as the form does.
		if closed.keep {
			p.editorDrafts[p.editor.Tool().Name] = p.editor
		} else {
			delete(p.editorDrafts, p.editor.Tool().Name)
		}
		p.editor = nil
		return nil
	case isKey && key.Matches(kp, p.keys.JSONEdit.Send):
		cmd := p.editor.Update(msg)
		if cmd != nil {
			// Sent: keep the arguments for next time and go back to the list.
			var b bytes.Buffer
			if json.Compact(&b, []byte(p.editor.Value())) == nil {
				p.lastArgs[p.editor.Tool().Name] = json.RawMessage(b.Bytes())
			}
			delete(p.editorDrafts, p.editor.Tool().Name)
			p.editor = nil
		}
		return cmd
	}
	return p.editor.Update(msg)
}

// updateForm routes to the schema form and turns its answers into a
// tools/call: the arguments are remembered per tool for next time.
func (p *Tools) updateForm(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case form.SubmitMsg:
		name := p.formTool
		p.history.Add("tool:"+name, msg.Value)
		delete(p.drafts, name)
		p.form = nil
		call := CallToolMsg{Name: name, Args: msg.Value}
		return func() tea.Msg { return call }
	case form.CancelMsg:
		if msg.Keep {
			schema := ""
			for _, t := range p.tools {
				if t.Name == p.formTool {
					schema = string(t.InputSchema)
				}
			}
			p.drafts[p.formTool] = toolDraft{form: p.form, schema: schema}
		} else {
			delete(p.drafts, p.formTool)
		}
		p.form = nil
		return nil
	}
	return p.form.Update(msg)
}

func (p *Tools) updateFilter(msg tea.KeyPressMsg) tea.Cmd {
	// The log's filter keys (enter applies, esc clears) mean the same here.
	switch {
	case key.Matches(msg, p.keys.Log.ApplyFilter):
		p.stopFiltering()
		return nil
	case key.Matches(msg, p.keys.Log.ClearFilter):
		p.stopFiltering()
		p.SetFilter("")
		return nil
	}
	var cmd tea.Cmd
	p.filterInput, cmd = p.filterInput.Update(msg)
	if v := p.filterInput.Value(); v != p.filterText {
		p.SetFilter(v)
	}
	return cmd
}

func (p *Tools) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.keys.Tools
	// The details' keys first: ctrl+u and ctrl+d page them, not the list.
	if p.details.Rows() > 0 && p.details.Update(msg) {
		return nil
	}
	if p.list.Update(msg) {
		p.syncDetails()
		return nil
	}
	c := p.keys.Calls
	switch {
	case key.Matches(msg, p.keys.Result.Markdown) && p.selectedDescribed():
		p.mdSource = !p.mdSource
		p.syncDetails()
		return p.MarkdownCmd()
	case key.Matches(msg, k.Filter):
		return p.startFiltering()
	case key.Matches(msg, c.Load) && p.onCall():
		call, _ := p.SelectedCall()
		cmd, err := p.LoadCall(call)
		if err != nil {
			note := NoteMsg{Text: err.Error()}
			return func() tea.Msg { return note }
		}
		return cmd
	case key.Matches(msg, k.Open):
		return p.OpenEditor()
	case key.Matches(msg, c.Run) && len(p.runNames()) > 0:
		names := p.runNames()
		return func() tea.Msg { return RunCallsMsg{Names: names} }
	case key.Matches(msg, c.RunAll) && len(p.saved) > 0:
		return func() tea.Msg { return RunCallsMsg{} }
	case key.Matches(msg, k.Details):
		p.showDetails = !p.showDetails
		p.resize()
	case key.Matches(msg, k.ViewAs) && p.loaded:
		p.openPicker()
	case key.Matches(msg, k.SortCost) && p.loaded:
		p.cost.byCost = !p.cost.byCost
		p.applyView()
	case key.Matches(msg, p.keys.Log.ClearFilter) && p.filterText != "":
		p.SetFilter("")
	case key.Matches(msg, p.keys.Explore.Anyway) && p.gated:
		return func() tea.Msg { return SendAnywayMsg{Method: mcp.MethodToolsList} }
	case key.Matches(msg, p.keys.Explore.Refresh):
		// A list that changed without list_changed can be fetched again.
		return func() tea.Msg { return ListPageMsg{Method: mcp.MethodToolsList} }
	}
	return nil
}

func (p *Tools) ShortHelp() []key.Binding {
	if p.form != nil {
		return p.form.ShortHelp()
	}
	if p.editor != nil {
		return p.editor.ShortHelp()
	}
	if p.filtering {
		return []key.Binding{p.keys.Log.ApplyFilter, p.keys.Log.ClearFilter}
	}
	if p.cost.picking {
		return []key.Binding{p.keys.Form.PrevOption, p.keys.Form.NextOption, p.keys.Tools.ViewChoose, p.keys.Tools.ViewCancel}
	}
	k := p.keys.Tools
	if p.gated && !p.loaded {
		return []key.Binding{p.keys.Explore.Anyway}
	}
	out := []key.Binding{k.Up, k.Down, k.Open}
	if p.onCall() {
		out[2] = p.keys.Calls.Load
	}
	if len(p.runNames()) > 0 {
		out = append(out, p.keys.Calls.Run)
	}
	if len(p.saved) > 0 {
		out = append(out, p.keys.Calls.RunAll, p.keys.Calls.List)
	}
	out = append(out, k.Filter)
	if _, _, detailRows := p.layout(); detailRows > 0 && len(p.shown) > 0 {
		// The details' keys, while there are details to move.
		sc := p.keys.Scroll
		left := sc.Left
		left.SetEnabled(p.details.CanScrollSideways())
		out = append(out, k.ScrollDown, left, sc.Wrap)
	}
	if p.loaded && len(p.tools) > 0 {
		out = append(out, k.ViewAs) // $ (sort by tokens) is in the full help
	}
	return append(out, k.Details, p.keys.Explore.Refresh)
}

func (p *Tools) FullHelp() [][]key.Binding {
	if p.form != nil {
		return p.form.FullHelp()
	}
	if p.editor != nil {
		return p.editor.FullHelp()
	}
	k, sc := p.keys.Tools, p.keys.Scroll
	return [][]key.Binding{
		{k.Up, k.Down, sc.PageUp, sc.PageDown, sc.Top, sc.Bottom},
		{k.ScrollUp, k.ScrollDown, k.DetailUp, k.DetailDown, sc.Left, sc.Wrap},
		{k.Filter, k.Open, k.Details, p.keys.Explore.Refresh, p.keys.Explore.Anyway, p.markdownKey()},
		{k.ViewAs, k.SortCost, p.keys.Form.PrevOption, p.keys.Form.NextOption, k.ViewChoose, k.ViewCancel},
		{p.keys.Calls.Load, p.keys.Calls.Run, p.keys.Calls.RunAll},
	}
}

// onCall reports whether the cursor is on a saved call.
func (p *Tools) onCall() bool { _, ok := p.SelectedCall(); return ok }

// runNames are the saved calls the run key runs here: the one under the
// cursor, or on a tool's row all of that tool's.
func (p *Tools) runNames() []string {
	if c, ok := p.SelectedCall(); ok {
		return []string{c.Name}
	}
	t, ok := p.Selected()
	if !ok {
		return nil
	}
	var names []string
	for _, c := range p.saved[t.Name] {
		names = append(names, c.Name)
	}
	return names
}

// LoadCall opens the form of a saved call's tool holding the call's
// arguments, as a draft to change and send (the form's own draft, kept by
// esc like any other). A draft the tool had already is not lost: its value
// goes to the form's history, one ctrl+p away.
func (p *Tools) LoadCall(c SavedCall) (tea.Cmd, error) {
	var tool *mcp.Tool
	for i := range p.tools {
		if p.tools[i].Name == c.Tool {
			tool = &p.tools[i]
		}
	}
	switch {
	case c.Tool == "":
		return nil, fmt.Errorf("%s has no form: %s runs it as saved", c.Method, p.keys.Calls.Run.Help().Key)
	case tool == nil:
		return nil, fmt.Errorf("saved call %q: the server no longer lists a tool %q", c.Name, c.Tool)
	case p.Editing():
		return nil, fmt.Errorf("close the open form first")
	}
	if p.filterText != "" && !p.selectRow(tool.Name, -1) {
		p.SetFilter("")
	}
	p.selectRow(tool.Name, -1)
	name := tool.Name
	if d, ok := p.drafts[name]; ok {
		// Kept even when it does not validate: a draft is half-done work.
		v, _ := d.form.Value()
		p.history.Add("tool:"+name, v)
		delete(p.drafts, name)
	}
	args := c.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	f, err := form.New(tool.InputSchema, form.Options{
		Title: "Call " + termsafe.String(name) + " · saved " + termsafe.String(c.Name), Theme: p.theme, Keys: p.keys,
		History: p.history.Get("tool:" + name), Initial: args, KeepDrafts: true,
	})
	if err != nil {
		// A schema the form cannot read: the JSON editor, holding the call.
		p.editor = NewJSONEdit(p.theme, p.keys, *tool, args)
		p.editor.SetSize(p.w, p.h)
		if p.focused {
			p.editor.Focus()
		}
		return nil, nil
	}
	f.SetReadOnly(p.readOnly)
	p.drafts[name] = toolDraft{form: f, schema: string(tool.InputSchema)}
	return tea.Batch(f.Init(), p.OpenEditor()), nil
}

// View draws the filter line, the visible rows of the list, and the
// visible window of the selected tool's details.
func (p *Tools) View() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	if p.form != nil {
		return p.form.View()
	}
	if p.editor != nil {
		return p.editor.View()
	}
	inner := p.w - 2
	filterRows, listRows, detailRows := p.layout()
	listW, detailW := p.columns()
	var body []string
	if p.filtering {
		body = append(body, termsafe.Rendered(p.filterInput.View()))
	} else if p.filterText != "" {
		body = append(body, p.theme.Log.FilterPrompt.Render("/ ")+p.theme.Tools.Description.Render(termsafe.String(p.filterText)))
	}
	if p.cost.picking {
		body = append(body, ansi.Truncate(p.pickerLine(inner), inner, "…"))
	} else if line := p.summaryLine(inner); line != "" {
		body = append(body, line)
	}
	switch {
	case p.failed != nil && len(p.tools) == 0:
		body = append(body, failureLines(p.theme, *p.failed, inner)...)
	case !p.loaded && p.gated:
		body = append(body, gateLines(p.theme, p.gate, p.keys.Explore.Anyway.Help().Key, inner)...)
	case !p.loaded && p.unlisted != "":
		body = append(body, unlistedLines(p.theme, p.unlisted, inner)...)
	case !p.loaded:
		body = append(body, p.theme.Log.Empty.Render("waiting for tools/list…"))
	case len(p.tools) == 0:
		body = append(body, p.theme.Log.Empty.Render("the server lists no tools"))
	case len(p.shown) == 0:
		body = append(body, p.theme.Log.Empty.Render("no tool matches the filter"))
	}
	if len(p.shown) > 0 {
		body = append(body, p.list.Render()...)
	}
	if detailW > 0 {
		// The details beside the list, a rule between them.
		for len(body) < filterRows+listRows {
			body = append(body, "")
		}
		details := p.details.Render()
		rule := p.theme.Caps.Missing.Render("│")
		for i := range listRows {
			d := ""
			if i < len(details) {
				d = details[i]
			}
			body[filterRows+i] = Fit(body[filterRows+i], listW) + rule + d
		}
	} else if detailRows > 0 {
		for len(body) < filterRows+listRows {
			body = append(body, "")
		}
		body = append(body, p.theme.Caps.Missing.Render(strings.Repeat("─", inner)))
		body = append(body, p.details.Render()...)
	}
	return Box(p.theme, p.title(), p.focused, p.w, p.h, body)
}

// renderRow draws one list row: cursor mark, name (matched characters
// underlined), the title when the server gave one, and badges on the right.
// What does not fit is cut from the title's end: the name goes only when
// the row cannot hold it and the badges.
func (p *Tools) renderRow(i, w int) string {
	if r := p.rows[i]; r.call >= 0 {
		return p.renderCallRow(i, p.saved[p.tools[r.tool].Name][r.call], w)
	}
	idx := p.rows[i].tool
	cell := p.costCell(idx)
	if cw := p.costCellW(); cw > 0 && w-cw >= 2+min(p.nameW, 8) {
		// The cost column is the row's last: what is left is drawn as before.
		w -= cw
	} else {
		cell = ""
	}
	t := &p.tools[idx]
	selected := i == p.list.Cursor()
	text := rowText(t)
	display := termsafe.String(t.Name)

	nameStyle, subtle := p.theme.Tools.Name, p.theme.Tools.Title
	var b strings.Builder
	mark := "  "
	if selected {
		mark = "▸ "
	}
	b.WriteString(mark)
	matched := map[int]bool{}
	for _, m := range p.matched[idx] {
		matched[m] = true
	}
	// Style rune by rune only when something matched; the common case is
	// one Render per part.
	if len(matched) == 0 {
		b.WriteString(nameStyle.Render(display))
		if len(text) > len(display) {
			b.WriteString(subtle.Render(text[len(display):]))
		}
	} else {
		byteOff := 0
		for ri, r := range []rune(text) {
			s := subtle
			if byteOff < len(display) {
				s = nameStyle
			}
			if matched[ri] {
				s = s.Inherit(p.theme.Tools.Match).Underline(true)
			}
			b.WriteString(s.Render(string(r)))
			byteOff += len(string(r))
		}
	}
	row := b.String()
	badges := p.badges(t, false)
	if long := p.badges(t, true); w-2-p.nameW-ansi.StringWidth(long)-1 >= p.titleW {
		badges = long
	}
	draft := p.draftMark(t.Name)
	if draft != "" {
		// A kept draft waits for this tool: say so where it is chosen.
		badges = strings.TrimSpace(draft + " " + badges)
	}
	// The name comes before the badges: when the row cannot hold both, the
	// annotation badges go (they are in the details), then the draft's.
	nameEnd := 2 + ansi.StringWidth(display)
	room := w
	if badges != "" {
		if room = w - ansi.StringWidth(badges) - 1; room < nameEnd && draft != "" {
			badges = draft
			room = w - ansi.StringWidth(badges) - 1
		}
		if room < nameEnd {
			room, badges = w, ""
		}
	}
	// The title is cut first, and goes whole rather than leave a stub; the
	// name is cut only when the row cannot hold it.
	switch rw := ansi.StringWidth(row); {
	case rw <= room:
	case room >= nameEnd+2+6: // the gap and at least five cells of title, then …
		row = ansi.Truncate(row, room, "…")
	case room >= nameEnd:
		row = ansi.Truncate(row, nameEnd, "")
	default:
		row = ansi.Truncate(row, room, "…")
	}
	if badges != "" {
		row += strings.Repeat(" ", max(room-ansi.StringWidth(row), 0)) + " " + badges
	}
	row = Fit(row, w)
	if cell != "" {
		row += cell
	}
	if selected {
		st := p.theme.Tools.Selected
		if !p.focused && !p.theme.Plain {
			st = st.Faint(true)
		}
		row = highlightRow(st, row)
	}
	return row
}

// renderCallRow draws a saved call under its tool: its state, its name,
// and why it failed when it did.
func (p *Tools) renderCallRow(i int, c SavedCall, w int) string {
	th := p.theme
	mark := "  "
	if i == p.list.Cursor() {
		mark = "▸ "
	}
	row := mark + th.Caps.Missing.Render("↳ ") + callMark(th, c) + " " + th.Tools.Title.Render(termsafe.String(c.Name))
	switch {
	case c.State == CallFailed && c.Reason() != "":
		row += "  " + th.Detail.Problem.Render(termsafe.String(c.Reason()))
	case c.Stale != "" && c.State != CallPassed:
		row += "  " + th.Form.Warn.Render(termsafe.String(c.Stale))
	}
	row = Fit(row, w)
	if i == p.list.Cursor() {
		st := th.Tools.Selected
		if !p.focused && !th.Plain {
			st = st.Faint(true)
		}
		row = highlightRow(st, row)
	}
	return row
}

// highlightRow paints a selection background under an already styled row.
// Styled segments reset the background, so the row is re-rendered on the
// stripped text when the theme has a background, keeping the text readable.
func highlightRow(st lipgloss.Style, row string) string {
	return st.Render(ansi.Strip(row))
}

// annotationBadge is one claim a tool's annotations make.
type annotationBadge struct {
	long, short string
	danger      bool
}

func toolBadges(t *mcp.Tool) []annotationBadge {
	out := appBadges(t)
	a := t.Annotations
	if a == nil {
		return out
	}
	isTrue := func(b *bool) bool { return b != nil && *b }
	if isTrue(a.ReadOnlyHint) {
		out = append(out, annotationBadge{"read-only", "RO", false})
	}
	if isTrue(a.DestructiveHint) {
		out = append(out, annotationBadge{"destructive", "DEST", true})
	}
	if isTrue(a.IdempotentHint) {
		out = append(out, annotationBadge{"idempotent", "IDEM", false})
	}
	if isTrue(a.OpenWorldHint) {
		out = append(out, annotationBadge{"open-world", "OPEN", false})
	}
	return out
}

func (p *Tools) badges(t *mcp.Tool, long bool) string {
	var parts []string
	for _, b := range toolBadges(t) {
		label := b.short
		if long {
			label = b.long
		}
		st := p.theme.Tools.Badge
		if b.danger {
			st = p.theme.Tools.BadgeDanger
		}
		parts = append(parts, st.Render(label))
	}
	return strings.Join(parts, " ")
}

// syncDetails rebuilds the details when the selected tool, the width or
// the theme changed (a new tool starts at its top), and tells the details
// view how many lines there are.
func (p *Tools) syncDetails() {
	t, ok := p.Selected()
	if !ok || p.details.Rows() == 0 {
		p.detailLines, p.detailKey = nil, ""
		p.details.SetLen(0)
		return
	}
	w := max(p.details.Width(), 1)
	cacheKey := fmt.Sprintf("%d\x00%s\x00%p\x00%s\x00%t", w, t.Name, &p.tools[p.rows[p.list.Cursor()].tool], p.viewID(), p.cost.views != nil)
	call, onCall := p.SelectedCall()
	if onCall {
		cacheKey += fmt.Sprintf("\x00%s\x00%d\x00%d", call.Name, call.State, len(call.Failures))
	}
	cacheKey += fmt.Sprintf("\x00%d\x00%t", len(p.drafts[t.Name].refused), p.mdSource)
	if cacheKey == p.detailKey {
		return
	}
	p.detailKey = cacheKey
	p.mdWait = false
	p.detailLines = p.renderDetails(&t, w)
	if extra := p.viewDetails(p.rows[p.list.Cursor()].tool); len(extra) > 0 {
		// What the chosen client makes of the tool comes under its name,
		// where it shows without scrolling.
		at := len(p.detailLines)
		for i, l := range p.detailLines {
			if l.text == "" { // the blank line before the description
				at = i
				break
			}
		}
		p.detailLines = append(p.detailLines[:at], append(extra, p.detailLines[at:]...)...)
	}
	if refused := p.draftDetails(t.Name); refused != nil {
		p.detailLines = append(refused, p.detailLines...)
	}
	if onCall {
		// A saved call's details come first, then its tool's.
		p.detailLines = append(append(savedCallDetails(p.theme, p.keys, call), detailLine{}), p.detailLines...)
	}
	p.folds = nil
	p.details.SetLen(len(p.detailLines))
	if key := t.Name + "\x00" + call.Name; key != p.detailTool {
		p.detailTool = key
		p.details.Reset()
	}
}

// foldDetail is detail line i folded to width at word boundaries, its
// continuation rows hanging under it; cached until the details or the
// width change.
func (p *Tools) foldDetail(i, width int) string {
	return foldCached(&p.folds, &p.foldW, p.detailLines, i, width)
}

// foldCached is lines[i] folded to width (foldLine with its hang), kept in
// cache while the width stays *cacheW; a nil cache starts again.
func foldCached(cache *map[int]string, cacheW *int, lines []detailLine, i, width int) string {
	if *cache == nil || *cacheW != width {
		*cache, *cacheW = map[int]string{}, width
	}
	if f, ok := (*cache)[i]; ok {
		return f
	}
	l := lines[i]
	f := strings.Join(foldLine(l.text, width, l.hang), "\n")
	(*cache)[i] = f
	return f
}

// DetailLines are the selected tool's details as drawn with wrap off, one
// per line (tests).
func (p *Tools) DetailLines() []string {
	out := make([]string, len(p.detailLines))
	for i, l := range p.detailLines {
		out[i] = l.text
	}
	return out
}

// renderDetails is a tool's details as lines, each folded only when drawn
// (foldDetail): the description a paragraph a line, the schemas one JSON
// line a line, hanging under their keys when folded. w is the width the
// annotations' claims are paired for.
func (p *Tools) renderDetails(t *mcp.Tool, w int) []detailLine {
	th := p.theme
	section := th.Detail.Title
	label := th.Detail.Label
	var out []detailLine
	add := func(hang int, lines ...string) {
		for _, l := range lines {
			out = append(out, detailLine{text: l, hang: hang})
		}
	}
	addJSON := func(raw json.RawMessage) {
		for _, l := range highlightJSON(th, raw, 2) {
			add(hangOf(l, 2), l)
		}
	}
	add(2, th.Tools.Name.Render(termsafe.String(t.DisplayName())))
	if t.DisplayName() != t.Name {
		add(2, label.Render("name ")+th.Detail.Value.Render(termsafe.String(t.Name)))
	}
	if t.Title != "" && t.Annotations != nil && t.Annotations.Title != "" && t.Annotations.Title != t.Title {
		add(2, label.Render("annotations.title ")+th.Detail.Value.Render(termsafe.String(t.Annotations.Title)))
	}
	// The description and the input schema come first: they are what a
	// caller reads, and the schema must show without scrolling at 120×35.
	// The annotations' badges are on the list row already.
	if t.Description != "" {
		add(0, "", section.Render("Description"))
		rendered, note := p.descriptionMarkdown(t.Description, w)
		for _, l := range rendered {
			add(hangOf(l, 2), "  "+l)
		}
		if note != "" {
			add(2, "  "+th.Detail.Hint.Render(note))
		}
	}
	if t.Description != "" && !p.descriptionRendered {
		for _, run := range highlightFences(th, strings.TrimRight(termsafe.Block(t.Description), "\n")) {
			for _, l := range run.lines {
				if !run.code {
					l = strings.TrimRight(l, " ")
				}
				add(hangOf(l, 2), "  "+l)
			}
		}
	}
	add(0, "", section.Render("Input schema"))
	if len(t.InputSchema) == 0 {
		add(2, "  "+th.Detail.Problem.Render("missing (the spec requires inputSchema)"))
	} else {
		addJSON(t.InputSchema)
	}
	add(0, "", section.Render("Annotations"))
	add(2, p.annotationLines(t, w)...)
	if lines := p.appLines(t); len(lines) > 0 {
		add(0, "", section.Render("App view"))
		add(4, lines...)
	}
	if len(t.OutputSchema) > 0 {
		add(0, "", section.Render("Output schema"))
		addJSON(t.OutputSchema)
	}
	if len(t.Execution) > 0 {
		add(0, "", section.Render("Execution"))
		addJSON(t.Execution)
	}
	if t.Name == "" && len(t.Raw) > 0 {
		add(0, "", th.Detail.Problem.Render("this entry did not decode as a tool; raw:"))
		addJSON(t.Raw)
	}
	return out
}

// annotationLines states each hint as what the server claims; an unset
// hint shows the spec's default so the user knows what a client assumes.
// Two claims share a line when the details are wide enough.
func (p *Tools) annotationLines(t *mcp.Tool, w int) []string {
	th := p.theme
	a := t.Annotations
	if a == nil {
		return []string{"  " + th.Detail.Hint.Render("no annotations (clients assume: not read-only, destructive, not idempotent, open-world)")}
	}
	claim := func(name string, v *bool, dflt bool) string {
		if v == nil {
			return th.Detail.Hint.Render(fmt.Sprintf("%s unset (default %t)", name, dflt))
		}
		st := th.Tools.Badge
		if name == "destructiveHint" && *v {
			st = th.Tools.BadgeDanger
		}
		return st.Render(fmt.Sprintf("%s %t", name, *v))
	}
	claims := []string{
		claim("readOnlyHint", a.ReadOnlyHint, false), claim("destructiveHint", a.DestructiveHint, true),
		claim("idempotentHint", a.IdempotentHint, false), claim("openWorldHint", a.OpenWorldHint, true),
	}
	lines := []string{th.Detail.Label.Render("the server claims (unverified):")}
	for i := 0; i < len(claims); i += 2 {
		pair := "  " + claims[i] + th.Detail.Label.Render(" · ") + claims[i+1]
		if ansi.StringWidth(pair) <= w {
			lines = append(lines, pair)
		} else {
			lines = append(lines, "  "+claims[i], "  "+claims[i+1])
		}
	}
	if a.ReadOnlyHint != nil && *a.ReadOnlyHint && a.DestructiveHint != nil && *a.DestructiveHint {
		lines = append(lines, "  "+th.Caps.Unknown.Render("contradictory: destructiveHint only means something when readOnlyHint is false"))
	}
	return lines
}

// title is the border's title: Title, and where the list and the details
// are when they do not show everything (or the details are cut, not
// wrapped).
func (p *Tools) title() string {
	t := p.Title()
	if p.form != nil || p.editor != nil {
		return t
	}
	if p.list.Len() > 0 && !(p.list.Top() == 0 && p.list.AtBottom()) {
		t += " · " + p.list.Position()
	}
	if d := p.details; d.Len() > 0 && (!d.Wrapping() || d.Top() > 0 || !d.AtBottom()) {
		// Wrapped is how the details start: only the other way is said.
		t += " · details " + strings.TrimSuffix(d.Position(), " · wrap")
	}
	return t
}

var _ Pane = (*Tools)(nil)
