package panes

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// toolsDo sends keys to the tools pane and feeds the messages its commands
// produce back to it, as the root model does.
func toolsDo(p *Tools, keys ...string) {
	for _, k := range keys {
		var msg tea.Msg = press(k)
		if k == "tab" {
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		}
		for cmd := p.Update(msg); cmd != nil; {
			out := cmd()
			if out == nil {
				break
			}
			cmd = p.Update(out)
		}
	}
}

func toolsType(p *Tools, s string) {
	for _, r := range s {
		toolsDo(p, string(r))
	}
}

// Esc on a half-filled form used to lose everything. Now "keep draft"
// keeps it per tool for the session, and it reopens where the user left
// it; "discard" throws it away.
func TestToolDraftsAreKeptPerTool(t *testing.T) {
	p := newFixtureTools(true, 100, 30)
	p.Select("get_weather")
	toolsDo(p, "enter")
	toolsType(p, "Paris")
	toolsDo(p, "tab")
	toolsType(p, "imp") // units: an enum, filtered as typed
	toolsDo(p, "esc")
	if p.Form() == nil || !p.Form().Confirming() {
		t.Fatal("esc on a changed form did not ask")
	}
	toolsDo(p, "k")
	if p.Editing() || !p.HasDraft("get_weather") {
		t.Fatalf("keep: editing %v, draft %v", p.Editing(), p.HasDraft("get_weather"))
	}
	// At every width, the list beside the details included (where the
	// badges once left no room and went, the draft's with them).
	for _, w := range []int{100, 80, 60, 40} {
		p.SetSize(w, 24)
		if !regexp.MustCompile(`get_weather .*✎ draft`).MatchString(ansi.Strip(p.View())) {
			t.Errorf("at %d columns the list does not mark the tool with a draft:\n%s", w, ansi.Strip(p.View()))
		}
	}
	p.SetSize(100, 30)
	// Another tool's form is its own.
	p.Select("echo")
	toolsDo(p, "enter")
	if v, _ := p.Form().Value(); string(v) != `{"message":""}` {
		t.Fatalf("echo opened with %s", v)
	}
	toolsDo(p, "esc")
	// Back to get_weather: the draft, and the cursor where it was.
	p.Select("get_weather")
	toolsDo(p, "enter")
	v, _ := p.Form().Value()
	if string(v) != `{"city":"Paris","units":"imperial","days":1}` {
		t.Fatalf("reopened with %s", v)
	}
	toolsType(p, "x") // on units: the filter, not a new field
	if ptr, _, ok := p.Form().Field(); ok {
		t.Fatalf("the cursor came back on %s, not on units", ptr)
	}
	toolsDo(p, "esc", "d")
	if p.HasDraft("get_weather") {
		t.Fatal("discard kept the draft")
	}
	toolsDo(p, "enter")
	if v, _ := p.Form().Value(); string(v) != `{"city":"","days":1}` {
		t.Fatalf("after discard the form opened with %s", v)
	}
}

// A draft whose tool changed its schema meanwhile starts a new form from
// the draft's value.
func TestToolDraftSurvivesASchemaChange(t *testing.T) {
	p := newFixtureTools(true, 100, 30)
	p.Select("echo")
	toolsDo(p, "enter")
	toolsType(p, "hello")
	toolsDo(p, "esc", "k")
	p.SetTools(mcp.ParseTools([]json.RawMessage{json.RawMessage(`{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"loud":{"type":"boolean"}},"required":["message"]}}`)}))
	toolsDo(p, "enter")
	if v, _ := p.Form().Value(); string(v) != `{"message":"hello"}` {
		t.Fatalf("after a schema change the form opened with %s", v)
	}
}

// Prompts keep drafts per prompt too.
func TestPromptDraftsAreKept(t *testing.T) {
	p := NewPrompts(themes.Dark(), keymap.Default())
	p.SetSize(80, 24)
	p.SetGate(Gate{OK: true}, false)
	p.SetPage([]json.RawMessage{json.RawMessage(`{"name":"greet","arguments":[{"name":"name","required":true},{"name":"style"}]}`),
		json.RawMessage(`{"name":"other","arguments":[{"name":"x"}]}`)}, true, "")
	p.Focus()
	do := func(keys ...tea.KeyPressMsg) {
		for _, k := range keys {
			drive(p.Update, p.Update(k))
		}
	}
	enter, esc, tab := tea.KeyPressMsg{Code: tea.KeyEnter}, tea.KeyPressMsg{Code: tea.KeyEscape}, tea.KeyPressMsg{Code: tea.KeyTab}
	ch := func(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }
	do(enter, ch('A'), ch('d'), ch('a'), tab, ch('p'), esc, ch('k'))
	if p.Form() != nil || !p.HasDraft("greet") {
		t.Fatal("keep did not keep the prompt's draft")
	}
	if !strings.Contains(ansi.Strip(p.View()), "greet 2 args ✎ draft") {
		t.Errorf("the list does not mark the prompt with a draft:\n%s", ansi.Strip(p.View()))
	}
	do(enter)
	if got := p.Form().Values(); got["name"] != "Ada" || got["style"] != "p" {
		t.Fatalf("reopened with %v", got)
	}
	if ptr, _, _ := p.Form().Form().Field(); ptr != "/style" {
		t.Fatalf("the cursor came back on %q, not where it was left", ptr)
	}
	do(esc, ch('d'))
	do(enter)
	if got := p.Form().Values(); got["name"] != "" || got["style"] != "" {
		t.Fatalf("after discard the form opened with %v", got)
	}
}

