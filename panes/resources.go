package panes

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// Resources lists the server's resources (page by page, "load more") and
// resource templates; reads a resource, fills a template's variables with
// completion/complete suggestions, and subscribes with a live count of
// notifications/resources/updated per URI.
type Resources struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool
	// readOnly says why nothing is sent, "" when it is (SetReadOnly).
	readOnly string

	resources []mcp.Resource
	templates []mcp.ResourceTemplate
	next      map[string]string // nextCursor per list method
	section   int               // 0 resources, 1 templates
	// lists scroll each section (panes/list: cursor, paging, g/G, the
	// wheel, W wrap, ←/→ sideways); their cursors index resources and
	// templates.
	lists     [2]*list.Model
	subs      map[string]bool
	updates   map[string]int
	gate      Gate
	canSub    bool
	form      *ArgsForm
	formTmpl  string
	drafts    map[string]*ArgsForm // kept template forms, by template
	failed    map[string]*Failure  // the last failed listing, by list method
	unlisted  map[string]string    // why a list will not come, by list method
	status    string
	lastBlob  []byte
	lastURI   string
	lastMime  string
	completes bool
	// readMeta is the _meta.ui of what resources/read returned, by URI.
	readMeta map[string]apps.ResourceMeta
	// wantW is each section's widest row (see ContentWidth), measured when
	// a page arrives.
	wantW [2]int
}

// NewResources makes the resources pane.
func NewResources(t *themes.Theme, k keymap.KeyMap) *Resources {
	r := &Resources{theme: t, keys: k, next: map[string]string{}, subs: map[string]bool{}, updates: map[string]int{}, failed: map[string]*Failure{}, unlisted: map[string]string{}, gate: Gate{Why: "not connected yet"}}
	r.lists[0] = list.New(exploreListKeys(k), r.resourceRow)
	r.lists[1] = list.New(exploreListKeys(k), r.templateRow)
	for i, row := range []func(int) string{r.resourceRow, r.templateRow} {
		r.lists[i].SetSelecting(true)
		r.lists[i].SetWrapFunc(foldRows(row))
	}
	return r
}

func (r *Resources) SetTheme(t *themes.Theme) {
	r.theme = t
	if r.form != nil {
		r.form.SetTheme(t)
	}
}
func (r *Resources) Title() string {
	t := fmt.Sprintf("Resources (%s) · Templates (%s)", r.countOf(mcp.MethodResourcesList, len(r.resources)), r.countOf(mcp.MethodResourceTemplatesList, len(r.templates)))
	if l := r.lists[r.section]; r.form == nil && l.Len() > 0 && !(l.Top() == 0 && l.AtBottom() && l.Left() == 0 && !l.Wrapping()) {
		t += " · " + l.Position()
	}
	return t
}
func (r *Resources) SetSize(w, h int) {
	r.w, r.h = w, h
	if r.form != nil {
		r.form.SetSize(w, h)
	}
	r.sizeLists()
}

// sizeLists gives the lists the rows between the section tabs and the
// status line (less the "more on the server" line when there is one), and
// the width beside the cursor's mark.
func (r *Resources) sizeLists() {
	for s, l := range r.lists {
		m := mcp.MethodResourcesList
		if s == 1 {
			m = mcp.MethodResourceTemplatesList
		}
		rows := r.h - 2 - 1 - 1 - len(r.notice(m)) // the border, the tabs, the status line
		if r.next[m] != "" {
			rows--
		}
		l.SetSize(max(r.w-4, 0), max(rows, 0))
	}
}

func (r *Resources) Focus() {
	r.focused = true
	if r.form != nil {
		r.form.Focus()
	}
}

func (r *Resources) Blur() {
	r.focused = false
	if r.form != nil {
		r.form.Blur()
	}
}

// Capturing is true while a template's variables are being typed.
func (r *Resources) Capturing() bool { return r.form != nil }

// SetGate says whether the server declared resources (and subscribe, and
// completions).
func (r *Resources) SetGate(g Gate, canSubscribe, completes bool) {
	r.gate, r.canSub, r.completes = g, canSubscribe, completes
	r.sizeLists()
}

// notice is what is shown above a section's list: the missing capability
// and the section's failed listing, wrapped to the pane, and a blank line.
func (r *Resources) notice(method string) []string {
	var out []string
	if !r.gate.OK {
		out = gateLines(r.theme, r.gate, r.keys.Explore.Anyway.Help().Key, r.w-2)
	}
	if f := r.failed[method]; f != nil {
		out = append(out, failureLines(r.theme, *f, r.w-2)...)
	}
	if why := r.unlisted[method]; why != "" {
		out = append(out, unlistedLines(r.theme, why, r.w-2)...)
	}
	if len(out) > 0 {
		out = append(out, "")
	}
	return out
}

