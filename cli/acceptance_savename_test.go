package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flowSaveNameSuggestion: S on book_trip's result suggests a name without
// literal ellipses (its arguments are objects and arrays), the first keys
// typed replace it rather than append to it, and the call saved names its
// server.
func flowSaveNameSuggestion(t *testing.T, a *accept) {
	file := filepath.Join(t.TempDir(), "mcpscope.calls.json")
	s := a.start(t, 80, 24, "--calls", file)
	s.ready()
	s.openTool("book_trip")
	s.typ("Ada <Lovelace>")
	s.tabTo("from")
	s.typ("Paris")
	s.tabTo("to")
	s.typ("Rome")
	s.tabTo("date")
	s.typ("2027-05-01")
	s.tabTo("number")
	s.typ("4111111111111111")
	s.see("✓ valid")
	s.keys("C-s")
	s.see("Result · book_trip")
	s.keys("S")
	scr := s.see("typing replaces it")
	row := ""
	for _, line := range strings.Split(scr, "\n") {
		if strings.Contains(line, "name  ") {
			row = line
		}
	}
	if !strings.Contains(row, "name  book_trip") || strings.Contains(row, "…") {
		t.Errorf("the suggested name's row: %q", row)
	}
	s.typ("trip to <Rome>")
	s.see("name  trip to <Rome>")
	s.keys("Enter")
	s.see(`saved "trip to <Rome>"`)
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name": "trip to <Rome>"`, `"server": "mcpscope-demo"`, `"name": "Ada <Lovelace>"`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the calls file lacks %s:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), `\u003c`) {
		t.Errorf("the calls file escapes <:\n%s", text)
	}
}
