package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// AnswerMsg is the user's answer to the server request shown in the Ask
// modal: a result, or an error to send back.
type AnswerMsg struct {
	ID     int
	Result json.RawMessage
	Err    error
}

// OpenURLMsg asks the root to open a URL elicitation's page in a browser
// (only ever on the user's key).
type OpenURLMsg struct{ URL string }

// StopReasons are the sampling stop reasons the user can pick.
var StopReasons = []string{"endTurn", "stopSequence", "maxTokens", "toolUse"}

// CannedReplies are ready-made assistant replies for sampling.
var CannedReplies = []string{"Hello from mcpscope: this reply was typed by a person, not a model.", "42", "I cannot help with that."}

// Ask is the modal that shows one thing the server asked of the client
// (a legacy server→client request or a modern MRTR input request) and
// collects the user's answer: an elicitation form (defaults prefilled,
// SEP-1330 enums), a URL elicitation, or a sampling reply.
type Ask struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool

	id       int
	method   string
	params   json.RawMessage
	inputKey string
	pending  int // more requests queued behind this one

	// elicitation, form mode
	message string
	fields  []*elicitField
	cur     int
	problem string
	// elicitation, URL mode
	url, elicitationID string
	// sampling
	reply   textinput.Model
	stop    int
	canned  int
	context []string // rendered messages, system prompt, preferences, tools
	off     int
}

type fieldKind int

const (
	fieldText fieldKind = iota
	fieldNumber
	fieldInteger
	fieldBool
	fieldEnum
	fieldMulti
)

type elicitField struct {
	name, title, desc string
	required          bool
	kind              fieldKind
	input             textinput.Model
	on                bool     // boolean value
	values, labels    []string // enum choices
	choice            int      // single-select choice
	picked            map[int]bool
	opt               int // multi-select cursor
}

// NewAsk makes the modal; SetRequest fills it.
func NewAsk(t *themes.Theme, k keymap.KeyMap) *Ask {
	return &Ask{theme: t, keys: k}
}

func (a *Ask) SetTheme(t *themes.Theme) { a.theme = t }
func (a *Ask) SetSize(w, h int)         { a.w, a.h = w, h }
func (a *Ask) Focus()                   { a.focused = true }
func (a *Ask) Blur()                    { a.focused = false }

// Capturing: the modal takes every key while open.
func (a *Ask) Capturing() bool { return true }

// ID is the request being answered.
func (a *Ask) ID() int { return a.id }

// Method is the request's method.
func (a *Ask) Method() string { return a.method }

// SetPending says how many more requests wait behind this one.
func (a *Ask) SetPending(n int) { a.pending = n }

func (a *Ask) Title() string {
	how := "server request"
	if a.inputKey != "" {
		how = "input request " + strconv.Quote(a.inputKey)
	}
	s := termsafe.String(a.method) + " · " + termsafe.String(how)
	if a.pending > 0 {
		s += fmt.Sprintf(" · %d more waiting", a.pending)
	}
	return s
}