// SetFailed shows a listing that failed where its items would have been:
// the items shown stay (those of an earlier listing, or the pages before
// the one that failed), under the failure.
func (r *Resources) SetFailed(f Failure) {
	if f.Retry == "" {
		f.Retry = "R lists again"
	}
	r.failed[f.Method] = &f
	r.sizeLists()
}

// SetUnlisted says why a list will not come (a recording in which the
// client never asked; a connection that ended first), in place of the
// list: never "nothing listed".
func (r *Resources) SetUnlisted(method, why string) {
	r.unlisted[method] = why
	r.sizeLists()
}

// countOf is a section's count for the title, a dash when its list will
// not come: 0 would say the server has none.
func (r *Resources) countOf(method string, n int) string {
	if n == 0 && r.unlisted[method] != "" {
		return "—"
	}
	return strconv.Itoa(n)
}

// Failed is the failure shown for a list method, nil when none (tests).
func (r *Resources) Failed(method string) *Failure { return r.failed[method] }

// SetPage applies one page of resources/list or resources/templates/list:
// the first page replaces, later pages append.
func (r *Resources) SetPage(method string, items []json.RawMessage, first bool, nextCursor string) {
	r.next[method] = nextCursor
	delete(r.failed, method)
	delete(r.unlisted, method)
	switch method {
	case mcp.MethodResourcesList:
		if first {
			r.resources = nil
		}
		for _, raw := range items {
			var res mcp.Resource
			_ = json.Unmarshal(raw, &res)
			res.Raw = raw
			r.resources = append(r.resources, res)
		}
	case mcp.MethodResourceTemplatesList:
		if first {
			r.templates = nil
		}
		for _, raw := range items {
			var t mcp.ResourceTemplate
			_ = json.Unmarshal(raw, &t)
			t.Raw = raw
			r.templates = append(r.templates, t)
		}
	}
	r.measure()
	r.lists[0].SetLen(len(r.resources))
	r.lists[1].SetLen(len(r.templates))
	r.sizeLists()
}

// measure records each section's widest row: mark, name, URI (or URI
// template) and MIME type.
func (r *Resources) measure() {
	r.wantW = [2]int{}
	for _, res := range r.resources {
		w := 2 + ansi.StringWidth(termsafe.String(res.Name)) + 1 + ansi.StringWidth(termsafe.String(res.URI))
		if res.MimeType != "" {
			w += 1 + ansi.StringWidth(termsafe.String(res.MimeType))
		}
		r.wantW[0] = max(r.wantW[0], w)
	}
	for _, t := range r.templates {
		r.wantW[1] = max(r.wantW[1], 2+ansi.StringWidth(termsafe.String(t.Name))+1+ansi.StringWidth(termsafe.String(t.URITemplate)))
	}
}

// ContentWidth (Measured): the widest row of the section shown, border
// included, with room for the subscription badges once there are any, as
// what the pane wants; it needs nothing beyond the default share (a long
// URI is cut at the edge, the badge before it stays).
func (r *Resources) ContentWidth() (need, want int) {
	w := r.wantW[r.section]
	if w == 0 {
		return 0, 0
	}
	if r.section == 0 && (len(r.subs) > 0 || len(r.updates) > 0) {
		w += len(" ● sub 999 upd")
	}
	return 0, w + 2
}

// Resources and Templates are what is listed.
func (r *Resources) Resources() []mcp.Resource         { return r.resources }
func (r *Resources) Templates() []mcp.ResourceTemplate { return r.templates }

// Updated counts a notifications/resources/updated.
func (r *Resources) Updated(uri string) { r.updates[uri]++ }

// Updates is the count for a URI.
func (r *Resources) Updates(uri string) int { return r.updates[uri] }

// SetSubscribed records the outcome of a (un)subscribe.
func (r *Resources) SetSubscribed(uri string, on bool, err error) {
	if err != nil {
		r.status = "subscribe " + uri + ": " + err.Error()
		return
	}
	r.subs[uri] = on
	if on {
		r.status = "subscribed to " + uri
	} else {
		r.status = "unsubscribed from " + uri
	}
}

// Subscribed lists subscribed URIs, sorted.
func (r *Resources) Subscribed() []string {
	var out []string
	for u, on := range r.subs {
		if on {
			out = append(out, u)
		}
	}
	sort.Strings(out)
	return out
}

