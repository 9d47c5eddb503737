package form

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/schematest"
)

func construct(t *testing.T, name string) json.RawMessage {
	t.Helper()
	raw, ok := schematest.Corpus(t)["hand/"+name]
	if !ok {
		t.Fatalf("no construct %q", name)
	}
	return raw
}

func valueOf(t *testing.T, f *Form) map[string]any {
	t.Helper()
	raw, _ := f.Value()
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("value %s: %v", raw, err)
	}
	return v
}

func compact(t *testing.T, f *Form) string {
	t.Helper()
	raw, _ := f.Value()
	return string(raw)
}

// editField focuses the row at ptr and replaces its text by typing.
func editField(t *testing.T, f *Form, ptr, text string) {
	t.Helper()
	focusPtr(t, f, ptr)
	if !f.Editing() {
		t.Fatalf("%s is not edited although it has the cursor", ptr)
	}
	for f.editText() != "" {
		press(f, "backspace")
	}
	typeText(f, text)
}

// rowIssue is the issue text shown on the row at ptr.
func rowIssue(t *testing.T, f *Form, ptr string) []string {
	t.Helper()
	i, ok := f.rowByPtr[ptr]
	if !ok {
		t.Fatalf("no row at %s", ptr)
	}
	return f.rowIssues[i]
}

func TestInvalidInputIsShownAtItsField(t *testing.T) {
	f := newForm(t, bookTrip(t), 120, 35)
	focusPtr(t, f, "/traveller/age")
	typeText(f, "abc")
	// Live: the error is there before the edit is committed.
	if got := rowIssue(t, f, "/traveller/age"); len(got) != 1 || got[0] != "is not an integer" {
		t.Errorf("age issues = %q", got)
	}
	if !strings.Contains(plain(f.View()), "abc   ✗ is not an integer") {
		t.Errorf("the problem is not beside the text being typed:\n%s", plain(f.View()))
	}
	editField(t, f, "/traveller/age", "1.5")
	if got := rowIssue(t, f, "/traveller/age"); len(got) != 1 || got[0] != "is not an integer" {
		t.Errorf("1.5: age issues = %q", got)
	}
	editField(t, f, "/traveller/age", "200")
	if got := rowIssue(t, f, "/traveller/age"); len(got) != 1 || got[0] != "is greater than maximum (150)" {
		t.Errorf("200: age issues = %q", got)
	}
	editField(t, f, "/traveller/age", "42")
	if got := rowIssue(t, f, "/traveller/age"); len(got) != 0 {
		t.Errorf("42: age issues = %q", got)
	}
	editField(t, f, "/traveller/email", "nope")
	if got := rowIssue(t, f, "/traveller/email"); len(got) != 1 || got[0] != "is not a valid email" {
		t.Errorf("email issues = %q", got)
	}
	if !strings.Contains(plain(f.View()), "✗ is not a valid email") {
		t.Errorf("the email error is not drawn:\n%s", plain(f.View()))
	}
}

func TestNumbersParseStrictly(t *testing.T) {
	for _, c := range []struct {
		text    string
		integer bool
		ok      bool
	}{
		{"1", true, true}, {"-3", true, true}, {"1e2", true, true}, {"2.0", true, true},
		{"1.5", true, false}, {"0x10", true, false}, {" 1", false, false}, {"+1", false, false},
		{"1.", false, false}, {"1e", false, false}, {"NaN", false, false}, {"Infinity", false, false},
		{"0.25", false, true}, {"-1e-3", false, true}, {"\"1\"", false, false}, {"true", false, false},
	} {
		if _, ok := parseNumber(c.text, c.integer); ok != c.ok {
			t.Errorf("parseNumber(%q, integer=%v) ok = %v, want %v", c.text, c.integer, ok, c.ok)
		}
	}
}