// SetRequest shows a new request.
func (a *Ask) SetRequest(id int, method string, params json.RawMessage, inputKey string) {
	*a = Ask{theme: a.theme, keys: a.keys, w: a.w, h: a.h, focused: a.focused, pending: a.pending,
		id: id, method: method, params: params, inputKey: inputKey}
	switch method {
	case "elicitation/create":
		var p struct {
			Mode            string          `json:"mode"`
			Message         string          `json:"message"`
			URL             string          `json:"url"`
			ElicitationID   string          `json:"elicitationId"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		}
		_ = json.Unmarshal(params, &p)
		a.message, a.url, a.elicitationID = p.Message, p.URL, p.ElicitationID
		if p.Mode != "url" {
			a.fields = parseElicitSchema(a.theme, p.RequestedSchema)
			a.focusField(0)
		}
	case "sampling/createMessage":
		a.reply = textinput.New()
		a.reply.Prompt = "reply: "
		a.reply.Placeholder = "type the assistant's reply (ctrl+r: canned)"
		a.reply.SetStyles(a.theme.TextInput)
		a.reply.SetWidth(max(a.w-14, 10))
		a.reply.Focus()
		a.context = samplingContext(a.theme, params)
	}
}

// URLMode reports a URL elicitation.
func (a *Ask) URLMode() bool { return a.method == "elicitation/create" && a.url != "" }

// ElicitationID is the URL elicitation's id (2025-11-25).
func (a *Ask) ElicitationID() string { return a.elicitationID }

// SetFieldValue types into a form field (tests).
func (a *Ask) SetFieldValue(name, v string) {
	for _, f := range a.fields {
		if f.name == name {
			f.input.SetValue(v)
		}
	}
}

// SetReply types the sampling reply (tests).
func (a *Ask) SetReply(s string) { a.reply.SetValue(s) }

func (a *Ask) focusField(i int) {
	if len(a.fields) == 0 {
		return
	}
	a.fields[a.cur].input.Blur()
	a.cur = (i + len(a.fields)) % len(a.fields)
	if k := a.fields[a.cur].kind; k == fieldText || k == fieldNumber || k == fieldInteger {
		a.fields[a.cur].input.Focus()
	}
}

// orderedKeys returns an object's keys in document order.
func orderedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

type enumOption struct {
	Const json.RawMessage `json:"const"`
	Title string          `json:"title"`
}

func parseElicitSchema(t *themes.Theme, raw json.RawMessage) []*elicitField {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	_ = json.Unmarshal(raw, &s)
	var propsRaw struct {
		Properties json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(raw, &propsRaw)
	keys := orderedKeys(propsRaw.Properties)
	if len(keys) != len(s.Properties) {
		keys = keys[:0]
		for k := range s.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
	}
	var out []*elicitField
	for _, name := range keys {
		var p struct {
			Type        string            `json:"type"`
			Title       string            `json:"title"`
			Description string            `json:"description"`
			Default     json.RawMessage   `json:"default"`
			Enum        []json.RawMessage `json:"enum"`
			EnumNames   []string          `json:"enumNames"`
			OneOf       []enumOption      `json:"oneOf"`
			AnyOf       []enumOption      `json:"anyOf"`
			Items       struct {
				Enum  []json.RawMessage `json:"enum"`
				AnyOf []enumOption      `json:"anyOf"`
				OneOf []enumOption      `json:"oneOf"`
			} `json:"items"`
			Format string `json:"format"`
		}
		_ = json.Unmarshal(s.Properties[name], &p)
		f := &elicitField{name: name, title: p.Title, desc: p.Description, picked: map[int]bool{}}
		for _, r := range s.Required {
			if r == name {
				f.required = true
			}
		}
		f.input = textinput.New()
		f.input.Prompt = ""
		f.input.SetStyles(t.TextInput)
		addChoices := func(vals []json.RawMessage, names []string, opts []enumOption) {
			for i, v := range vals {
				var sv string
				_ = json.Unmarshal(v, &sv)
				f.values = append(f.values, sv)
				label := sv
				if i < len(names) {
					label = names[i]
				}
				f.labels = append(f.labels, label)
			}
			for _, o := range opts {
				var sv string
				_ = json.Unmarshal(o.Const, &sv)
				f.values = append(f.values, sv)
				label := o.Title
				if label == "" {
					label = sv
				}
				f.labels = append(f.labels, label)
			}
		}
		switch {
		case p.Type == "boolean":
			f.kind = fieldBool
			_ = json.Unmarshal(p.Default, &f.on)
		case p.Type == "array":
			f.kind = fieldMulti
			opts := p.Items.AnyOf
			if len(opts) == 0 {
				opts = p.Items.OneOf
			}
			addChoices(p.Items.Enum, nil, opts)
			var def []string
			_ = json.Unmarshal(p.Default, &def)
			for i, v := range f.values {
				for _, d := range def {
					if d == v {
						f.picked[i] = true
					}
				}
			}
		case len(p.Enum) > 0 || len(p.OneOf) > 0 || len(p.AnyOf) > 0:
			f.kind = fieldEnum
			opts := p.OneOf
			if len(opts) == 0 {
				opts = p.AnyOf
			}
			addChoices(p.Enum, p.EnumNames, opts)
			var def string
			_ = json.Unmarshal(p.Default, &def)
			for i, v := range f.values {
				if v == def {
					f.choice = i
				}
			}
		case p.Type == "number":
			f.kind = fieldNumber
		case p.Type == "integer":
			f.kind = fieldInteger
		default:
			f.kind = fieldText
			if p.Format != "" {
				f.input.Placeholder = p.Format
			}
		}
		if f.kind == fieldText || f.kind == fieldNumber || f.kind == fieldInteger {
			if len(p.Default) > 0 && string(p.Default) != "null" {
				var sv string
				if json.Unmarshal(p.Default, &sv) == nil {
					f.input.SetValue(sv)
				} else {
					f.input.SetValue(string(p.Default))
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// content builds the accepted form's content, checking required fields
// and numbers.
func (a *Ask) content() (map[string]any, error) {
	out := map[string]any{}
	var problems []string
	for _, f := range a.fields {
		v := strings.TrimSpace(f.input.Value())
		switch f.kind {
		case fieldBool:
			out[f.name] = f.on
		case fieldEnum:
			if len(f.values) > 0 {
				out[f.name] = f.values[f.choice]
			}
		case fieldMulti:
			picked := []string{}
			for i, val := range f.values {
				if f.picked[i] {
					picked = append(picked, val)
				}
			}
			if len(picked) > 0 || f.required {
				out[f.name] = picked
			}
		case fieldNumber, fieldInteger:
			if v == "" {
				if f.required {
					problems = append(problems, f.name+" is required")
				}
				continue
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || (f.kind == fieldInteger && n != float64(int64(n))) {
				problems = append(problems, f.name+" must be "+map[bool]string{true: "an integer", false: "a number"}[f.kind == fieldInteger])
				continue
			}
			out[f.name] = json.Number(v)
		default:
			if v == "" && f.required {
				problems = append(problems, f.name+" is required")
				continue
			}
			if v != "" || f.required {
				out[f.name] = f.input.Value()
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return out, nil
}

func (a *Ask) answer(res any) tea.Cmd {
	b, err := json.Marshal(res)
	id := a.id
	return func() tea.Msg { return AnswerMsg{ID: id, Result: b, Err: err} }
}

func (a *Ask) refuse(code int, msg string) tea.Cmd {
	id := a.id
	return func() tea.Msg { return AnswerMsg{ID: id, Err: &mcp.RPCError{Code: code, Message: msg}} }
}

func (a *Ask) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	e := a.keys.Explore
	switch a.method {
	case "elicitation/create":
		switch {
		case key.Matches(km, e.Back):
			return a.answer(map[string]string{"action": "cancel"})
		case key.Matches(km, e.Decline):
			return a.answer(map[string]string{"action": "decline"})
		}
		if a.URLMode() {
			switch {
			case key.Matches(km, e.OpenURL):
				u := a.url
				return tea.Batch(func() tea.Msg { return OpenURLMsg{URL: u} }, a.answer(map[string]string{"action": "accept"}))
			case key.Matches(km, e.Submit):
				return a.answer(map[string]string{"action": "accept"})
			}
			return nil
		}
		return a.updateForm(km)
	case "sampling/createMessage":
		switch {
		case key.Matches(km, e.Back), key.Matches(km, e.Decline):
			return a.refuse(-1, "the user declined the sampling request")
		case key.Matches(km, e.Submit):
			return a.answer(json.RawMessage(policy.SamplingReply(a.reply.Value(), StopReasons[a.stop])))
		case key.Matches(km, e.StopReason):
			a.stop = (a.stop + 1) % len(StopReasons)
			return nil
		case key.Matches(km, e.Canned):
			a.reply.SetValue(CannedReplies[a.canned])
			a.reply.CursorEnd()
			a.canned = (a.canned + 1) % len(CannedReplies)
			return nil
		case km.String() == "pgup":
			a.off = max(a.off-5, 0)
			return nil
		case km.String() == "pgdown":
			a.off = min(a.off+5, max(len(a.context)-1, 0))
			return nil
		}
		var cmd tea.Cmd
		a.reply, cmd = a.reply.Update(km)
		return cmd
	}
	if key.Matches(km, e.Back) || key.Matches(km, e.Decline) {
		return a.refuse(mcp.CodeMethodNotFound, "mcpscope does not answer "+a.method)
	}
	return nil
}

func (a *Ask) updateForm(km tea.KeyPressMsg) tea.Cmd {
	e := a.keys.Explore
	switch {
	case key.Matches(km, e.Submit):
		c, err := a.content()
		if err != nil {
			a.problem = err.Error()
			return nil
		}
		return a.answer(map[string]any{"action": "accept", "content": c})
	case key.Matches(km, e.NextField):
		a.focusField(a.cur + 1)
		return nil
	case key.Matches(km, e.PrevField):
		a.focusField(a.cur - 1)
		return nil
	}
	if len(a.fields) == 0 {
		return nil
	}
	f := a.fields[a.cur]
	switch f.kind {
	case fieldBool:
		if key.Matches(km, e.Toggle) || key.Matches(km, e.PrevChoice) || key.Matches(km, e.NextChoice) {
			f.on = !f.on
		}
	case fieldEnum:
		if n := len(f.values); n > 0 {
			switch {
			case key.Matches(km, e.PrevChoice):
				f.choice = (f.choice + n - 1) % n
			case key.Matches(km, e.NextChoice), key.Matches(km, e.Toggle):
				f.choice = (f.choice + 1) % n
			}
		}
	case fieldMulti:
		if n := len(f.values); n > 0 {
			switch {
			case key.Matches(km, e.PrevChoice):
				f.opt = (f.opt + n - 1) % n
			case key.Matches(km, e.NextChoice):
				f.opt = (f.opt + 1) % n
			case key.Matches(km, e.Toggle):
				f.picked[f.opt] = !f.picked[f.opt]
			}
		}
	default:
		var cmd tea.Cmd
		f.input, cmd = f.input.Update(km)
		a.problem = ""
		return cmd
	}
	return nil
}

func (a *Ask) ShortHelp() []key.Binding {
	e := a.keys.Explore
	accept := e.Submit
	switch a.method {
	case "elicitation/create":
		accept.SetHelp("ctrl+s", "accept")
		back := e.Back
		back.SetHelp("esc", "cancel")
		if a.URLMode() {
			return []key.Binding{e.OpenURL, accept, e.Decline, back}
		}
		return []key.Binding{e.NextField, e.Toggle, e.NextChoice, accept, e.Decline, back}
	case "sampling/createMessage":
		accept.SetHelp("ctrl+s", "send reply")
		return []key.Binding{accept, e.Canned, e.StopReason, e.Decline}
	}
	return []key.Binding{e.Decline}
}

func (a *Ask) FullHelp() [][]key.Binding { return [][]key.Binding{a.ShortHelp()} }

func (a *Ask) View() string {
	t := a.theme
	inner := a.w - 2
	var body []string
	switch a.method {
	case "elicitation/create":
		body = append(body, t.Detail.Title.Render("The server asks:"))
		for _, l := range strings.Split(termsafe.Block(a.message), "\n") {
			body = append(body, "  "+t.Result.Content.Render(l))
		}
		body = append(body, "")
		if a.URLMode() {
			body = append(body, t.Form.Label.Render("Open this URL? (the full address, as sent)"))
			// The full URL, wrapped rather than cut: the user must see
			// exactly where they are sent before consenting.
			for _, l := range wrapRunes(termsafe.String(a.url), max(inner-2, 10)) {
				body = append(body, "  "+t.Form.Value.Render(l))
			}
			if a.elicitationID != "" {
				body = append(body, t.Form.Hint.Render("elicitation id "+termsafe.String(a.elicitationID)+"; mcpscope waits for notifications/elicitation/complete"))
			}
			body = append(body, "", t.Form.Hint.Render("ctrl+o opens it with xdg-open and accepts; ctrl+s accepts without opening; nothing is fetched before you choose"))
			break
		}
		body = append(body, a.formLines(inner)...)
	case "sampling/createMessage":
		ctx := a.context
		room := max(a.h-2-5, 1)
		end := min(a.off+room, len(ctx))
		body = append(body, ctx[min(a.off, end):end]...)
		if len(ctx) > room {
			body = append(body, t.Form.Hint.Render(fmt.Sprintf("(pgup/pgdn: %d-%d of %d lines)", a.off+1, end, len(ctx))))
		}
		body = append(body, "", a.reply.View(), t.Form.Label.Render("stop reason: ")+t.Form.Value.Render(StopReasons[a.stop]))
	default:
		body = append(body, t.Form.Warn.Render("mcpscope has no form for "+termsafe.String(a.method)+"; esc answers method-not-found"))
		body = append(body, highlightJSON(t, a.params, 2)...)
	}
	return Box(t, a.Title(), true, a.w, a.h, body)
}

func (a *Ask) formLines(w int) []string {
	t := a.theme
	var out []string
	for i, f := range a.fields {
		label := f.name
		if f.title != "" {
			label = f.title
		}
		label = termsafe.String(label)
		if f.required {
			label += t.Form.Required.Render("*")
		}
		st := t.Form.Label
		if i == a.cur {
			st = t.Form.Focused
		}
		var val string
		switch f.kind {
		case fieldBool:
			val = map[bool]string{true: "[x] yes", false: "[ ] no"}[f.on]
			val = t.Form.Value.Render(val)
		case fieldEnum:
			if len(f.labels) > 0 {
				val = t.Form.Value.Render("‹ "+termsafe.String(f.labels[f.choice])+" ›") + t.Form.Hint.Render(fmt.Sprintf(" %d/%d", f.choice+1, len(f.labels)))
			}
		case fieldMulti:
			var opts []string
			for j, l := range f.labels {
				box := "[ ]"
				if f.picked[j] {
					box = "[x]"
				}
				s := box + " " + termsafe.String(l)
				if i == a.cur && j == f.opt {
					s = t.Form.Focused.Render(s)
				} else {
					s = t.Form.Value.Render(s)
				}
				opts = append(opts, s)
			}
			val = strings.Join(opts, "  ")
		default:
			in := f.input
			in.SetWidth(max(w-len(label)-6, 6))
			val = in.View()
		}
		out = append(out, st.Render(label)+": "+val)
		if f.desc != "" && i == a.cur {
			out = append(out, "  "+t.Form.Hint.Render(termsafe.String(firstLine(f.desc))))
		}
	}
	if len(a.fields) == 0 {
		out = append(out, t.Form.Hint.Render("(no fields requested)"))
	}
	if a.problem != "" {
		out = append(out, "", t.Form.Error.Render(termsafe.String(a.problem)))
	}
	return out
}

// samplingContext renders what a sampling request carries: system prompt,
// messages with roles, model preferences, limits and tools.
func samplingContext(t *themes.Theme, raw json.RawMessage) []string {
	var p struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemPrompt     string          `json:"systemPrompt"`
		ModelPreferences json.RawMessage `json:"modelPreferences"`
		MaxTokens        json.RawMessage `json:"maxTokens"`
		Temperature      json.RawMessage `json:"temperature"`
		IncludeContext   string          `json:"includeContext"`
		StopSequences    []string        `json:"stopSequences"`
		Tools            []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
		ToolChoice json.RawMessage `json:"toolChoice"`
	}
	_ = json.Unmarshal(raw, &p)
	var out []string
	lbl := func(k, v string) {
		out = append(out, t.Form.Label.Render(k+": ")+t.Form.Value.Render(termsafe.String(v)))
	}
	if p.SystemPrompt != "" {
		lbl("system prompt", p.SystemPrompt)
	}
	if len(p.ModelPreferences) > 0 {
		lbl("model preferences", compact(p.ModelPreferences))
	}
	if len(p.MaxTokens) > 0 {
		lbl("max tokens", string(p.MaxTokens))
	}
	if len(p.Temperature) > 0 {
		lbl("temperature", string(p.Temperature))
	}
	if p.IncludeContext != "" {
		lbl("include context", p.IncludeContext)
	}
	if len(p.StopSequences) > 0 {
		lbl("stop sequences", strings.Join(p.StopSequences, ", "))
	}
	for _, tl := range p.Tools {
		lbl("tool", tl.Name+" — "+firstLine(tl.Description))
	}
	if len(p.ToolChoice) > 0 {
		lbl("tool choice", compact(p.ToolChoice))
	}
	for i, m := range p.Messages {
		out = append(out, t.Detail.Title.Render(fmt.Sprintf("── message %d: %s ──", i+1, termsafe.String(m.Role))))
		out = append(out, BlockLines(t, m.Content)...)
	}
	return out
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