// SetRead keeps the last read result's blob for saving.
func (r *Resources) SetRead(uri string, result json.RawMessage) {
	r.lastBlob, r.lastURI, r.lastMime = nil, uri, ""
	r.readUIMeta(result)
	if b, u, mt, ok := BlobOf(result); ok {
		r.lastBlob, r.lastURI, r.lastMime = b, u, mt
	}
}

// SetStatus shows a line under the list (a save's outcome).
func (r *Resources) SetStatus(s string) { r.status = s }

// SetCompletions feeds completion answers to the open template form.
func (r *Resources) SetCompletions(msg CompletionsMsg) {
	if r.form != nil {
		r.form.SetCompletions(msg)
	}
}

// Form is the open template form (tests).
func (r *Resources) Form() *ArgsForm { return r.form }

func (r *Resources) count() int {
	if r.section == 0 {
		return len(r.resources)
	}
	return len(r.templates)
}

// SelectURI moves the cursor to a resource (tests, scripted use).
func (r *Resources) SelectURI(uri string) bool {
	for i, res := range r.resources {
		if res.URI == uri {
			r.section = 0
			r.lists[0].Select(i)
			return true
		}
	}
	return false
}

func (r *Resources) listMethod() string {
	if r.section == 0 {
		return mcp.MethodResourcesList
	}
	return mcp.MethodResourceTemplatesList
}

func (r *Resources) Update(msg tea.Msg) tea.Cmd {
	if r.form != nil {
		cmd, submit, cancel := r.form.Update(msg)
		switch {
		case cancel:
			if r.form.KeptDraft() {
				if r.drafts == nil {
					r.drafts = map[string]*ArgsForm{}
				}
				r.drafts[r.formTmpl] = r.form
			} else {
				delete(r.drafts, r.formTmpl)
			}
			r.form = nil
		case submit:
			uri := ExpandTemplate(r.formTmpl, r.form.Values())
			delete(r.drafts, r.formTmpl)
			r.form = nil
			return func() tea.Msg { return ReadResourceMsg{URI: uri} }
		}
		return cmd
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		r.lists[r.section].Update(msg) // the wheel
		return nil
	}
	e := r.keys.Explore
	switch {
	case key.Matches(km, e.Anyway) && !r.gate.OK:
		m := r.listMethod()
		return func() tea.Msg { return SendAnywayMsg{Method: m} }
	case key.Matches(km, e.Section):
		r.section = 1 - r.section
	case key.Matches(km, e.Refresh):
		m := r.listMethod()
		return func() tea.Msg { return ListPageMsg{Method: m} }
	case key.Matches(km, e.More):
		m := r.listMethod()
		if c := r.next[m]; c != "" {
			return func() tea.Msg { return ListPageMsg{Method: m, Cursor: c} }
		}
		r.status = "no more pages"
	case key.Matches(km, e.Open):
		if r.count() == 0 {
			return nil
		}
		if r.section == 0 {
			uri := r.resources[r.lists[0].Cursor()].URI
			return func() tea.Msg { return ReadResourceMsg{URI: uri} }
		}
		tmpl := r.templates[r.lists[1].Cursor()].URITemplate
		var fields []ArgField
		for _, v := range TemplateVars(tmpl) {
			fields = append(fields, ArgField{Name: v, Required: true})
		}
		if d := r.drafts[tmpl]; d != nil {
			// The same template has the same variables: the draft is
			// shown as it was left.
			delete(r.drafts, tmpl)
			r.form, r.formTmpl = d, tmpl
			r.form.Completes = r.completes
			r.form.SetReadOnly(r.readOnly)
			r.form.Reopen(r.theme, r.w, r.h, r.focused)
			return nil
		}
		ref, _ := json.Marshal(map[string]string{"type": "ref/resource", "uri": tmpl})
		r.form, r.formTmpl = NewArgsForm(r.theme, r.keys, "read "+termsafe.String(tmpl), ref, fields), tmpl
		r.form.Completes = r.completes
		r.form.Preview = func(v map[string]string) string { return ExpandTemplate(tmpl, v) }
		r.form.SetReadOnly(r.readOnly)
		r.form.SetSize(r.w, r.h)
		if r.focused {
			r.form.Focus()
		}
		return r.form.Start()
	case key.Matches(km, e.Sub) && r.section == 0 && r.count() > 0:
		uri := r.resources[r.lists[0].Cursor()].URI
		on := !r.subs[uri]
		return func() tea.Msg { return SubscribeMsg{URI: uri, On: on} }
	case key.Matches(km, e.Save):
		if r.lastBlob == nil {
			r.status = "no blob to save: read a binary resource first"
			return nil
		}
		msg := SaveBlobMsg{URI: r.lastURI, MimeType: r.lastMime, Data: r.lastBlob}
		return func() tea.Msg { return msg }
	default:
		r.lists[r.section].Update(km)
	}
	return nil
}

