package panes

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/themes"
)

// flat is a view's text with its frame and line breaks gone: what a person
// reads across the rows.
func flat(view string) string {
	s := strings.NewReplacer("│", " ", "╭", " ", "╮", " ", "╰", " ", "╯", " ", "─", " ").Replace(ansi.Strip(view))
	return strings.Join(strings.Fields(s), " ")
}

// The warnings and hints of the right-hand panes are wrapped to the pane,
// never cut: a missing capability, a failed list, the roots' hint.
func TestPaneNoticesAreWrappedWhole(t *testing.T) {
	th, k := themes.Dark(), keymap.Default()
	r := NewResources(th, k)
	r.SetGate(Gate{Why: `the server did not declare the "resources" capability, so it offers no resources`}, false, false)
	r.SetFailed(Failure{Method: mcp.MethodResourcesList, Err: &mcp.RPCError{Code: -32601, Message: "Method not found"}})
	r.SetSize(44, 20)
	v := r.View()
	for _, want := range []string{`the server did not declare the "resources" capability, so it offers no resources`,
		"press A to send anyway", "resources/list failed: server error -32601: Method not found", "-32601 is the expected answer"} {
		if !strings.Contains(flat(v), want) {
			t.Errorf("Resources at 44 columns lacks %q:\n%s", want, ansi.Strip(v))
		}
	}
	if strings.Contains(v, "…") {
		t.Errorf("Resources cuts a notice:\n%s", ansi.Strip(v))
	}

	ro := NewRoots(th, k, nil)
	ro.SetSize(40, 12)
	ro.SetNote("roots changed; 2026-07-28 has no roots/list_changed: the next input request gets the new list")
	v = ro.View()
	for _, want := range []string{"answered to roots/list; a change sends notifications/roots/list_changed", "the next input request gets the new list", "(a adds one)"} {
		if !strings.Contains(flat(v), want) {
			t.Errorf("Roots at 40 columns lacks %q:\n%s", want, ansi.Strip(v))
		}
	}
	for _, b := range ro.ShortHelp() {
		if b.Enabled() && b.Help().Key == "W" {
			t.Error("Roots offers W wrap with no root to wrap")
		}
	}
	// With a long root, W wraps it whole.
	long := "file:///home/me/projects/a-very-long-directory-name/and/deeper/still/LAST"
	ro = NewRoots(th, k, []policy.Root{{URI: long, Name: "work"}})
	ro.SetSize(40, 12)
	ro.Focus()
	if strings.Contains(flat(ro.View()), "LAST") {
		t.Fatalf("the long root is not cut before W:\n%s", ansi.Strip(ro.View()))
	}
	ro.Update(keyPress("W"))
	if v := ro.View(); !strings.Contains(strings.ReplaceAll(flat(v), " ", ""), long) {
		t.Errorf("W did not wrap the root whole:\n%s", ansi.Strip(v))
	}
}
