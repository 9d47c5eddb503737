package form

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// Update handles keys and the results of the form's own commands.
func (f *Form) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case compiledMsg:
		if msg.s == f.s {
			f.s.SetCompiled(msg.c)
			f.revalidate()
		}
		return nil
	case editorDoneMsg:
		cmd := f.editorDone(msg)
		f.syncEdit()
		return cmd
	case tea.PasteMsg:
		return f.paste(msg.Content)
	case tea.KeyPressMsg:
		f.flash = ""
		f.syncEdit() // the cursor may have been moved from outside (SetValue, a host)
		var cmd tea.Cmd
		switch {
		case f.confirming:
			cmd = f.confirmKey(msg)
		case f.raw:
			cmd = f.rawKey(msg)
		case f.editing:
			cmd = f.editKey(msg)
		default:
			cmd = f.navKey(msg)
		}
		f.syncEdit()
		return cmd
	case tea.MouseWheelMsg:
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			f.move(-1)
		case tea.MouseWheelDown:
			f.move(1)
		}
		f.syncEdit()
	case tea.MouseClickMsg:
		if msg.Mouse().Button == tea.MouseLeft && !f.raw && !f.confirming {
			f.flash = ""
			cmd := f.clickAt(msg.Mouse().Y)
			f.syncEdit()
			return cmd
		}
	}
	return nil
}

// clickAt is a click on line y of the form (0 is its top border, as the
// host translates it): the row drawn there takes the cursor, and a second
// click on a row that takes no text acts on it (toggles, opens, adds).
func (f *Form) clickAt(y int) tea.Cmd {
	line := y - 1
	if line < 0 || line >= f.bodyHeight() {
		return nil
	}
	for i := f.top; i < len(f.rows); i++ {
		used := f.rowLines(i)
		if line < used {
			if i == f.cur && !f.textRow(i) {
				return f.activate()
			}
			f.cur = i
			f.scrollToCursor()
			return nil
		}
		line -= used
	}
	return nil
}

// isText reports a key that types text: a printable character with no
// ctrl, alt or other command modifier (shift is typing).
func isText(msg tea.KeyPressMsg) bool {
	const commandMods = tea.ModCtrl | tea.ModAlt | tea.ModMeta | tea.ModSuper | tea.ModHyper
	return msg.Text != "" && msg.Mod&commandMods == 0
}

// command runs the form command bound to msg, if any. It is shared by
// every row; callers first take the keys their row owns (typed text, the
// cursor keys of a text field).
func (f *Form) command(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := f.keys.Form
	switch {
	case key.Matches(msg, k.Send):
		return f.submit(false), true
	case key.Matches(msg, k.SendAnyway):
		return f.submit(true), true
	case key.Matches(msg, k.Close):
		return f.requestClose(), true
	case key.Matches(msg, k.Raw):
		f.openRaw()
	case key.Matches(msg, k.Editor):
		return f.openEditor(), true
	case key.Matches(msg, k.MoveUp):
		f.moveItem(-1)
	case key.Matches(msg, k.MoveDown):
		f.moveItem(1)
	case msg.String() == "tab" || msg.String() == "shift+tab":
		// tab and shift+tab go from field to field, skipping the headers
		// of open groups; the arrows visit every row.
		if msg.String() == "tab" {
			f.moveStop(1)
		} else {
			f.moveStop(-1)
		}
	case key.Matches(msg, k.Next):
		f.move(1)
	case key.Matches(msg, k.Prev):
		f.move(-1)
	case key.Matches(msg, k.PageDown):
		f.move(max(f.bodyHeight()-1, 1))
	case key.Matches(msg, k.PageUp):
		f.move(-max(f.bodyHeight()-1, 1))
	case key.Matches(msg, k.Add):
		f.addHere()
	case key.Matches(msg, k.Delete):
		f.deleteHere()
	case key.Matches(msg, k.Branch):
		switch n := f.focusedNode(); {
		case n != nil && n.free && f.rows[f.cur].kind == rowField:
			f.switchFree(n)
		case f.enclosingChoice(n) != nil:
			f.switchBranch(f.enclosingChoice(n), 1)
		default:
			f.setFlash("not inside a oneOf/anyOf: nothing to switch", true)
		}
	case key.Matches(msg, k.Presence):
		f.cyclePresence()
		f.restartEdit()
	case key.Matches(msg, k.Collapse):
		f.collapse()
	case key.Matches(msg, k.Example):
		f.useExample()
		f.restartEdit()
	case key.Matches(msg, k.HistoryPrev):
		f.browseHistory(-1)
	case key.Matches(msg, k.HistoryNext):
		f.browseHistory(1)
	default:
		return nil, false
	}
	return nil, true
}

