package form

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textarea"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/box"
)

// maxIssueLines caps the error lines under one row; the status line counts
// them all.
const maxIssueLines = 3

// formatHints are what a format expects, shown as placeholders.
var formatHints = map[string]string{
	"date":      "YYYY-MM-DD",
	"date-time": "YYYY-MM-DDThh:mm:ssZ",
	"time":      "hh:mm:ssZ",
	"email":     "name@example.com",
	"uri":       "https://…",
	"url":       "https://…",
	"uuid":      "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
}

func (f *Form) innerWidth() int  { return max(f.w-2, 0) }
func (f *Form) innerHeight() int { return max(f.h-2, 0) }

// footerHeight is the lines under the fields: a rule, the focused field's
// description and hints, and the status line. Small forms keep only the
// status line.
func (f *Form) footerHeight() int {
	ih := f.innerHeight()
	switch {
	case ih >= 16:
		return 5
	case ih >= 8:
		return 4
	case ih >= 2:
		return 1
	}
	return 0
}

func (f *Form) bodyHeight() int { return max(f.innerHeight()-f.footerHeight(), 0) }

// labelWidth is the label column: wide enough for the longest label on
// screen, never more than two fifths of the width.
func (f *Form) labelWidth() int {
	widest := 8
	for _, r := range f.rows {
		if w := r.depth*2 + ansi.StringWidth(termsafe.String(r.label)) + 2; w > widest {
			widest = w
		}
	}
	return min(widest, max(f.innerWidth()*2/5, 8))
}

// valueWidth is what is left for the value after the mark and the label.
func (f *Form) valueWidth() int { return max(f.innerWidth()-2-f.labelWidth()-1, 4) }

// rowLines is a row's height: its first issue sits beside the value, the
// others go under it.
func (f *Form) rowLines(i int) int {
	return 1 + f.areaExtra(i) + min(max(len(f.rowIssues[i])-1, 0), maxIssueLines)
}

// areaExtra is the lines a JSON field's editor takes under its row.
func (f *Form) areaExtra(i int) int {
	if i == f.cur && f.editing && f.multiline {
		return f.areaLines() - 1
	}
	return 0
}

// move moves the cursor d rows.
func (f *Form) move(d int) {
	if len(f.rows) == 0 {
		return
	}
	f.cur = max(0, min(f.cur+d, len(f.rows)-1))
	f.scrollToCursor()
}

// scrollToCursor keeps the cursor's row, and its error lines, on screen.
func (f *Form) scrollToCursor() {
	body := f.bodyHeight()
	f.cur = max(0, min(f.cur, len(f.rows)-1))
	if f.cur < f.top {
		f.top = f.cur
	}
	for f.top < f.cur {
		used := 0
		for i := f.top; i <= f.cur; i++ {
			used += f.rowLines(i)
		}
		if used <= body {
			break
		}
		f.top++
	}
	f.top = max(0, min(f.top, len(f.rows)-1))
}

// View draws the form in exactly w×h cells, border included. Only the rows
// on screen are rendered.
func (f *Form) View() string {
	if f.w <= 0 || f.h <= 0 {
		return ""
	}
	iw := f.innerWidth()
	var body []string
	if f.raw {
		body = f.rawBody(iw)
	} else {
		body = f.formBody(iw)
	}
	return f.box(body)
}

