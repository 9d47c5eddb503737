package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/panes/form"
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
// (only ever on the user's key, and only an http(s) URL).
type OpenURLMsg struct{ URL string }

// RefusedURLMsg says a URL was not opened and why; the modal has already
// declined the request. The root shows the reason in its status line.
type RefusedURLMsg struct{ Why string }

// OpenURLMethod is the local question "may mcpscope open this URL?" (an
// OAuth authorization URL): accept opens it, decline does not. It never
// goes on the wire.
const OpenURLMethod = "mcpscope/open-url"

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

	// elicitation, form mode: the schema form (panes/form) on the
	// requestedSchema; formErr says why the schema could not be used.
	message string
	form    *form.Form
	formErr string
	nested  bool // the schema has objects or free arrays (see elicitNested)
	// elicitation, URL mode
	url, elicitationID string
	// sampling
	reply   textinput.Model
	stop    int
	canned  int
	context []string // rendered messages, system prompt, preferences, tools
	off     int
}

// NewAsk makes the modal; SetRequest fills it.
func NewAsk(t *themes.Theme, k keymap.KeyMap) *Ask {
	return &Ask{theme: t, keys: k}
}

func (a *Ask) SetTheme(t *themes.Theme) {
	a.theme = t
	if a.form != nil {
		a.form.SetTheme(t)
	}
}

func (a *Ask) SetSize(w, h int) {
	a.w, a.h = w, h
	a.sizeForm()
}

func (a *Ask) Focus() {
	a.focused = true
	if a.form != nil {
		a.form.Focus()
	}
}

func (a *Ask) Blur() {
	a.focused = false
	if a.form != nil {
		a.form.Blur()
	}
}

// Capturing: the modal takes every key while open.
func (a *Ask) Capturing() bool { return true }

// ID is the request being answered.
func (a *Ask) ID() int { return a.id }

// Method is the request's method.
func (a *Ask) Method() string { return a.method }

// SetPending says how many more requests wait behind this one.
func (a *Ask) SetPending(n int) { a.pending = n }

func (a *Ask) Title() string {
	if a.method == OpenURLMethod {
		return "open a URL? · mcpscope asks (the server chose the URL)"
	}
	how := "server request"
	if a.inputKey != "" {
		how = "input request " + strconv.Quote(a.inputKey)
	}
	s := termsafe.String(a.method) + " · " + termsafe.String(how)
	if a.pending > 0 {
		// This request is the oldest; the others wait behind it.
		s += fmt.Sprintf(" · 1 of %d", a.pending+1)
	}
	return s
}

// SetRequest shows a new request. The command it returns compiles an
// elicitation's schema in the background (the form validates from then on).
func (a *Ask) SetRequest(id int, method string, params json.RawMessage, inputKey string) tea.Cmd {
	*a = Ask{theme: a.theme, keys: a.keys, w: a.w, h: a.h, focused: a.focused, pending: a.pending,
		id: id, method: method, params: params, inputKey: inputKey}
	switch method {
	case mcp.MethodElicitationCreate:
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
			return a.openForm(p.RequestedSchema)
		}
	case OpenURLMethod:
		var p struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(params, &p)
		a.url = p.URL
	case mcp.MethodSamplingCreateMessage:
		a.reply = textinput.New()
		a.reply.Prompt = "reply: "
		a.reply.Placeholder = "type the assistant's reply (" + a.keys.Explore.Canned.Help().Key + ": canned)"
		a.reply.SetStyles(a.theme.TextInput)
		a.reply.SetWidth(max(a.w-14, 10))
		a.reply.Focus()
		a.context = samplingContext(a.theme, params)
	}
	return nil
}

