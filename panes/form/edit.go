package form

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// How a form behaves like a form: a text field is edited as soon as the
// cursor is on it (no key to start editing, none to finish), tab moves on
// and keeps editing, an enum filters as you type, a JSON field takes
// several lines, and esc on a form that holds changes asks before
// anything is lost.

// maxAreaLines is the most lines a JSON field's editor takes on screen.
const maxAreaLines = 8

// rowIdent names a row across reflows: the rows are rebuilt when the
// structure changes, the nodes are not.
type rowIdent struct {
	kind rowKind
	n    *node
	opt  int
}

func identOf(r row) rowIdent { return rowIdent{kind: r.kind, n: r.n, opt: r.opt} }

// textRow reports whether row i takes typed text: a string, number or
// integer field (omitted or null ones too: typing fills them), a JSON
// field, or the key of a key/value row.
func (f *Form) textRow(i int) bool {
	if i < 0 || i >= len(f.rows) {
		return false
	}
	r := f.rows[i]
	switch r.kind {
	case rowKey:
		return true
	case rowField:
		switch r.n.kind {
		case kindString, kindNumber, kindInteger, kindRaw:
			return true
		}
	}
	return false
}

// enumRow reports whether the cursor is on an enum's row.
func (f *Form) enumRow() bool {
	if f.raw || f.cur < 0 || f.cur >= len(f.rows) {
		return false
	}
	r := f.rows[f.cur]
	return r.kind == rowField && r.n.kind == kindEnum && len(r.n.options) > 1
}

// isStop reports whether tab stops at row i: every row but the header of
// an open group, which only names the fields under it.
func (f *Form) isStop(i int) bool {
	r := f.rows[i]
	if r.kind != rowField || len(f.rows) == 1 {
		return true
	}
	switch r.n.kind {
	case kindObject, kindArray, kindMulti:
		return r.n.state != present || r.n.collapsed
	case kindChoice:
		// A oneOf/anyOf's branch (card or company) is the first thing to
		// choose, so tab stops on it. A union of types ("type": ["boolean",
		// "string"]) is one value that may take either type: tab goes on to
		// the value, as past an open group's header. On the sequential-
		// thinking server, tab then space switched the type instead of
		// ticking the box, and the next field's number went into the
		// string. ← → and alt+o still switch the type.
		if r.n.keyword != "type" {
			return true
		}
		open := r.n.state == present && !r.n.collapsed
		return !open || i+1 >= len(f.rows) || !f.rows[i+1].n.within(r.n)
	}
	return true
}

// moveStop moves to the next (d > 0) or previous field tab stops at; at
// either end the cursor stays.
func (f *Form) moveStop(d int) {
	for i := f.cur + d; i >= 0 && i < len(f.rows); i += d {
		if f.isStop(i) {
			f.cur = i
			f.scrollToCursor()
			return
		}
	}
}

// firstStop puts the cursor on the first field (not a group's header).
func (f *Form) firstStop() {
	f.cur = 0
	if len(f.rows) > 0 && !f.isStop(0) {
		f.moveStop(1)
	}
	f.top = 0 // the size may not be known yet: show the form from its top
}

// syncEdit follows the cursor after every key: leaving a text field
// commits it (a key/value row's key is renamed only then), arriving on one
// starts editing it, and leaving an enum clears its filter.
func (f *Form) syncEdit() {
	var id rowIdent
	onRow := !f.raw && f.cur >= 0 && f.cur < len(f.rows)
	if onRow {
		id = identOf(f.rows[f.cur])
	}
	if f.editing && (!onRow || id != f.editIdent) {
		f.endEdit()
	}
	if f.filterIdent != id || !onRow {
		f.enumFilter, f.filterIdent = "", rowIdent{}
	}
	if onRow && !f.editing && f.textRow(f.cur) {
		f.beginEdit()
	}
}

// beginEdit opens the editor on the focused text field: a one-line input,
// or for a JSON field a text area of several lines.
func (f *Form) beginEdit() {
	r := f.rows[f.cur]
	f.editing, f.editIdent = true, identOf(r)
	text := r.n.text
	switch {
	case r.kind == rowKey && r.n.freshKey:
		text = "" // the name it was given shows as the placeholder; typing replaces it
	case r.kind == rowKey:
		text = r.n.name
	case r.n.state != present:
		text = "" // an omitted or null field has no text until some is typed
	}
	// A JSON field takes several lines, and so does a string that holds
	// some (pasted, or set so).
	f.multiline = r.kind == rowField && (r.n.kind == kindRaw || (r.n.kind == kindString && strings.Contains(text, "\n")))
	if f.multiline {
		f.fieldArea = newArea()
		f.fieldArea.ShowLineNumbers = false
		f.applyFieldAreaTheme()
		f.fieldArea.SetValue(text)
		f.sizeFieldArea()
		f.fieldArea.Focus()
		return
	}
	f.input.SetWidth(max(f.valueWidth()-1, 1))
	f.input.SetValue(text)
	f.input.CursorEnd()
	f.input.Placeholder = placeholder(r.n)
	if r.kind == rowKey {
		f.input.Placeholder = r.n.name
	}
	if r.kind == rowField {
		switch r.n.state {
		case omitted:
			f.input.Placeholder = "omitted · type to fill it in"
		case isNull:
			f.input.Placeholder = "null · type to replace it"
		}
	}
	f.input.Focus()
}