func (f *Form) formBody(iw int) []string {
	bodyH := f.bodyHeight()
	lines := make([]string, 0, f.innerHeight())
	labelW := f.labelWidth()
	for i := f.top; i < len(f.rows) && len(lines) < bodyH; i++ {
		lines = append(lines, f.renderRow(i, labelW, iw))
		if extra := f.areaExtra(i); extra > 0 {
			// The JSON field's further lines, in the value column.
			pad := strings.Repeat(" ", 2+labelW+1)
			for _, l := range strings.Split(termsafe.Rendered(f.fieldArea.View()), "\n")[1:] {
				if len(lines) >= bodyH {
					break
				}
				lines = append(lines, ansi.Truncate(pad+l, iw, ""))
			}
		}
		issues := f.rowIssues[i]
		if len(issues) > 0 {
			issues = issues[1:]
		}
		indent := strings.Repeat(" ", 2+f.rows[i].depth*2+2)
		for j, msg := range issues {
			if len(lines) >= bodyH {
				break
			}
			if j == maxIssueLines-1 && len(issues) > maxIssueLines {
				msg = fmt.Sprintf("… and %d more", len(issues)-j)
			} else if j >= maxIssueLines {
				break
			}
			lines = append(lines, f.theme.Form.Error.Render(ansi.Truncate(indent+"✗ "+termsafe.String(msg), iw, "…")))
		}
	}
	for len(lines) < bodyH {
		lines = append(lines, "")
	}
	return append(lines, f.footer(iw)...)
}

// renderRow draws one row: cursor mark, indented label with the required
// mark, then the value.
func (f *Form) renderRow(i, labelW, iw int) string {
	r := f.rows[i]
	t := f.theme.Form
	focused := i == f.cur
	mark := "  "
	if focused {
		mark = t.Focused.Render("›") + " "
	}
	indent := strings.Repeat("  ", r.depth)
	label := termsafe.String(r.label)
	req := ""
	if r.kind == rowField && r.n.required && r.n.parent != nil && r.n.parent.kind == kindObject && !r.n.isEntry {
		req = "*"
	}
	labelStyle := t.Label
	if focused {
		labelStyle = t.Focused
	}
	var left string
	switch r.kind {
	case rowOption, rowAdd:
		left = indent
	default:
		left = indent + labelStyle.Render(label) + t.Required.Render(req)
	}
	left = ansi.Truncate(left, labelW, "…")
	pad := max(labelW-ansi.StringWidth(left), 0)
	vw := max(iw-2-labelW-1, 1)
	var value string
	if focused && f.editing && f.multiline {
		value, _, _ = strings.Cut(termsafe.Rendered(f.fieldArea.View()), "\n")
	} else if focused && f.editing {
		value = termsafe.Rendered(f.input.View())
		if len(f.rowIssues[i]) > 0 {
			// The input pads itself to its width; cut the padding so the
			// problem can sit beside what is typed.
			shown := f.input.Value()
			if shown == "" {
				shown = f.input.Placeholder
			}
			value = ansi.Truncate(value, ansi.StringWidth(termsafe.String(shown))+1, "")
		}
	} else {
		value = f.renderValue(r, vw)
	}
	if r.kind == rowOption || r.kind == rowAdd {
		// These have no label: their text starts at the indent.
		return mark + indent + ansi.Truncate(value, max(iw-2-len(indent), 1), "…")
	}
	if issues := f.rowIssues[i]; len(issues) > 0 {
		// The first problem sits beside the value it is about; the value
		// keeps at least half the room.
		if !(focused && f.editing) {
			// An edited row's value ends in the cell its cursor takes; the
			// others keep that cell too, so the problem stays in its column
			// as the cursor moves from row to row.
			value += " "
		}
		msg := "✗ " + termsafe.String(issues[0])
		valueW := min(ansi.StringWidth(value), max(vw-ansi.StringWidth(msg)-2, vw/3))
		value = ansi.Truncate(value, valueW, "…")
		gap := valueW - ansi.StringWidth(value) + 2
		errW := max(vw-valueW-2, 0)
		return mark + left + strings.Repeat(" ", pad) + " " + value + strings.Repeat(" ", gap) + t.Error.Render(ansi.Truncate(msg, errW, "…"))
	}
	return mark + left + strings.Repeat(" ", pad) + " " + ansi.Truncate(value, vw, "…")
}

