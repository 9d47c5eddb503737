package form

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A tool that takes no arguments gets a form that says so, and sends {}.
func TestFormWithNothingToFill(t *testing.T) {
	for _, raw := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`} {
		f := open200(t, json.RawMessage(raw))
		compile(f)
		v := ansi.Strip(f.View())
		if !strings.Contains(v, "nothing to fill in") || strings.Contains(v, "0 fields") {
			t.Errorf("%s: the form does not say there is nothing to fill in:\n%s", raw, v)
		}
		cmd := press(f, "ctrl+s")
		if cmd == nil {
			t.Fatalf("%s: ctrl+s sent nothing", raw)
		}
		sub, ok := cmd().(SubmitMsg)
		if !ok || string(sub.Value) != "{}" {
			t.Errorf("%s: ctrl+s gave %+v", raw, sub)
		}
	}
}
