// Package form turns a JSON Schema into a form a person can fill in a
// terminal, and gives back the JSON value it describes.
//
// It is one engine for three users: a tool's inputSchema (tools/call
// arguments), a prompt's arguments (prompts/get) and an elicitation's
// requestedSchema. So it knows nothing about tools: it takes a schema and
// options, and answers with SubmitMsg or CancelMsg.
//
// What it draws: strings (length, pattern and format hints), numbers and
// integers parsed strictly, boolean toggles, enums and consts (titled
// enums included), multi-selects for arrays of enums, nested objects as
// collapsible groups, arrays of anything (add, delete, reorder), oneOf and
// anyOf at any depth (the fields follow the chosen branch), nullable types,
// additionalProperties and patternProperties as key/value rows, and
// optional fields in three states (omitted, empty, null). What it cannot
// draw (if/then/else, not, ...) becomes a JSON text field that says why.
//
// It behaves like a form: a text field is edited as soon as it has the
// cursor, tab and shift+tab go from field to field and keep editing, an
// enum filters as you type, a JSON field takes several lines (and a
// string field does once lines are pasted into it), and the
// form's commands sit on ctrl and alt keys so that nothing typed is taken
// for a command. Esc on a form that holds changes asks whether to keep the
// draft (when the host keeps drafts), discard it, or go back.
//
// Every change is validated against the server's real schema with
// mcp/lib/schema, so the errors next to each field are the ones the command
// line prints. Sending is refused while the value is invalid, but a
// debugger must be able to send bad input on purpose, so a second key
// sends anyway. ctrl+e shows the same value as raw JSON, editable, and
// back (its errors say line and column); history brings earlier values
// back one key at a time.
//
// Only the rows on screen are drawn, so a form of hundreds of fields
// costs what twenty do.
package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/themes"
)

// Options configure a form.
type Options struct {
	// Title is shown in the border ("Call book_trip"). It is drawn as given:
	// callers pass server strings through termsafe first.
	Title string
	Theme *themes.Theme
	Keys  keymap.KeyMap
	// Initial is the value to start from; empty means the schema's
	// defaults, or the newest History entry when there is one.
	Initial json.RawMessage
	// History holds earlier values, oldest first (see History.Get).
	History []json.RawMessage
	// KeepDrafts offers "keep draft" when esc closes a form with changes:
	// the host then keeps the form (CancelMsg.Keep) and shows it again
	// next time. Without it the question is only discard or back.
	KeepDrafts bool
}

// SubmitMsg is sent when the user sends the value. Forced is true when it
// was sent although it does not validate.
type SubmitMsg struct {
	Value  json.RawMessage
	Forced bool
}

// CancelMsg is sent when the user closes the form without sending. Keep
// is true when they chose to keep the draft: the host keeps this Form and
// shows it again, as it was, when the same thing is opened.
type CancelMsg struct{ Keep bool }

// compiledMsg carries the schema compiled off the UI goroutine.
type compiledMsg struct {
	s *schema.Schema
	c *schema.Compiled
}

// editorDoneMsg carries the text $EDITOR left in the temporary file.
type editorDoneMsg struct {
	text string
	err  error
}

// Form is the schema form. It implements the panes' contract (Update, View,
// SetSize, Focus, Blur, Title, ShortHelp, FullHelp).
type Form struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	title   string
	w, h    int
	focused bool

	s    *schema.Schema
	b    builder
	root *node

	rows     []row
	rowByPtr map[string]int
	cur, top int

	// A text field is edited whenever it has the cursor (see edit.go):
	// editIdent is the row being edited, input its one-line editor, and
	// fieldArea the several-line one of a JSON field.
	editing   bool
	editIdent rowIdent
	input     textinput.Model
	multiline bool
	fieldArea textarea.Model

	enumFilter  string   // typed on the focused enum to narrow its values
	filterIdent rowIdent // the enum it was typed on

	keepDrafts bool
	readOnly   string          // why nothing will be sent; "" when it will
	confirming bool            // esc asked: keep draft, discard or back
	baseline   json.RawMessage // the value the form opened with (see dirty)

	issues     []schema.Issue
	rowIssues  map[int][]string
	rootIssues []string

	raw    bool
	area   textarea.Model
	rawErr string // why the raw text cannot go back to the form

	history []json.RawMessage
	histPos int             // len(history) is the user's own draft
	draft   json.RawMessage // the value before browsing history

	flash      string // one-line answer to the last key (not sent: ...)
	flashIsErr bool
	examples   map[*node]int // next example to fill, per field
}

