package form

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/themes"
)

// What a person typing once saw go wrong, each as a test: typing on a
// field that was not in edit mode ran commands; Tab left the next field out of edit mode, so
// the key after it was dropped; Esc lost a half-filled form; enums could
// not be filtered; the JSON field was one line; raw JSON errors had no
// line or column.

const threeFields = `{"type":"object","properties":{
	"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}},"required":["a","b","c"]}`

// e and n used to run "use example" and "omit/empty/null" on a field
// that was not being edited: now they are typed.
func TestTypingOnAFieldEditsItAtOnce(t *testing.T) {
	f := newForm(t, json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`), 80, 20)
	typeText(f, "en a dcoxq")
	if got := valueOf(t, f)["word"]; got != "en a dcoxq" {
		t.Fatalf("word = %v, want every key typed", got)
	}
	if f.flash != "" {
		t.Fatalf("a typed key ran a command: %q", f.flash)
	}
	// Numbers too, and an omitted optional field is filled by typing.
	g := newForm(t, json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`), 80, 20)
	if _, has := valueOf(t, g)["n"]; has {
		t.Fatal("an optional number starts included")
	}
	typeText(g, "1e3")
	if got := compact(t, g); got != `{"n":1000}` {
		t.Fatalf("value %s", got)
	}
}

// Enter, 2, Tab, 3: the 3 used to be dropped. Tab and shift+Tab keep
// editing wherever they land.
func TestTabMovesAndKeepsEditing(t *testing.T) {
	f := newForm(t, json.RawMessage(threeFields), 80, 20)
	press(f, "enter")
	typeText(f, "2")
	press(f, "tab")
	typeText(f, "3")
	if got := compact(t, f); got != `{"b":2,"c":3}` {
		t.Fatalf("enter, 2, tab, 3 gave %s: a key was dropped", got)
	}
	press(f, "shift+tab", "shift+tab")
	typeText(f, "1")
	press(f, "tab")
	typeText(f, "4")
	if got := compact(t, f); got != `{"a":1,"b":24,"c":3}` {
		t.Fatalf("shift+tab then typing gave %s", got)
	}
	if !f.Editing() {
		t.Fatal("the field under the cursor is not being edited")
	}
}

// Filling book_trip with tab alone: tab skips the headers of open groups
// and lands on every field, text or not.
func TestTabVisitsEveryFieldOfBookTrip(t *testing.T) {
	f := newForm(t, bookTrip(t), 100, 40)
	var visited []string
	for i := 0; i < 40; i++ {
		visited = append(visited, f.rows[f.cur].ptr)
		before := f.cur
		press(f, "tab")
		if f.cur == before {
			break
		}
	}
	got := strings.Join(visited, " ")
	want := "/traveller/name /traveller/email /traveller/age /traveller/address /legs/0/from /legs/0/to /legs/0/date /legs/0/class /legs /payment /payment/number /notes /seat"
	if got != want {
		t.Fatalf("tab visited\n %s\nwant\n %s", got, want)
	}
	// Filled with tab and typing only, it validates and sends.
	f = newForm(t, bookTrip(t), 100, 40)
	typeText(f, "Ada")
	press(f, "tab", "tab", "tab", "tab") // email, age, address stay omitted
	typeText(f, "LHR")
	press(f, "tab")
	typeText(f, "CDG")
	press(f, "tab")
	typeText(f, "2026-05-01")
	press(f, "tab", "tab", "tab", "tab") // class, add item, the payment branch
	typeText(f, "1234123412341234")
	if !f.Valid() {
		t.Fatalf("not valid: %v\n%s", f.Issues(), plain(f.View()))
	}
	cmd := press(f, "ctrl+s")
	if cmd == nil {
		t.Fatal("ctrl+s sent nothing")
	}
	// Sent in the schema's order, as the form shows it.
	want = `{"traveller":{"name":"Ada"},"legs":[{"from":"LHR","to":"CDG","date":"2026-05-01","class":"economy"}],"payment":{"number":"1234123412341234"},"seat":"aisle"}`
	if got := string(cmd().(SubmitMsg).Value); got != want {
		t.Fatalf("sent %s\nwant %s", got, want)
	}
}

