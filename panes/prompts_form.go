package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/form"
	"github.com/mcpscope/mcpscope/themes"
)

// ArgField is one string argument of a prompt or one variable of a
// resource template.
type ArgField struct {
	Name, Title, Description string
	Required                 bool
}

// CompleteMsg asks the root model to run completion/complete for the
// field being typed in. Seq lets the form drop answers to older keystrokes.
type CompleteMsg struct {
	Ref     json.RawMessage // {"type":"ref/prompt","name":…} or {"type":"ref/resource","uri":…}
	Arg     string
	Value   string
	Context map[string]string // the other arguments typed so far
	Seq     int
}

// CompletionsMsg is the answer to a CompleteMsg.
type CompletionsMsg struct {
	Seq    int
	Values []string
	Total  int
	More   bool
	Err    error
}

// hostedMsg carries what a hosted form's commands produce (its compiled
// schema, SubmitMsg, CancelMsg) back to the pane that hosts that form, and
// to no other: the tools pane, the prompts pane and the Ask modal may each
// have a form open at once.
type hostedMsg struct {
	form *form.Form
	msg  tea.Msg
}

// hosted tags cmd's messages with the form they belong to.
func hosted(f *form.Form, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(msg))
			for i, c := range msg {
				out[i] = hosted(f, c)
			}
			return out
		default:
			return hostedMsg{form: f, msg: msg}
		}
	}
}

// maxSuggestions is how many completion values are listed under the form.
const maxSuggestions = 4

// ArgsForm is the schema form (panes/form) for string arguments: a
// prompt's arguments or a resource template's variables. Their JSON Schema
// is built from the argument list, so the same engine as tools/call and
// elicitation draws them. On top of the form it asks completion/complete
// for the focused field as it is typed, and lists the suggestions under
// the form: ctrl+y takes the highlighted one, ctrl+n moves the highlight.
type ArgsForm struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	form    *form.Form
	ref     json.RawMessage
	fields  []ArgField
	byPtr   map[string]string // the form's JSON pointer → argument name
	w, h    int
	focused bool

	seq                 int
	askedPtr, askedText string
	asked               bool
	sugg                []string
	suggSel             int
	suggMore            bool
	suggErr             string
	// takeNote says that the suggestion taken last held characters a
	// field cannot hold, so its visible escaped form was inserted.
	takeNote string

	kept bool // closed with "keep draft": the host keeps this form

	// Completes says whether to ask for completions (the server declared
	// the completions capability, or it is 2024-11-05 where it is ungated).
	Completes bool
	// readOnly: the source sends nothing, so no completion is asked for
	// (each would only be refused on the status line).
	readOnly bool
	// Preview, when set, is a line shown under the form for the values so
	// far (a template's expanded URI).
	Preview func(map[string]string) string
}

// ArgsSchema is the JSON Schema of a list of string arguments: one string
// property each, in order, with title and description; required ones are
// listed in required.
func ArgsSchema(fields []ArgField) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var req []string
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(f.Name)
		b.Write(name)
		prop := map[string]string{"type": "string"}
		if f.Title != "" {
			prop["title"] = f.Title
		}
		if f.Description != "" {
			prop["description"] = f.Description
		}
		p, _ := json.Marshal(prop)
		b.WriteByte(':')
		b.Write(p)
		if f.Required {
			req = append(req, f.Name)
		}
	}
	b.WriteString(`}`)
	if len(req) > 0 {
		r, _ := json.Marshal(req)
		b.WriteString(`,"required":`)
		b.Write(r)
	}
	b.WriteString(`}`)
	return b.Bytes()
}

// NewArgsForm makes a form for fields; ref is the completion reference and
// title the form's border title (drawn as given: pass server strings
// through termsafe).
func NewArgsForm(t *themes.Theme, k keymap.KeyMap, title string, ref json.RawMessage, fields []ArgField) *ArgsForm {
	f, err := form.New(ArgsSchema(fields), form.Options{Title: title, Theme: t, Keys: k, KeepDrafts: true})
	if err != nil {
		// ArgsSchema is always JSON; this cannot happen.
		panic(fmt.Sprintf("panes: arguments schema: %v", err))
	}
	a := &ArgsForm{theme: t, keys: k, form: f, ref: ref, fields: fields, byPtr: map[string]string{}}
	for _, fl := range fields {
		a.byPtr["/"+schema.EscapeToken(fl.Name)] = fl.Name
	}
	return a
}

// Form is the schema form inside (tests).
func (a *ArgsForm) Form() *form.Form { return a.form }