// New builds a form for schema. It fails only when the schema is not JSON;
// the caller can fall back to a plain JSON editor then. The form draws at
// once; validation starts when the command Init returns has compiled the
// schema (a schema that does not compile, for instance because it refers
// outside itself, leaves the form usable and says it cannot validate).
func New(raw json.RawMessage, opts Options) (*Form, error) {
	s, err := schema.Parse(raw)
	if err != nil {
		return nil, err
	}
	if opts.Theme == nil {
		opts.Theme = themes.Default(true)
	}
	f := &Form{
		theme:      opts.Theme,
		keys:       opts.Keys,
		title:      opts.Title,
		s:          s,
		b:          newBuilder(s),
		history:    opts.History,
		histPos:    len(opts.History),
		examples:   map[*node]int{},
		keepDrafts: opts.KeepDrafts,
	}
	if len(f.keys.Form.Send.Keys()) == 0 {
		f.keys = keymap.Default()
	}
	f.input = textinput.New()
	f.input.Prompt = ""
	f.fieldArea = newArea()
	f.applyTheme()
	f.root = f.b.build(s.Document(), nil, "", true)
	initial := opts.Initial
	if len(initial) == 0 && len(f.history) > 0 {
		f.histPos = len(f.history) - 1
		initial = f.history[f.histPos]
	}
	if len(initial) > 0 {
		if err := f.SetValue(initial); err != nil {
			f.setFlash("the starting value was not JSON: "+err.Error(), true)
		}
	}
	f.reflow()
	f.baseline, _ = f.Value()
	f.firstStop()
	f.syncEdit()
	return f, nil
}

// Init compiles the schema in the background: compiling checks the schema
// against its meta-schema, which costs more than drawing the whole form.
func (f *Form) Init() tea.Cmd {
	if f.s.Ready() {
		return nil
	}
	s := f.s
	return func() tea.Msg { return compiledMsg{s: s, c: s.Compile()} }
}

func (f *Form) applyTheme() {
	st := f.theme.TextInput
	st.Cursor.Blink = false // a blinking cursor would make goldens flaky
	f.input.SetStyles(st)
	f.applyFieldAreaTheme()
}

// SetTheme switches the theme.
func (f *Form) SetTheme(t *themes.Theme) {
	f.theme = t
	f.applyTheme()
	if f.raw {
		f.applyAreaTheme()
	}
}

