package panes

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

func fixtureTools() []mcp.Tool {
	return mcp.ParseTools([]json.RawMessage{
		json.RawMessage(`{"name":"get_weather","title":"Weather lookup","description":"Current weather for a city.\nUses the open-meteo API; answers in metric units unless asked.",
			"inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name"},"units":{"enum":["metric","imperial"]},"days":{"type":"integer","default":1}},"required":["city"]},
			"outputSchema":{"type":"object","properties":{"tempC":{"type":"number"}},"required":["tempC"]},
			"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":true}}`),
		json.RawMessage(`{"name":"delete_file","description":"Deletes a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"annotations":{"title":"Delete a file","destructiveHint":true}}`),
		json.RawMessage(`{"name":"echo","description":"Echoes its input.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`),
		json.RawMessage(`{"name":"add","description":"Adds two numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}`),
	})
}

func newFixtureTools(dark bool, w, h int) *Tools {
	p := NewTools(themes.Default(dark), keymap.Default())
	p.SetSize(w, h)
	p.Focus()
	p.SetTools(fixtureTools())
	return p
}

func TestToolsView(t *testing.T) {
	goldenViews(t, func(dark bool, w, h int) interface{ View() string } {
		return newFixtureTools(dark, w, h)
	})
}

func TestToolsViewEditor(t *testing.T) {
	goldenViews(t, func(dark bool, w, h int) interface{ View() string } {
		p := newFixtureTools(dark, w, h)
		if cmd := p.Update(press("enter")); cmd != nil {
			p.Update(cmd()) // the form compiles its schema in a command
		}
		if !p.Editing() {
			t.Fatal("enter did not open the editor")
		}
		return p
	})
}

func TestToolsDisplayNameAndBadges(t *testing.T) {
	p := newFixtureTools(true, 120, 35)
	v := ansi.Strip(p.View())
	for _, want := range []string{
		"get_weather  Weather lookup", // the name first, the title beside it
		"delete_file  Delete a file",  // annotations.title when there is no title
		"read-only idempotent open-world",
		"destructive",
		`"required": [`, // the input schema, beside the list
	} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// The rest of the details is one page down (ctrl+d: pgdn pages the
	// list).
	p.Update(press("ctrl+d"))
	v = ansi.Strip(p.View())
	for _, want := range []string{"readOnlyHint true", "destructiveHint unset (default true)", "Output schema", `"tempC"`} {
		if !strings.Contains(v, want) {
			t.Errorf("details after ctrl+d lack %q:\n%s", want, v)
		}
	}
}

func TestToolsFilterAndSelectionByName(t *testing.T) {
	p := newFixtureTools(true, 80, 24)
	p.Update(press("/"))
	if !p.Capturing() {
		t.Fatal("/ did not start filtering")
	}
	for _, r := range "del" {
		p.Update(press(string(r)))
	}
	if got, _ := p.Selected(); got.Name != "delete_file" || len(p.shown) != 1 {
		t.Fatalf("filter del: selected %q, %d shown", got.Name, len(p.shown))
	}
	p.Update(press("enter"))
	if p.Capturing() {
		t.Fatal("enter did not apply the filter")
	}
	p.Update(press("esc"))
	if len(p.shown) != 4 {
		t.Fatalf("esc left %d tools shown, want 4", len(p.shown))
	}

	p.Select("echo")
	// The list refreshes (tools/list_changed): echo moved and a tool is new.
	tools := fixtureTools()
	tools = append([]mcp.Tool{{Name: "aaa_new", InputSchema: json.RawMessage(`{"type":"object"}`)}}, tools...)
	p.SetTools(tools)
	if got, _ := p.Selected(); got.Name != "echo" {
		t.Errorf("after refresh the selection is %q, want echo", got.Name)
	}
	// And when the selected tool disappears the cursor stays in range.
	p.SetTools(tools[:2])
	if _, ok := p.Selected(); !ok {
		t.Error("no selection after the selected tool vanished")
	}
}