func (f *Form) renderValue(r row, vw int) string {
	t := f.theme.Form
	n := r.n
	switch r.kind {
	case rowAdd:
		if n.kind == kindArray {
			return t.Hint.Render("+ add item (" + f.keys.Form.Add.Help().Key + ")")
		}
		return t.Hint.Render("+ add key (" + f.keys.Form.Add.Help().Key + ")")
	case rowOption:
		box := "[ ] "
		if n.picked[r.opt] {
			box = "[x] "
		}
		return t.Value.Render(box + termsafe.String(n.options[r.opt].label))
	case rowKey:
		return t.Value.Render(termsafe.String(n.name))
	}
	switch n.state {
	case omitted:
		return t.Omitted.Render("omitted") + f.defaultHint(n)
	case isNull:
		return t.Omitted.Render("null")
	}
	fold := "▾ "
	if n.collapsed {
		fold = "▸ "
	}
	switch n.kind {
	case kindString:
		if n.text == "" {
			return t.Omitted.Render(`""`) + " " + t.Hint.Render(placeholder(n))
		}
		if first, _, several := strings.Cut(n.text, "\n"); several {
			// One line here; the cursor opens it on all of them.
			return t.Value.Render(termsafe.String(first)) + t.Hint.Render(" (+"+plural.S(strings.Count(n.text, "\n"), "line")+")")
		}
		return t.Value.Render(termsafe.String(n.text))
	case kindNumber, kindInteger:
		if n.text == "" {
			return t.Hint.Render(placeholder(n))
		}
		return t.Value.Render(termsafe.String(n.text))
	case kindBool:
		if n.on {
			return t.Value.Render("[x] true")
		}
		return t.Value.Render("[ ] false")
	case kindEnum:
		var s string
		if n.sel < 0 {
			s = t.Group.Render("‹ ") + t.Omitted.Render("choose") + t.Group.Render(" ›") + t.Hint.Render(" "+plural.S(len(n.options), "value"))
		} else {
			s = t.Group.Render("‹ ") + t.Value.Render(termsafe.String(n.options[n.sel].label)) + t.Group.Render(" ›")
			if len(n.options) > 1 {
				s += t.Hint.Render(fmt.Sprintf(" %d/%d", n.sel+1, len(n.options)))
			}
		}
		if f.enumFilter != "" && f.filterIdent == identOf(r) {
			s += f.filterHint(n)
		}
		return s
	case kindMulti:
		count := 0
		for _, p := range n.picked {
			if p {
				count++
			}
		}
		return t.Group.Render(fold) + t.Hint.Render(fmt.Sprintf("%d of %d chosen", count, len(n.options)))
	case kindObject:
		if n.parent == nil && len(n.props) == 0 && len(n.entries) == 0 && !n.offersKeys {
			// The whole form is an object that takes nothing: say so.
			return t.Hint.Render("{} — nothing to fill in; " + f.keys.Form.Send.Help().Key + " sends")
		}
		if n.collapsed {
			return t.Group.Render(fold) + t.Hint.Render(plural.S(len(n.props)+len(n.entries), "field")+" (collapsed)")
		}
		return t.Group.Render(fold) + t.Hint.Render(plural.S(len(n.props)+len(n.entries), "field"))
	case kindArray:
		s := t.Group.Render(fold) + t.Hint.Render(plural.S(len(n.items), "item"))
		if lo, hi := minItems(n.sch), maxItems(n.sch); lo > 0 || hi >= 0 {
			s += t.Hint.Render(" · " + itemBounds(lo, hi))
		}
		return s
	case kindChoice:
		s := t.Group.Render(fold+"‹ ") + t.Value.Render(termsafe.String(n.branches[n.branch].label)) + t.Group.Render(" ›")
		return s + t.Hint.Render(fmt.Sprintf(" %s %d/%d", n.keyword, n.branch+1, len(n.branches)))
	case kindNull:
		return t.Value.Render("null")
	case kindRaw:
		// One line here; the cursor opens it on several.
		text := strings.Join(strings.Fields(n.text), " ")
		if text == "" {
			return t.Warn.Render("JSON") + " " + t.Hint.Render("(empty: type JSON here)")
		}
		return t.Warn.Render("JSON") + " " + t.Value.Render(termsafe.String(text))
	}
	return ""
}