// navKey handles a key on a row that takes no text: a boolean, an enum, a
// group's header, an option of a multi-select, an "add" row.
func (f *Form) navKey(msg tea.KeyPressMsg) tea.Cmd {
	k := f.keys.Form
	if f.enumRow() {
		// An enum filters as you type: the first value that matches is
		// chosen, ← and → step through the matches.
		switch {
		case isText(msg) && (msg.Text != " " || f.enumFilter != ""):
			f.filterEnum(f.enumFilter + msg.Text)
			return nil
		case msg.String() == "backspace" && f.enumFilter != "":
			r := []rune(f.enumFilter)
			f.filterEnum(string(r[:len(r)-1]))
			return nil
		case msg.String() == "enter":
			f.moveStop(1)
			return nil
		}
	}
	switch {
	case key.Matches(msg, k.NextOption):
		f.cycle(1)
		return nil
	case key.Matches(msg, k.PrevOption):
		f.cycle(-1)
		return nil
	case key.Matches(msg, k.Edit):
		return f.activate()
	}
	if isText(msg) && f.memberTarget() != nil {
		// Typing on an empty array or map, or on an add row, starts the
		// new item (or key) and the key typed goes into it; where none
		// may be added, the refusal says why.
		if !f.startMember() {
			return nil
		}
		f.syncEdit()
		return f.Update(msg)
	}
	cmd, ok := f.command(msg)
	if !ok && isText(msg) {
		// Typing on a row that takes none must not vanish silently.
		f.setFlash(f.noTyping(), true)
	}
	return cmd
}

// memberTarget is the array or map that typing on the focused row adds
// to: the one of an add row, or an array or key/value object whose
// header the cursor is on while it holds nothing (omitted, or empty).
func (f *Form) memberTarget() *node {
	if f.cur < 0 || f.cur >= len(f.rows) {
		return nil
	}
	r := f.rows[f.cur]
	n := r.n
	switch {
	case r.kind == rowAdd:
		return n
	case r.kind != rowField:
	case n.kind == kindArray && (n.state != present || len(n.items) == 0):
		return n
	case n.kind == kindObject && n.offersKeys && len(n.props) == 0 && (n.state != present || len(n.entries) == 0):
		return n
	}
	return nil
}

// startMember adds an item or a key where typing on the focused row
// starts one, and reports whether it did (maxItems may refuse).
func (f *Form) startMember() bool {
	n := f.memberTarget()
	if n == nil {
		return false
	}
	before := len(n.items) + len(n.entries)
	f.addTo(n)
	return len(n.items)+len(n.entries) > before
}

// noTyping says that the focused row takes no text, and what does.
func (f *Form) noTyping() string {
	add := f.keys.Form.Add.Help().Key
	switch n := f.rows[f.cur].n; {
	case n.kind == kindArray:
		return "this row takes no typing: " + add + " adds an item, tab moves to the next field"
	case n.kind == kindObject && n.offersKeys:
		return "this row takes no typing: " + add + " adds a key, tab moves to the next field"
	}
	return "this row takes no typing: tab moves to the next field"
}

// editKey handles a key on a text field, which is always being edited:
// text, the cursor keys and the input's own editing keys go to the input;
// tab, enter and the form's ctrl and alt commands do not.
func (f *Form) editKey(msg tea.KeyPressMsg) tea.Cmd {
	k := f.keys.Form
	if isText(msg) {
		return f.typeKey(msg)
	}
	switch s := msg.String(); {
	case f.multiline && (s == "enter" || key.Matches(msg, k.PrevOption) || key.Matches(msg, k.NextOption)):
		return f.typeKey(msg)
	case f.multiline && s == "up" && f.fieldArea.Line() > 0,
		f.multiline && s == "down" && f.fieldArea.Line() < f.fieldArea.LineCount()-1:
		return f.typeKey(msg) // up and down move between the text's lines first
	case s == "enter":
		f.moveStop(1)
		return nil
	case key.Matches(msg, k.PrevOption), key.Matches(msg, k.NextOption):
		return f.typeKey(msg)
	}
	if cmd, ok := f.command(msg); ok {
		return cmd
	}
	return f.typeKey(msg)
}