// openForm builds the schema form on an elicitation's requestedSchema:
// defaults prefilled (SEP-1034), enums titled or not, single or multi
// (SEP-1330, legacy enumNames too). A schema that is not JSON, or missing,
// still gets a form (of an empty object) so the user can answer, and the
// modal says why.
func (a *Ask) openForm(raw json.RawMessage) tea.Cmd {
	const empty = `{"type":"object","properties":{}}`
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		a.formErr = "the request has no requestedSchema"
		raw = json.RawMessage(empty)
	}
	opts := form.Options{Title: "requestedSchema", Theme: a.theme, Keys: a.keys}
	f, err := form.New(raw, opts)
	if err != nil {
		a.formErr = "the requestedSchema is not JSON: " + err.Error()
		f, _ = form.New(json.RawMessage(empty), opts)
	}
	a.form, a.nested = f, elicitNested(raw)
	a.sizeForm()
	if a.focused {
		f.Focus()
	}
	return hosted(f, f.Init())
}

// Form is the elicitation's form, or nil (tests).
func (a *Ask) Form() *form.Form { return a.form }

// headLines are the lines above an elicitation's form: the message and
// any problem with the schema.
func (a *Ask) headLines() []string {
	t := a.theme
	body := []string{t.Detail.Title.Render("The server asks:")}
	for _, l := range strings.Split(termsafe.Block(a.message), "\n") {
		body = append(body, "  "+t.Result.Content.Render(l))
	}
	if a.formErr != "" {
		body = append(body, t.Form.Warn.Render(termsafe.String(a.formErr)))
	}
	return append(body, "")
}

// sizeForm gives the form the modal's inner room under the message; the
// message keeps at most half of it.
func (a *Ask) sizeForm() {
	if a.form == nil {
		return
	}
	ih := max(a.h-2, 0)
	head := min(len(a.headLines()), ih/2)
	a.form.SetSize(max(a.w-2, 0), max(ih-head, 0))
}

// URLMode reports a URL elicitation.
func (a *Ask) URLMode() bool { return a.method == mcp.MethodElicitationCreate && a.url != "" }

// ElicitationID is the URL elicitation's id (2025-11-25).
func (a *Ask) ElicitationID() string { return a.elicitationID }

// SetReply types the sampling reply (tests).
func (a *Ask) SetReply(s string) { a.reply.SetValue(s) }

// Reply is the sampling reply typed so far.
func (a *Ask) Reply() string { return a.reply.Value() }

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
	if a.form != nil {
		return a.updateForm(msg)
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	e := a.keys.Explore
	switch a.method {
	case mcp.MethodElicitationCreate:
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
				if _, err := openurl.Check(u); err != nil {
					// Not opening it is not accepting it: the server is
					// told "decline", and the person is told why.
					why := "declined: " + err.Error()
					return tea.Batch(a.answer(map[string]string{"action": "decline"}), func() tea.Msg { return RefusedURLMsg{Why: why} })
				}
				return tea.Batch(func() tea.Msg { return OpenURLMsg{URL: u} }, a.answer(map[string]string{"action": "accept"}))
			case key.Matches(km, e.Submit):
				return a.answer(map[string]string{"action": "accept"})
			}
		}
		return nil
	case OpenURLMethod:
		switch {
		case key.Matches(km, e.OpenURL):
			if _, err := openurl.Check(a.url); err != nil {
				return a.answer(map[string]string{"action": "decline"})
			}
			return a.answer(map[string]string{"action": "accept"})
		case key.Matches(km, e.Back), key.Matches(km, e.Decline):
			return a.answer(map[string]string{"action": "decline"})
		}
		return nil
	case mcp.MethodSamplingCreateMessage:
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
		case key.Matches(km, a.keys.Form.PageUp):
			a.off = max(a.off-5, 0)
			return nil
		case key.Matches(km, a.keys.Form.PageDown):
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