// filterHint shows what was typed on an enum and what it lets through.
func (f *Form) filterHint(n *node) string {
	t := f.theme.Form
	m := f.enumMatches(n)
	var labels []string
	for _, i := range m {
		labels = append(labels, n.options[i].label)
	}
	s := "  /" + termsafe.String(f.enumFilter)
	switch len(m) {
	case 0:
		return t.Error.Render(s + " no match")
	case 1:
		return t.Hint.Render(s + " · 1 match")
	}
	return t.Hint.Render(fmt.Sprintf("%s · %d matches: %s", s, len(m), termsafe.String(strings.Join(labels, ", "))))
}

func itemBounds(lo, hi int) string {
	switch {
	case hi < 0:
		return "min " + strconv.Itoa(lo)
	case lo <= 0:
		return "max " + strconv.Itoa(hi)
	}
	return strconv.Itoa(lo) + "–" + strconv.Itoa(hi)
}

func (f *Form) defaultHint(n *node) string {
	if d, ok := n.sch["default"]; ok {
		return f.theme.Form.Hint.Render(" (default " + termsafe.String(compactJSON(d)) + ")")
	}
	return ""
}

// placeholder says what a text field expects.
func placeholder(n *node) string {
	if n == nil {
		return ""
	}
	if h := formatHints[strString(n.sch["format"])]; h != "" {
		return h
	}
	switch n.kind {
	case kindNumber:
		return "number"
	case kindInteger:
		return "integer"
	case kindRaw:
		return "JSON"
	}
	if p := strString(n.sch["pattern"]); p != "" {
		return termsafe.String(p)
	}
	return ""
}

func strString(v any) string { s, _ := v.(string); return s }

// footer is the rule, the focused field's description and constraints, and
// the status line.
func (f *Form) footer(iw int) []string {
	fh := f.footerHeight()
	if fh == 0 {
		return nil
	}
	t := f.theme.Form
	status := f.statusLine(iw)
	if fh == 1 {
		return []string{status}
	}
	out := []string{t.Hint.Render(strings.Repeat("─", iw))}
	descLines := fh - 3
	desc, hints := f.describeFocused()
	for _, l := range wrap(desc, iw, descLines) {
		out = append(out, t.Label.UnsetBold().Render(l))
	}
	for len(out) < 1+descLines {
		out = append(out, "")
	}
	out = append(out, t.Hint.Render(ansi.Truncate(hints, iw, "…")))
	return append(out, status)
}