// activate is enter or space on a row that takes no text: toggle a
// boolean or an option, step an enum, open or close a group, add an item.
// (Text fields are edited as soon as they have the cursor.)
func (f *Form) activate() tea.Cmd {
	if f.cur >= len(f.rows) {
		return nil
	}
	r := f.rows[f.cur]
	n := r.n
	switch r.kind {
	case rowAdd:
		f.addTo(n)
		return nil
	case rowOption:
		n.picked[r.opt] = !n.picked[r.opt]
		n.state = present
		f.revalidate()
		return nil
	case rowKey:
		return nil
	}
	wasOmitted := n.state != present
	switch n.kind {
	case kindString, kindNumber, kindInteger, kindRaw:
		return nil
	case kindBool:
		if wasOmitted {
			n.state = present
		} else {
			n.on = !n.on
		}
		f.revalidate()
	case kindEnum:
		f.cycle(1)
	case kindNull:
		n.state = present
		f.revalidate()
	case kindChoice:
		if wasOmitted {
			f.makePresent(n)
			return nil
		}
		f.switchBranch(n, 1)
	default: // object, array, multi: open an omitted one, else fold
		if wasOmitted {
			f.makePresent(n)
			return nil
		}
		n.collapsed = !n.collapsed
		f.reflow()
	}
	return nil
}

func (f *Form) makePresent(n *node) {
	n.state = present
	n.collapsed = false
	n.prepare(f.b)
	f.reflow()
}

// cycle steps an enum (or a choice's branch) by d; on a boolean it toggles.
func (f *Form) cycle(d int) {
	n := f.focusedNode()
	if n == nil || f.rows[f.cur].kind != rowField {
		return
	}
	switch n.kind {
	case kindEnum:
		if len(n.options) == 0 {
			return
		}
		if n.state != present {
			n.state = present
			if n.sel < 0 {
				n.sel = 0
			}
		} else if m := f.enumMatches(n); f.enumFilter != "" && f.filterIdent == identOf(f.rows[f.cur]) && len(m) > 0 {
			// With a filter typed, the arrows step through its matches.
			at := 0
			for j, i := range m {
				if i == n.sel {
					at = j
				}
			}
			n.sel = m[((at+d)%len(m)+len(m))%len(m)]
		} else {
			n.sel = ((n.sel+d)%len(n.options) + len(n.options)) % len(n.options)
		}
		f.revalidate()
	case kindBool:
		n.state = present
		n.on = !n.on
		f.revalidate()
	case kindChoice:
		f.switchBranch(n, d)
	}
}

func (f *Form) switchBranch(c *node, d int) {
	if len(c.branches) == 0 {
		return
	}
	if c.state != present {
		f.makePresent(c)
		return
	}
	c.branch = ((c.branch+d)%len(c.branches) + len(c.branches)) % len(c.branches)
	c.activeNode(f.b)
	f.reflow()
	f.focusRowOf(c)
}

// switchFree reads a value the schema leaves open as JSON instead of a
// string, or back: the text stays as it is, only how it is sent changes
// ("5" the string, 5 the number).
func (f *Form) switchFree(n *node) {
	if n.kind == kindString {
		n.kind = kindRaw
		f.setFlash("sent as JSON now ("+f.keys.Form.Branch.Help().Key+": as a string)", false)
	} else {
		n.kind = kindString
		f.setFlash("sent as a string now ("+f.keys.Form.Branch.Help().Key+": as JSON)", false)
	}
	n.state = present
	f.restartEdit()
	f.reflow()
}

func (f *Form) siblingHasKey(e *node, name string) bool {
	p := e.parent
	for _, x := range p.props {
		if x.name == name {
			f.setFlash("key "+name+" is a declared property: edit it above", true)
			return true
		}
	}
	for _, x := range p.entries {
		if x != e && x.name == name {
			f.setFlash("key "+name+" is already there", true)
			return true
		}
	}
	return false
}

// addHere adds an item to the enclosing array (after the focused item), or
// a key/value row to the enclosing map.
func (f *Form) addHere() {
	if f.cur < len(f.rows) && f.rows[f.cur].kind == rowAdd {
		f.addTo(f.rows[f.cur].n)
		return
	}
	if arr, i := f.enclosingArray(); arr != nil {
		f.insertItem(arr, i+1)
		return
	}
	if m := f.enclosingMap(); m != nil {
		f.addTo(m)
		return
	}
	f.setFlash("nothing to add here: "+f.keys.Form.Add.Help().Key+" adds array items and key/value rows", true)
}

func (f *Form) addTo(n *node) {
	if n.kind == kindArray {
		f.insertItem(n, len(n.items))
		return
	}
	name := "key"
	for i := 2; f.hasKey(n, name); i++ {
		name = "key" + itoa(i)
	}
	n.state = present
	n.collapsed = false
	e := n.addEntry(f.b, name)
	e.freshKey = true
	f.reflow()
	f.focusRowOf(e)
}

