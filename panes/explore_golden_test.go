package panes

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/themes"
)

// Goldens of the explorer panes and the ask modal at 80×24 and 120×35,
// dark and light, with fixed data.
func TestExplorerGoldens(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, dark := range []bool{true, false} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 35}} {
			th, k := themes.Default(dark), keymap.Default()
			name := func(p string) string { return fmt.Sprintf("%s/dark=%t/%dx%d", p, dark, sz.w, sz.h) }
			t.Run(name("resources"), func(t *testing.T) {
				r := NewResources(th, k)
				r.SetGate(Gate{OK: true}, true, true)
				r.SetPage("resources/list", []json.RawMessage{json.RawMessage(`{"uri":"demo://readme","name":"readme","mimeType":"text/markdown"}`), json.RawMessage(`{"uri":"demo://clock","name":"clock"}`)}, true, "c2")
				r.SetSubscribed("demo://clock", true, nil)
				r.Updated("demo://clock")
				r.Updated("demo://clock")
				r.SetSize(sz.w, sz.h)
				r.Focus()
				golden.RequireEqual(t, r.View())
			})
			t.Run(name("prompts-gated"), func(t *testing.T) {
				p := NewPrompts(th, k)
				p.SetGate(Gate{Why: `the server did not declare the "prompts" capability, so it offers no prompts`}, false)
				p.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, p.View())
			})
			t.Run(name("prompts-form"), func(t *testing.T) {
				p := NewPrompts(th, k)
				p.SetSize(sz.w, sz.h)
				openGreet(t, p)
				golden.RequireEqual(t, p.View())
			})
			t.Run(name("serverlog"), func(t *testing.T) {
				s := NewServerLog(th, k)
				for i, l := range []string{"debug", "info", "warning", "error"} {
					s.Append(t0.Add(time.Duration(i)*time.Second), json.RawMessage(fmt.Sprintf(`{"level":%q,"logger":"demo","data":"message %d"}`, l, i)), nil)
				}
				s.SetLevel("debug")
				s.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, s.View())
			})
			t.Run(name("activity"), func(t *testing.T) {
				a := NewActivity(th, k)
				a.SetNow(t0)
				a.Start(Op{ID: 1, Label: "tools/call slow_count", Token: "tok", Started: t0.Add(-3 * time.Second)})
				total := 10.0
				a.Progress("tok", 4, &total, "step 4")
				a.Start(Op{ID: 2, Label: "resources/read demo://readme", Started: t0.Add(-time.Second)})
				a.End(2, OpCancelled, t0, 0)
				a.SetTask("task-1", "working", "researching", t0)
				a.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, a.View())
			})
			t.Run(name("roots"), func(t *testing.T) {
				r := NewRoots(th, k, []policy.Root{{URI: "file:///tmp", Name: "tmp"}})
				r.Asked()
				r.SetSize(sz.w, sz.h)
				golden.RequireEqual(t, r.View())
			})
			t.Run(name("ask-elicitation"), func(t *testing.T) {
				a := NewAsk(th, k)
				a.SetSize(sz.w, sz.h)
				runAsk(t, a, a.SetRequest(1, "elicitation/create", json.RawMessage(`{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"ok":{"type":"boolean","default":true},"colour":{"type":"string","oneOf":[{"const":"g","title":"Green"},{"const":"r","title":"Red"}],"default":"r"},"pets":{"type":"array","items":{"enum":["cat","dog"]},"default":["dog"]}},"required":["name"]}}`), ""))
				golden.RequireEqual(t, a.View())
			})
			t.Run(name("ask-sampling"), func(t *testing.T) {
				a := NewAsk(th, k)
				a.SetSize(sz.w, sz.h)
				a.SetRequest(2, "sampling/createMessage", json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"meaning?"}}],"systemPrompt":"Be brief.","modelPreferences":{"hints":[{"name":"claude"}]},"maxTokens":5}`), "ask_model")
				golden.RequireEqual(t, a.View())
			})
		}
	}
}

// The elicitation form is the schema form: it prefills defaults
// (SEP-1034) and answers SEP-1330 enums (titled, legacy enumNames,
// multi-select) with their const values; an optional enum without a
// default stays out of the content until it is chosen.
func TestAskElicitationDefaults(t *testing.T) {
	a := NewAsk(themes.Dark(), keymap.Default())
	a.SetSize(80, 24)
	a.Focus()
	cmd := a.SetRequest(7, "elicitation/create", json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"n":{"type":"integer","default":3},"colour":{"type":"string","oneOf":[{"const":"g","title":"Green"},{"const":"r","title":"Red"}],"default":"r"},"legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},"pets":{"type":"array","items":{"anyOf":[{"const":"cat","title":"Cat"},{"const":"dog","title":"Dog"}]},"default":["dog"]}}}}`), "")
	runAsk(t, a, cmd)
	if v, issues := a.Form().Value(); string(v) != `{"name":"Ada","n":3,"colour":"r","pets":["dog"]}` || len(issues) > 0 {
		t.Fatalf("content %s %v", v, issues)
	}
	if s := ansi.Strip(a.View()); !strings.Contains(s, "‹ Red ›") || !strings.Contains(s, "[x] Dog") {
		t.Fatalf("titled enum or multi-select not drawn with titles:\n%s", s)
	}
	// The legacy enum shows its enumNames and answers the value.
	for range 3 {
		runAsk(t, a, a.Update(tea.KeyPressMsg{Code: tea.KeyTab}))
	}
	runAsk(t, a, a.Update(tea.KeyPressMsg{Code: tea.KeyRight}))
	runAsk(t, a, a.Update(tea.KeyPressMsg{Code: tea.KeyRight}))
	if s := ansi.Strip(a.View()); !strings.Contains(s, "‹ B ›") {
		t.Fatalf("legacy enumNames not drawn:\n%s", s)
	}
	ans := runAsk(t, a, a.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}))
	if ans.ID != 7 || string(ans.Result) != `{"action":"accept","content":{"name":"Ada","n":3,"colour":"r","legacy":"b","pets":["dog"]}}` {
		t.Fatalf("answer %d %s %v", ans.ID, ans.Result, ans.Err)
	}
}

