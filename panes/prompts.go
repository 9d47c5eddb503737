package panes

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// Prompts lists the server's prompts; enter opens the arguments form (the
// schema form engine, with completion/complete suggestions as you type),
// ctrl+s sends prompts/get (the result opens as messages with roles and
// content blocks).
type Prompts struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool
	// readOnly says why nothing is sent, "" when it is (SetReadOnly).
	readOnly string
	prompts  []mcp.Prompt
	next     string
	// list scrolls the prompts (panes/list: cursor, paging, g/G, the
	// wheel, W wrap, ←/→ sideways); its cursor indexes prompts.
	list      *list.Model
	gate      Gate
	form      *ArgsForm
	formName  string
	completes bool
	// drafts are the forms closed with "keep draft", by prompt name, for
	// as long as mcpscope runs.
	drafts map[string]*ArgsForm
	// wantW is the widest row (see ContentWidth), measured when a page
	// arrives.
	wantW int
	// failed is the last failed prompts/list, nil once a page arrives.
	failed *Failure
	// unlisted says why no prompts/list will come, "" once a page does.
	unlisted string
}

// NewPrompts makes the prompts pane.
func NewPrompts(t *themes.Theme, k keymap.KeyMap) *Prompts {
	p := &Prompts{theme: t, keys: k, gate: Gate{Why: "not connected yet"}}
	p.list = list.New(exploreListKeys(k), p.row)
	p.list.SetSelecting(true)
	p.list.SetWrapFunc(foldRows(p.row))
	return p
}

// exploreListKeys are the scroll keys with up and down as the explorer
// panes name them.
func exploreListKeys(k keymap.KeyMap) keymap.Scroll {
	sc := k.Scroll
	sc.Up, sc.Down = k.Explore.Up, k.Explore.Down
	return sc
}

func (p *Prompts) SetTheme(t *themes.Theme) {
	p.theme = t
	if p.form != nil {
		p.form.SetTheme(t)
	}
}

func (p *Prompts) Title() string {
	n := strconv.Itoa(len(p.prompts))
	if len(p.prompts) == 0 && p.unlisted != "" {
		n = "—" // 0 would say the server has none
	}
	t := "Prompts (" + n + ")"
	if p.form == nil && len(p.prompts) > 0 && !(p.list.Top() == 0 && p.list.AtBottom() && p.list.Left() == 0 && !p.list.Wrapping()) {
		t += " · " + p.list.Position()
	}
	return t
}

func (p *Prompts) SetSize(w, h int) {
	p.w, p.h = w, h
	if p.form != nil {
		p.form.SetSize(w, h)
	}
	p.sizeList()
}

// sizeList gives the list the rows under the gate's warning and over the
// "more on the server" line, and the width beside the cursor's mark.
func (p *Prompts) sizeList() {
	rows := p.h - 2 - len(p.notice())
	if p.next != "" {
		rows--
	}
	p.list.SetSize(max(p.w-4, 0), max(rows, 0))
}

func (p *Prompts) Focus() {
	p.focused = true
	if p.form != nil {
		p.form.Focus()
	}
}

func (p *Prompts) Blur() {
	p.focused = false
	if p.form != nil {
		p.form.Blur()
	}
}

func (p *Prompts) Capturing() bool { return p.form != nil }

// SetGate says whether prompts (and completions) were declared.
func (p *Prompts) SetGate(g Gate, completes bool) {
	p.gate, p.completes = g, completes
	p.sizeList()
}

// notice is what is shown above the list: the missing capability and a
// failed listing, wrapped to the pane, and a blank line.
func (p *Prompts) notice() []string {
	var out []string
	if !p.gate.OK {
		out = gateLines(p.theme, p.gate, p.keys.Explore.Anyway.Help().Key, p.w-2)
	}
	if p.failed != nil {
		out = append(out, failureLines(p.theme, *p.failed, p.w-2)...)
	}
	if p.unlisted != "" {
		out = append(out, unlistedLines(p.theme, p.unlisted, p.w-2)...)
	}
	if len(out) > 0 {
		out = append(out, "")
	}
	return out
}

// SetUnlisted says why no prompts/list will come (a recording in which the
// client never asked; a connection that ended first), in place of the
// list: never "no prompts listed".
func (p *Prompts) SetUnlisted(why string) {
	p.unlisted = why
	p.sizeList()
}

// SetFailed shows a prompts/list that failed where the prompts would have
// been (those shown stay, under it).
func (p *Prompts) SetFailed(f Failure) {
	if f.Retry == "" {
		f.Retry = "R lists again"
	}
	p.failed = &f
	p.sizeList()
}

// Failed is the failure shown, nil when none (tests).
func (p *Prompts) Failed() *Failure { return p.failed }