func TestSendIsRefusedWhileInvalidUnlessForced(t *testing.T) {
	f := newForm(t, bookTrip(t), 100, 30)
	if cmd := press(f, "ctrl+s"); cmd != nil {
		t.Fatalf("ctrl+s sent an invalid value: %#v", cmd())
	}
	if !strings.Contains(plain(f.View()), "not sent:") {
		t.Errorf("no refusal shown:\n%s", plain(f.View()))
	}
	cmd := press(f, "ctrl+f")
	if cmd == nil {
		t.Fatal("ctrl+f did not send")
	}
	msg := cmd().(SubmitMsg)
	if !msg.Forced || !json.Valid(msg.Value) {
		t.Errorf("forced submit = %+v", msg)
	}
	if _, ok := press(f, "esc")().(CancelMsg); !ok {
		t.Error("esc did not cancel")
	}
}

func TestArraysAddDeleteReorder(t *testing.T) {
	f := newForm(t, construct(t, "arrays"), 100, 40)
	// points starts with minItems (2) items.
	if got := len(valueOf(t, f)["points"].([]any)); got != 2 {
		t.Fatalf("points has %d items, want minItems 2", got)
	}
	editField(t, f, "/words/0", "one")
	press(f, "alt+a")
	typeText(f, "")
	editField(t, f, "/words/1", "two")
	focusPtr(t, f, "/words/1")
	press(f, "alt+up")
	if got := valueOf(t, f)["words"]; !sameJSON(got, []any{"two", "one"}) {
		t.Errorf("after alt+up words = %v", got)
	}
	if f.rows[f.cur].ptr != "/words/0" {
		t.Errorf("cursor did not follow the moved item: at %s", f.rows[f.cur].ptr)
	}
	press(f, "alt+down")
	if got := valueOf(t, f)["words"]; !sameJSON(got, []any{"one", "two"}) {
		t.Errorf("after alt+down words = %v", got)
	}
	press(f, "alt+a", "alt+a")
	if got := rowIssue(t, f, "/words"); len(got) != 0 {
		t.Errorf("3 words: %q", got)
	}
	press(f, "alt+a") // maxItems 3: refused
	if got := len(valueOf(t, f)["words"].([]any)); got != 3 {
		t.Errorf("maxItems not enforced by the a key: %d words", got)
	}
	focusPtr(t, f, "/words/2")
	press(f, "alt+d", "alt+d")
	if got := valueOf(t, f)["words"]; !sameJSON(got, []any{"one"}) {
		t.Errorf("after deleting words = %v", got)
	}
	focusPtr(t, f, "/words/0")
	press(f, "alt+d")
	if got := rowIssue(t, f, "/words"); len(got) != 1 || got[0] != "has fewer than minItems (1)" {
		t.Errorf("empty words: %q", got)
	}
	// Objects inside arrays get their own fields.
	editField(t, f, "/points/0/x", "1")
	editField(t, f, "/points/0/y", "2.5")
	if got := valueOf(t, f)["points"].([]any)[0]; !sameJSON(got, map[string]any{"x": 1, "y": 2.5}) {
		t.Errorf("points[0] = %v", got)
	}
}