// The form's commands are on keys that cannot be typed text: on a text
// field every binding the help bar lists is a ctrl, alt or special key.
func TestFormCommandsAreNotTextKeys(t *testing.T) {
	f := newForm(t, bookTrip(t), 120, 35)
	focusPtr(t, f, "/legs/0/from")
	// (The plain letters some commands also answer to are typed here: see
	// TestTypingOnAFieldEditsItAtOnce.)
	for _, b := range f.ShortHelp() {
		h := b.Help().Key
		if len([]rune(h)) == 1 {
			t.Errorf("the help bar offers %q for %s on a text field", h, b.Help().Desc)
		}
	}
	// A plain letter is never a command, even where nothing is typed:
	// on the legs header, a adds nothing (typing "alice" there used to add
	// an item and type "lice" into it) and says the row takes no typing;
	// alt+a adds.
	focusPtr(t, f, "/legs")
	press(f, "a")
	if got := len(valueOf(t, f)["legs"].([]any)); got != 1 {
		t.Fatalf("a on the legs header: %d legs", got)
	}
	if !strings.Contains(plain(f.View()), "this row takes no typing") {
		t.Errorf("a on the legs header said nothing")
	}
	press(f, "alt+a")
	if got := len(valueOf(t, f)["legs"].([]any)); got != 2 {
		t.Fatalf("alt+a on the legs header: %d legs", got)
	}
	// And every command of the form is in its full help.
	k := keymap.Default().Form
	all := map[string]bool{}
	for _, g := range f.FullHelp() {
		for _, b := range g {
			all[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	for _, b := range []struct{ name, help string }{{"Add", k.Add.Help().Key}, {"Presence", k.Presence.Help().Key}, {"Example", k.Example.Help().Key}, {"KeepDraft", k.KeepDraft.Help().Key}} {
		found := false
		for h := range all {
			if strings.HasPrefix(h, b.help+" ") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s (%s) is not in the full help", b.name, b.help)
		}
	}
}

// Esc on a form with changes asks: keep the draft, discard, or back.
func TestEscOnAChangedFormAsks(t *testing.T) {
	open := func(keep bool) *Form {
		f, err := New(bookTrip(t), Options{Title: "Call book_trip", Theme: themes.Default(true), Keys: keymap.Default(), KeepDrafts: keep})
		if err != nil {
			t.Fatal(err)
		}
		f.SetSize(100, 30)
		compile(f)
		return f
	}
	f := open(true)
	if _, ok := press(f, "esc")().(CancelMsg); !ok {
		t.Fatal("esc on an untouched form did not close it")
	}
	f = open(true)
	typeText(f, "Ada")
	if cmd := press(f, "esc"); cmd != nil {
		t.Fatalf("esc on a changed form closed it: %#v", cmd())
	}
	if !f.Confirming() || !strings.Contains(plain(f.View()), "k keep draft · d discard · esc back") {
		t.Fatalf("no question asked:\n%s", plain(f.View()))
	}
	help := ""
	for _, b := range f.ShortHelp() {
		help += b.Help().Key + " " + b.Help().Desc + ", "
	}
	if help != "k/enter keep draft, d discard, esc back to form, " {
		t.Fatalf("help while asking: %s", help)
	}
	typeText(f, "x") // not an answer: nothing happens
	press(f, "esc")  // back
	if f.Confirming() || valueOf(t, f)["traveller"].(map[string]any)["name"] != "Ada" {
		t.Fatalf("back did not return to the form intact: %v", valueOf(t, f))
	}
	typeText(f, "!")
	press(f, "esc")
	if msg, ok := press(f, "k")().(CancelMsg); !ok || !msg.Keep {
		t.Fatalf("k answered %#v, want CancelMsg{Keep: true}", msg)
	}
	press(f, "esc")
	if msg, ok := press(f, "d")().(CancelMsg); !ok || msg.Keep {
		t.Fatalf("d answered %#v, want a plain CancelMsg", msg)
	}
	// A host that keeps no drafts (an elicitation) offers discard or back.
	g := open(false)
	typeText(g, "Ada")
	press(g, "esc")
	if cmd := press(g, "k"); cmd != nil {
		t.Fatalf("k kept a draft the host does not keep: %#v", cmd())
	}
	if s := plain(g.View()); strings.Contains(s, "keep") || !strings.Contains(s, "d discard · esc back") {
		t.Fatalf("the question offers a draft:\n%s", s)
	}
}

// Typing on an enum narrows it; the arrows step through what matches.
func TestEnumsFilterAsYouType(t *testing.T) {
	f := newForm(t, json.RawMessage(`{"type":"object","properties":{"city":{"type":"string",
		"enum":["Berlin","Bern","Paris","Bergen","Oslo"]}},"required":["city"]}`), 100, 20)
	typeText(f, "ber")
	if got := valueOf(t, f)["city"]; got != "Berlin" {
		t.Fatalf("ber chose %v", got)
	}
	if s := plain(f.View()); !strings.Contains(s, "/ber · 3 matches: Berlin, Bern, Bergen") {
		t.Fatalf("the filter is not shown:\n%s", s)
	}
	press(f, "right", "right")
	if got := valueOf(t, f)["city"]; got != "Bergen" {
		t.Fatalf("right, right among the matches: %v", got)
	}
	press(f, "right")
	if got := valueOf(t, f)["city"]; got != "Berlin" {
		t.Fatalf("the arrows left the matches: %v", got)
	}
	typeText(f, "x")
	if got := valueOf(t, f)["city"]; got != "Berlin" || !strings.Contains(plain(f.View()), "no value matches") {
		t.Fatalf("a filter with no match changed the value to %v or said nothing", got)
	}
	press(f, "backspace", "backspace", "backspace", "backspace")
	typeText(f, "os")
	if got := valueOf(t, f)["city"]; got != "Oslo" {
		t.Fatalf("os chose %v", got)
	}
}

// The JSON fallback field takes several lines: enter is a new line there,
// and the lines are on screen.
func TestJSONFieldIsMultiLine(t *testing.T) {
	f := newForm(t, construct(t, "unsupported"), 100, 30)
	focusPtr(t, f, "/anything")
	typeText(f, "{")
	press(f, "enter")
	typeText(f, `"x-a": "b"`)
	press(f, "enter")
	typeText(f, "}")
	if got := valueOf(t, f)["anything"]; !sameJSON(got, map[string]any{"x-a": "b"}) {
		t.Fatalf("anything = %v", got)
	}
	if f.rows[f.cur].ptr != "/anything" {
		t.Fatalf("enter left the JSON field for %s", f.rows[f.cur].ptr)
	}
	s := plain(f.View())
	for _, want := range []string{"{", `"x-a": "b"`, "}"} {
		found := false
		for _, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(strings.Trim(l, "│ ›")) == want || strings.Contains(l, "  "+want+" ") {
				found = true
			}
		}
		if !found {
			t.Errorf("line %q of the JSON field is not on screen:\n%s", want, s)
		}
	}
	// Tab leaves it; on another row it is one line again.
	press(f, "tab")
	if strings.Contains(plain(f.View()), "\n│              }") {
		t.Errorf("the JSON field still takes several lines without the cursor:\n%s", plain(f.View()))
	}
}

// A JSON error says where: line and column.
func TestRawJSONErrorsGiveLineAndColumn(t *testing.T) {
	f := newForm(t, bookTrip(t), 100, 30)
	press(f, "ctrl+e")
	f.area.SetValue("{\n  \"traveller\": {\"name\": \"Ada\"},\n  \"legs\": [x]\n}")
	f.rawChanged()
	if !strings.Contains(f.rawErr, "line 3, column 12") {
		t.Fatalf("raw error %q has no line and column", f.rawErr)
	}
	if !strings.Contains(plain(f.View()), "line 3, column 12") {
		t.Fatalf("the place is not shown:\n%s", plain(f.View()))
	}
	f.area.SetValue("{\n  \"a\": 1,\n")
	f.rawChanged()
	if !strings.Contains(f.rawErr, "line 3") {
		t.Fatalf("a cut text: %q", f.rawErr)
	}
	// The JSON field of the form says where too.
	g := newForm(t, construct(t, "unsupported"), 100, 30)
	editField(t, g, "/anything", "{\n\"a\": tru\n}")
	if got := rowIssue(t, g, "/anything"); len(got) != 1 || !strings.Contains(got[0], "line 2, column") {
		t.Fatalf("anything issues = %q", got)
	}
}

func TestLineCol(t *testing.T) {
	for _, c := range []struct {
		text      string
		off       int
		line, col int
	}{{"abc", 1, 1, 2}, {"a\nbc", 2, 2, 1}, {"a\nbc", 3, 2, 2}, {"é\nx", 3, 2, 1}, {"éa", 2, 1, 2}, {"", 0, 1, 1}, {"ab\n", 3, 2, 1}} {
		if l, col := lineCol(c.text, c.off); l != c.line || col != c.col {
			t.Errorf("lineCol(%q, %d) = %d,%d want %d,%d", c.text, c.off, l, col, c.line, c.col)
		}
	}
}

// Found by hand on the memory server's create_entities (an array of
// objects): enter on "+ add item" left the cursor on the new item's
// header, where the name typed next ran commands instead (a added another
// item, c collapsed it, d deleted one) and the rest vanished. A new object
// item now opens on its first field, a plain letter never deletes or
// overwrites, and a letter a row cannot take says so.
func TestTypingAfterAddingAnObjectItemGoesIntoIt(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","required":["entities"],"properties":{"entities":{"type":"array","items":{
		"type":"object","required":["name","entityType"],"properties":{
		"name":{"type":"string"},"entityType":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}}}}}}`)
	f := newForm(t, raw, 100, 30)
	for f.rows[f.cur].kind != rowAdd {
		press(f, "down")
	}
	press(f, "enter")
	typeText(f, "alice")
	press(f, "tab")
	typeText(f, "person")
	press(f, "tab")
	want := map[string]any{"entities": []any{map[string]any{"name": "alice", "entityType": "person"}}}
	if got := valueOf(t, f); !sameJSON(got, want) {
		t.Errorf("value = %v, want %v", got, want)
	}

	// On the item's header, d (a plain letter) deletes nothing, and a
	// letter that is no command is not silently dropped.
	focusPtr(t, f, "/entities/0")
	press(f, "d")
	if got := valueOf(t, f); !sameJSON(got, want) {
		t.Errorf("after d on the item header: %v", got)
	}
	if !strings.Contains(plain(f.View()), "this row takes no typing") {
		t.Errorf("typing d on a header said nothing:\n%s", plain(f.View()))
	}
	press(f, "alt+d")
	if got := valueOf(t, f); !sameJSON(got, map[string]any{"entities": []any{}}) {
		t.Errorf("alt+d kept the item: %v", got)
	}
}

// What is sent keeps the order the user sees: the schema's properties in
// the schema's order (a Go map sorted them: the memory server's entity
// went out as {"entityType":…,"name":…}), and JSON typed in the raw view
// in its own order.
func TestValueKeepsTheFormsOrder(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"},"mid":{"type":"object","properties":{"y":{"type":"boolean"},"b":{"type":"string"}}}}}`)
	f := newForm(t, raw, 80, 20)
	editField(t, f, "/zeta", "z")
	editField(t, f, "/alpha", "1")
	press(f, "tab")
	press(f, "enter") // mid: present
	editField(t, f, "/mid/b", "bee")
	focusPtr(t, f, "/mid/y")
	press(f, "space") // present, false
	if v, _ := f.Value(); string(v) != `{"zeta":"z","alpha":1,"mid":{"y":false,"b":"bee"}}` {
		t.Errorf("form value %s is not in the schema's order", v)
	}
	press(f, "ctrl+e") // the raw view shows it in the same order
	if got := f.area.Value(); got != "{\n  \"zeta\": \"z\",\n  \"alpha\": 1,\n  \"mid\": {\n    \"y\": false,\n    \"b\": \"bee\"\n  }\n}" {
		t.Errorf("the raw view is not in the form's order:\n%s", got)
	}
	f.area.SetValue(`{ "mid": {"b": "x"}, "zeta": "q",  "alpha": 2 }`) // edited by hand
	if v, _ := f.Value(); string(v) != `{"mid":{"b":"x"},"zeta":"q","alpha":2}` {
		t.Errorf("raw value %s is not as typed", v)
	}
}