// SetPage applies a page of prompts/list.
func (p *Prompts) SetPage(items []json.RawMessage, first bool, nextCursor string) {
	p.failed, p.unlisted = nil, ""
	if first {
		p.prompts = nil
	}
	p.next = nextCursor
	for _, raw := range items {
		var pr mcp.Prompt
		_ = json.Unmarshal(raw, &pr)
		pr.Raw = raw
		p.prompts = append(p.prompts, pr)
	}
	p.list.SetLen(len(p.prompts))
	p.sizeList()
	p.wantW = 0
	for _, pr := range p.prompts {
		w := 2 + ansi.StringWidth(termsafe.String(pr.Name)) + len(" 99 args ✎ draft")
		if pr.Title != "" {
			w += 1 + ansi.StringWidth(termsafe.String(pr.Title))
		}
		if pr.Description != "" {
			w += 1 + ansi.StringWidth(termsafe.String(firstLine(pr.Description)))
		}
		p.wantW = max(p.wantW, w)
	}
}

// ContentWidth (Measured): the widest row, its description included,
// border included, as what the pane wants; it needs nothing beyond the
// default share.
func (p *Prompts) ContentWidth() (need, want int) {
	if p.wantW > 0 {
		return 0, p.wantW + 2
	}
	return 0, 0
}

// Prompts is what is listed.
func (p *Prompts) Prompts() []mcp.Prompt { return p.prompts }

// Form is the open arguments form (tests).
func (p *Prompts) Form() *ArgsForm { return p.form }

// Select moves the cursor to a prompt by name.
func (p *Prompts) Select(name string) bool {
	for i, pr := range p.prompts {
		if pr.Name == name {
			p.list.Select(i)
			return true
		}
	}
	return false
}

// SetCompletions feeds completion answers to the open form.
func (p *Prompts) SetCompletions(msg CompletionsMsg) {
	if p.form != nil {
		p.form.SetCompletions(msg)
	}
}

func (p *Prompts) Update(msg tea.Msg) tea.Cmd {
	if p.form != nil {
		cmd, submit, cancel := p.form.Update(msg)
		switch {
		case cancel:
			p.keepDraft(p.formName, p.form)
			p.form = nil
		case submit:
			m := GetPromptMsg{Name: p.formName, Args: p.form.Values()}
			delete(p.drafts, p.formName)
			p.form = nil
			return func() tea.Msg { return m }
		}
		return cmd
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		p.list.Update(msg) // the wheel
		return nil
	}
	e := p.keys.Explore
	switch {
	case key.Matches(km, e.Anyway) && !p.gate.OK:
		return func() tea.Msg { return SendAnywayMsg{Method: mcp.MethodPromptsList} }
	case key.Matches(km, e.Refresh):
		return func() tea.Msg { return ListPageMsg{Method: mcp.MethodPromptsList} }
	case key.Matches(km, e.More) && p.next != "":
		c := p.next
		return func() tea.Msg { return ListPageMsg{Method: mcp.MethodPromptsList, Cursor: c} }
	case key.Matches(km, e.Open) && len(p.prompts) > 0:
		return p.openForm(p.prompts[p.list.Cursor()])
	case key.Matches(km, e.Info) && len(p.prompts) > 0:
		return p.details(p.prompts[p.list.Cursor()])
	default:
		p.list.Update(km)
	}
	return nil
}

// ClickRow puts the cursor on the prompt drawn on row y of the pane (0 is
// the top border).
func (p *Prompts) ClickRow(y int) {
	if p.form != nil {
		return
	}
	top := 1 + len(p.notice())
	if i := p.list.ItemAt(y - top); i >= 0 {
		p.list.Select(i)
	}
}