func TestOneOfBranchesAtAnyDepth(t *testing.T) {
	f := newForm(t, bookTrip(t), 100, 40)
	editField(t, f, "/payment/number", "1234123412341234")
	if got := valueOf(t, f)["payment"]; !sameJSON(got, map[string]any{"number": "1234123412341234"}) {
		t.Errorf("card payment = %v", got)
	}
	focusPtr(t, f, "/payment")
	press(f, "right")
	if got := f.rows[f.cur+1].ptr; got != "/payment/company" {
		t.Errorf("after switching, the next row is %s, want the invoice's company", got)
	}
	editField(t, f, "/payment/company", "ACME")
	if got := valueOf(t, f)["payment"]; !sameJSON(got, map[string]any{"company": "ACME"}) {
		t.Errorf("invoice payment = %v", got)
	}
	// Switching back keeps what was typed in the card branch.
	focusPtr(t, f, "/payment/company")
	press(f, "alt+o")
	if got := valueOf(t, f)["payment"]; !sameJSON(got, map[string]any{"number": "1234123412341234"}) {
		t.Errorf("back to card = %v", got)
	}

	// A oneOf inside array items.
	u := newForm(t, construct(t, "unions"), 100, 40)
	focusPtr(t, u, "/deep")
	press(u, "enter") // optional object: enter adds it
	focusPtr(t, u, "/deep/items")
	press(u, "enter", "alt+a")
	focusPtr(t, u, "/deep/items/0")
	press(u, "right")
	editField(t, u, "/deep/items/0/b", "7")
	if got := valueOf(t, u)["deep"]; !sameJSON(got, map[string]any{"items": []any{map[string]any{"b": 7}}}) {
		t.Errorf("deep = %v", got)
	}
	// Branch labels: titles, else discriminators or types.
	focusPtr(t, u, "/shape")
	if !strings.Contains(plain(u.View()), "‹ circle › oneOf 1/2") {
		t.Errorf("shape branch label missing:\n%s", plain(u.View()))
	}
}

func TestOptionalFieldsHaveThreeStates(t *testing.T) {
	f := newForm(t, construct(t, "nullable"), 100, 30)
	if _, has := valueOf(t, f)["limit"]; has {
		t.Fatal("an optional field starts included")
	}
	focusPtr(t, f, "/limit")
	press(f, "alt+n")
	if v, has := valueOf(t, f)["limit"]; !has || v != nil {
		// "empty" for an integer is no number yet: it stays out until typed.
		if has {
			t.Errorf("empty limit = %v", v)
		}
	}
	press(f, "alt+n")
	if v, has := valueOf(t, f)["limit"]; !has || v != nil {
		t.Errorf("null state: limit = %v (present %v)", v, has)
	}
	press(f, "alt+n")
	if _, has := valueOf(t, f)["limit"]; has {
		t.Error("third press did not omit limit")
	}
	// A required nullable field toggles between a value and null.
	focusPtr(t, f, "/note")
	press(f, "alt+n")
	if v, has := valueOf(t, f)["note"]; !has || v != nil {
		t.Errorf("note = %v (present %v), want null", v, has)
	}
	press(f, "alt+n")
	if v := valueOf(t, f)["note"]; v != "" {
		t.Errorf("note = %v, want empty string", v)
	}
}

func TestEnumsConstsAndMultiSelect(t *testing.T) {
	f := newForm(t, construct(t, "enums"), 100, 40)
	v := valueOf(t, f)
	if v["fixed"] != "v1" {
		t.Errorf("const not prefilled: %v", v["fixed"])
	}
	if _, has := v["colour"]; has {
		t.Errorf("a required enum without default should wait for a choice, got %v", v["colour"])
	}
	focusPtr(t, f, "/colour")
	press(f, "right", "right")
	if got := valueOf(t, f)["colour"]; got != "green" {
		t.Errorf("colour = %v", got)
	}
	press(f, "left")
	if got := valueOf(t, f)["colour"]; got != "red" {
		t.Errorf("colour = %v", got)
	}
	focusPtr(t, f, "/size")
	press(f, "right")
	if !strings.Contains(plain(f.View()), "‹ Small ›") {
		t.Errorf("titled enum shows no title:\n%s", plain(f.View()))
	}
	if got := valueOf(t, f)["size"]; got != "s" {
		t.Errorf("size = %v, want the const s", got)
	}
	focusPtr(t, f, "/tags")
	press(f, "down", "enter", "down", "down", "space")
	if got := valueOf(t, f)["tags"]; !sameJSON(got, []any{"a", "c"}) {
		t.Errorf("tags = %v", got)
	}
	if !f.Valid() {
		t.Errorf("still invalid: %v", f.Issues())
	}
}