func (f *Form) hasKey(n *node, name string) bool {
	for _, x := range n.props {
		if x.name == name {
			return true
		}
	}
	for _, x := range n.entries {
		if x.name == name {
			return true
		}
	}
	return false
}

func (f *Form) insertItem(arr *node, at int) {
	if mx := maxItems(arr.sch); mx >= 0 && len(arr.items) >= mx {
		f.setFlash("maxItems is "+itoa(mx)+": not adding (raw JSON can, "+f.keys.Form.Raw.Help().Key+")", true)
		return
	}
	arr.state = present
	arr.collapsed = false
	it := arr.addItem(f.b, max(0, min(at, len(arr.items))))
	f.reflow()
	f.focusRowOf(it)
	// A new object item opens on its first field, so what is typed next
	// goes into it (not to the item's header, where letters are commands).
	if f.cur+1 < len(f.rows) && !f.isStop(f.cur) && f.rows[f.cur+1].n.within(it) {
		f.moveStop(1)
	}
}

// deleteHere removes the focused array item or key/value row.
func (f *Form) deleteHere() {
	if e := f.enclosingEntry(); e != nil {
		p := e.parent
		for i, x := range p.entries {
			if x == e {
				p.entries = append(p.entries[:i], p.entries[i+1:]...)
				break
			}
		}
		f.reflow()
		return
	}
	arr, i := f.enclosingArray()
	if arr == nil || i < 0 {
		f.setFlash("nothing to delete here: "+f.keys.Form.Delete.Help().Key+" deletes an array item or a key/value row", true)
		return
	}
	arr.items = append(arr.items[:i], arr.items[i+1:]...)
	f.reflow()
	if len(arr.items) > 0 {
		f.focusRowOf(arr.items[min(i, len(arr.items)-1)])
	} else {
		f.focusRowOf(arr)
	}
}

// moveItem swaps the focused item with its neighbour.
func (f *Form) moveItem(d int) {
	arr, i := f.enclosingArray()
	if arr == nil || i < 0 {
		return
	}
	j := i + d
	if j < 0 || j >= len(arr.items) {
		return
	}
	arr.items[i], arr.items[j] = arr.items[j], arr.items[i]
	// Keep the cursor on the same relative row of the moved item.
	offset := 0
	for x := f.cur; x >= 0 && f.rows[x].n != arr.items[j]; x-- {
		offset++
	}
	f.reflow()
	f.focusRowOf(arr.items[j])
	f.cur = min(f.cur+offset, len(f.rows)-1)
	f.scrollToCursor()
}

// cyclePresence steps an optional field through omitted → empty → null
// (when null is allowed); a required nullable one between value and null.
func (f *Form) cyclePresence() {
	n := f.focusedNode()
	if n == nil {
		return
	}
	if f.rows[f.cur].kind == rowKey {
		return
	}
	var states []presence
	if !n.required {
		states = append(states, omitted)
	}
	states = append(states, present)
	if n.nullable {
		states = append(states, isNull)
	}
	if len(states) == 1 {
		f.setFlash("this field is required and cannot be null", true)
		return
	}
	next := states[0]
	for i, s := range states {
		if s == n.state {
			next = states[(i+1)%len(states)]
		}
	}
	n.state = next
	if next == present {
		// "Empty": the type's empty value, not the default.
		n.text, n.on = "", false
		if n.kind == kindEnum {
			n.sel = -1
		}
		n.prepare(f.b)
	}
	f.reflow()
}

// collapse folds the group the cursor is in (or unfolds the focused one).
func (f *Form) collapse() {
	n := f.focusedNode()
	if n == nil {
		return
	}
	g := enclosingGroup(n)
	if f.rows[f.cur].kind == rowField && n.collapsed {
		g = n
	}
	if g == nil {
		return
	}
	g.collapsed = !g.collapsed
	f.reflow()
	f.focusRowOf(g)
}

// useExample fills the focused field with the schema's next example.
func (f *Form) useExample() {
	n := f.focusedNode()
	if n == nil {
		return
	}
	ex := asSlice(n.sch["examples"])
	if len(ex) == 0 {
		f.setFlash("the schema gives no examples for this field", true)
		return
	}
	i := f.examples[n] % len(ex)
	f.examples[n] = i + 1
	if !n.setValue(f.b, ex[i]) {
		n.toRaw(ex[i], "the example does not fit the form")
	}
	n.state = present
	if ex[i] == nil {
		n.state = isNull
	}
	f.reflow()
}