// updateForm drives an elicitation's form: the form's send accepts with
// its value (refused while invalid unless forced, which the form asks for
// explicitly), closing the form cancels, and the decline key declines.
func (a *Ask) updateForm(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case hostedMsg:
		if msg.form != a.form {
			return nil
		}
		switch m := msg.msg.(type) {
		case form.SubmitMsg:
			return a.answer(map[string]any{"action": "accept", "content": m.Value})
		case form.CancelMsg:
			return a.answer(map[string]string{"action": "cancel"})
		}
		return hosted(a.form, a.form.Update(msg.msg))
	case tea.KeyPressMsg:
		if key.Matches(msg, a.keys.Explore.Decline) {
			return a.answer(map[string]string{"action": "decline"})
		}
	case tea.MouseClickMsg:
		// The click is in the modal's cells: the form starts under the
		// border and the message lines.
		m := msg.Mouse()
		m.X, m.Y = m.X-1, m.Y-1-a.headShown()
		return hosted(a.form, a.form.Update(tea.MouseClickMsg(m)))
	case tea.PasteMsg, tea.MouseWheelMsg:
	default:
		return nil
	}
	return hosted(a.form, a.form.Update(msg))
}

// headShown is how many lines of the message are drawn above the form.
func (a *Ask) headShown() int { return min(len(a.headLines()), max(a.h-2, 0)/2) }

func (a *Ask) ShortHelp() []key.Binding {
	e := a.keys.Explore
	accept := e.Submit
	switch a.method {
	case mcp.MethodElicitationCreate:
		accept.SetHelp(accept.Help().Key, "accept")
		back := e.Back
		back.SetHelp(back.Help().Key, "cancel")
		if a.URLMode() {
			return []key.Binding{e.OpenURL, accept, e.Decline, back}
		}
		if a.form != nil {
			return a.formHelp()
		}
		return []key.Binding{accept, e.Decline, back}
	case OpenURLMethod:
		open, no := e.OpenURL, e.Decline
		no.SetHelp(no.Help().Key, "do not open")
		return []key.Binding{open, no}
	case mcp.MethodSamplingCreateMessage:
		accept.SetHelp(accept.Help().Key, "send reply")
		return []key.Binding{accept, e.Canned, e.StopReason, e.Decline}
	}
	return []key.Binding{e.Decline}
}

// formHelp is the form's own keys, named for what they do here (send
// accepts, close cancels), with decline and cancel right after accept so
// that a narrow help bar never cuts them. The keys for array items and
// key/value rows are left out while the schema has none (the flat schema
// elicitation asks for), so the bar lists only keys that do something.
func (a *Ask) formHelp() []key.Binding {
	k := a.keys.Form
	var head, rest []key.Binding
	for _, b := range a.form.ShortHelp() {
		// The moving keys lead; the form words their help for the row.
		if slices.Contains(b.Keys(), "tab") || sameKeys(b, k.Edit) {
			head = append(head, b)
			continue
		}
		switch b.Help() {
		case k.Send.Help():
			b.SetHelp(b.Help().Key, "accept")
			head = append(head, b, a.keys.Explore.Decline)
		case k.Close.Help():
			b.SetHelp(b.Help().Key, "cancel")
			head = append(head, b)
		case k.Discard.Help():
			b.SetHelp(b.Help().Key, "discard and cancel")
			head = append(head, b)
		case k.SendAnyway.Help():
			b.SetHelp(b.Help().Key, "accept anyway")
			rest = append(rest, b)
		case k.Add.Help(), k.Delete.Help(), k.MoveUp.Help(), k.MoveDown.Help():
			if a.nested {
				rest = append(rest, b)
			}
		default:
			rest = append(rest, b)
		}
	}
	return append(head, rest...)
}

func sameKeys(a, b key.Binding) bool {
	return strings.Join(a.Keys(), " ") == strings.Join(b.Keys(), " ")
}