func TestAdditionalPropertiesAreKeyValueRows(t *testing.T) {
	f := newForm(t, construct(t, "maps"), 100, 30)
	if got := rowIssue(t, f, "/labels"); len(got) != 1 || got[0] != "has fewer than minProperties (1)" {
		t.Errorf("labels issues = %q", got)
	}
	focusPtr(t, f, "/labels")
	press(f, "alt+a")
	if f.rows[f.cur].kind != rowKey {
		t.Fatalf("after a, the cursor is not on the new key row")
	}
	for f.editText() != "" {
		press(f, "backspace")
	}
	typeText(f, "team")
	press(f, "tab") // the key is renamed when the cursor leaves it
	editField(t, f, "/labels/team", "core")
	if got := valueOf(t, f)["labels"]; !sameJSON(got, map[string]any{"team": "core"}) {
		t.Errorf("labels = %v", got)
	}
	focusPtr(t, f, "/labels/team")
	press(f, "alt+d")
	if got := valueOf(t, f)["labels"]; !sameJSON(got, map[string]any{}) {
		t.Errorf("after d, labels = %v", got)
	}
}

func TestDefaultsArePrefilledAndExamplesOffered(t *testing.T) {
	f := newForm(t, construct(t, "defaults"), 100, 30)
	want := map[string]any{"greeting": "hello", "times": 2, "loud": false, "mode": "b", "opts": map[string]any{"x": 5}}
	if got := valueOf(t, f); !sameJSON(got, want) {
		t.Errorf("defaults = %v, want %v", got, want)
	}
	s := newForm(t, construct(t, "strings"), 120, 30)
	focusPtr(t, s, "/code")
	if !strings.Contains(plain(s.View()), `e.g. "LHR", "CDG"`) {
		t.Errorf("examples not offered:\n%s", plain(s.View()))
	}
	press(s, "alt+e")
	if got := valueOf(t, s)["code"]; got != "LHR" {
		t.Errorf("code = %v", got)
	}
	press(s, "alt+e")
	if got := valueOf(t, s)["code"]; got != "CDG" {
		t.Errorf("code = %v", got)
	}
	focusPtr(t, s, "/day")
	if !strings.Contains(plain(s.View()), "YYYY-MM-DD") {
		t.Errorf("no date format hint:\n%s", plain(s.View()))
	}
}

func TestUnsupportedPartsFallBackToJSONAndSaySo(t *testing.T) {
	f := newForm(t, construct(t, "unsupported"), 120, 30)
	for _, ptr := range []string{"/cond", "/neg", "/dep", "/anything"} {
		focusPtr(t, f, ptr)
		if n := f.focusedNode(); n.kind != kindRaw {
			t.Errorf("%s is kind %d, want a JSON field", ptr, n.kind)
		}
	}
	focusPtr(t, f, "/dep")
	if !strings.Contains(plain(f.View()), "JSON field: uses dependentSchemas, which the form cannot draw") {
		t.Errorf("fallback not explained:\n%s", plain(f.View()))
	}
	editField(t, f, "/neg", "42")
	editField(t, f, "/dep", `{"a": "b", "b": 1}`)
	if got := valueOf(t, f); !sameJSON(got, map[string]any{"neg": 42, "dep": map[string]any{"a": "b", "b": 1}}) {
		t.Errorf("value = %v", got)
	}
	editField(t, f, "/neg", `"str"`)
	if got := rowIssue(t, f, "/neg"); len(got) != 1 || got[0] != "must not match the schema under not" {
		t.Errorf("neg issues = %q", got)
	}
	editField(t, f, "/dep", `{"a": 1, "b": 1}`)
	// The issue belongs to a pointer with no row of its own: it is shown on
	// the JSON field that holds it, naming where.
	if got := rowIssue(t, f, "/dep"); len(got) != 1 || got[0] != "/dep/a must be string, not number" {
		t.Errorf("dep issues = %q", got)
	}
}

