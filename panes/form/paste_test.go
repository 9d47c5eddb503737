package form

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func paste(f *Form, s string) { f.Update(tea.PasteMsg{Content: s}) }

const pasteFields = `{"type":"object","required":["s","n"],"properties":{
	"s":{"type":"string"},"n":{"type":"number"},"any":{},
	"m":{"type":"object","additionalProperties":{"type":"string"}},
	"e":{"enum":["h:mm A","YYYY-MM-DD"]}}}`

// A paste ending in a line break (a line copied from a terminal) left an
// invisible space at the end of a one-line field, and the line breaks
// inside one became spaces without a word.
func TestPasteIntoAOneLineField(t *testing.T) {
	f := newForm(t, json.RawMessage(pasteFields), 100, 30)
	focusPtr(t, f, "/n")
	paste(f, "5000\n")
	if got := compact(t, f); got != `{"s":"","n":5000}` {
		t.Errorf("a number pasted with its line break: %s (%v)", got, f.Issues())
	}
	if !strings.Contains(plain(f.View()), "pasted without the line break at its end") {
		t.Errorf("the line break left out is not said:\n%s", plain(f.View()))
	}
	// tmux's paste-buffer sends a line break as CR.
	editField(t, f, "/n", "")
	paste(f, "42\r")
	if got := compact(t, f); got != `{"s":"","n":42}` {
		t.Errorf("a CR at the end: %s", got)
	}
	// Breaks inside become spaces, and the status line says so.
	editField(t, f, "/n", "")
	paste(f, "1\r\n2")
	if f.editText() != "1 2" || !strings.Contains(plain(f.View()), "one line only: the paste's line breaks became spaces") {
		t.Errorf("a paste of two lines into a number: %q\n%s", f.editText(), plain(f.View()))
	}
	// A key is one line too.
	focusPtr(t, f, "/m")
	press(f, "alt+a")
	paste(f, "X-Trace\n")
	press(f, "tab")
	if got := valueOf(t, f)["m"]; !sameJSON(got, map[string]any{"X-Trace": ""}) {
		t.Errorf("a key pasted with its line break: %v", got)
	}
	// An enum's filter too.
	focusPtr(t, f, "/e")
	paste(f, "h:mm\r")
	if got := valueOf(t, f)["e"]; got != "h:mm A" || f.enumFilter != "h:mm" {
		t.Errorf("a filter pasted with its line break: %v, %q", got, f.enumFilter)
	}
	// Tabs cannot be kept: said too.
	editField(t, f, "/s", "")
	paste(f, "a\tb")
	if got := valueOf(t, f)["s"]; got != "a b" || !strings.Contains(plain(f.View()), "its tabs became spaces") {
		t.Errorf("a tab: %q\n%s", got, plain(f.View()))
	}
}

// A string may hold lines: a paste of several keeps them, and the field
// takes several lines from then on.
func TestPasteOfLinesIntoAStringKeepsThem(t *testing.T) {
	f := newForm(t, json.RawMessage(pasteFields), 100, 30)
	typeText(f, "AB")
	press(f, "left")
	paste(f, "first\r\nsecond\r")
	if got := valueOf(t, f)["s"]; got != "Afirst\nsecond\nB" {
		t.Fatalf("s = %q", got)
	}
	if !f.Editing() || !f.multiline {
		t.Fatalf("the field is not edited on several lines")
	}
	if s := plain(f.View()); !strings.Contains(s, "pasted 2 lines, kept: enter adds a line, tab moves on") {
		t.Errorf("the paste is not explained:\n%s", s)
	}
	// Typing goes on where the paste ended; enter adds a line.
	typeText(f, "!")
	press(f, "enter")
	typeText(f, "C")
	if got := valueOf(t, f)["s"]; got != "Afirst\nsecond\n!\nCB" {
		t.Errorf("after typing: %q", got)
	}
	s := plain(f.View())
	for _, want := range []string{"Afirst", "second", "CB"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q is not on screen:\n%s", want, s)
		}
	}
	// Without the cursor it is one line that says how many follow.
	press(f, "tab")
	if s := plain(f.View()); !strings.Contains(s, "Afirst (+3 lines)") {
		t.Errorf("the field without the cursor:\n%s", s)
	}
	// A CR LF is one line break in a JSON field and in the raw view.
	focusPtr(t, f, "/any")
	paste(f, "{\r\n\"a\": 1\r\n}")
	if f.editText() != "{\n\"a\": 1\n}" {
		t.Errorf("the JSON field holds %q", f.editText())
	}
	press(f, "ctrl+e")
	f.area.SetValue("")
	paste(f, "{\r\n\"s\": \"x\",\r\n\"n\": 1\r\n}")
	if got := f.area.LineCount(); got != 4 {
		t.Errorf("the raw view has %d lines for a paste of 4", got)
	}
}