// SetReadOnly says why nothing will be sent, "" when it will (Form.SetReadOnly).
// No completion is asked for then: it could only be refused.
func (a *ArgsForm) SetReadOnly(why string) {
	a.form.SetReadOnly(why)
	a.readOnly = why != ""
}

// KeptDraft reports whether the form was closed with "keep draft": the
// host keeps it and shows it again, as it was left, next time.
func (a *ArgsForm) KeptDraft() bool { return a.kept }

// Reopen readies a kept form to be shown again.
func (a *ArgsForm) Reopen(t *themes.Theme, w, h int, focused bool) {
	a.kept = false
	a.SetTheme(t)
	a.SetSize(w, h)
	if focused {
		a.Focus()
	}
}

// sameFields reports whether a kept draft was made for these fields.
func (a *ArgsForm) sameFields(fields []ArgField) bool {
	if len(fields) != len(a.fields) {
		return false
	}
	for i := range fields {
		if fields[i] != a.fields[i] {
			return false
		}
	}
	return true
}

// carryOver starts a from what a draft for other fields held (the server
// changed the arguments meanwhile): the values of names still there.
func (a *ArgsForm) carryOver(old *ArgsForm) {
	if old == nil {
		return
	}
	v, _ := old.form.Value()
	_ = a.form.SetValue(v)
}

// Start compiles the schema and asks for the first field's completions.
func (a *ArgsForm) Start() tea.Cmd {
	return tea.Batch(hosted(a.form, a.form.Init()), a.completeCmd())
}

func (a *ArgsForm) SetTheme(t *themes.Theme) { a.theme = t; a.form.SetTheme(t) }

// SetSize sets the outer size; the suggestions take rows from the form.
func (a *ArgsForm) SetSize(w, h int) {
	a.w, a.h = w, h
	a.form.SetSize(w, max(h-len(a.extraLines(w)), 3))
}

func (a *ArgsForm) Focus() { a.focused = true; a.form.Focus() }
func (a *ArgsForm) Blur()  { a.focused = false; a.form.Blur() }

// Values are the arguments as strings. A value that is not a string (only
// possible through the raw JSON view and a forced send) is sent as its
// JSON text; prompts/get and URI templates carry nothing else.
func (a *ArgsForm) Values() map[string]string {
	v, _ := a.form.Value()
	return stringValues(v)
}

func stringValues(v json.RawMessage) map[string]string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(v, &m)
	out := make(map[string]string, len(m))
	for k, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[k] = s
		} else if string(raw) != "null" {
			out[k] = string(raw)
		}
	}
	return out
}

// Suggestions are the current completion values.
func (a *ArgsForm) Suggestions() []string { return a.sugg }

// SetCompletions applies a completion answer unless a newer keystroke
// superseded it.
func (a *ArgsForm) SetCompletions(msg CompletionsMsg) {
	if msg.Seq != a.seq {
		return
	}
	a.sugg, a.suggSel, a.suggMore, a.suggErr = msg.Values, 0, msg.More || msg.Total > len(msg.Values), ""
	if msg.Err != nil {
		a.suggErr = msg.Err.Error()
	}
	a.SetSize(a.w, a.h)
}

// completeCmd asks for completions when the focused field or its text
// changed since the last question.
func (a *ArgsForm) completeCmd() tea.Cmd {
	ptr, text, ok := a.form.Field()
	name, isArg := a.byPtr[ptr]
	if !ok || !isArg {
		if a.asked || len(a.sugg) > 0 || a.suggErr != "" {
			a.asked, a.sugg, a.suggErr = false, nil, ""
			a.seq++ // drop answers still on their way
			a.SetSize(a.w, a.h)
		}
		return nil
	}
	if !a.Completes || a.readOnly || (a.asked && ptr == a.askedPtr && text == a.askedText) {
		return nil
	}
	if ptr != a.askedPtr {
		a.sugg, a.suggErr = nil, ""
		a.SetSize(a.w, a.h)
	}
	a.asked, a.askedPtr, a.askedText = true, ptr, text
	a.seq++
	ctx := a.Values()
	delete(ctx, name)
	msg := CompleteMsg{Ref: a.ref, Arg: name, Value: text, Context: ctx, Seq: a.seq}
	return func() tea.Msg { return msg }
}