func TestRawJSONViewStaysInSync(t *testing.T) {
	f := newForm(t, bookTrip(t), 100, 30)
	editField(t, f, "/traveller/name", "Ada")
	press(f, "ctrl+e")
	if !f.Raw() || !strings.Contains(f.area.Value(), `"name": "Ada"`) {
		t.Fatalf("raw view does not show the form's value:\n%s", f.area.Value())
	}
	f.area.SetValue(`{"traveller": {"name": "Bob", "age": 30}, "legs": [], "payment": {"company": "ACME"}}`)
	f.rawChanged()
	press(f, "ctrl+e")
	if f.Raw() {
		t.Fatal("ctrl+e did not go back to the form")
	}
	if got := valueOf(t, f)["traveller"]; !sameJSON(got, map[string]any{"name": "Bob", "age": 30}) {
		t.Errorf("traveller = %v", got)
	}
	focusPtr(t, f, "/payment")
	if !strings.Contains(plain(f.View()), "‹ invoice ›") {
		t.Errorf("the invoice branch was not picked from the raw value:\n%s", plain(f.View()))
	}
	if got := rowIssue(t, f, "/legs"); len(got) != 1 || got[0] != "has fewer than minItems (1)" {
		t.Errorf("legs issues = %q", got)
	}
	// Text that is not JSON keeps the raw view open.
	press(f, "ctrl+e")
	f.area.SetValue(`{"traveller": `)
	f.rawChanged()
	press(f, "ctrl+e")
	if !f.Raw() {
		t.Error("broken JSON left the raw view")
	}
	press(f, "esc") // discard
	if f.Raw() || valueOf(t, f)["traveller"].(map[string]any)["name"] != "Bob" {
		t.Error("esc did not discard the raw edits")
	}
}

func TestHistoryComesBackAndSteps(t *testing.T) {
	h := NewHistory(5)
	h.Add("tool:echo", json.RawMessage(`{"message": "first"}`))
	h.Add("tool:echo", json.RawMessage(`{"message": "second"}`))
	h.Add("tool:echo", json.RawMessage(`{"message": "first"}`)) // moves to newest
	if got := h.Get("tool:echo"); len(got) != 2 || string(got[1]) != `{"message":"first"}` {
		t.Fatalf("history = %s", got)
	}
	raw := schematest.Tools(t, "demo-tools.json")["echo"]
	f, err := New(raw, Options{History: h.Get("tool:echo")})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(80, 20)
	if got := compact(t, f); got != `{"message":"first"}` {
		t.Errorf("reopened with %s, want the newest", got)
	}
	press(f, "ctrl+p")
	if got := compact(t, f); got != `{"message":"second"}` {
		t.Errorf("ctrl+p: %s", got)
	}
	press(f, "ctrl+n", "ctrl+n")
	if got := compact(t, f); got != `{"message":"first"}` {
		t.Errorf("back to the draft: %s", got)
	}
}

func TestCollapseHidesAGroup(t *testing.T) {
	f := newForm(t, bookTrip(t), 100, 30)
	before := len(f.rows)
	focusPtr(t, f, "/traveller/name")
	press(f, "alt+c")
	if len(f.rows) != before-4 || f.rows[f.cur].ptr != "/traveller" {
		t.Errorf("collapse: %d rows (was %d), cursor at %s", len(f.rows), before, f.rows[f.cur].ptr)
	}
	// Issues inside a collapsed group are shown on its header.
	if got := rowIssue(t, f, "/traveller"); len(got) != 1 || got[0] != "/traveller/name is shorter than minLength (1)" {
		t.Errorf("collapsed issues = %q", got)
	}
	press(f, "enter")
	if len(f.rows) != before {
		t.Errorf("enter did not expand: %d rows", len(f.rows))
	}
}