// endEdit leaves the focused field. The text is already in the node (it is
// copied on every keystroke); a key is renamed now.
func (f *Form) endEdit() {
	f.editing, f.multiline = false, false
	f.input.Blur()
	f.fieldArea.Blur()
	e := f.editIdent
	f.editIdent = rowIdent{}
	if e.kind == rowKey && e.n != nil && e.n.parent != nil {
		name := f.input.Value()
		if name == "" && e.n.freshKey {
			return // nothing typed: the row keeps the name it was given
		}
		if name != e.n.name && !f.siblingHasKey(e.n, name) {
			cur := f.cur
			f.renameEntry(e.n, name)
			f.reflow()
			f.cur = min(cur, len(f.rows)-1)
		}
	}
}

// renameEntry gives a key/value row its new key. When the new key takes
// its value from other patternProperties than the old one, the value is
// built again from the new schema, keeping what it held (as JSON text
// when it no longer fits).
func (f *Form) renameEntry(e *node, name string) {
	p := e.parent
	old := e.name
	e.name, e.freshKey = name, false
	if p.keySchemaID(f.b, old) == p.keySchemaID(f.b, name) {
		return
	}
	v, has := e.value()
	ne := p.newEntry(f.b, name)
	if has && !ne.setValue(f.b, v) {
		ne.toRaw(v, "the value does not fit this key's schema")
	}
	for i, x := range p.entries {
		if x == e {
			p.entries[i] = ne
		}
	}
}

// restartEdit reloads the editor from the node after a command changed
// the field under it (an example, omit/empty/null, the history).
func (f *Form) restartEdit() {
	if f.editing {
		f.editing, f.multiline = false, false
		f.editIdent = rowIdent{}
	}
	f.syncEdit()
}

// typeKey gives a key (or a paste) to the focused field's editor and copies
// the text into the field.
func (f *Form) typeKey(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if f.multiline {
		f.fieldArea, cmd = f.fieldArea.Update(msg)
		f.sizeFieldArea()
		f.typed(f.fieldArea.Value())
	} else {
		f.input, cmd = f.input.Update(msg)
		f.typed(f.input.Value())
	}
	return cmd
}

// typed copies text into the field and revalidates: errors follow every
// keystroke. A key is committed when the cursor leaves it: renaming moves
// the pointer, and with it the rows, which should not happen under the
// user's fingers. Keys that change nothing (cursor moves) leave an omitted
// field omitted, and an optional field whose text is all deleted is
// omitted again: its row, its details and the value sent agree (a
// present "" is what the presence key gives, as for a field never typed
// in).
func (f *Form) typed(text string) {
	r := f.rows[f.cur]
	switch {
	case r.kind == rowKey:
		return
	case r.n.state != present && text == "":
		return
	case r.n.state == present && text == r.n.text:
		return
	case text == "" && r.n.text != "" && omittable(r.n):
		r.n.text, r.n.state = "", omitted
		f.revalidate()
		return
	}
	r.n.text = text
	r.n.state = present
	f.revalidate()
}

