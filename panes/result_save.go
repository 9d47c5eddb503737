package panes

import (
	"encoding/json"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/calls"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// SaveCallMsg asks the root model to save the call a result came from to
// the calls file, under Name; Snapshot keeps the answer as its snapshot.
type SaveCallMsg struct {
	Name         string
	Tool         string
	Args         json.RawMessage
	Response     *mcp.Frame
	Latency      time.Duration
	OutputSchema bool // the tool declares an outputSchema
	Snapshot     bool
}

// saveQuestion is what S asks on a result: the call's name, and whether
// the answer shown becomes its snapshot.
type saveQuestion struct {
	open     bool
	name     textinput.Model
	snapshot bool
	typed    bool // the person changed the suggested name (kept across esc)
	// fresh is set while the name is the suggestion, untouched: it is
	// shown selected, and the first thing typed replaces it (a key that
	// moves the cursor keeps it, to edit).
	fresh  bool
	forMsg *ToolResultMsg
}

// SetCalls tells the result view where calls are saved and which names the
// calls file already has, for the name S suggests.
func (r *Result) SetCalls(file string, names []string) {
	r.callsFile = file
	r.callNames = map[string]bool{}
	for _, n := range names {
		r.callNames[n] = true
	}
}

// Saving reports whether the save question is open.
func (r *Result) Saving() bool { return r.saveQ.open }

// Capturing (panes.Capturing): the save question takes typed keys.
func (r *Result) Capturing() bool { return r.saveQ.open }

// canSave reports whether the shown result can be saved as a call: it came
// from the server (a result or an error), not from a local failure.
func (r *Result) canSave() bool {
	return r.msg != nil && r.msg.Response != nil && !r.loading
}

func (r *Result) openSave() tea.Cmd {
	q := &r.saveQ
	if q.forMsg != r.msg || !q.typed {
		in := textinput.New()
		in.Prompt = ""
		in.SetStyles(r.theme.TextInput)
		in.CharLimit = 200
		in.SetValue(calls.SuggestName(r.msg.Name, r.msg.Args, r.callNames))
		q.name, q.snapshot, q.typed, q.forMsg = in, false, false, r.msg
	}
	q.fresh = !q.typed
	q.name.SetWidth(max(r.w-10, 8))
	q.name.CursorEnd()
	q.open = true
	return q.name.Focus()
}

// updateSave answers a key while the save question is open.
func (r *Result) updateSave(kp tea.KeyPressMsg) tea.Cmd {
	q := &r.saveQ
	k := r.keys.Calls
	switch {
	case key.Matches(kp, k.Cancel):
		q.open = false
		q.name.Blur()
		return nil
	case key.Matches(kp, k.Snapshot):
		q.snapshot = !q.snapshot
		return nil
	case key.Matches(kp, k.Confirm):
		name := strings.TrimSpace(q.name.Value())
		if name == "" {
			return nil
		}
		q.open, q.typed = false, false
		q.name.Blur()
		m := r.msg
		msg := SaveCallMsg{Name: name, Tool: m.Name, Args: m.Args, Response: m.Response, Latency: m.Latency,
			OutputSchema: len(m.OutputSchema) > 0, Snapshot: q.snapshot}
		return func() tea.Msg { return msg }
	}
	if q.fresh {
		q.fresh = false
		switch {
		case kp.Code == tea.KeyBackspace || kp.Code == tea.KeyDelete:
			// Deletes the selection, as in any text field.
			q.name.SetValue("")
			q.typed = true
			return nil
		case typedText(kp):
			q.name.SetValue("")
		}
	}
	return q.edit(kp)
}

// edit hands a key or a paste to the name field.
func (q *saveQuestion) edit(msg tea.Msg) tea.Cmd {
	before := q.name.Value()
	var cmd tea.Cmd
	q.name, cmd = q.name.Update(msg)
	if q.name.Value() != before {
		q.typed = true
	}
	return cmd
}

// pasteIntoSave pastes into the name: a paste replaces an untouched
// suggestion, as typing does.
func (r *Result) pasteIntoSave(p tea.PasteMsg) tea.Cmd {
	q := &r.saveQ
	if q.fresh {
		q.fresh = false
		q.name.SetValue("")
	}
	return q.edit(p)
}

// typedText reports whether a key types text (not a key that moves the
// cursor, deletes or is a shortcut).
func typedText(kp tea.KeyPressMsg) bool {
	return kp.Text != "" && kp.Mod&^tea.ModShift == 0
}

// saveLines are the save question's rows, at the foot of the view.
func (r *Result) saveLines(w int) []string {
	t := r.theme
	q := &r.saveQ
	file := r.callsFile
	if file == "" {
		file = calls.DefaultPath
	}
	box := "[ ]"
	if q.snapshot {
		box = "[x]"
	}
	rule := "── save this call to " + termsafe.String(file) + " "
	lines := []string{
		t.Detail.Title.Render(Fit(rule+strings.Repeat("─", max(w-ansi.StringWidth(rule), 0)), w)),
		r.saveNameLine(w),
	}
	name := strings.TrimSpace(q.name.Value())
	switch {
	case name == "":
		lines = append(lines, t.Form.Warn.Render("a call needs a name"))
	case r.callNames[name]:
		lines = append(lines, t.Form.Warn.Render("replaces the saved call of that name"))
	}
	lines = append(lines, t.Detail.Label.Render(box+" keep this answer as its snapshot ("+r.keys.Calls.Snapshot.Help().Key+")"))
	a := calls.AnswerOf(r.msg.Response.Raw, r.msg.Latency)
	c := calls.Saved(name, mcp.MethodToolsCall, nil, a, q.snapshot, len(r.msg.OutputSchema) > 0)
	lines = append(lines, foldLine(t.Detail.Label.Render("expects ")+t.Detail.Value.Render(termsafe.String(strings.Join(c.Expect.Describe(), " · "))), w, 8)...)
	return lines
}

// saveNameLine is the name field's row: an untouched suggestion shown
// selected, with what a key does to it when there is room to say.
func (r *Result) saveNameLine(w int) string {
	t := r.theme
	q := &r.saveQ
	label := t.Detail.Label.Render("name  ")
	if !q.fresh {
		return label + termsafe.Rendered(q.name.View())
	}
	line := label + t.Log.Selected.Render(termsafe.String(q.name.Value()))
	hint := t.Detail.Hint.Render("  typing replaces it · → edits it")
	if ansi.StringWidth(line+hint) <= w {
		line += hint
	}
	return Fit(line, w)
}