// browseHistory steps through earlier values; past the newest is the
// user's own draft again.
func (f *Form) browseHistory(d int) {
	if len(f.history) == 0 {
		f.setFlash("no earlier values", true)
		return
	}
	next := f.histPos + d
	if next < 0 || next > len(f.history) {
		return
	}
	if f.histPos == len(f.history) {
		f.draft, _ = f.Value()
	}
	f.histPos = next
	v := f.draft
	if next < len(f.history) {
		v = f.history[next]
	}
	if v != nil {
		cur := f.cur
		_ = f.SetValue(v)
		f.cur = min(cur, len(f.rows)-1)
		f.scrollToCursor()
	}
}

// --- raw JSON view ---

func (f *Form) openRaw() {
	text := f.indentedValue() // the form's value: read before the raw view takes over Value
	f.raw = true
	f.rawErr = ""
	f.area = newArea()
	f.applyAreaTheme()
	f.sizeArea()
	f.area.SetValue(text)
	f.fitArea(false)
	f.area.MoveToBegin()
	f.area.Focus()
}

func (f *Form) rawKey(msg tea.KeyPressMsg) tea.Cmd {
	k := f.keys.Form
	switch {
	case key.Matches(msg, k.Raw):
		f.closeRaw()
		return nil
	case key.Matches(msg, k.Close):
		f.raw = false // discard: the form still holds the value it had
		f.reflow()
		return nil
	case key.Matches(msg, k.Send):
		return f.submit(false)
	case key.Matches(msg, k.SendAnyway):
		return f.submit(true)
	case key.Matches(msg, k.Editor):
		return f.openEditor()
	}
	var cmd tea.Cmd
	f.area, cmd = f.area.Update(msg)
	f.rawChanged()
	return cmd
}

// rawChanged validates the raw text as it is typed.
func (f *Form) rawChanged() {
	f.fitArea(false)
	f.rawErr = ""
	if _, err := schema.Decode([]byte(f.area.Value())); err != nil {
		f.rawErr = jsonError(f.area.Value(), err)
	}
}

// closeRaw takes the raw text back into the form; text that is not JSON
// keeps the raw view open, saying why.
func (f *Form) closeRaw() {
	if err := f.SetValue(json.RawMessage(f.area.Value())); err != nil {
		f.rawErr = jsonError(f.area.Value(), err)
		f.setFlash("the text is not JSON: fix it, or esc to discard it", true)
		return
	}
	f.raw = false
	f.scrollToCursor()
}

// --- $EDITOR ---

// openEditor edits the value as JSON in $EDITOR. The temporary file is
// written inside the command, never in Update.
func (f *Form) openEditor() tea.Cmd {
	text := f.currentJSONText()
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		f.setFlash("set $EDITOR (or $VISUAL) to edit in an editor", true)
		return nil
	}
	return func() tea.Msg {
		file, err := os.CreateTemp("", "mcpscope-*.json")
		if err != nil {
			return editorDoneMsg{err: err}
		}
		path := file.Name()
		_, werr := file.WriteString(text)
		cerr := file.Close()
		if werr != nil || cerr != nil {
			_ = os.Remove(path)
			return editorDoneMsg{err: firstErr(werr, cerr)}
		}
		parts := strings.Fields(editor)
		cmd := exec.Command(parts[0], append(parts[1:], path)...) //nolint:gosec // the user's own $EDITOR
		return tea.ExecProcess(cmd, func(err error) tea.Msg {
			defer func() { _ = os.Remove(path) }() // a temporary file; a leftover in $TMPDIR is harmless
			if err != nil {
				return editorDoneMsg{err: err}
			}
			b, err := os.ReadFile(path)
			return editorDoneMsg{text: string(b), err: err}
		})()
	}
}

func (f *Form) currentJSONText() string {
	if f.raw {
		return f.area.Value()
	}
	return f.indentedValue() + "\n"
}

// indentedValue is the form's value indented, in the order it is sent
// (decoding it into a map first would sort its keys).
func (f *Form) indentedValue() string {
	v, _ := f.Value()
	if !jsonview.Valid(v) {
		return string(v)
	}
	return string(jsonview.Indent(nil, v, "  "))
}

func (f *Form) editorDone(msg editorDoneMsg) tea.Cmd {
	if msg.err != nil {
		f.setFlash("editor: "+msg.err.Error(), true)
		return nil
	}
	if f.raw {
		f.area.SetValue(strings.TrimRight(msg.text, "\n"))
		f.rawChanged()
		return nil
	}
	if err := f.SetValue(json.RawMessage(msg.text)); err != nil {
		// Keep what was written: open it in the raw view to fix.
		f.openRaw()
		f.area.SetValue(msg.text)
		f.rawChanged()
		f.setFlash("the editor's text is not JSON: fix it here", true)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }
