package panes

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/themes"
)

const nestedSchema = `{
	"type": "object",
	"properties": {
		"name": {"type": "string"},
		"address": {
			"type": "object",
			"properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
			"required": ["city"]
		},
		"tags": {"type": "array", "items": {"type": "string"}}
	},
	"required": ["name", "address"]
}`

func newEditor(schema string) *JSONEdit {
	tool := mcp.Tool{Name: "register", InputSchema: json.RawMessage(schema)}
	e := NewJSONEdit(themes.Default(true), keymap.Default(), tool, nil)
	e.SetSize(80, 24)
	e.Focus()
	return e
}

func TestJSONEditSkeleton(t *testing.T) {
	e := newEditor(nestedSchema)
	want := "{\n  \"name\": \"\",\n  \"address\": {\n    \"city\": \"\"\n  }\n}"
	if e.Value() != want {
		t.Errorf("skeleton:\n%s\nwant:\n%s", e.Value(), want)
	}
	if !e.Valid() {
		t.Errorf("the skeleton does not validate: %v", e.Problems())
	}
}

func TestJSONEditSkeletonDefaultsEnumsRefs(t *testing.T) {
	e := newEditor(`{"type":"object","$defs":{"unit":{"enum":["c","f"]}},
		"properties":{"n":{"type":"integer","default":3},"u":{"$ref":"#/$defs/unit"},"ok":{"type":["null","boolean"]},"l":{"type":"array"}},
		"required":["n","u","ok","l"]}`)
	want := "{\n  \"n\": 3,\n  \"u\": \"c\",\n  \"ok\": false,\n  \"l\": []\n}"
	if e.Value() != want {
		t.Errorf("skeleton:\n%s\nwant:\n%s", e.Value(), want)
	}
}

func TestJSONEditValidation(t *testing.T) {
	tests := []struct {
		name, args string
		want       []string // problems, "pointer: message" prefixes
	}{
		{"valid", `{"name":"a","address":{"city":"b"}}`, nil},
		{"nested required", `{"name":"a","address":{}}`, []string{"/address/city: is required"}},
		{"top-level required", `{"address":{"city":"b"}}`, []string{"/name: is required"}},
		{"wrong type deep", `{"name":"a","address":{"city":"b"},"tags":["x",2]}`, []string{"/tags/1: must be string, not number"}},
		{"pattern", `{"name":"a","address":{"city":"b","zip":"12"}}`, []string{"/address/zip: "}},
		{"not an object", `[1]`, []string{"/: arguments must be a JSON object"}},
		{"syntax error position", "{\n  \"name\": \"a\",\n  \"address\" {}\n}", []string{"/: not JSON: line 3, column 13"}},
		{"truncated", `{"name":`, []string{"/: not JSON: the text ends"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEditor(nestedSchema)
			e.SetValue(tt.args)
			got := e.Problems()
			if len(got) != len(tt.want) {
				t.Fatalf("problems = %q, want %d like %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, got[i], tt.want[i])
				}
			}
			if len(tt.want) > 0 {
				v := ansi.Strip(e.View())
				if !strings.Contains(v, tt.want[0]) {
					t.Errorf("the view does not show %q:\n%s", tt.want[0], v)
				}
			}
		})
	}
}

func TestJSONEditSendNeedsOverrideWhenInvalid(t *testing.T) {
	e := newEditor(nestedSchema)
	e.SetValue(`{"name":"a"}`)
	if cmd := e.Update(press("ctrl+s")); cmd != nil {
		t.Fatal("the first ctrl+s sent invalid arguments")
	}
	if v := ansi.Strip(e.View()); !strings.Contains(v, "ctrl+s again sends them anyway") {
		t.Errorf("the status does not explain the override:\n%s", v)
	}
	cmd := e.Update(press("ctrl+s"))
	if cmd == nil {
		t.Fatal("the second ctrl+s did not send")
	}
	if msg := cmd().(CallToolMsg); string(msg.Args) != `{"name":"a"}` || msg.Name != "register" {
		t.Errorf("sent %#v", msg)
	}
	// Editing disarms the override.
	e.SetValue(`{"name":"b"}`)
	if cmd := e.Update(press("ctrl+s")); cmd != nil {
		t.Error("an edit did not disarm the override")
	}
	// Text that is not JSON is never sent.
	e.SetValue(`{"name":`)
	e.Update(press("ctrl+s"))
	if cmd := e.Update(press("ctrl+s")); cmd != nil {
		t.Error("sent text that is not JSON")
	}
}