// A key added by hand that repeats a property's name keeps one place.
func TestOrderedObjectKeepsFirstPlaceLastValue(t *testing.T) {
	var o orderedObject
	o.set("b", 1)
	o.set("a", 2)
	o.set("b", 3)
	got, err := json.Marshal(o)
	if err != nil || string(got) != `{"b":3,"a":2}` {
		t.Errorf("got %s, %v", got, err)
	}
}

// A default in the first field, which is edited before the form has a
// size, shows whole once it has one (the demo's fail tool showed "ils"
// for "this tool always fails").
func TestFirstFieldsDefaultShowsWhole(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","default":"this tool always fails"}}}`)
	f := newForm(t, raw, 80, 12)
	if !strings.Contains(plain(f.View()), "this tool always fails") {
		t.Errorf("the default is not shown whole:\n%s", plain(f.View()))
	}
}

// The status line's parts are apart: "✓ valid · ctrl+s sends history 2/2"
// read as one phrase.
func TestStatusLineKeepsHistoryApart(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	f, err := New(raw, Options{Title: "Call t", Theme: themes.Default(true), Keys: keymap.Default(),
		History: []json.RawMessage{json.RawMessage(`{"q":"a"}`), json.RawMessage(`{"q":"b"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(80, 24)
	compile(f)
	if s := plain(f.View()); !strings.Contains(s, "✓ valid · ctrl+s sends · history 2/2") {
		t.Errorf("status line:\n%s", s)
	}
	// Cut short, the position still stands apart.
	f.SetSize(30, 24)
	if s := plain(f.View()); !strings.Contains(s, "… · history 2/2") {
		t.Errorf("narrow status line:\n%s", s)
	}
}

// time-mcp's current_time.format: typing "h:mm" kept the default
// "YYYY-MM-DD HH:mm:ss" (it holds "H:mm" too) although "h:mm A" matches
// better; and a filter that matched nothing came back with the kept
// draft.
func TestEnumFilterPicksTheBestMatchAndForgetsItOnClose(t *testing.T) {
	raw := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{
		"format":{"default":"YYYY-MM-DD HH:mm:ss","type":"string","enum":["h:mm A","h:mm:ss A","YYYY-MM-DD HH:mm:ss","YYYY-MM-DD","YYYY-MM","MM/DD/YYYY","MM/DD/YY","YYYY/MM/DD","YYYY/MM"],"description":"The format of the time"},
		"timezone":{"type":"string"}}}`)
	f, err := New(raw, Options{Title: "Call current_time", Theme: themes.Default(true), Keys: keymap.Default(), KeepDrafts: true})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(120, 24)
	compile(f)
	if got := valueOf(t, f)["format"]; got != "YYYY-MM-DD HH:mm:ss" {
		t.Fatalf("format starts as %v", got)
	}
	typeText(f, "h:mm")
	if got := valueOf(t, f)["format"]; got != "h:mm A" {
		t.Errorf("h:mm chose %v", got)
	}
	if s := plain(f.View()); !strings.Contains(s, "/h:mm · 3 matches: h:mm A, h:mm:ss A, YYYY-MM-DD HH:mm:ss") {
		t.Errorf("the matches are not listed best first:\n%s", s)
	}
	typeText(f, ":")
	if got := valueOf(t, f)["format"]; got != "h:mm:ss A" {
		t.Errorf("h:mm: chose %v", got)
	}
	// A case-exact start wins over a start in other case; a whole label
	// over a start: YYYY-MM is not YYYY-MM-DD.
	press(f, "backspace", "backspace", "backspace", "backspace", "backspace")
	typeText(f, "YYYY-MM")
	if got := valueOf(t, f)["format"]; got != "YYYY-MM" {
		t.Errorf("YYYY-MM chose %v", got)
	}
	press(f, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	typeText(f, "mm/dd/yy")
	if got := valueOf(t, f)["format"]; got != "MM/DD/YY" {
		t.Errorf("mm/dd/yy chose %v", got)
	}

	// Esc, keep the draft, reopen: the value is kept, the filter is not.
	typeText(f, "zzz")
	if s := plain(f.View()); !strings.Contains(s, "/mm/dd/yyzzz no match") {
		t.Fatalf("no match not said:\n%s", s)
	}
	press(f, "esc")
	if msg, ok := press(f, "k")().(CancelMsg); !ok || !msg.Keep {
		t.Fatalf("k answered %#v", msg)
	}
	f.SetSize(80, 24) // the host shows the kept form again
	if s := plain(f.View()); strings.Contains(s, "zzz") || strings.Contains(s, "no match") {
		t.Errorf("the filter came back with the draft:\n%s", s)
	}
	if got := valueOf(t, f)["format"]; got != "MM/DD/YY" {
		t.Errorf("the draft lost its value: %v", got)
	}
	typeText(f, "h:mm:")
	if got := valueOf(t, f)["format"]; got != "h:mm:ss A" {
		t.Errorf("a new filter after reopening chose %v", got)
	}
}

func TestMatchRank(t *testing.T) {
	for _, c := range []struct {
		label, want string
		rank        int
	}{
		{"h:mm A", "h:mm A", 0}, {"h:mm A", "H:MM a", 1}, {"h:mm A", "h:mm", 2}, {"Berlin", "ber", 3},
		{"New York", "York", 4}, {"New York", "york", 5}, {"YYYY-MM-DD HH:mm:ss", "h:mm", 6}, {"Oslo", "x", -1},
		{"İstanbul", "stan", 6}, {"İİİ", "i", 3}, {"xİy", "i", 6}, {"a-İb", "i", 5},
	} {
		if got := matchRank(c.label, c.want, strings.ToLower(c.want)); got != c.rank && !(c.rank == -1 && got < 0) {
			t.Errorf("matchRank(%q, %q) = %d, want %d", c.label, c.want, got, c.rank)
		}
	}
}