// A tool whose inputSchema is not JSON gets the plain JSON editor. Esc
// there asks as the form's does once the text was changed (it used to
// close at once, keeping the text where nothing said so): keep draft,
// discard, or back to the text; unchanged, it closes.
func TestJSONEditorEscAsksAsTheFormDoes(t *testing.T) {
	p := NewTools(themes.Dark(), keymap.Default())
	p.SetSize(80, 24)
	p.Focus()
	p.SetTools([]mcp.Tool{{Name: "broken", InputSchema: json.RawMessage(`{"type": `)}})
	toolsDo(p, "enter")
	if p.Editor() == nil {
		t.Fatal("no JSON editor for a schema that is not JSON")
	}
	initial := p.Editor().Value()
	toolsDo(p, "esc")
	if p.Editing() {
		t.Fatal("esc on an unchanged editor did not close it")
	}

	toolsDo(p, "enter")
	p.Editor().SetValue(`{"typed": "by hand"}`)
	toolsDo(p, "esc")
	if p.Editor() == nil || !p.Editor().Confirming() {
		t.Fatal("esc on a changed editor did not ask")
	}
	view := ansi.Strip(p.View())
	if !strings.Contains(view, "unsent: k keep draft · d discard · esc back") {
		t.Errorf("the question is not on screen:\n%s", view)
	}
	var help []string
	for _, b := range p.ShortHelp() {
		help = append(help, b.Help().Key+" "+b.Help().Desc)
	}
	if got := strings.Join(help, " · "); got != "k/enter keep draft · d discard · esc back to editor" {
		t.Errorf("help while asking: %q", got)
	}
	toolsDo(p, "x") // a key the question does not take types nothing
	toolsDo(p, "esc")
	if p.Editor() == nil || p.Editor().Confirming() || p.Editor().Value() != `{"typed": "by hand"}` {
		t.Fatalf("esc, esc: not back to the text as it was (editing %v)", p.Editing())
	}

	toolsDo(p, "esc", "k")
	if p.Editing() {
		t.Fatal("keep draft did not close the editor")
	}
	toolsDo(p, "enter")
	if p.Editor() == nil || p.Editor().Value() != `{"typed": "by hand"}` {
		t.Fatalf("reopened with %q", p.Editor().Value())
	}

	toolsDo(p, "esc", "d")
	if p.Editing() {
		t.Fatal("discard did not close the editor")
	}
	toolsDo(p, "enter")
	if p.Editor() == nil || p.Editor().Value() != initial {
		t.Fatalf("after discard it reopened with %q, want %q", p.Editor().Value(), initial)
	}
}

// A server that changes (a re-list, a restart under --watch): each draft
// is kept. One the new schema still accepts is as it was; one it refuses
// says why on its badge and in the details; the selection stays.
func TestDraftsOutliveTheirToolChanging(t *testing.T) {
	p := newFixtureTools(true, 120, 30)
	keep := func(tool, text string) {
		p.Select(tool)
		toolsDo(p, "enter")
		toolsType(p, text)
		toolsDo(p, "esc", "k")
		if !p.HasDraft(tool) {
			t.Fatalf("no draft of %s", tool)
		}
	}
	keep("get_weather", "Paris")
	keep("echo", "hello")
	p.Select("get_weather")

	tools := fixtureTools()
	for i := range tools {
		if tools[i].Name == "echo" {
			// A new required property: the draft lacks it.
			tools[i].InputSchema = json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"},"lang":{"type":"string"}},"required":["message","lang"]}`)
		}
	}
	p.SetTools(tools)
	if sel, _ := p.Selected(); sel.Name != "get_weather" {
		t.Errorf("the selection moved to %q", sel.Name)
	}
	if !p.HasDraft("get_weather") || p.DraftRefused("get_weather") != nil {
		t.Errorf("the unchanged tool's draft: kept %v, refused %v", p.HasDraft("get_weather"), p.DraftRefused("get_weather"))
	}
	refused := p.DraftRefused("echo")
	if !p.HasDraft("echo") || len(refused) != 1 || !strings.Contains(refused[0], "lang") {
		t.Fatalf("the changed tool's draft: kept %v, refused %q", p.HasDraft("echo"), refused)
	}
	view := ansi.Strip(p.View())
	if !regexp.MustCompile(`echo .*✎ draft ⚠`).MatchString(view) || !regexp.MustCompile(`get_weather .*✎ draft`).MatchString(view) {
		t.Errorf("the badges:\n%s", view)
	}
	p.Select("echo")
	p.View()
	details := ansi.Strip(strings.Join(p.DetailLines(), "\n"))
	if !strings.Contains(details, "no longer fits") || !strings.Contains(details, "lang") {
		t.Errorf("the details do not say why:\n%s", details)
	}
	// Opened, it starts from the draft's value under the new schema.
	toolsDo(p, "enter")
	if v, _ := p.Form().Value(); !strings.Contains(string(v), `"message":"hello"`) {
		t.Errorf("reopened with %s", v)
	}
	// A tool the server no longer lists keeps its draft too, and says so.
	p.CloseEditor()
	keep("echo", "x")
	p.SetTools(tools[:1])
	if r := p.DraftRefused("echo"); len(r) != 1 || !strings.Contains(r[0], "no longer lists") {
		t.Errorf("a removed tool's draft: %q", r)
	}
}
