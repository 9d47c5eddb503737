package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// keyPress is the key a binding's key name (as keymap spells it) sends.
func keyPress(name string) tea.KeyPressMsg {
	var mod tea.KeyMod
	for {
		switch {
		case strings.HasPrefix(name, "ctrl+"):
			mod |= tea.ModCtrl
			name = name[len("ctrl+"):]
			continue
		case strings.HasPrefix(name, "alt+"):
			mod |= tea.ModAlt
			name = name[len("alt+"):]
			continue
		case strings.HasPrefix(name, "shift+") && len(name) > len("shift+1"):
			mod |= tea.ModShift
			name = name[len("shift+"):]
			continue
		}
		break
	}
	codes := map[string]rune{"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "space": tea.KeySpace, "backspace": tea.KeyBackspace}
	if c, ok := codes[name]; ok {
		return tea.KeyPressMsg{Code: c, Mod: mod}
	}
	r := []rune(name)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: name}
}

// helpWalkModel is a model with something in every pane for its keys to
// act on: tools, resources and a template, a prompt, long rows to scroll
// sideways and wrap.
func helpWalkModel(w, h int) *Model {
	m := newTestModel("dark", w, h)
	feed(m, sessionEvents())
	long := strings.Repeat("a long description that runs past the edge of any pane ", 4)
	feed(m, []mcp.Event{mcp.StderrEvent{Time: at(30), Line: "stderr " + long}})
	m.prompts.SetGate(panes.Gate{OK: true}, false)
	m.prompts.SetPage([]json.RawMessage{json.RawMessage(`{"name":"greet","description":"` + long + `","arguments":[{"name":"who"}]}`)}, true, "")
	m.resources.SetGate(panes.Gate{OK: true}, true, false)
	m.resources.SetPage(mcp.MethodResourcesList, []json.RawMessage{json.RawMessage(`{"name":"readme","uri":"demo://readme/` + strings.Repeat("deeper/", 20) + `end"}`)}, true, "")
	m.resources.SetPage(mcp.MethodResourceTemplatesList, []json.RawMessage{json.RawMessage(`{"name":"doc","uriTemplate":"demo://doc/{id}"}`)}, true, "")
	feed(m, []mcp.Event{mcp.ListEvent{Time: at(31), Method: mcp.MethodToolsList, Items: []json.RawMessage{
		json.RawMessage(`{"name":"echo","description":"` + long + `","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"` + long + `"}}}}`),
		json.RawMessage(`{"name":"add","inputSchema":{"type":"object"}}`)}}})
	m.activity.Start(panes.Op{ID: 1, Label: "tools/call echo " + long, Started: at(40)})
	m.activity.End(1, panes.OpOK, at(41), time.Millisecond)
	m.activity.Start(panes.Op{ID: 2, Label: "tools/call add", Started: at(42)})
	m.activity.End(2, panes.OpError, at(43), 2*time.Millisecond)
	params := json.RawMessage(`{"level":"info","data":"` + long + `"}`)
	note := &mcp.Frame{Seq: 40, Time: at(43), Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: mcp.NotifyMessage,
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":` + string(params) + `}`)}
	for i := range 2 {
		feed(m, []mcp.Event{mcp.FrameEvent{Frame: note}, session.LogMessageEvent{Time: at(43 + i), Params: params, Frame: note}})
	}
	for i, rule := range []string{"tools/name-characters", "framing/non-json-stdout"} {
		feed(m, []mcp.Event{mcp.DiagnosticEvent{Diagnostic: &mcp.Diagnostic{Rule: rule, Severity: mcp.SeverityWarning,
			Frames: []int64{5}, Message: fmt.Sprintf("finding %d: %s", i, long), Why: long + long, Fix: long + long, SpecRef: "spec"}}})
	}
	return m
}

// inverse is the key that undoes a movement: pressed first, it puts the
// pane where the key has somewhere to go (up from the top does nothing).
var inverse = map[string]string{"up": "down", "down": "up", "pgup": "pgdown", "pgdown": "pgup", "left": "right", "right": "left",
	"shift+left": "shift+right", "shift+right": "shift+left", "g": "G", "G": "g", "home": "end", "end": "home",
	"ctrl+u": "ctrl+d", "ctrl+d": "ctrl+u", "K": "J", "J": "K", "[": "]", "]": "["}

// Every key a help bar offers does something in that pane: pressed on a
// fresh model focused there, it changes the screen (or says on it why it
// cannot) or asks for something (a command: a request, the clipboard, a
// quit). A key that does nothing must not be offered.
func TestEveryHelpKeyWorks(t *testing.T) {
	for _, sz := range [][2]int{{120, 35}, {80, 24}} {
		for f := focusLog; f <= focusDiagnostics; f++ {
			base := helpWalkModel(sz[0], sz[1])
			press(base, fmt.Sprint(int(f)+1))
			if base.focus != f {
				t.Fatalf("%d did not focus pane %v", int(f)+1, f)
			}
			for _, b := range base.helpBindings() {
				name := b.Keys()[0]
				if b.Help().Key == "1-9" { // the jump: to another pane than this one
					name = fmt.Sprint((int(f)+1)%9 + 1)
				}
				t.Run(fmt.Sprintf("%dx%d/%v/%s", sz[0], sz[1], f, b.Help().Key), func(t *testing.T) {
					try := func(first string) (bool, string) {
						m := helpWalkModel(sz[0], sz[1])
						press(m, fmt.Sprint(int(f)+1))
						if first != "" {
							m.Update(keyPress(first))
						}
						before := content(m)
						_, cmd := m.Update(keyPress(name))
						return cmd != nil || content(m) != before, before
					}
					did, before := try("")
					if back, ok := inverse[name]; ok && !did {
						did, _ = try(back)
					}
					if !did {
						t.Errorf("the %v pane offers %q (%s) and pressing %s does nothing:\n%s", f, b.Help().Key, b.Help().Desc, name, before)
					}
				})
			}
		}
	}
}

// The help overlay lists each pane's keys once: a key shown twice with the
// same words (a pane's own binding and its list's for the same key) reads as
// two keys. One key may be listed with different words where it does
// different things on different rows (enter on a tool, a view, a saved call).
func TestHelpListsEachPaneKeyOnce(t *testing.T) {
	m := helpWalkModel(120, 35)
	for f := focusLog; f <= focusDiagnostics; f++ {
		seen := map[[2]string]bool{}
		for _, group := range m.pane(f).FullHelp() {
			for _, b := range group {
				if !b.Enabled() {
					continue
				}
				kd := [2]string{b.Help().Key, b.Help().Desc}
				if seen[kd] {
					t.Errorf("the %v pane's help lists %q (%s) twice", f, kd[0], kd[1])
				}
				seen[kd] = true
			}
		}
	}
}