// describeFocused is the focused field's title and description, and a line
// of what it accepts: type, bounds, format, pattern, examples, fallback.
func (f *Form) describeFocused() (desc, hints string) {
	if f.cur >= len(f.rows) {
		return "", ""
	}
	r := f.rows[f.cur]
	n := r.n
	m := n.sch
	var parts []string
	if title := strString(m["title"]); title != "" {
		parts = append(parts, title+".")
	}
	if d := strString(m["description"]); d != "" {
		parts = append(parts, d)
	}
	desc = strings.Join(strings.Fields(termsafe.Block(strings.Join(parts, " "))), " ")
	where := termsafe.String(schema.DisplayPointer(r.ptr))
	if desc == "" {
		desc = where
	} else {
		desc = where + " — " + desc
	}

	k := f.keys.Form
	switch r.kind {
	case rowKey:
		h := "the key of this row · " + k.Delete.Help().Key + " deletes the row"
		if n.freshKey {
			h = "type the key (" + termsafe.String(n.name) + " until you do) · " + k.Delete.Help().Key + " deletes the row"
		}
		return where, h
	case rowAdd:
		what := "an item"
		if n.kind == kindObject {
			what = "a key/value row"
		}
		return desc, "typing, enter or " + k.Add.Help().Key + " adds " + what
	}

	var h []string
	branch := k.Branch.Help().Key
	switch {
	case n.free && n.kind == kindString:
		h = append(h, "any JSON value, sent as a string ("+branch+": as JSON)")
	case n.free:
		h = append(h, "JSON field: "+n.note+" ("+branch+": as a string)")
	case n.kind == kindRaw && n.note != "":
		h = append(h, "JSON field: "+n.note)
	}
	if ty := schema.Types(m); len(ty) > 0 {
		h = append(h, strings.Join(ty, "|"))
	}
	if (n.kind == kindNumber || n.kind == kindInteger) && n.state == present {
		// What is typed stays as typed; what goes out is its plain form.
		if num, ok := parseNumber(n.text, n.kind == kindInteger); ok && string(num) != n.text {
			h = append(h, "sent as "+termsafe.String(string(num)))
		}
	}
	switch {
	case n.isEntry: // a key/value row's value is there while its row is
	case n.required && n.parent != nil && n.parent.kind == kindObject:
		h = append(h, "required")
	case n.parent != nil && n.parent.kind == kindObject:
		h = append(h, "optional ("+n.state.String()+")")
	}
	for _, kw := range []string{"minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "minProperties", "maxProperties", "format", "pattern"} {
		if v, ok := m[kw]; ok {
			h = append(h, kw+" "+termsafe.String(showJSON(v)))
			if hint := formatHints[strString(v)]; kw == "format" && hint != "" {
				h[len(h)-1] += " (" + hint + ")"
			}
		}
	}
	if f.memberTarget() == n {
		if n.kind == kindArray {
			h = append(h, "typing starts the first item ("+k.Add.Help().Key+")")
		} else {
			h = append(h, "typing starts a key ("+k.Add.Help().Key+")")
		}
	}
	if ex := asSlice(m["examples"]); len(ex) > 0 {
		var shown []string
		for _, x := range ex {
			shown = append(shown, compactJSON(x))
		}
		h = append(h, "e.g. "+termsafe.String(strings.Join(shown, ", "))+" ("+f.keys.Form.Example.Help().Key+")")
	}
	if n.kind == kindEnum && len(n.options) > 1 {
		h = append(h, f.keys.Form.PrevOption.Help().Key+"/"+f.keys.Form.NextOption.Help().Key+" to choose, type to filter")
	}
	return desc, strings.Join(h, " · ")
}

// statusLine says whether the value validates and what sending will do.
func (f *Form) statusLine(iw int) string {
	t := f.theme.Form
	var s string
	issues := f.issues
	if f.raw {
		_, issues = f.Value()
	}
	switch {
	case f.confirming:
		k := f.keys.Form
		q := "unsent: " + k.Discard.Help().Key + " discard · " + k.Back.Help().Key + " back"
		if f.keepDrafts {
			q = "unsent: " + k.KeepDraft.Help().Key + " keep draft · " + k.Discard.Help().Key + " discard · " + k.Back.Help().Key + " back"
		}
		s = t.Warn.Render("? " + q)
	case f.flash != "" && f.flashIsErr:
		s = t.Error.Render(f.flash)
	case f.flash != "":
		s = t.Hint.Render(f.flash)
	case f.raw && f.rawErr != "":
		s = t.Error.Render("✗ not JSON: " + termsafe.String(f.rawErr))
	case !f.s.Ready():
		s = t.Hint.Render("checking the schema…")
	case f.s.CompileErr() != nil:
		s = t.Warn.Render("⚠ not validated: " + termsafe.String(f.s.CompileErr().Error()))
	case len(issues) == 0 && f.readOnly != "":
		s = t.OK.Render("✓ valid") + t.Warn.Render(" · read-only: "+termsafe.String(f.readOnly))
	case len(issues) == 0:
		s = t.OK.Render("✓ valid") + t.Hint.Render(" · "+f.keys.Form.Send.Help().Key+" sends")
	default:
		first := issues[0].String()
		if len(f.rootIssues) > 0 {
			first = "(root) " + f.rootIssues[0]
		}
		sends := t.Hint.Render(" · " + f.keys.Form.SendAnyway.Help().Key + " sends anyway · ")
		if f.readOnly != "" {
			sends = t.Warn.Render(" · read-only · ")
		}
		s = t.Error.Render(fmt.Sprintf("✗ %s", plural.S(len(issues), "problem"))) + sends + t.Error.Render(termsafe.String(first))
	}
	if len(f.history) > 0 {
		pos := "draft"
		if f.histPos < len(f.history) {
			pos = fmt.Sprintf("%d/%d", f.histPos+1, len(f.history))
		}
		tag := t.Hint.Render(" · history " + pos)
		s = ansi.Truncate(s, max(iw-ansi.StringWidth(tag), 0), "…") + tag
	}
	return ansi.Truncate(s, iw, "…")
}