func TestJSONEditRefusesRemoteRefs(t *testing.T) {
	for _, ref := range []string{"https://example.com/s.json", "file:///etc/passwd", "other.json"} {
		_, err := compileToolSchema(json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"` + ref + `"}}}`))
		if err == nil || !errors.Is(err, schema.ErrRemoteRef) {
			t.Errorf("$ref %s: err = %v, want schema.ErrRemoteRef", ref, err)
		}
	}
	e := newEditor(`{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`)
	if v := ansi.Strip(e.View()); !strings.Contains(v, "$ref https://example.com/s.json: not loaded: mcpscope never loads") {
		t.Errorf("the view does not explain the refused $ref:\n%s", v)
	}
}

func TestJSONEditDialect(t *testing.T) {
	// Under draft-07 "dependentRequired" does not exist and is ignored; under
	// the 2020-12 default it applies.
	schema := `{"type":"object","dependentRequired":{"a":["b"]}%s}`
	e := newEditor(strings.Replace(schema, "%s", "", 1))
	e.SetValue(`{"a":1}`)
	if e.Valid() {
		t.Error("2020-12 default: dependentRequired was not applied")
	}
	e = newEditor(strings.Replace(schema, "%s", `,"$schema":"http://json-schema.org/draft-07/schema#"`, 1))
	e.SetValue(`{"a":1}`)
	if !e.Valid() {
		t.Errorf("draft-07: %v", e.Problems())
	}
}

func TestJSONEditSecurity(t *testing.T) {
	e := newEditor(`{"type":"object","properties":{"k\u009b2J":{"type":"string"}},"required":["k\u009b2J","q\u001b]0;t\u0007"]}`)
	e.SetValue(`{}`)
	v := e.View()
	assertPaneSize(t, v, 80, 24)
	assertNoRawEscapes(t, v, `\x1b]0;t\x07`)
	// The skeleton escaped the C1 control so the text area never holds it raw.
	if strings.ContainsRune(newEditor(`{"type":"object","properties":{"k\u009b":{"type":"string"}},"required":["k\u009b"]}`).Value(), 0x9b) {
		t.Error("skeleton holds a raw C1 control")
	}
}

// The JSON editor sends numbers as typed: only the form's own fields give
// a number its plainest form.
func TestJSONEditSendsNumbersAsTyped(t *testing.T) {
	e := newEditor(`{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"}}}`)
	e.SetValue(`{"i": 1e3, "n": 1.50}`)
	cmd := e.Update(press("ctrl+s"))
	if cmd == nil {
		t.Fatal("valid arguments were not sent")
	}
	if msg := cmd().(CallToolMsg); string(msg.Args) != `{"i":1e3,"n":1.50}` {
		t.Errorf("sent %s", msg.Args)
	}
}

// The editor's status names its keys as they are bound.
func TestJSONEditStatusNamesBoundKeys(t *testing.T) {
	k := keymap.Default()
	k.JSONEdit.Send = key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "send"))
	k.JSONEdit.Close = key.NewBinding(key.WithKeys("ctrl+q"), key.WithHelp("ctrl+q", "close"))
	e := NewJSONEdit(themes.Default(true), k, mcp.Tool{Name: "register", InputSchema: json.RawMessage(nestedSchema)}, nil)
	e.SetSize(80, 24)
	e.SetValue(`{"name":"a","address":{"city":"x"}}`)
	if v := ansi.Strip(e.View()); !strings.Contains(v, "ctrl+g send · ctrl+q close") {
		t.Errorf("valid:\n%s", v)
	}
	e.SetValue(`{"name":"a"}`)
	if v := ansi.Strip(e.View()); !strings.Contains(v, "ctrl+g twice sends invalid arguments · ctrl+q close") {
		t.Errorf("invalid:\n%s", v)
	}
	e.Update(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	if v := ansi.Strip(e.View()); !strings.Contains(v, "ctrl+g again sends them anyway") {
		t.Errorf("armed:\n%s", v)
	}
	k.JSONEdit.KeepDraft = key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "keep draft"))
	k.JSONEdit.Discard = key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "discard"))
	k.JSONEdit.Back = key.NewBinding(key.WithKeys("B"), key.WithHelp("B", "back to editor"))
	e = NewJSONEdit(themes.Default(true), k, mcp.Tool{Name: "register", InputSchema: json.RawMessage(nestedSchema)}, nil)
	e.SetSize(80, 24)
	e.SetValue(`{}`)
	e.Update(tea.KeyPressMsg{Code: 'q', Mod: tea.ModCtrl})
	if v := ansi.Strip(e.View()); !strings.Contains(v, "unsent: K keep draft · D discard · B back") {
		t.Errorf("asking:\n%s", v)
	}
	e.Update(tea.KeyPressMsg{Code: 'B', Text: "B"})
	if e.Confirming() {
		t.Error("the bound back key did not go back")
	}
}
