package panes

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// ArgField is one string argument of a prompt or one variable of a
// resource template.
type ArgField struct {
	Name, Description string
	Required          bool
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

// ArgsForm is a column of string inputs with completion/complete
// suggestions as you type. Prompts and resource templates use it: their
// arguments are flat strings, so the schema form engine is not needed.
type ArgsForm struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	ref     json.RawMessage
	fields  []ArgField
	inputs  []textinput.Model
	cur     int
	seq     int
	sugg    []string
	suggSel int
	suggFor int // the seq the suggestions answer
	suggErr string
	problem string
	// Completes says whether to ask for completions (the server declared
	// the completions capability, or it is 2024-11-05 where it is ungated).
	Completes bool
}

// NewArgsForm makes a form for fields; ref is the completion reference.
func NewArgsForm(t *themes.Theme, k keymap.KeyMap, ref json.RawMessage, fields []ArgField) *ArgsForm {
	f := &ArgsForm{theme: t, keys: k, ref: ref, fields: fields}
	for range fields {
		in := textinput.New()
		in.Prompt = ""
		in.SetStyles(t.TextInput)
		f.inputs = append(f.inputs, in)
	}
	f.focus(0)
	return f
}

func (f *ArgsForm) focus(i int) {
	if len(f.inputs) == 0 {
		return
	}
	f.inputs[f.cur].Blur()
	f.cur = (i + len(f.inputs)) % len(f.inputs)
	f.inputs[f.cur].Focus()
	f.sugg, f.suggErr = nil, ""
}

// Values are the arguments typed so far; empty optional ones are left out.
func (f *ArgsForm) Values() map[string]string {
	out := map[string]string{}
	for i, fl := range f.fields {
		if v := f.inputs[i].Value(); v != "" || fl.Required {
			out[fl.Name] = v
		}
	}
	return out
}

// SetValue types a value into a field (tests, history).
func (f *ArgsForm) SetValue(name, v string) {
	for i, fl := range f.fields {
		if fl.Name == name {
			f.inputs[i].SetValue(v)
		}
	}
}

// Missing lists required fields left empty.
func (f *ArgsForm) Missing() []string {
	var miss []string
	for i, fl := range f.fields {
		if fl.Required && strings.TrimSpace(f.inputs[i].Value()) == "" {
			miss = append(miss, fl.Name)
		}
	}
	return miss
}

// Suggestions are the current completion values (for tests).
func (f *ArgsForm) Suggestions() []string { return f.sugg }

// SetCompletions applies a completion answer unless a newer keystroke
// superseded it.
func (f *ArgsForm) SetCompletions(msg CompletionsMsg) {
	if msg.Seq != f.seq {
		return
	}
	f.sugg, f.suggSel, f.suggFor = msg.Values, 0, msg.Seq
	f.suggErr = ""
	if msg.Err != nil {
		f.suggErr = msg.Err.Error()
	}
}

func (f *ArgsForm) completeCmd() tea.Cmd {
	if !f.Completes || len(f.fields) == 0 {
		return nil
	}
	f.seq++
	ctx := f.Values()
	delete(ctx, f.fields[f.cur].Name)
	msg := CompleteMsg{Ref: f.ref, Arg: f.fields[f.cur].Name, Value: f.inputs[f.cur].Value(), Context: ctx, Seq: f.seq}
	return func() tea.Msg { return msg }
}

// Update handles keys; it returns submit (ctrl+s with every required field
// filled) and cancel (esc) as results.
func (f *ArgsForm) Update(msg tea.KeyPressMsg) (cmd tea.Cmd, submit, cancel bool) {
	e := f.keys.Explore
	switch {
	case key.Matches(msg, e.Back):
		return nil, false, true
	case key.Matches(msg, e.Submit):
		if miss := f.Missing(); len(miss) > 0 {
			f.problem = "required: " + strings.Join(miss, ", ")
			return nil, false, false
		}
		return nil, true, false
	case key.Matches(msg, e.Complete):
		if f.suggSel < len(f.sugg) && len(f.inputs) > 0 {
			f.inputs[f.cur].SetValue(f.sugg[f.suggSel])
			f.inputs[f.cur].CursorEnd()
			return f.completeCmd(), false, false
		}
		return nil, false, false
	case key.Matches(msg, e.Suggest):
		if len(f.sugg) > 0 {
			f.suggSel = (f.suggSel + 1) % len(f.sugg)
		}
		return nil, false, false
	case msg.String() == "tab" || msg.String() == "down":
		f.focus(f.cur + 1)
		return f.completeCmd(), false, false
	case msg.String() == "shift+tab" || msg.String() == "up":
		f.focus(f.cur - 1)
		return f.completeCmd(), false, false
	}
	if len(f.inputs) == 0 {
		return nil, false, false
	}
	before := f.inputs[f.cur].Value()
	var c tea.Cmd
	f.inputs[f.cur], c = f.inputs[f.cur].Update(msg)
	f.problem = ""
	if f.inputs[f.cur].Value() != before {
		return tea.Batch(c, f.completeCmd()), false, false
	}
	return c, false, false
}

// Start asks for the first field's completions.
func (f *ArgsForm) Start() tea.Cmd { return f.completeCmd() }

// ShortHelp is the form's keys.
func (f *ArgsForm) ShortHelp() []key.Binding {
	e := f.keys.Explore
	return []key.Binding{e.NextField, e.Complete, e.Suggest, e.Submit, e.Back}
}

// Lines renders the form in width w.
func (f *ArgsForm) Lines(w int) []string {
	t := f.theme
	var out []string
	if len(f.fields) == 0 {
		out = append(out, t.Form.Hint.Render("no arguments: ctrl+s sends"))
	}
	for i, fl := range f.fields {
		label := termsafe.String(fl.Name)
		if fl.Required {
			label += t.Form.Required.Render("*")
		}
		style := t.Form.Label
		if i == f.cur {
			style = t.Form.Focused
		}
		in := f.inputs[i]
		in.SetWidth(max(w-ansi.StringWidth(label)-4, 4))
		out = append(out, style.Render(label)+": "+in.View())
		if fl.Description != "" {
			out = append(out, "  "+t.Form.Hint.Render(termsafe.String(firstLine(fl.Description))))
		}
		if i == f.cur {
			if f.suggErr != "" {
				out = append(out, "  "+t.Form.Error.Render("completion: "+termsafe.String(f.suggErr)))
			}
			for j, s := range f.sugg {
				if j >= 6 {
					out = append(out, "  "+t.Form.Hint.Render(fmt.Sprintf("… %d more", len(f.sugg)-j)))
					break
				}
				mark := "  "
				st := t.Form.Hint
				if j == f.suggSel {
					mark, st = "▸ ", t.Form.Value
				}
				out = append(out, "  "+mark+st.Render(termsafe.String(s)))
			}
		}
	}
	if f.problem != "" {
		out = append(out, t.Form.Error.Render(f.problem))
	}
	return out
}