// paste puts pasted text where the cursor is. Line breaks arrive as CR
// from most terminals (tmux's paste-buffer among them) and as CR LF from
// some clipboards: both are one line break here, not two. A one-line
// field cannot hold a line break, and the input would turn each into a
// space, invisibly at the end ("foo " for a copied line): the break at
// the end is left out, those inside become spaces, and the status line
// says so. A string field keeps what was pasted and takes several lines
// from then on.
func (f *Form) paste(content string) tea.Cmd {
	f.flash = ""
	text := strings.ReplaceAll(content, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	var notes []string
	if strings.Contains(text, "\t") && !f.raw {
		// Both bubbles editors replace a tab (textinput with one space,
		// textarea with four) and neither can hold one.
		notes = append(notes, "its tabs became spaces")
	}
	var cmd tea.Cmd
	switch {
	case f.confirming:
		return nil
	case f.raw:
		f.area, cmd = f.area.Update(tea.PasteMsg{Content: text})
		f.rawChanged()
		return cmd
	case f.editing && f.multiline:
		cmd = f.typeKey(tea.PasteMsg{Content: text})
	case f.editing:
		one := strings.TrimRight(text, "\n")
		r := f.rows[f.cur]
		if strings.Contains(one, "\n") && r.kind == rowField && r.n.kind == kindString {
			f.pasteLines(text)
			notes = append([]string{fmt.Sprintf("pasted %d lines, kept: enter adds a line, tab moves on", strings.Count(one, "\n")+1)}, notes...)
			break
		}
		if strings.Contains(one, "\n") {
			notes = append([]string{"one line only: the paste's line breaks became spaces"}, notes...)
		} else if one != text {
			notes = append([]string{"pasted without the line break at its end"}, notes...)
		}
		cmd = f.typeKey(tea.PasteMsg{Content: strings.ReplaceAll(one, "\n", " ")})
	case f.enumRow():
		f.filterEnum(f.enumFilter + strings.Join(strings.Fields(text), " "))
		return nil
	case f.startMember():
		f.syncEdit()
		return f.paste(content) // what was pasted goes into the new member
	default:
		return nil
	}
	if len(notes) > 0 {
		f.setFlash(strings.Join(notes, "; "), false)
	}
	return cmd
}

// pasteLines puts a paste of several lines into the one-line string field
// being edited, at its cursor, and goes on editing it on several lines
// with the cursor after what was pasted.
func (f *Form) pasteLines(text string) {
	value := []rune(f.input.Value())
	pos := min(max(f.input.Position(), 0), len(value))
	before, after := string(value[:pos]), string(value[pos:])
	n := f.rows[f.cur].n
	n.text, n.state = before+text+after, present
	f.restartEdit()
	f.fieldArea.SetValue(after)
	f.fieldArea.MoveToBegin()
	f.fieldArea.InsertString(before + text)
	f.sizeFieldArea()
	f.typed(f.fieldArea.Value())
	f.revalidate()
}

// SetFieldText puts text into the focused text field as if it had been
// typed (an omitted field becomes present); it does nothing on other rows.
func (f *Form) SetFieldText(text string) {
	if _, _, ok := f.Field(); !ok {
		return
	}
	f.syncEdit()
	if f.multiline {
		f.fieldArea.SetValue(text)
	} else {
		f.input.SetValue(text)
		f.input.CursorEnd()
	}
	f.typed(text)
}

func (f *Form) applyFieldAreaTheme() {
	s := textarea.DefaultStyles(f.theme.IsDark)
	s.Cursor.Blink = false
	if f.theme.Palette.Primary != nil {
		s.Cursor.Color = f.theme.Palette.Primary
	}
	f.fieldArea.SetStyles(s)
}

// areaLines is how many lines the JSON field's editor shows: its text's
// lines and one to grow into, at most maxAreaLines.
func (f *Form) areaLines() int {
	return max(min(f.fieldArea.LineCount()+1, maxAreaLines, max(f.bodyHeight()-1, 1)), 1)
}

func (f *Form) sizeFieldArea() {
	f.fieldArea.SetWidth(max(f.valueWidth(), 4))
	f.fieldArea.SetHeight(f.areaLines())
}

// --- enums ---

// filterEnum narrows the focused enum to the values whose label (or JSON)
// contains filter, ignoring case, and picks the one that matches best
// (enumMatches); the chosen value stays only while nothing matches
// better, and no match keeps the value and says so.
func (f *Form) filterEnum(filter string) {
	n := f.focusedNode()
	f.enumFilter, f.filterIdent = filter, identOf(f.rows[f.cur])
	if filter == "" {
		return
	}
	m, ranks := f.rankedMatches(n)
	if len(m) == 0 {
		f.setFlash(fmt.Sprintf("no value matches %q (backspace to change it)", filter), true)
		return
	}
	for j, i := range m {
		if i == n.sel && n.state == present && ranks[j] == ranks[0] {
			return // the chosen value matches as well as any: keep it
		}
	}
	n.sel, n.state = m[0], present
	f.revalidate()
}

// enumMatches are the option indexes the filter lets through, best first:
// the whole label, then its start, then the start of a word in it, then
// anywhere in it or in the value's JSON; case counts only to break ties.
// Among equals the schema's order stands. On time-mcp's format, "h:mm"
// is "h:mm A" before "YYYY-MM-DD HH:mm:ss".
func (f *Form) enumMatches(n *node) []int {
	m, _ := f.rankedMatches(n)
	return m
}

func (f *Form) rankedMatches(n *node) (idx, ranks []int) {
	want := f.enumFilter
	lower := strings.ToLower(want)
	for i, o := range n.options {
		r := matchRank(o.label, want, lower)
		if r < 0 && strings.Contains(strings.ToLower(compactJSON(o.value)), lower) {
			r = 7
		}
		if want == "" {
			r = 0
		}
		if r < 0 {
			continue
		}
		// Insertion keeps the schema's order among equal ranks.
		at := len(idx)
		for at > 0 && ranks[at-1] > r {
			at--
		}
		idx = append(idx[:at], append([]int{i}, idx[at:]...)...)
		ranks = append(ranks[:at], append([]int{r}, ranks[at:]...)...)
	}
	return idx, ranks
}

// matchRank is how well label matches the filter want (lower is its
// lower case): 0 the same text, 1 the same ignoring case, 2 and 3 its
// start, 4 and 5 a word's start, 6 anywhere; -1 not at all.
func matchRank(label, want, lower string) int {
	ll := strings.ToLower(label)
	switch {
	case label == want:
		return 0
	case ll == lower:
		return 1
	case strings.HasPrefix(label, want):
		return 2
	case strings.HasPrefix(ll, lower):
		return 3
	}
	best := -1
	for at := 0; ; {
		i := strings.Index(ll[at:], lower)
		if i < 0 {
			return best
		}
		i += at
		r := 6
		if wordStart(ll, i) {
			r = 5
			if len(ll) == len(label) && strings.HasPrefix(label[i:], want) { // (lower case may change a text's length)
				r = 4
			}
		}
		if best < 0 || r < best {
			best = r
		}
		at = i + 1
		if at >= len(ll) {
			return best
		}
	}
}

// wordStart reports whether byte i of s starts a word: the text's start,
// or a letter or digit after something that is neither.
func wordStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(prev) && !unicode.IsDigit(prev)
}

