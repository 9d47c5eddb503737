package form

import (
	"encoding/json"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/themes"
)

// mcp-fetch-server 1.1.2's fetch_html, as its tools/list gives it.
const fetchHTML = `{"type":"object","properties":{
	"url":{"type":"string","description":"URL of the website to fetch"},
	"headers":{"type":"object","description":"Optional headers to include in the request"},
	"max_length":{"type":"number","description":"Maximum number of characters to return (default: 5000)"},
	"start_index":{"type":"number","description":"Start content from this character index (default: 0)"},
	"proxy":{"type":"string","description":"Optional proxy URL (e.g. 'http://proxy:8080')"}},
	"required":["url"]}`

// fetch's headers ({"type":"object"}, nothing more) showed "▾ 0 fields"
// and refused keys; JSON Schema allows any key there. It takes key/value
// rows: the key typed over the name it was given, the value a string.
func TestFreeFormObjectTakesKeyValueRows(t *testing.T) {
	f := newForm(t, json.RawMessage(fetchHTML), 100, 30)
	typeText(f, "http://127.0.0.1:9/")
	press(f, "tab") // headers, omitted
	press(f, "alt+a")
	if r := f.rows[f.cur]; r.kind != rowKey || !f.Editing() {
		t.Fatalf("alt+a on headers left the cursor on %v (editing %v)", r.ptr, f.Editing())
	}
	typeText(f, "Accept")
	press(f, "tab")
	typeText(f, "text/html")
	if got := compact(t, f); got != `{"url":"http://127.0.0.1:9/","headers":{"Accept":"text/html"}}` {
		t.Fatalf("value %s", got)
	}
	var help []string
	for _, b := range f.ShortHelp() {
		help = append(help, b.Help().Key+" "+b.Help().Desc)
	}
	if h := strings.Join(help, ", "); !strings.Contains(h, "alt+a add key, alt+d delete key, alt+o string/JSON") {
		t.Errorf("help on a key/value row's value: %s", h)
	}
	s := plain(f.View())
	for _, want := range []string{"headers       ▾ 1 field", "key         Accept", "value     text/html", "+ add key (alt+a)",
		"any JSON value, sent as a string (alt+o: as JSON)"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q is not on screen:\n%s", want, s)
		}
	}
	// The add row adds the next one; a value can be sent as JSON instead.
	press(f, "tab")
	if f.rows[f.cur].kind != rowAdd {
		t.Fatalf("tab after the value went to %v, not the add row", f.rows[f.cur].ptr)
	}
	press(f, "enter")
	typeText(f, "X-Retries")
	press(f, "tab")
	typeText(f, "5")
	press(f, "alt+o")
	if got := compact(t, f); got != `{"url":"http://127.0.0.1:9/","headers":{"Accept":"text/html","X-Retries":5}}` {
		t.Errorf("alt+o: %s", got)
	}
	press(f, "alt+o")
	if got := compact(t, f); !strings.Contains(got, `"X-Retries":"5"`) {
		t.Errorf("alt+o twice: %s", got)
	}
	// A key left as it was given is kept; a second one is numbered.
	press(f, "alt+a", "tab")
	typeText(f, "v")
	if got := compact(t, f); !strings.Contains(got, `"key":"v"`) {
		t.Errorf("an added key left alone: %s", got)
	}
	// Raw JSON and back: the rows come back as they were.
	press(f, "ctrl+e", "ctrl+e")
	if got := compact(t, f); got != `{"url":"http://127.0.0.1:9/","headers":{"Accept":"text/html","X-Retries":"5","key":"v"}}` {
		t.Errorf("after the raw view: %s", got)
	}
	focusPtr(t, f, "/headers/X-Retries")
	if n := f.focusedNode(); n.kind != kindString || !n.free {
		t.Errorf("a string value came back from raw JSON as kind %d", n.kind)
	}
}