// Update handles keys and the form's own messages. It reports submit (the
// form sent its value) and cancel (the form was closed).
func (a *ArgsForm) Update(msg tea.Msg) (cmd tea.Cmd, submit, cancel bool) {
	switch msg := msg.(type) {
	case hostedMsg:
		if msg.form != a.form {
			return nil, false, false
		}
		switch m := msg.msg.(type) {
		case form.SubmitMsg:
			return nil, true, false
		case form.CancelMsg:
			a.kept = m.Keep
			return nil, false, true
		}
		return hosted(a.form, a.form.Update(msg.msg)), false, false
	case tea.KeyPressMsg:
		e := a.keys.Explore
		switch {
		case a.form.Confirming():
			// Answering keep/discard/back: the suggestions wait.
		case key.Matches(msg, e.Complete) && a.suggSel < len(a.sugg):
			// A text field cannot hold control, bidi or zero-width
			// characters without hiding them (the input would drop some
			// silently). The value sent must be what the user sees, so
			// such a suggestion goes in as the escaped text shown.
			take := a.sugg[a.suggSel]
			a.takeNote = ""
			if termsafe.Unsafe(take) {
				take = termsafe.String(take)
				a.takeNote = "the suggestion held control or invisible characters: inserted as the escaped text shown, which is what will be sent"
			}
			a.form.SetFieldText(take)
			a.SetSize(a.w, a.h)
			return a.completeCmd(), false, false
		case key.Matches(msg, e.Suggest) && len(a.sugg) > 0:
			a.suggSel = (a.suggSel + 1) % len(a.sugg)
			return nil, false, false
		}
	case tea.PasteMsg, tea.MouseWheelMsg:
	default:
		return nil, false, false
	}
	c := hosted(a.form, a.form.Update(msg))
	return tea.Batch(c, a.completeCmd()), false, false
}

// ShortHelp is the form's keys, with the suggestion keys while there are
// suggestions.
func (a *ArgsForm) ShortHelp() []key.Binding {
	var out []key.Binding
	if len(a.sugg) > 0 && !a.form.Confirming() {
		e := a.keys.Explore
		out = append(out, e.Complete)
		if len(a.sugg) > 1 {
			out = append(out, e.Suggest)
		}
	}
	return append(out, a.form.ShortHelp()...)
}

// FullHelp is every form key and the suggestion keys.
func (a *ArgsForm) FullHelp() [][]key.Binding {
	e := a.keys.Explore
	return append(a.form.FullHelp(), []key.Binding{e.Complete, e.Suggest})
}

// extraLines are what is drawn under the form: the suggestions for the
// focused field (or why there are none) and the preview.
func (a *ArgsForm) extraLines(w int) []string {
	t := a.theme
	var out []string
	if a.suggErr != "" {
		out = append(out, Fit(" "+t.Form.Error.Render("completion/complete: "+termsafe.String(a.suggErr)), w))
	}
	if a.takeNote != "" {
		out = append(out, Fit(" "+t.Form.Warn.Render(a.takeNote), w))
	}
	if len(a.sugg) > 0 {
		name := a.byPtr[a.askedPtr]
		head := fmt.Sprintf(" suggestions for %s · %s takes", termsafe.String(name), a.keys.Explore.Complete.Help().Key)
		if len(a.sugg) > 1 {
			head += " · " + a.keys.Explore.Suggest.Help().Key + " next"
		}
		out = append(out, Fit(t.Form.Hint.Render(head), w))
		first := 0
		if a.suggSel >= maxSuggestions {
			first = a.suggSel - maxSuggestions + 1
		}
		for i := first; i < len(a.sugg) && i < first+maxSuggestions; i++ {
			mark, st := "   ", t.Form.Hint
			if i == a.suggSel {
				mark, st = " ▸ ", t.Form.Value
			}
			out = append(out, Fit(mark+st.Render(termsafe.String(a.sugg[i])), w))
		}
		if rest := len(a.sugg) - min(len(a.sugg), first+maxSuggestions); rest > 0 || a.suggMore {
			more := fmt.Sprintf("   … %d more", rest)
			if a.suggMore {
				more = "   … more on the server: type to narrow"
			}
			out = append(out, Fit(t.Form.Hint.Render(more), w))
		}
	}
	if a.Preview != nil {
		out = append(out, Fit(" "+t.Form.Hint.Render("→ "+termsafe.String(a.Preview(a.Values()))), w))
	}
	if len(out) > max(a.h-3, 0) {
		out = out[:max(a.h-3, 0)]
	}
	return out
}

// View draws the form and the lines under it in exactly w×h cells.
func (a *ArgsForm) View() string {
	extra := a.extraLines(a.w)
	v := a.form.View() // sized by SetSize to leave room for extra

	if len(extra) == 0 {
		return v
	}
	return v + "\n" + strings.Join(extra, "\n")
}