// Invalid content is refused by accept and sent only with the explicit
// override; decline and cancel answer without content.
func TestAskElicitationValidationAndActions(t *testing.T) {
	schema := json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"age":{"type":"integer","minimum":18}},"required":["age"]}}`)
	a := NewAsk(themes.Dark(), keymap.Default())
	a.SetSize(80, 24)
	a.Focus()
	runAsk(t, a, a.SetRequest(1, "elicitation/create", schema, ""))
	if ans := runAsk(t, a, a.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})); ans.Result != nil {
		t.Fatalf("invalid content was accepted: %s", ans.Result)
	}
	if s := ansi.Strip(a.View()); !strings.Contains(s, "not sent") || !strings.Contains(s, "ctrl+f") {
		t.Fatalf("the refusal does not say how to override:\n%s", s)
	}
	runAsk(t, a, a.Update(tea.KeyPressMsg{Code: tea.KeyEnter}))
	runAsk(t, a, a.Update(tea.KeyPressMsg{Code: '7', Text: "7"}))
	if s := ansi.Strip(a.View()); !strings.Contains(s, "18") {
		t.Fatalf("the minimum is not shown as the engine's error:\n%s", s)
	}
	ans := runAsk(t, a, a.Update(tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}))
	if string(ans.Result) != `{"action":"accept","content":{"age":7}}` {
		t.Fatalf("forced accept %s", ans.Result)
	}
	for _, c := range []struct {
		key  tea.KeyPressMsg
		want string
	}{
		{tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}, `{"action":"decline"}`},
		{tea.KeyPressMsg{Code: tea.KeyEscape}, `{"action":"cancel"}`},
	} {
		runAsk(t, a, a.SetRequest(2, "elicitation/create", schema, ""))
		if ans := runAsk(t, a, a.Update(c.key)); string(ans.Result) != c.want {
			t.Fatalf("%s: answer %s, want %s", c.key, ans.Result, c.want)
		}
	}
}

// runAsk runs cmd as the program would, feeding the modal's own messages
// back to it, and returns the answer if one was produced.
func runAsk(t *testing.T, a *Ask, cmd tea.Cmd) AnswerMsg {
	t.Helper()
	var ans AnswerMsg
	for _, m := range drive(a.Update, cmd) {
		if m, ok := m.(AnswerMsg); ok {
			ans = m
		}
	}
	return ans
}

// drive runs cmd, feeds the messages of hosted forms back through update
// and returns every other message.
func drive(update func(tea.Msg) tea.Cmd, cmd tea.Cmd) []tea.Msg {
	queue := []tea.Cmd{cmd}
	var out []tea.Msg
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch m := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, m...)
		case hostedMsg:
			queue = append(queue, update(m))
		default:
			out = append(out, m)
		}
	}
	return out
}

// openGreet opens greet's arguments form, types a name and a style prefix,
// and answers the completion the form asks for.
func openGreet(t *testing.T, p *Prompts) {
	t.Helper()
	p.SetGate(Gate{OK: true}, true)
	p.SetPage([]json.RawMessage{json.RawMessage(`{"name":"greet","description":"Greets.","arguments":[{"name":"name","title":"Name","description":"Who to greet.","required":true},{"name":"style","description":"formal, casual or pirate."}]}`)}, true, "")
	p.Focus()
	var asked []CompleteMsg
	keys := []tea.KeyPressMsg{{Code: tea.KeyEnter}, {Code: 'A', Text: "A"}, {Code: 'd', Text: "d"}, {Code: 'a', Text: "a"},
		{Code: tea.KeyTab}}
	for _, k := range keys {
		for _, m := range drive(p.Update, p.Update(k)) {
			if c, ok := m.(CompleteMsg); ok {
				asked = append(asked, c)
			}
		}
	}
	if len(asked) == 0 {
		t.Fatal("the form asked for no completions")
	}
	last := asked[len(asked)-1]
	if last.Arg != "style" || last.Value != "" || last.Context["name"] != "Ada" || string(last.Ref) != `{"name":"greet","type":"ref/prompt"}` {
		t.Fatalf("last completion request %+v", last)
	}
	p.SetCompletions(CompletionsMsg{Seq: last.Seq, Values: []string{"formal", "casual", "pirate"}, Total: 3})
}

// The prompts pane's arguments form is the schema form; completion values
// for the focused field are listed under it and taken with ctrl+y; an
// answer to an older keystroke is dropped.
func TestPromptsFormCompletion(t *testing.T) {
	p := NewPrompts(themes.Dark(), keymap.Default())
	p.SetSize(80, 20)
	openGreet(t, p)
	if got := p.Form().Suggestions(); len(got) != 3 {
		t.Fatalf("suggestions %v", got)
	}
	s := ansi.Strip(p.View())
	if !strings.Contains(s, "suggestions for style") || !strings.Contains(s, "▸ formal") || len(strings.Split(s, "\n")) != 20 {
		t.Fatalf("suggestions not drawn under the form (or the view is not 20 rows):\n%s", s)
	}
	p.SetCompletions(CompletionsMsg{Seq: -1, Values: []string{"stale"}})
	if got := p.Form().Suggestions(); len(got) != 3 {
		t.Fatalf("a stale answer replaced the suggestions: %v", got)
	}
	var got []tea.Msg
	for _, k := range []tea.KeyPressMsg{{Code: 'n', Mod: tea.ModCtrl}, {Code: 'n', Mod: tea.ModCtrl}, {Code: 'y', Mod: tea.ModCtrl}, {Code: 's', Mod: tea.ModCtrl}} {
		got = append(got, drive(p.Update, p.Update(k))...)
	}
	var sent *GetPromptMsg
	for _, m := range got {
		if m, ok := m.(GetPromptMsg); ok {
			sent = &m
		}
	}
	if sent == nil || sent.Name != "greet" || fmt.Sprint(sent.Args) != "map[name:Ada style:pirate]" {
		t.Fatalf("prompts/get %+v from %v", sent, got)
	}
	if p.Form() != nil {
		t.Fatal("the form stayed open after sending")
	}
}

func TestTemplateVarsAndExpand(t *testing.T) {
	vars := TemplateVars("demo://notes/{id}{?q,lang}")
	if fmt.Sprint(vars) != "[id q lang]" {
		t.Fatalf("vars %v", vars)
	}
	if got := ExpandTemplate("demo://notes/{id}{?q}", map[string]string{"id": "a b", "q": "x"}); got != "demo://notes/a%20b?q=x" {
		t.Fatalf("expanded %q", got)
	}
}

// The modal's help bar leads with accept, decline and cancel, and lists
// the array and key/value keys only when the schema has such parts.
func TestAskFormHelp(t *testing.T) {
	keysOf := func(schema string) string {
		a := NewAsk(themes.Dark(), keymap.Default())
		a.SetSize(80, 24)
		runAsk(t, a, a.SetRequest(1, "elicitation/create", json.RawMessage(`{"message":"m","requestedSchema":`+schema+`}`), ""))
		var out []string
		for _, b := range a.ShortHelp() {
			out = append(out, b.Help().Key+" "+b.Help().Desc)
		}
		return strings.Join(out, ", ")
	}
	flat := keysOf(`{"type":"object","properties":{"n":{"type":"string"},"m":{"type":"array","items":{"enum":["a"]}}}}`)
	if !strings.HasPrefix(flat, "tab/shift+tab next/prev field, ctrl+s accept, ctrl+d decline, esc cancel") {
		t.Fatalf("flat form help: %s", flat)
	}
	if strings.Contains(flat, "add item") {
		t.Fatalf("a flat form lists the array keys: %s", flat)
	}
	if nested := keysOf(`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`); !strings.Contains(nested, "alt+a add item") {
		t.Fatalf("a form with a free array lacks the array keys: %s", nested)
	}
}

// Every hint in the Ask modal names its key as bound (it once wrote
// ctrl+s, ctrl+o, ctrl+d, esc, ctrl+r and pgup/pgdn itself), on the
// screen and in the help bar, and the rebound page keys scroll.
func TestAskNamesBoundKeys(t *testing.T) {
	k := keymap.Default()
	rebind := func(b *key.Binding, keys string) {
		*b = key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, b.Help().Desc))
	}
	rebind(&k.Explore.Submit, "alt+1")
	rebind(&k.Explore.Decline, "alt+2")
	rebind(&k.Explore.Back, "alt+3")
	rebind(&k.Explore.OpenURL, "alt+4")
	rebind(&k.Explore.Canned, "alt+5")
	rebind(&k.Explore.StopReason, "alt+6")
	rebind(&k.Form.PageUp, "alt+7")
	rebind(&k.Form.PageDown, "alt+8")
	// The elicitation form's send and close, named for what they do here.
	rebind(&k.Form.Send, "alt+9")
	rebind(&k.Form.Close, "alt+0")
	rebind(&k.Form.Editor, "alt+x")
	long := strings.Repeat(`{"role":"user","content":{"type":"text","text":"again"}},`, 40)
	requests := map[string]struct {
		method, params string
	}{
		"url elicitation": {"elicitation/create", `{"mode":"url","message":"sign in","url":"https://example.com/a","elicitationId":"e"}`},
		"open url":        {OpenURLMethod, `{"url":"https://example.com/auth"}`},
		"sampling":        {"sampling/createMessage", `{"messages":[` + long + `{"role":"user","content":{"type":"text","text":"meaning?"}}],"maxTokens":5}`},
		"unknown":         {"x/unknown", `{}`},
		"form":            {"elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}`},
	}
	defaults := regexp.MustCompile(`ctrl\+[sodr]\b|\besc\b|pgup|pgdn`)
	for name, r := range requests {
		a := NewAsk(themes.Dark(), k)
		a.SetSize(100, 30)
		a.Focus()
		runAsk(t, a, a.SetRequest(1, r.method, json.RawMessage(r.params), ""))
		var help []string
		for _, b := range a.ShortHelp() {
			if b.Help().Key != "" {
				help = append(help, b.Help().Key+" "+b.Help().Desc)
			}
		}
		screen := ansi.Strip(a.View()) + "\n" + strings.Join(help, " · ")
		if got := defaults.FindAllString(screen, -1); len(got) > 0 {
			t.Errorf("%s: names %q, keys it does not have:\n%s", name, got, screen)
		}
		if !strings.Contains(screen, "alt+") {
			t.Errorf("%s: names none of the bound keys:\n%s", name, screen)
		}
	}
	a := NewAsk(themes.Dark(), k)
	a.SetSize(100, 30)
	a.SetRequest(1, "sampling/createMessage", json.RawMessage(`{"messages":[`+long+`{"role":"user","content":{"type":"text","text":"x"}}]}`), "")
	a.Update(tea.KeyPressMsg{Code: '8', Mod: tea.ModAlt})
	if s := ansi.Strip(a.View()); !strings.Contains(s, "(alt+7/alt+8: 6-") {
		t.Errorf("the bound page-down key did not scroll the request:\n%s", s)
	}
}