// openForm opens the arguments form of pr: the schema form, built from the
// prompt's arguments, with completion/complete suggestions.
func (p *Prompts) openForm(pr mcp.Prompt) tea.Cmd {
	var fields []ArgField
	for _, a := range pr.Arguments {
		fields = append(fields, ArgField{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	draft := p.drafts[pr.Name]
	delete(p.drafts, pr.Name)
	if draft != nil && draft.sameFields(fields) {
		// Where the user left it: values, cursor, raw view.
		p.form, p.formName = draft, pr.Name
		p.form.Completes = p.completes
		p.form.SetReadOnly(p.readOnly)
		p.form.Reopen(p.theme, p.w, p.h, p.focused)
		return nil
	}
	ref, _ := json.Marshal(map[string]string{"type": "ref/prompt", "name": pr.Name})
	p.form, p.formName = NewArgsForm(p.theme, p.keys, "prompts/get "+termsafe.String(pr.Name), ref, fields), pr.Name
	p.form.carryOver(draft)
	p.form.Completes = p.completes
	p.form.SetReadOnly(p.readOnly)
	p.form.SetSize(p.w, p.h)
	if p.focused {
		p.form.Focus()
	}
	return p.form.Start()
}

// details opens what the server says of a prompt, whole: its name, title,
// full description and each argument's (a row shows the description's
// first line only, cut to the pane).
func (p *Prompts) details(pr mcp.Prompt) tea.Cmd {
	t := p.theme
	field := func(k, v string) string {
		return t.Detail.Label.Render(k+" ") + t.Detail.Value.Render(termsafe.String(v))
	}
	lines := []string{field("name", pr.Name)}
	if pr.Title != "" {
		lines = append(lines, field("title", pr.Title))
	}
	var doc docBuilder
	if pr.Description != "" {
		lines = append(lines, "", t.Detail.Title.Render("Description"))
		var source []string
		for _, l := range strings.Split(termsafe.Block(pr.Description), "\n") {
			source = append(source, "  "+t.Result.Content.Render(l))
		}
		doc.flush(lines)
		doc.markdown(pr.Description, source, 2)
		lines = nil
	}
	lines = append(lines, "", t.Detail.Title.Render(fmt.Sprintf("Arguments (%d)", len(pr.Arguments))))
	for _, a := range pr.Arguments {
		head := "  " + t.Tools.Name.Render(termsafe.String(a.Name))
		if a.Required {
			head += t.Form.Warn.Render(" required")
		} else {
			head += t.Detail.Label.Render(" optional")
		}
		if a.Title != "" {
			head += " " + t.Tools.Title.Render(termsafe.String(a.Title))
		}
		lines = append(lines, head)
		for _, l := range strings.Split(termsafe.Block(a.Description), "\n") {
			if l != "" {
				lines = append(lines, "    "+t.Result.Content.Render(l))
			}
		}
	}
	lines = append(lines, "", t.Detail.Hint.Render("enter on the prompt fills its arguments"))
	doc.flush(lines)
	msg := OpenLinesMsg{Title: "prompt " + termsafe.String(pr.Name), Lines: DocLines(doc.parts), Doc: doc.parts, Fold: true}
	return func() tea.Msg { return msg }
}

// keepDraft keeps a closed form when the user chose "keep draft", and
// forgets the prompt's draft otherwise.
func (p *Prompts) keepDraft(name string, f *ArgsForm) {
	if !f.KeptDraft() {
		delete(p.drafts, name)
		return
	}
	if p.drafts == nil {
		p.drafts = map[string]*ArgsForm{}
	}
	p.drafts[name] = f
}

// HasDraft reports whether a prompt has a kept draft.
func (p *Prompts) HasDraft(name string) bool { return p.drafts[name] != nil }

func (p *Prompts) ShortHelp() []key.Binding {
	if p.form != nil {
		return p.form.ShortHelp()
	}
	e := p.keys.Explore
	if !p.gate.OK {
		return []key.Binding{e.Anyway}
	}
	more := e.More
	more.SetEnabled(p.next != "")
	open, info := e.Open, e.Info
	open.SetHelp("enter", "arguments")
	open.SetEnabled(len(p.prompts) > 0)
	info.SetEnabled(len(p.prompts) > 0)
	sc := p.keys.Scroll
	left := sc.Left
	left.SetEnabled(p.list.CanScrollSideways())
	updown := enabledIf(len(p.prompts) > 1, e.Up, e.Down)
	return []key.Binding{updown[0], updown[1], open, info, more, e.Refresh, left, sc.Wrap}
}

func (p *Prompts) FullHelp() [][]key.Binding {
	if p.form != nil {
		return p.form.FullHelp()
	}
	return helpOnce(p.list.FullHelp(), p.ShortHelp())
}

// row is prompt i as one line: name, title, how many arguments, a kept
// draft, the description's first line.
func (p *Prompts) row(i int) string {
	t := p.theme
	pr := p.prompts[i]
	name := pr.Name
	if name == "" {
		name = rawName(pr.Raw, "name")
	}
	s := t.Tools.Name.Render(termsafe.String(name))
	if pr.Title != "" {
		s += " " + t.Tools.Title.Render(termsafe.String(pr.Title))
	}
	s += " " + t.Tools.Badge.Render(plural.S(len(pr.Arguments), "arg"))
	if p.HasDraft(pr.Name) {
		s += " " + t.Tools.Badge.Render("✎ draft")
	}
	if pr.Description != "" {
		s += " " + t.Tools.Description.Render(termsafe.String(firstLine(pr.Description)))
	}
	return s
}

func (p *Prompts) View() string {
	if p.form != nil {
		return p.form.View()
	}
	t := p.theme
	body := p.notice()
	if len(p.prompts) == 0 && p.failed == nil && p.unlisted == "" {
		body = append(body, t.Log.Empty.Render("  no prompts listed"))
	}
	body = append(body, listRows(t, p.list, p.focused, p.w-2)...)
	if p.next != "" {
		body = append(body, t.Form.Hint.Render("  … more on the server: m loads the next page"))
	}
	return Box(t, p.Title(), p.focused, p.w, p.h, body)
}

// SetReadOnly says why the source sends nothing (a recording, a tap), or
// "" when it sends: a form opened from here says so at once.
func (p *Prompts) SetReadOnly(why string) {
	p.readOnly = why
	if p.form != nil {
		p.form.SetReadOnly(why)
	}
}