// Value is the form's JSON value and what is wrong with it (nil when it
// validates).
func (f *Form) Value() (json.RawMessage, []schema.Issue) {
	if f.raw {
		v, err := schema.Decode([]byte(f.area.Value()))
		if err != nil {
			return json.RawMessage(f.area.Value()), []schema.Issue{{Pointer: "", Message: "is not valid JSON: " + jsonError(f.area.Value(), err)}}
		}
		// Sent as typed, in its own key order, without the spaces.
		var b bytes.Buffer
		if json.Compact(&b, []byte(f.area.Value())) != nil {
			out, _ := json.Marshal(v)
			return out, f.s.Validate(v)
		}
		return b.Bytes(), f.s.Validate(v)
	}
	v, ok := f.root.wireValue()
	if !ok {
		v = nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	return b, f.issues
}

// SetValue shows a JSON value in the form. Parts that do not fit the
// schema's shape become JSON text fields, so nothing is dropped.
func (f *Form) SetValue(raw json.RawMessage) error {
	v, err := schema.Decode(raw)
	if err != nil {
		return err
	}
	// The nodes are rebuilt: the field being edited is a new one.
	f.editing, f.multiline, f.editIdent = false, false, rowIdent{}
	f.root = f.b.build(f.s.Document(), nil, "", true)
	if !f.root.setValue(f.b, v) {
		f.root.toRaw(v, "the value does not fit the form")
	}
	f.examples = map[*node]int{}
	f.reflow()
	f.syncEdit()
	return nil
}

// SchemaErr is why the schema cannot validate (it does not compile, for
// instance because it refers outside itself); nil while it compiles and
// when it did. The form stays usable either way and says so.
func (f *Form) SchemaErr() error { return f.s.CompileErr() }

// Valid reports whether the value validates.
func (f *Form) Valid() bool {
	_, issues := f.Value()
	return len(issues) == 0
}

// Title is the border title.
func (f *Form) Title() string { return f.title }

// readOnlyTag ends the title of a form whose value will not be sent.
const readOnlyTag = " · read-only"

// SetReadOnly says why nothing will be sent (a recording), or "" when it
// will be: the title and the status line say so from the moment the form
// opens, not only once it is sent.
func (f *Form) SetReadOnly(why string) {
	f.title = strings.TrimSuffix(f.title, readOnlyTag)
	f.readOnly = why
	if why != "" {
		f.title += readOnlyTag
	}
}

// SetSize sets the outer size, border included.
func (f *Form) SetSize(w, h int) {
	f.w, f.h = w, h
	f.input.SetWidth(max(f.valueWidth()-1, 1))
	// The input scrolled its text to fit the old width (4 cells before
	// the first size): place it again, or a default shows as its last
	// few letters ("ils" for "this tool always fails").
	f.input.SetCursor(f.input.Position())
	f.sizeFieldArea()
	if f.raw {
		f.sizeArea()
	}
	f.scrollToCursor()
}

// Focus and Blur follow the pane contract.
func (f *Form) Focus() { f.focused = true }

// Blur drops the keyboard; an edit in progress is kept.
func (f *Form) Blur() { f.focused = false }

// Capturing is always true: every key belongs to the form while it is open.
func (f *Form) Capturing() bool { return true }

// Editing reports whether a text field has the cursor (and so is being
// typed into).
func (f *Form) Editing() bool { return f.editing }

// Raw reports whether the raw JSON view is showing.
func (f *Form) Raw() bool { return f.raw }

// Issues are the current problems, by pointer.
func (f *Form) Issues() []schema.Issue {
	_, is := f.Value()
	return is
}

// reflow rebuilds the rows after a change of structure (an item added, a
// branch switched, a group collapsed) and revalidates.
func (f *Form) reflow() {
	f.rows = f.rows[:0]
	f.rowByPtr = make(map[string]int, len(f.rows))
	f.flatten(f.root, "", 0, "")
	if len(f.rows) == 0 {
		label := "value"
		if f.root.kind == kindObject {
			label = "no fields" // a tool (or prompt) that takes no arguments
		}
		f.rows = append(f.rows, row{kind: rowField, n: f.root, label: label})
		f.root.ptr = ""
	}
	f.cur = max(0, min(f.cur, len(f.rows)-1))
	f.revalidate()
}

// revalidate validates the value against the real schema and attaches each
// issue to the row it concerns (or the nearest row above it on screen).
func (f *Form) revalidate() {
	v, ok := f.root.value()
	if !ok {
		v = nil
	}
	var issues []schema.Issue
	if f.s.Ready() {
		issues = f.s.Validate(v)
	}
	// Text that does not parse is the form's own finding, said plainly; the
	// schema's complaint about the same place (a string where a number
	// belongs) would only repeat it.
	local := map[string]string{}
	f.collectLocal(f.root, local)
	if len(local) > 0 {
		kept := issues[:0:0]
		for _, is := range issues {
			if _, dup := local[is.Pointer]; !dup {
				kept = append(kept, is)
			}
		}
		for ptr, msg := range local {
			kept = append(kept, schema.Issue{Pointer: ptr, Message: msg})
		}
		sortIssues(kept)
		issues = kept
	}
	f.issues = issues
	f.rowIssues = map[int][]string{}
	f.rootIssues = nil
	for _, is := range issues {
		ptr := is.Pointer
		msg := is.Message
		for {
			if i, ok := f.rowByPtr[ptr]; ok {
				f.rowIssues[i] = append(f.rowIssues[i], msg)
				break
			}
			if ptr == "" {
				f.rootIssues = append(f.rootIssues, msg)
				break
			}
			// Not on screen (inside a collapsed group): show it on the
			// nearest row that is, naming where it is.
			cut := strings.LastIndexByte(ptr, '/')
			if is.Pointer != "" && !strings.HasPrefix(msg, is.Pointer) {
				msg = is.Pointer + " " + is.Message
			}
			ptr = ptr[:cut]
		}
	}
	f.scrollToCursor()
}

func (f *Form) collectLocal(n *node, out map[string]string) {
	if n == nil {
		return
	}
	if msg := n.localIssue(); msg != "" {
		out[n.ptr] = msg
	}
	if n.state != present {
		return
	}
	for _, c := range n.props {
		f.collectLocal(c, out)
	}
	for _, c := range n.entries {
		f.collectLocal(c, out)
	}
	for _, c := range n.items {
		f.collectLocal(c, out)
	}
	if n.kind == kindChoice && n.branch < len(n.built) {
		f.collectLocal(n.built[n.branch], out)
	}
}

func sortIssues(is []schema.Issue) {
	for i := 1; i < len(is); i++ {
		for j := i; j > 0 && is[j].Pointer < is[j-1].Pointer; j-- {
			is[j], is[j-1] = is[j-1], is[j]
		}
	}
}

// setFlash shows a one-line answer in the status line until the next key.
func (f *Form) setFlash(s string, isErr bool) { f.flash, f.flashIsErr = s, isErr }

// submit sends the value, refusing an invalid one unless forced.
func (f *Form) submit(force bool) tea.Cmd {
	if f.editing {
		f.endEdit() // a key/value row's key is renamed now
	}
	if !f.s.Ready() {
		// Sending must not skip validation because a key came early.
		f.s.SetCompiled(f.s.Compile())
		f.revalidate()
	}
	if f.raw {
		if _, err := schema.Decode([]byte(f.area.Value())); err != nil {
			f.setFlash("not sent: the text is not JSON ("+jsonError(f.area.Value(), err)+")", true)
			return nil
		}
	}
	v, issues := f.Value()
	if len(issues) > 0 && !force {
		f.setFlash(fmt.Sprintf("not sent: %s · %s sends anyway", plural.S(len(issues), "problem"), f.keys.Form.SendAnyway.Help().Key), true)
		return nil
	}
	msg := SubmitMsg{Value: v, Forced: len(issues) > 0}
	return func() tea.Msg { return msg }
}

func cancel() tea.Msg { return CancelMsg{} }

// ShortHelp lists the keys that work now: every command the focused row
// answers to.
func (f *Form) ShortHelp() []key.Binding {
	k := f.keys.Form
	switch {
	case f.confirming:
		var out []key.Binding
		if f.keepDrafts {
			out = append(out, withHelp(k.KeepDraft, strings.Join(k.KeepDraft.Keys(), "/"), "keep draft"))
		}
		return append(out, k.Discard, k.Back)
	case f.raw:
		return []key.Binding{withHelp(k.Raw, k.Raw.Help().Key, "back to form"), k.Send, k.SendAnyway, k.Editor, withHelp(k.Close, k.Close.Help().Key, "discard raw edits")}
	}
	// One entry for both directions (enter moves on too, as tab does, on
	// a text field or an enum): the help bar is short of room on a small
	// screen.
	move := key.NewBinding(key.WithKeys(append(k.Next.Keys(), k.Prev.Keys()...)...), key.WithHelp("tab/shift+tab", "next/prev field"))
	out := []key.Binding{move}
	switch {
	case f.editing && f.multiline:
		out = append(out, withHelp(k.Edit, "enter", "new line"))
	case f.editing, f.enumRow():
	default:
		out = append(out, k.Edit)
	}
	if f.enumRow() {
		out = append(out, withHelp(k.NextOption, k.PrevOption.Help().Key+"/"+k.NextOption.Help().Key, "choose"))
	}
	out = append(out, k.Send)
	if len(f.issues) > 0 {
		out = append(out, k.SendAnyway)
	}
	out = append(out, k.Raw)
	// The structural keys are listed where they do something, so that a
	// narrow help bar has room for all of them.
	arr, item := f.enclosingArray()
	switch {
	case arr != nil:
		out = append(out, k.Add)
	case f.enclosingMap() != nil:
		out = append(out, withHelp(k.Add, k.Add.Help().Key, "add key"))
	}
	switch {
	case f.enclosingEntry() != nil:
		out = append(out, withHelp(k.Delete, k.Delete.Help().Key, "delete key"))
	case item >= 0:
		out = append(out, k.Delete)
	}
	if item >= 0 && len(arr.items) > 1 {
		out = append(out, k.MoveUp, k.MoveDown)
	}
	if n := f.focusedNode(); n != nil {
		switch {
		case n.free && f.rows[f.cur].kind == rowField:
			out = append(out, withHelp(k.Branch, k.Branch.Help().Key, "string/JSON"))
		case f.enclosingChoice(n) != nil:
			out = append(out, k.Branch)
		}
		if f.rows[f.cur].kind != rowKey && (!n.required || n.nullable) {
			out = append(out, k.Presence)
		}
		if len(asSlice(n.sch["examples"])) > 0 {
			out = append(out, k.Example)
		}
		if enclosingGroup(n) != nil {
			out = append(out, k.Collapse)
		}
	}
	if len(f.history) > 0 {
		out = append(out, k.HistoryPrev, k.HistoryNext)
	}
	return append(out, k.Editor, k.Close)
}

// FullHelp lists every form key.
func (f *Form) FullHelp() [][]key.Binding {
	k := f.keys.Form
	return [][]key.Binding{
		{k.Next, k.Prev, k.PageUp, k.PageDown, k.Edit, k.PrevOption, k.NextOption},
		{k.Add, k.Delete, k.MoveUp, k.MoveDown, k.Branch, k.Presence, k.Collapse, k.Example},
		{k.Send, k.SendAnyway, k.Raw, k.Editor, k.HistoryPrev, k.HistoryNext, k.Close},
		{k.KeepDraft, k.Discard, k.Back},
	}
}

func withHelp(b key.Binding, k, desc string) key.Binding {
	b.SetHelp(k, desc)
	return b
}

// Field is the focused row's JSON pointer and its text, when that row is a
// text field (string, number or integer); ok is false on any other row and
// in the raw view. Hosts use it to offer completions for what is typed.
func (f *Form) Field() (ptr, text string, ok bool) {
	if f.raw || f.cur < 0 || f.cur >= len(f.rows) {
		return "", "", false
	}
	r := f.rows[f.cur]
	if r.kind != rowField {
		return "", "", false
	}
	switch r.n.kind {
	case kindString, kindNumber, kindInteger:
	default:
		return "", "", false
	}
	if f.editing && !f.multiline {
		return r.ptr, f.input.Value(), true
	}
	return r.ptr, r.n.text, true
}
