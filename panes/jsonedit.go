package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/form"
	"github.com/mcpscope/mcpscope/themes"
)

// JSONEdit edits a tool's arguments as JSON, validating them live against
// the tool's inputSchema. It is the stop-gap until the schema form engine
// lands: plain JSON always works, whatever the schema.
//
// ctrl+s sends valid arguments at once. Invalid arguments need a second
// ctrl+s: a debugger must be able to send what the schema forbids (to see
// how the server copes), but never by accident.
type JSONEdit struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	tool      mcp.Tool
	schema    *schema.Schema
	schemaErr error
	optional  []string // optional top-level properties, listed as a hint

	area       textarea.Model
	initial    string // the text it opened with: esc asks only once it changed
	validated  string // the text the problems were computed for
	problems   []argProblem
	override   bool // ctrl+s was pressed once on invalid arguments
	confirming bool // esc asked: keep draft, discard or back
}

// editorClosedMsg says the editor e was closed without sending; keep when
// the user chose to keep its text as a draft.
type editorClosedMsg struct {
	e    *JSONEdit
	keep bool
}

// NewJSONEdit opens an editor for tool's arguments, prefilled with initial
// (the last arguments sent) or, when empty, a skeleton built from the
// inputSchema.
func NewJSONEdit(t *themes.Theme, k keymap.KeyMap, tool mcp.Tool, initial json.RawMessage) *JSONEdit {
	e := &JSONEdit{theme: t, keys: k, tool: tool}
	e.schema, e.schemaErr = compileToolSchema(tool.InputSchema)
	e.optional = optionalProperties(tool.InputSchema)

	e.area = textarea.New()
	e.area.ShowLineNumbers = true
	e.area.Prompt = ""
	e.area.CharLimit = 0
	e.area.MaxWidth = 0
	e.area.Placeholder = "{}"
	e.applyTheme()
	text := skeletonArgs(tool.InputSchema)
	if len(bytes.TrimSpace(initial)) > 0 {
		if jsonview.Valid(initial) {
			text = escapeInvisibleInJSON(string(jsonview.Indent(nil, initial, "  ")))
		}
	}
	e.area.SetValue(text)
	e.fitGutter()
	e.area.MoveToBegin()
	e.initial = e.area.Value()
	e.revalidate()
	return e
}

// SetTheme switches the theme.
func (e *JSONEdit) SetTheme(t *themes.Theme) {
	e.theme = t
	e.applyTheme()
}

func (e *JSONEdit) applyTheme() {
	s := textarea.DefaultStyles(e.theme.IsDark)
	s.Cursor.Blink = false // a blinking cursor would make every golden flaky
	if e.theme.Palette.Primary != nil {
		s.Cursor.Color = e.theme.Palette.Primary
	}
	s.Focused.LineNumber = e.theme.Form.Hint
	s.Blurred.LineNumber = e.theme.Form.Hint
	s.Focused.CursorLineNumber = e.theme.Form.Label
	e.area.SetStyles(s)
}

// Tool is the tool being edited.
func (e *JSONEdit) Tool() mcp.Tool { return e.tool }

// Value is the editor's text.
func (e *JSONEdit) Value() string { return e.area.Value() }

// SetValue replaces the text (tests, paste from elsewhere).
func (e *JSONEdit) SetValue(s string) {
	e.area.SetValue(s)
	e.fitGutter()
	e.revalidate()
}

// Problems lists why the current text does not validate, each as
// "pointer: message"; empty when it does.
func (e *JSONEdit) Problems() []string {
	out := make([]string, len(e.problems))
	for i, p := range e.problems {
		out[i] = p.String()
	}
	return out
}

// SchemaErr is why the inputSchema cannot validate (nil when it compiled,
// or when the tool has none).
func (e *JSONEdit) SchemaErr() error { return e.schemaErr }