// ClickRow puts the cursor on the item drawn on row y of the pane (0 is
// the top border).
func (r *Resources) ClickRow(y int) {
	if r.form != nil {
		return
	}
	top := 2 + len(r.notice(r.listMethod())) // the border, the notice, the section tabs
	if i := r.lists[r.section].ItemAt(y - top); i >= 0 {
		r.lists[r.section].Select(i)
	}
}

// resourceRow is resource i as one line: name, subscription and updates,
// URI, MIME type.
func (r *Resources) resourceRow(i int) string {
	t := r.theme
	res := r.resources[i]
	name := res.Name
	if name == "" {
		name = rawName(res.Raw, "name", "uri")
	}
	// The subscription badge comes before the URI: long URIs are cut at
	// the pane's edge, and the live count must stay visible.
	s := t.Tools.Name.Render(termsafe.String(name))
	if r.subs[res.URI] {
		s += " " + t.Tools.Badge.Render(fmt.Sprintf("● sub %d upd", r.updates[res.URI]))
	} else if n := r.updates[res.URI]; n > 0 {
		s += " " + t.Tools.Badge.Render(fmt.Sprintf("%d upd", n))
	}
	s += " " + t.Tools.Description.Render(termsafe.String(res.URI))
	if res.MimeType != "" {
		s += " " + t.Detail.Label.Render(termsafe.String(res.MimeType))
	}
	if app := r.appSummary(&res); app != "" {
		s += " " + t.Tools.Badge.Render("app view") + " " + t.Detail.Label.Render(app)
	}
	return s
}

// templateRow is template i as one line: name and URI template.
func (r *Resources) templateRow(i int) string {
	t := r.theme
	tm := r.templates[i]
	return t.Tools.Name.Render(termsafe.String(tm.Name)) + " " + t.Tools.Description.Render(termsafe.String(tm.URITemplate))
}

func (r *Resources) ShortHelp() []key.Binding {
	if r.form != nil {
		return r.form.ShortHelp()
	}
	e := r.keys.Explore
	if !r.gate.OK {
		return []key.Binding{e.Anyway}
	}
	sub := e.Sub
	sub.SetEnabled(r.canSub && r.section == 0)
	more := e.More
	more.SetEnabled(r.next[r.listMethod()] != "")
	sc := r.keys.Scroll
	l := r.lists[r.section]
	left := sc.Left
	left.SetEnabled(l.CanScrollSideways())
	updown := enabledIf(l.Len() > 1, e.Up, e.Down)
	open := e.Open
	open.SetEnabled(l.Len() > 0)
	return []key.Binding{updown[0], updown[1], open, e.Section, sub, more, e.Save, e.Refresh, left, sc.Wrap}
}

func (r *Resources) FullHelp() [][]key.Binding {
	if r.form != nil {
		return r.form.FullHelp()
	}
	return helpOnce(r.lists[r.section].FullHelp(), r.ShortHelp())
}

func (r *Resources) View() string {
	if r.form != nil {
		return r.form.View()
	}
	t := r.theme
	body := r.notice(r.listMethod())
	tabs := []string{"Resources", "Templates"}
	tabs[r.section] = t.Tabs.Active.Render(tabs[r.section])
	tabs[1-r.section] = t.Tabs.Inactive.Render(tabs[1-r.section])
	body = append(body, tabs[0]+"  "+tabs[1]+t.Form.Hint.Render("  (t switches)"))
	if r.count() == 0 && r.failed[r.listMethod()] == nil && r.unlisted[r.listMethod()] == "" {
		body = append(body, t.Log.Empty.Render("  nothing listed"))
	}
	body = append(body, listRows(t, r.lists[r.section], r.focused, r.w-2)...)
	if c := r.next[r.listMethod()]; c != "" {
		body = append(body, t.Form.Hint.Render("  … more on the server: m loads the next page"))
	}
	for len(body) < r.h-3 {
		body = append(body, "")
	}
	body = append(body, t.Status.Info.Render(termsafe.String(r.status)))
	return Box(t, r.Title(), r.focused, r.w, r.h, body)
}

// SetReadOnly says why the source sends nothing (a recording, a tap), or
// "" when it sends: a form opened from here says so at once.
func (r *Resources) SetReadOnly(why string) {
	r.readOnly = why
	if r.form != nil {
		r.form.SetReadOnly(why)
	}
}