func TestServerStringsAreMadeSafe(t *testing.T) {
	raw := json.RawMessage(`{"type": "object", "properties": {"a\u001b[2Jb": {"type": "string", "description": "x\u001b]52;c;AAAA\u0007y",
		"enum": ["ok\u001b[31m"]}}}`)
	f := newForm(t, raw, 100, 20)
	out := f.View()
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x1b]52") || strings.Contains(out, "\x1b[31m") {
		t.Errorf("a server string reached the terminal raw: %q", out)
	}
	if !strings.Contains(plain(out), `a\x1b[2Jb`) {
		t.Errorf("the escaped name is not shown:\n%s", plain(out))
	}
}

func TestViewIsExactlyTheSize(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 35}, {40, 10}, {20, 5}, {10, 3}} {
		f := newForm(t, bookTrip(t), size[0], size[1])
		for _, mode := range []string{"form", "edit", "raw"} {
			switch mode {
			case "edit":
				focusPtr(t, f, "/traveller/name")
				typeText(f, strings.Repeat("x", 200))
			case "raw":
				press(f, "ctrl+e")
			}
			lines := strings.Split(f.View(), "\n")
			if len(lines) != size[1] {
				t.Errorf("%v %s: %d lines", size, mode, len(lines))
			}
			for i, l := range lines {
				if w := len([]rune(plain(l))); w != size[0] {
					t.Errorf("%v %s: line %d is %d wide: %q", size, mode, i, w, plain(l))
					break
				}
			}
		}
	}
}

func TestRemoteRefIsRefusedAndSaid(t *testing.T) {
	f := newForm(t, json.RawMessage(`{"properties": {"a": {"$ref": "https://evil.example/s.json"}}}`), 100, 12)
	if err := f.s.CompileErr(); !errors.Is(err, schema.ErrRemoteRef) {
		t.Errorf("compile error = %v", err)
	}
	if !strings.Contains(plain(f.View()), "not validated: $ref https://evil.example/s.json") {
		t.Errorf("the refusal is not shown:\n%s", plain(f.View()))
	}
	if _, err := New(json.RawMessage(`{"type": `), Options{}); err == nil {
		t.Error("a schema that is not JSON gave no error")
	}
}

func TestFormDrawsBeforeTheSchemaIsCompiled(t *testing.T) {
	f, err := New(bookTrip(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(80, 24)
	if !strings.Contains(plain(f.View()), "checking the schema…") {
		t.Errorf("no pending note:\n%s", plain(f.View()))
	}
	// ctrl+s before the compile finished still validates.
	if cmd := press(f, "ctrl+s"); cmd != nil {
		t.Errorf("an invalid value was sent before validation: %#v", cmd())
	}
}

// The problem beside a value stays in its column as the cursor comes and
// goes: an edited row's value ends in the cell its cursor takes, so the
// rows that are not edited keep that cell too. Before, "✗ is required" sat
// one column further right on the row with the cursor, and jumped back as
// Tab moved on.
func TestProblemsStayInTheirColumnAsTheCursorMoves(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"c":{"type":"integer"}},"required":["a","b"]}`)
	f := newForm(t, raw, 100, 20)
	// column is where the problem starts on the row whose label is name.
	column := func(name string) int {
		t.Helper()
		for _, line := range strings.Split(plain(f.View()), "\n") {
			label := strings.TrimLeft(strings.TrimPrefix(line, "│"), " ›")
			if !strings.HasPrefix(label, name+" ") && !strings.HasPrefix(label, name+"*") {
				continue
			}
			if i := strings.Index(line, "✗ is"); i >= 0 {
				return ansi.StringWidth(line[:i])
			}
		}
		t.Fatalf("no problem on row %s:\n%s", name, plain(f.View()))
		return 0
	}
	focusPtr(t, f, "/c")
	typeText(f, "x")
	elsewhere := map[string]int{"a": column("a"), "b": column("b")}
	focusPtr(t, f, "/a")
	elsewhere["c"] = column("c")
	for _, name := range []string{"a", "b", "c"} {
		focusPtr(t, f, "/"+name)
		if got := column(name); got != elsewhere[name] {
			t.Errorf("row %s: its problem starts at column %d with the cursor on it, %d without", name, got, elsewhere[name])
		}
	}
}