// Valid reports whether the current text is a JSON object that validates.
func (e *JSONEdit) Valid() bool { return len(e.problems) == 0 }

func (e *JSONEdit) Title() string {
	return "Call " + termsafe.String(e.tool.Name)
}

func (e *JSONEdit) SetSize(w, h int) {
	e.w, e.h = w, h
	form.FitGutter(&e.area, max(w-2, 4), e.areaRows(), true)
}

// fitGutter keeps the line numbers' gutter as wide as the widest number
// (form.FitGutter), so line 10 lines up with line 9.
func (e *JSONEdit) fitGutter() { form.FitGutter(&e.area, max(e.w-2, 4), e.areaRows(), false) }

// areaRows is what is left for the text once the problems, hints and the
// status line have their rows.
func (e *JSONEdit) areaRows() int {
	return e.h - 2 - e.footerRows()
}

func (e *JSONEdit) footerRows() int {
	inner := e.h - 2
	switch {
	case inner >= 16:
		return 6
	case inner >= 8:
		return 3
	default:
		return 1
	}
}

func (e *JSONEdit) Focus() {
	e.focused = true
	e.area.Focus()
}

func (e *JSONEdit) Blur() {
	e.focused = false
	e.area.Blur()
}

// Capturing is always true: every key is text while the editor is open.
func (e *JSONEdit) Capturing() bool { return true }

func (e *JSONEdit) revalidate() {
	text := e.area.Value()
	if text == e.validated && e.validated != "" {
		return
	}
	e.validated = text
	e.problems = validateArgs(e.schema, text)
	e.override = false
}

// Update handles keys: ctrl+s sends, esc closes (editorClosedMsg), asking
// first when the text was changed, the rest edits.
func (e *JSONEdit) Update(msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		k := e.keys.JSONEdit
		switch {
		case e.confirming:
			return e.confirmKey(kp)
		case key.Matches(kp, k.Send):
			return e.send()
		case key.Matches(kp, k.Close):
			if e.area.Value() == e.initial {
				return e.closed(false)
			}
			e.confirming = true
			return nil
		}
	}
	if e.confirming {
		return nil // the question is on screen: nothing edits until it is answered
	}
	var cmd tea.Cmd
	e.area, cmd = e.area.Update(msg)
	e.fitGutter()
	e.revalidate()
	return cmd
}

// confirmKey answers the question esc asked: keep the text as a draft,
// discard it, or go back to editing.
func (e *JSONEdit) confirmKey(kp tea.KeyPressMsg) tea.Cmd {
	k := e.keys.JSONEdit
	switch {
	case key.Matches(kp, k.KeepDraft):
		e.confirming = false
		return e.closed(true)
	case key.Matches(kp, k.Discard):
		e.confirming = false
		return e.closed(false)
	case key.Matches(kp, k.Back):
		e.confirming = false
	}
	return nil
}

func (e *JSONEdit) closed(keep bool) tea.Cmd {
	msg := editorClosedMsg{e: e, keep: keep}
	return func() tea.Msg { return msg }
}

// Confirming reports whether the editor is asking what to do with its
// changes.
func (e *JSONEdit) Confirming() bool { return e.confirming }

// send returns the CallToolMsg, or arms the override when the arguments do
// not validate.
func (e *JSONEdit) send() tea.Cmd {
	e.revalidate()
	text := e.area.Value()
	var args json.RawMessage
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err == nil {
		args = json.RawMessage(b.Bytes())
	}
	if args == nil {
		// Not JSON at all: nothing sensible can be sent, override or not.
		e.override = false
		return nil
	}
	if len(e.problems) > 0 && !e.override {
		e.override = true
		return nil
	}
	e.override = false
	msg := CallToolMsg{Name: e.tool.Name, Args: args}
	return func() tea.Msg { return msg }
}