// Where nothing can be added, alt+a says so by the key it is bound to, as
// every hint does (it said "a").
func TestKeyHintsNameTheBoundKeys(t *testing.T) {
	keys := keymap.Default()
	keys.Form.Add = key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "add item"))
	keys.Form.Delete = key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "delete item"))
	keys.Form.KeepDraft = key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "keep draft"))
	f, err := New(json.RawMessage(fetchHTML), Options{Title: "Call fetch_html", Theme: themes.Default(true), Keys: keys, KeepDrafts: true})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(100, 30)
	compile(f)
	f.Update(keyMsg("ctrl+t"))
	if s := plain(f.View()); !strings.Contains(s, "nothing to add here: ctrl+t adds") {
		t.Errorf("on url:\n%s", s)
	}
	f.Update(keyMsg("ctrl+x"))
	if s := plain(f.View()); !strings.Contains(s, "nothing to delete here: ctrl+x deletes") {
		t.Errorf("on url:\n%s", s)
	}
	press(f, "tab")
	f.Update(keyMsg("ctrl+t"))
	if s := plain(f.View()); !strings.Contains(s, "+ add key (ctrl+t)") {
		t.Errorf("the add row names another key:\n%s", s)
	}
	typeText(f, "a")
	press(f, "esc")
	if s := plain(f.View()); !strings.Contains(s, "unsent: K keep draft") {
		t.Errorf("the question names another key:\n%s", s)
	}
}

// additionalProperties and patternProperties choose each key's value;
// additionalProperties false leaves nothing to add.
func TestKeyValueRowsFollowTheSchema(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","required":["counts","tags","closed"],"properties":{
		"counts":{"type":"object","additionalProperties":{"type":"integer"}},
		"tags":{"type":"object","patternProperties":{"^x-":{"type":"string"},"^n-":{"type":"integer","minimum":1}},"additionalProperties":false},
		"closed":{"type":"object","additionalProperties":false},
		"person":{"type":"object","properties":{"name":{"type":"string"}}}}}`)
	f := newForm(t, raw, 100, 30)
	focusPtr(t, f, "/counts")
	press(f, "alt+a")
	typeText(f, "apples")
	press(f, "tab")
	if n := f.focusedNode(); n.kind != kindInteger {
		t.Fatalf("an additionalProperties integer is kind %d", n.kind)
	}
	typeText(f, "1e3")
	if got := valueOf(t, f)["counts"]; !sameJSON(got, map[string]any{"apples": 1000}) {
		t.Errorf("counts = %v", got)
	}

	focusPtr(t, f, "/tags")
	press(f, "alt+a")
	typeText(f, "x-colour")
	press(f, "tab")
	if n := f.focusedNode(); n.kind != kindString || n.free {
		t.Fatalf("a ^x- key's value is kind %d (free %v)", n.kind, n.free)
	}
	typeText(f, "7")
	// Renamed to a key of the other pattern, the value is built again
	// from its schema and keeps what it held where it fits.
	press(f, "shift+tab")
	for f.editText() != "" {
		press(f, "backspace")
	}
	typeText(f, "n-colour")
	press(f, "tab")
	if n := f.focusedNode(); n.kind != kindRaw {
		t.Errorf(`"7" under ^n- (an integer) is kind %d, want JSON text holding it`, n.kind)
	}
	editField(t, f, "/tags/n-colour", "0")
	if got := rowIssue(t, f, "/tags/n-colour"); len(got) != 1 || !strings.Contains(got[0], "minimum") {
		t.Errorf("n-colour issues = %q", got)
	}
	// A key no pattern takes is shown, and refused by the validator.
	focusPtr(t, f, "/tags")
	press(f, "alt+a")
	typeText(f, "colour")
	press(f, "tab")
	if got := f.Issues(); len(got) == 0 || !strings.Contains(got[len(got)-1].String(), "colour") {
		t.Errorf("a key neither pattern takes: %v", got)
	}

	// additionalProperties false, no patterns: no add row, nothing to add.
	focusPtr(t, f, "/closed")
	press(f, "alt+a")
	if s := plain(f.View()); !strings.Contains(s, "nothing to add here") {
		t.Errorf("alt+a on a closed object:\n%s", s)
	}
	// Declared properties and nothing said about others: the form offers
	// no key rows (raw JSON takes other keys).
	focusPtr(t, f, "/person")
	press(f, "enter")
	focusPtr(t, f, "/person/name")
	press(f, "alt+a")
	if got := valueOf(t, f)["person"]; !sameJSON(got, map[string]any{}) {
		t.Errorf("person = %v", got)
	}
	for _, r := range f.rows {
		if r.kind == rowAdd && (r.n.name == "closed" || r.n.name == "person") {
			t.Errorf("%s has an add row", r.n.name)
		}
	}
}

// A tool whose arguments object declares nothing takes no arguments: its
// form says so, with no key rows.
func TestArgumentlessToolOffersNoKeys(t *testing.T) {
	for _, raw := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`} {
		f := newForm(t, json.RawMessage(raw), 80, 12)
		if s := plain(f.View()); !strings.Contains(s, "nothing to fill in; ctrl+s sends") || strings.Contains(s, "add key") {
			t.Errorf("%s:\n%s", raw, s)
		}
	}
	f := newForm(t, json.RawMessage(`{"type":"object","additionalProperties":{"type":"string"}}`), 80, 12)
	if s := plain(f.View()); !strings.Contains(s, "+ add key") {
		t.Errorf("a root that asks for keys offers none:\n%s", s)
	}
}