// elicitNested reports whether a requestedSchema has a property that is an
// object or an array of free items (not a multi-select): elicitation
// schemas are flat, but a server under test may send anything.
func elicitNested(raw json.RawMessage) bool {
	var s struct {
		Properties map[string]struct {
			Type  any `json:"type"`
			Items *struct {
				Enum  json.RawMessage `json:"enum"`
				AnyOf json.RawMessage `json:"anyOf"`
				OneOf json.RawMessage `json:"oneOf"`
			} `json:"items"`
			Properties           json.RawMessage `json:"properties"`
			AdditionalProperties json.RawMessage `json:"additionalProperties"`
		} `json:"properties"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return true
	}
	if len(s.AdditionalProperties) > 0 && string(s.AdditionalProperties) != "false" {
		return true
	}
	for _, p := range s.Properties {
		typ := fmt.Sprint(p.Type)
		switch {
		case strings.Contains(typ, "object"), len(p.Properties) > 0, len(p.AdditionalProperties) > 0:
			return true
		case strings.Contains(typ, "array"):
			if p.Items == nil || (len(p.Items.Enum) == 0 && len(p.Items.AnyOf) == 0 && len(p.Items.OneOf) == 0) {
				return true
			}
		}
	}
	return false
}

func (a *Ask) FullHelp() [][]key.Binding {
	if a.form != nil {
		return append(a.form.FullHelp(), []key.Binding{a.keys.Explore.Decline})
	}
	return [][]key.Binding{a.ShortHelp()}
}

func (a *Ask) View() string {
	t := a.theme
	e := a.keys.Explore
	inner := a.w - 2
	var body []string
	switch a.method {
	case mcp.MethodElicitationCreate:
		if a.form != nil {
			head := a.headLines()[:a.headShown()]
			body = append(head, strings.Split(a.form.View(), "\n")...)
			break
		}
		body = append(body, a.headLines()...)
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
			body = append(body, "", t.Form.Hint.Render(e.OpenURL.Help().Key+" opens it with xdg-open and accepts; "+e.Submit.Help().Key+
				" accepts without opening; nothing is fetched before you choose"))
		}
	case OpenURLMethod:
		host := openurl.Host(a.url)
		if host == "" {
			body = append(body, t.Form.Warn.Render("The authorization URL is not http(s) and will not be opened:"))
		} else {
			body = append(body, t.Detail.Title.Render("Open the authorization page in your browser?"), "",
				t.Form.Label.Render("host: ")+t.Form.Value.Render(host), "", t.Form.Label.Render("the full address:"))
		}
		for _, l := range wrapRunes(termsafe.String(a.url), max(inner-2, 10)) {
			body = append(body, "  "+t.Form.Value.Render(l))
		}
		body = append(body, "", t.Form.Hint.Render(e.OpenURL.Help().Key+" opens it; "+e.Back.Help().Key+" or "+e.Decline.Help().Key+
			" does not (the URL stays in the timeline to open yourself)"))
	case mcp.MethodSamplingCreateMessage:
		ctx := a.context
		room := max(a.h-2-5, 1)
		end := min(a.off+room, len(ctx))
		body = append(body, ctx[min(a.off, end):end]...)
		if len(ctx) > room {
			body = append(body, t.Form.Hint.Render(fmt.Sprintf("(%s/%s: %d-%d of %d lines)",
				a.keys.Form.PageUp.Help().Key, a.keys.Form.PageDown.Help().Key, a.off+1, end, len(ctx))))
		}
		body = append(body, "", termsafe.Rendered(a.reply.View()), t.Form.Label.Render("stop reason: ")+t.Form.Value.Render(StopReasons[a.stop]))
	default:
		body = append(body, t.Form.Warn.Render("mcpscope has no form for "+termsafe.String(a.method)+"; "+e.Back.Help().Key+" answers method-not-found"))
		body = append(body, highlightJSON(t, a.params, 2)...)
	}
	return Box(t, a.Title(), true, a.w, a.h, body)
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

// Accepted reports whether an answer the ask modal produced (an
// elicitation result: {"action":"accept",...}) says accept. The modal
// wrote it, so the modal's package reads it; the root model decodes no
// payload itself.
func Accepted(result json.RawMessage) bool {
	var ans struct {
		Action string `json:"action"`
	}
	return json.Unmarshal(result, &ans) == nil && ans.Action == "accept"
}