// wrap splits text into at most n lines of width w, the last cut with "…".
func wrap(text string, w, n int) []string {
	if n <= 0 || w <= 0 || text == "" {
		return nil
	}
	wrapped := strings.Split(ansi.Wrap(text, w, ""), "\n")
	if len(wrapped) > n {
		wrapped = wrapped[:n]
		wrapped[n-1] = ansi.Truncate(wrapped[n-1]+" …", w, "…")
	}
	return wrapped
}

// --- raw view ---

func newArea() textarea.Model {
	a := textarea.New()
	a.ShowLineNumbers = true
	a.Prompt = ""
	a.CharLimit = 0
	a.MaxHeight = 0
	a.MaxWidth = 0
	return a
}

func (f *Form) applyAreaTheme() {
	s := textarea.DefaultStyles(f.theme.IsDark)
	s.Cursor.Blink = false
	if f.theme.Palette.Primary != nil {
		s.Cursor.Color = f.theme.Palette.Primary
	}
	s.Focused.LineNumber = f.theme.Form.Hint
	s.Blurred.LineNumber = f.theme.Form.Hint
	s.Focused.CursorLineNumber = f.theme.Form.Label
	f.area.SetStyles(s)
}

func (f *Form) sizeArea() { f.fitArea(true) }

// fitArea keeps the raw view's line-number gutter as wide as its numbers
// (FitGutter): after every change of its text, and on a resize.
func (f *Form) fitArea(resize bool) {
	FitGutter(&f.area, max(f.innerWidth(), 1), f.bodyHeight(), resize)
}

func (f *Form) rawBody(iw int) []string {
	bodyH := f.bodyHeight()
	lines := strings.Split(termsafe.Rendered(f.area.View()), "\n")
	if len(lines) > bodyH {
		lines = lines[:bodyH]
	}
	for len(lines) < bodyH {
		lines = append(lines, "")
	}
	t := f.theme.Form
	fh := f.footerHeight()
	if fh == 0 {
		return lines
	}
	status := f.statusLine(iw)
	if fh == 1 {
		return append(lines, status)
	}
	lines = append(lines, t.Hint.Render(strings.Repeat("─", iw)))
	_, issues := f.Value()
	var notes []string
	if f.rawErr == "" {
		for _, is := range issues {
			notes = append(notes, "✗ "+termsafe.String(is.String()))
		}
	}
	if len(notes) == 0 {
		notes = append(notes, "raw JSON of the same value · "+f.keys.Form.Raw.Help().Key+" takes it back into the form")
	}
	for i := 0; i < fh-2; i++ {
		l := ""
		if i < len(notes) {
			l = notes[i]
			if i == fh-3 && len(notes) > fh-2 {
				l = fmt.Sprintf("… and %d more", len(notes)-i)
			}
		}
		style := t.Error
		if len(issues) == 0 || f.rawErr != "" {
			style = t.Hint
		}
		lines = append(lines, style.Render(ansi.Truncate(l, iw, "…")))
	}
	return append(lines, status)
}

// box draws the rounded border with the title in the top edge, like the
// other panes.
func (f *Form) box(body []string) string {
	return box.Draw(f.theme, f.title, f.focused, f.w, f.h, body)
}