func TestToolsSendFromEditor(t *testing.T) {
	p := newFixtureTools(true, 80, 24)
	p.Select("echo")
	p.Update(press("enter"))
	if p.Form() == nil {
		t.Fatal("enter did not open the schema form")
	}
	if err := p.Form().SetValue(json.RawMessage(`{"message": "hi"}`)); err != nil {
		t.Fatal(err)
	}
	cmd := p.Update(press("ctrl+s"))
	if cmd == nil {
		t.Fatal("ctrl+s on valid arguments sent nothing")
	}
	// The form answers with its SubmitMsg; the pane turns it into the call.
	cmd = p.Update(cmd())
	if cmd == nil {
		t.Fatal("the form's submit was not turned into a call")
	}
	msg, ok := cmd().(CallToolMsg)
	if !ok || msg.Name != "echo" || string(msg.Args) != `{"message":"hi"}` {
		t.Fatalf("got %#v", cmd())
	}
	if p.Editing() {
		t.Error("the editor stayed open after sending")
	}
	// Reopening resumes the arguments last sent.
	p.Update(press("enter"))
	if v, _ := p.Form().Value(); string(v) != `{"message":"hi"}` {
		t.Errorf("reopened form holds %s", v)
	}
	p.Update(p.Update(press("esc"))())
	if p.Editing() {
		t.Error("esc did not close the editor")
	}
}

func TestToolsEmptyStates(t *testing.T) {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(60, 10)
	if !strings.Contains(ansi.Strip(p.View()), "waiting for tools/list") {
		t.Error("no waiting hint before tools/list")
	}
	p.SetTools(nil)
	if !strings.Contains(ansi.Strip(p.View()), "the server lists no tools") {
		t.Error("no empty-list hint")
	}
}

func TestToolsSecurity(t *testing.T) {
	evil := mcp.ParseTools([]json.RawMessage{json.RawMessage(`{
		"name":"evil\u001b]0;pwned\u0007","title":"Evil\u001b[2J",
		"description":"wipes \u001b[2J and copies \u001b]52;c;aGk=\u0007 then \u009b31m",
		"inputSchema":{"type":"object","properties":{"p\u001b[2J":{"type":"string"}},"required":["p\u001b[2J"]}}`)})
	for _, editing := range []bool{false, true} {
		p := NewTools(themes.Default(true), keymap.Default())
		p.SetSize(120, 35)
		p.Focus()
		p.SetTools(evil)
		if editing {
			p.Update(press("enter"))
		}
		v := p.View()
		assertPaneSize(t, v, 120, 35)
		want := []string{`evil\x1b]0;pwned\x07`}
		if !editing {
			want = append(want, `Evil\x1b[2J`, `\x1b]52;c;aGk=\x07`, `\u009b31m`)
		}
		assertNoRawEscapes(t, v, want...)
	}
}

// A fenced code block in a tool's description is highlighted as its
// language; the prose around it is not, and NO_COLOR leaves it all plain.
func TestToolsDescriptionCodeIsHighlighted(t *testing.T) {
	tool := mcp.ParseTools([]json.RawMessage{json.RawMessage(`{"name":"run_go","description":"Runs Go code, for example:\n` + "```go" + `\nfunc main() { return }\n` + "```" + `\nand says what it printed.","inputSchema":{"type":"object"}}`)})
	for _, tc := range []struct {
		theme *themes.Theme
		code  bool
	}{{themes.Dark(), true}, {themes.NoColor(), false}} {
		p := NewTools(tc.theme, keymap.Default())
		p.SetSize(120, 35)
		p.SetTools(tool)
		var code, prose string
		for _, l := range p.DetailLines() {
			switch plain := ansi.Strip(l); {
			case strings.Contains(plain, "func main()"):
				code = l
			case strings.Contains(plain, "and says what it printed."):
				prose = l
			}
		}
		if code == "" || prose == "" {
			t.Fatalf("the description is not in the details: %q", p.DetailLines())
		}
		if got := strings.Contains(code, sgr(themes.Dark().Palette.JSONBool)+"func"); got != tc.code {
			t.Errorf("plain=%v: func in the keyword colour is %v: %q", tc.theme.Plain, got, code)
		}
		if strings.Contains(prose, "\x1b[") || !tc.code && strings.Contains(code, "\x1b[38") {
			t.Errorf("plain=%v: coloured where it should not be: %q, %q", tc.theme.Plain, prose, code)
		}
	}
}