// The help bar names a rebound key by its binding too.
func TestHelpBarNamesBoundKeys(t *testing.T) {
	keys := keymap.Default()
	keys.Form.Raw = key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "raw JSON"))
	keys.Form.Close = key.NewBinding(key.WithKeys("ctrl+q"), key.WithHelp("ctrl+q", "close"))
	keys.Form.PrevOption = key.NewBinding(key.WithKeys("ctrl+h"), key.WithHelp("ctrl+h", "prev choice"))
	keys.Form.KeepDraft = key.NewBinding(key.WithKeys("K", "enter"), key.WithHelp("K", "keep draft"))
	raw := json.RawMessage(`{"type":"object","properties":{"u":{"enum":["c","f"]}},"required":["u"]}`)
	f, err := New(raw, Options{Theme: themes.Default(true), Keys: keys, KeepDrafts: true})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(80, 20)
	compile(f)
	help := func() string {
		var out []string
		for _, b := range f.ShortHelp() {
			out = append(out, b.Help().Key+" "+b.Help().Desc)
		}
		return strings.Join(out, ", ")
	}
	if h := help(); !strings.Contains(h, "ctrl+h/→ choose") {
		t.Errorf("on an enum: %s", h)
	}
	f.Update(keyMsg("ctrl+r"))
	if h := help(); !strings.Contains(h, "ctrl+r back to form") || !strings.Contains(h, "ctrl+q discard raw edits") {
		t.Errorf("in the raw view: %s", h)
	}
	f.Update(keyMsg("ctrl+r"))
	press(f, "right")
	f.Update(keyMsg("ctrl+q"))
	if h := help(); !strings.Contains(h, "K/enter keep draft") {
		t.Errorf("asking: %s", h)
	}
}

// Esc while a key is being typed (by mistake, or to keep the draft): the
// key typed is part of the draft, not lost because the cursor never left
// it.
func TestEscKeepsTheKeyBeingTyped(t *testing.T) {
	f, err := New(json.RawMessage(fetchHTML), Options{Title: "Call fetch_html", Theme: themes.Default(true), Keys: keymap.Default(), KeepDrafts: true})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(80, 24)
	compile(f)
	press(f, "tab")
	typeText(f, "Accept")
	press(f, "esc")
	if !f.Confirming() {
		t.Fatal("esc with a key typed did not ask")
	}
	press(f, "esc") // back
	typeText(f, "-Language")
	press(f, "esc")
	if msg, ok := press(f, "k")().(CancelMsg); !ok || !msg.Keep {
		t.Fatalf("k answered %#v", msg)
	}
	if got := compact(t, f); got != `{"url":"","headers":{"Accept-Language":""}}` {
		t.Errorf("the kept draft holds %s", got)
	}
}