func (e *JSONEdit) ShortHelp() []key.Binding {
	k := e.keys.JSONEdit
	if e.confirming {
		keep := k.KeepDraft
		keep.SetHelp(strings.Join(keep.Keys(), "/"), keep.Help().Desc)
		return []key.Binding{keep, k.Discard, k.Back}
	}
	return []key.Binding{k.Send, k.Close}
}

func (e *JSONEdit) FullHelp() [][]key.Binding { return [][]key.Binding{e.ShortHelp()} }

// View draws the text, then the problems and the status line.
func (e *JSONEdit) View() string {
	if e.w <= 0 || e.h <= 0 {
		return ""
	}
	inner := e.w - 2
	body := strings.Split(termsafe.Rendered(e.area.View()), "\n")
	if len(body) > e.areaRows() {
		body = body[:max(e.areaRows(), 0)]
	}
	for len(body) < e.areaRows() {
		body = append(body, "")
	}
	footer := e.footer(inner)
	body = append(body, footer...)
	return Box(e.theme, e.Title(), e.focused, e.w, e.h, body)
}

func (e *JSONEdit) footer(w int) []string {
	rows := e.footerRows()
	var lines []string
	if rows > 1 {
		lines = append(lines, e.theme.Form.Hint.Render(strings.Repeat("─", max(w, 0))))
	}
	var detail []string
	switch {
	case e.schemaErr != nil:
		detail = append(detail, e.theme.Form.Error.Render("schema: "+termsafe.String(e.schemaErr.Error())))
	case e.schema == nil:
		detail = append(detail, e.theme.Form.Hint.Render("no inputSchema: arguments are not validated"))
	}
	for _, p := range e.problems {
		detail = append(detail, e.theme.Form.Error.Render("✗ "+termsafe.String(p.String())))
	}
	if len(e.problems) == 0 && e.schema != nil {
		detail = append(detail, e.theme.Result.OK.Render("✓ valid against the tool's inputSchema"))
	}
	if len(e.optional) > 0 {
		detail = append(detail, e.theme.Form.Hint.Render("optional: "+termsafe.String(strings.Join(e.optional, ", "))))
	}
	// Long messages wrap rather than lose their end (the pointer is first).
	var wrapped []string
	for _, d := range detail {
		wrapped = append(wrapped, strings.Split(ansi.Wrap(d, max(w, 1), ""), "\n")...)
	}
	detail = wrapped
	room := rows - len(lines) - 1
	if len(detail) > room && room > 0 {
		more := len(detail) - room + 1
		detail = append(detail[:room-1], e.theme.Form.Hint.Render(fmt.Sprintf("… %d more", more)))
	}
	if room > 0 {
		lines = append(lines, detail[:min(room, len(detail))]...)
	}
	for len(lines) < rows-1 {
		lines = append(lines, "")
	}
	return append(lines, e.status())
}

func (e *JSONEdit) status() string {
	k := e.keys.JSONEdit
	send, esc := k.Send.Help().Key, k.Close.Help().Key
	switch {
	case e.confirming:
		return e.theme.Form.Warn.Render("? unsent: " + k.KeepDraft.Help().Key + " keep draft · " +
			k.Discard.Help().Key + " discard · " + k.Back.Help().Key + " back")
	case e.override:
		return e.theme.Status.Error.Render("arguments do not validate (" + plural.S(len(e.problems), "problem") + "): " + send + " again sends them anyway")
	case len(e.problems) > 0 && strings.HasPrefix(e.problems[0].Message, "not JSON"):
		return e.theme.Form.Hint.Render("fix the JSON to send · " + esc + " close")
	case len(e.problems) > 0:
		return e.theme.Form.Hint.Render(send + " twice sends invalid arguments · " + esc + " close")
	}
	return e.theme.Form.Hint.Render(send + " send · " + esc + " close")
}

// optionalProperties lists the top-level properties that are not required.
func optionalProperties(raw json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	var out []string
	for name := range s.Properties {
		if !req[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

var _ Pane = (*JSONEdit)(nil)