// --- closing ---

// dirty reports whether the value differs from the one the form opened
// with.
func (f *Form) dirty() bool {
	v, _ := f.Value()
	return !sameText(v, f.baseline)
}

func sameText(a, b json.RawMessage) bool {
	da, errA := schema.Decode(a)
	db, errB := schema.Decode(b)
	if errA != nil || errB != nil {
		return string(a) == string(b)
	}
	return sameJSON(da, db)
}

// requestClose is esc: a form without changes closes; one with changes
// asks first, so that a stray esc never loses what was typed.
func (f *Form) requestClose() tea.Cmd {
	// A filter typed on an enum was a way to find a value, not a value: a
	// draft kept now must not come back with it (a stale "/zzz no match").
	f.enumFilter, f.filterIdent = "", rowIdent{}
	if f.editing && f.editIdent.kind == rowKey {
		// A key is renamed when the cursor leaves it: one being typed is
		// part of what a kept draft keeps (and what makes the form dirty).
		f.endEdit()
	}
	if !f.dirty() {
		return cancel
	}
	f.confirming = true
	return nil
}

// confirmKey answers the question esc asked: keep the draft (when the host
// keeps drafts), discard it, or go back to the form.
func (f *Form) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	k := f.keys.Form
	switch {
	case f.keepDrafts && key.Matches(msg, k.KeepDraft):
		f.confirming = false
		return func() tea.Msg { return CancelMsg{Keep: true} }
	case key.Matches(msg, k.Discard):
		f.confirming = false
		return cancel
	case key.Matches(msg, k.Back):
		f.confirming = false
	}
	return nil
}

// Confirming reports whether the form is asking what to do with its
// changes.
func (f *Form) Confirming() bool { return f.confirming }

// --- JSON errors ---

// jsonError says where text stops being JSON: "line 3, column 7: ...".
func jsonError(text string, err error) string {
	pos := -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		pos = int(syn.Offset) - 1 // the offset is just past the byte it stopped at
	case errors.As(err, &typ):
		pos = int(typ.Offset) - 1
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if strings.TrimSpace(text) == "" {
			return "empty: type a JSON value"
		}
		pos = len(text)
		err = errors.New("the text ends before the JSON value does")
	}
	if pos < 0 {
		return err.Error()
	}
	line, col := lineCol(text, pos)
	return fmt.Sprintf("line %d, column %d: %s", line, col, err.Error())
}

// lineCol turns a byte position into a 1-based line and column (counted
// in characters, not bytes).
func lineCol(text string, pos int) (line, col int) {
	pos = max(0, min(pos, len(text)))
	before := text[:pos]
	line = strings.Count(before, "\n") + 1
	col = len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
	return line, col
}

// omittable reports whether a field may be left out of its object: an
// optional property (not a key/value entry, not an array's item).
func omittable(n *node) bool {
	return !n.required && !n.isEntry && n.parent != nil && n.parent.kind == kindObject
}
