package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/clipboard"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// A list the server declared but failed to serve (mcp-fetch-server: resources
// declared, resources/list answered with -32601) is a failure wherever its
// items would have been: the Resources pane and the Capabilities tree say
// what failed and what to try, never "nothing listed" or "0 resources".
func TestFailedListIsShownAsAFailure(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	hs := &mcp.Handshake{Era: mcp.EraLegacy, OfferedVersion: "2025-11-25", ProtocolVersion: "2025-11-25",
		ClientCapabilities: json.RawMessage(`{}`), ServerCapabilities: json.RawMessage(`{"tools":{},"resources":{},"prompts":{}}`),
		ServerInfo: mcp.Implementation{Name: "fetch", Version: "1.1.2"}}
	notFound := &mcp.RPCError{Code: -32601, Message: "Method not found"}
	feed(m, []mcp.Event{
		mcp.HandshakeEvent{Time: at(1), Handshake: hs},
		mcp.StateEvent{Time: at(1), State: mcp.StateReady, Detail: "legacy era, protocol 2025-11-25"},
		mcp.ListEvent{Time: at(2), Method: mcp.MethodResourcesList, Err: notFound},
		mcp.ListEvent{Time: at(3), Method: mcp.MethodResourceTemplatesList, Err: notFound},
		mcp.ListEvent{Time: at(4), Method: mcp.MethodPromptsList, Err: &mcp.LocalError{Kind: mcp.Timeout, Method: mcp.MethodPromptsList, ID: "4", Elapsed: 10 * time.Second}},
	})
	press(m, "4")
	screen := ansi.Strip(content(m))
	for _, want := range []string{"resources/list failed: server error -32601: Method not found", "declared this capability but does not", "R lists again"} {
		if !strings.Contains(strings.Join(strings.Fields(screen), " "), want) {
			t.Errorf("Resources lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "nothing listed") || strings.Contains(screen, "…") {
		t.Errorf("Resources shows the failure as empty, or cuts it:\n%s", screen)
	}
	press(m, "2")
	screen = ansi.Strip(content(m))
	if !strings.Contains(screen, "resources/list failed") || strings.Contains(screen, "0 resources") {
		t.Errorf("Capabilities counts a failed list as empty:\n%s", screen)
	}
	press(m, "5")
	screen = strings.Join(strings.Fields(ansi.Strip(content(m))), " ")
	if !strings.Contains(screen, "prompts/list failed") || !strings.Contains(screen, "gave up waiting") || strings.Contains(screen, "no prompts listed") {
		t.Errorf("Prompts shows a timed-out list as empty:\n%s", screen)
	}

	// R lists again; an answer that fails again says so in the pane too,
	// and one that arrives replaces the failure.
	press(m, "4")
	op := session.Op{ID: 77, Kind: session.KindPage, Method: mcp.MethodResourcesList, Label: mcp.MethodResourcesList}
	feed(m, []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusOK, Result: &session.Page{Method: mcp.MethodResourcesList,
		Items: []json.RawMessage{json.RawMessage(`{"uri":"file:///a","name":"a"}`)}}}})
	if m.resources.Failed(mcp.MethodResourcesList) != nil {
		t.Error("a page that arrived did not replace the failure")
	}
	feed(m, []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusError, Err: notFound}})
	if f := m.resources.Failed(mcp.MethodResourcesList); f == nil || !f.Declared {
		t.Errorf("a failed R is not shown in the pane: %+v", f)
	}
}

// A prompts/get the server refused (git-mcp-server's git_wrapup with its
// optional arguments omitted: -32602) opens the result view with the
// error, its data and what to try, as a result would; so does a failed
// resources/read.
func TestFailedGetOpensTheResultView(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	refused := &mcp.RPCError{Code: -32602, Message: "MCP error -32602: Invalid arguments for prompt git_wrapup", Data: json.RawMessage(`{"issues":[{"path":["createTag"],"message":"Expected boolean"}]}`)}
	op := session.Op{ID: 78, Kind: session.KindPrompt, Method: mcp.MethodPromptsGet, Label: "prompts/get git_wrapup"}
	feed(m, []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusError, Err: refused}})
	if m.modal != modalContent {
		t.Fatalf("a failed prompts/get opened no result view (modal %v)", m.modal)
	}
	screen := strings.Join(strings.Fields(ansi.Strip(content(m))), " ")
	for _, want := range []string{"prompts/get git_wrapup failed", "server error -32602", "error.data", `"Expected boolean"`, "change them and send again"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the result view lacks %q:\n%s", want, screen)
		}
	}
	press(m, "esc")
	op = session.Op{ID: 79, Kind: session.KindRead, Method: mcp.MethodResourcesRead, Label: "resources/read file:///x"}
	feed(m, []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusTimeout, Err: &mcp.LocalError{Kind: mcp.Timeout, Method: mcp.MethodResourcesRead, ID: "9", Elapsed: time.Minute}}})
	screen = strings.Join(strings.Fields(ansi.Strip(content(m))), " ")
	if m.modal != modalContent || !strings.Contains(screen, "resources/read file:///x failed") || !strings.Contains(screen, "no answer after 1m0s") {
		t.Errorf("a timed-out read:\n%s", screen)
	}
}

// c in the result view says what it copied and how (OSC 52, which the
// terminal may refuse without a word) and what to do then; it used to
// copy in silence.
func TestCopySaysWhatAndHow(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	m.cfg.Clipboard = &clipboard.Router{} // outside tmux: OSC 52
	feed(m, sessionEvents())
	result := json.RawMessage(`{"content":[{"type":"text","text":"hello back"}]}`)
	m.Update(toolCalledMsg{result: panes.ToolResultMsg{Name: "echo", Latency: 21 * time.Millisecond, Result: result}})
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Text: "c"})
	if cmd == nil {
		t.Fatal("c did nothing")
	}
	_, route := m.Update(cmd())
	if route == nil {
		t.Fatal("c asked for no copy")
	}
	_, clip := m.Update(route())
	if clip == nil {
		t.Fatal("c asked for no clipboard write")
	}
	if got, want := fmt.Sprintf("%T %v", clip(), clip()), fmt.Sprintf("%T %v", tea.SetClipboard(string(result))(), string(result)); got != want {
		t.Errorf("the write is %s, not OSC 52 (%s)", got, want)
	}
	screen := ansi.Strip(content(m))
	want := fmt.Sprintf("copied result, %d B, via OSC 52 (the terminal) · refused? s saves a file", len(result))
	if !strings.Contains(screen, want) {
		t.Errorf("the status line lacks %q:\n%s", want, screen)
	}
}

// In a tmux that swallows OSC 52 (set-clipboard off, or its default
// external) the copy goes to the system clipboard, in a Cmd, and the
// status line says so; no OSC 52 is written.
func TestCopyInTmuxGoesToTheSystemClipboard(t *testing.T) {
	m := newTestModel("dark", 120, 24)
	var asked []string
	var copied string
	m.cfg.Clipboard = &clipboard.Router{
		Getenv: func(k string) string {
			if k == "TMUX" {
				return "/tmp/tmux-1/default,1,0"
			}
			return ""
		},
		Run: func(_ context.Context, _ string, name string, args ...string) (string, error) {
			asked = append(asked, name+" "+strings.Join(args, " "))
			return "external\n", nil
		},
		System: func(text string) (string, error) { copied = text; return "xclip", nil },
	}
	feed(m, sessionEvents())
	result := json.RawMessage(`{"content":[{"type":"text","text":"hello back"}]}`)
	m.Update(toolCalledMsg{result: panes.ToolResultMsg{Name: "echo", Latency: 21 * time.Millisecond, Result: result}})
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Text: "c"})
	if cmd == nil {
		t.Fatal("c did nothing")
	}
	_, route := m.Update(cmd())
	if route == nil {
		t.Fatal("c asked for no copy")
	}
	routed := route()
	if len(asked) != 1 || copied == "" {
		t.Fatalf("the Cmd asked %q and copied %q", asked, copied)
	}
	if _, osc := m.Update(routed); osc != nil {
		t.Errorf("an OSC 52 write as well: %T", osc())
	}
	screen := ansi.Strip(content(m))
	if want := fmt.Sprintf("copied result, %d B, to the system clipboard (xclip)", len(result)); !strings.Contains(screen, want) {
		t.Errorf("the status line lacks %q:\n%s", want, screen)
	}
}

// At 60×15 the tab row shows all nine panes (it ended at "7 Act…"), and a
// click on a tab's label focuses that pane.
func TestNarrowTabRowReachesEveryPane(t *testing.T) {
	m := newTestModel("dark", 60, 15)
	feed(m, sessionEvents())
	row := strings.Split(ansi.Strip(content(m)), "\n")[1]
	for i, name := range []string{"Log", "Caps", "Tools", "Res", "Prom", "Logs", "Act", "Root", "Diag"} {
		label := fmt.Sprintf("%d %s", i+1, name)
		x := strings.Index(row, label)
		if x < 0 {
			t.Fatalf("the tab row lacks %q: %q", label, row)
		}
		m.Update(tea.MouseClickMsg{X: x + 1, Y: 1, Button: tea.MouseLeft})
		if m.focus != focus(i) {
			t.Errorf("a click on %q focused pane %v", label, m.focus)
		}
	}
}

// The header's short forms (1E, 2W, ⏱12ms) and the tools' badges (RO IDEM
// OPEN) are explained on screen: in the help overlay's legend.
func TestHelpExplainsTheShortForms(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	press(m, "?")
	var all strings.Builder
	for i := 0; i < 40; i++ { // the overlay scrolls when it cannot hold them all
		all.WriteString(ansi.Strip(content(m)))
		m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	for _, want := range []string{"1E 2W 3H", "the doctor's errors, warnings, hints", "⏱12ms", "how long the handshake took",
		"RO ", "readOnlyHint", "IDEM", "idempotentHint", "OPEN", "openWorldHint", "DEST", "destructiveHint"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the help overlay never shows %q", want)
		}
	}
}

// A prompt's and a resource template's forms take the screen as a tool's
// does (the modal's room), not the right-hand pane's.
func TestPromptAndTemplateFormsTakeTheScreen(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	m.prompts.SetGate(panes.Gate{OK: true}, false)
	m.prompts.SetPage([]json.RawMessage{json.RawMessage(`{"name":"greet","description":"Says hello.","arguments":[{"name":"who","required":true}]}`)}, true, "")
	m.resources.SetGate(panes.Gate{OK: true}, false, false)
	m.resources.SetPage(mcp.MethodResourceTemplatesList, []json.RawMessage{json.RawMessage(`{"name":"doc","uriTemplate":"demo://doc/{id}"}`)}, true, "")
	boxWidth := func(title string) int {
		for _, r := range strings.Split(ansi.Strip(content(m)), "\n") {
			if i := strings.Index(r, "╭─ "+title); i >= 0 {
				j := strings.Index(r[i:], "╮")
				return ansi.StringWidth(r[i : i+j+len("╮")])
			}
		}
		t.Fatalf("no box titled %q:\n%s", title, ansi.Strip(content(m)))
		return 0
	}
	press(m, "5", "enter")
	if got, want := boxWidth("prompts/get greet"), m.layout.modal.Dx(); got != want {
		t.Errorf("the prompt form is %d wide, want the modal's %d", got, want)
	}
	press(m, "esc")
	press(m, "4", "t", "enter")
	if got, want := boxWidth("read demo://doc/{id}"), m.layout.modal.Dx(); got != want {
		t.Errorf("the template form is %d wide, want the modal's %d", got, want)
	}
	press(m, "esc")
	if m.wideForm() {
		t.Error("the form layer stayed after esc")
	}
}

// i on a prompt opens its details: the description whole (a row shows its
// first line, cut) and each argument's.
func TestPromptDetailsShowTheDescriptionWhole(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	m.prompts.SetGate(panes.Gate{OK: true}, false)
	long := "Orchestrates a full git wrap-up: loads the project-aware acceptance-criteria protocol, analyzes changes, and tags the release."
	m.prompts.SetPage([]json.RawMessage{json.RawMessage(`{"name":"git_wrapup","description":"` + long + `\nSecond line.","arguments":[{"name":"createTag","description":"Whether to tag ('true' | 'false')."}]}`)}, true, "")
	press(m, "5")
	if strings.Contains(ansi.Strip(content(m)), "Second line.") {
		t.Fatal("the row already shows the whole description; the test proves nothing")
	}
	press(m, "i")
	if m.modal != modalContent {
		t.Fatalf("i opened nothing (modal %v)", m.modal)
	}
	for _, r := range strings.Split(ansi.Strip(content(m)), "\n") {
		if strings.Contains(r, "release.") && !strings.HasPrefix(r, "│  ") {
			t.Errorf("a folded description row is not under its first: %q", r)
		}
	}
	screen := strings.Join(strings.Fields(strings.ReplaceAll(ansi.Strip(content(m)), "│", " ")), " ")
	for _, want := range []string{long, "Second line.", "createTag optional", "Whether to tag ('true' | 'false')."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the prompt's details lack %q:\n%s", want, screen)
		}
	}
}

// A JSON resource (git-mcp-server's git://working-directory,
// application/json) is indented as a tool's JSON text is, not one cut
// line; v shows the response frame as sent, and v again the indented view.
func TestJSONResourceIsIndentedAndVShowsItAsSent(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	result := json.RawMessage(`{"contents":[{"uri":"git://working-directory","mimeType":"application/json","text":"{\"workingDirectory\":\"/home/me/project/repo\",\"isGitRepo\":true,\"branch\":\"main\"}"}]}`)
	frame := &mcp.Frame{Seq: 9, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "9", Raw: []byte(`{"jsonrpc":"2.0","id":9,"result":` + string(result) + `}`)}
	op := session.Op{ID: 80, Kind: session.KindRead, Method: mcp.MethodResourcesRead, Label: "resources/read git://working-directory"}
	feed(m, []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusOK, Frame: frame, Result: &session.ReadResult{URI: "git://working-directory", Raw: result}}})
	screen := ansi.Strip(content(m))
	for _, want := range []string{`  "workingDirectory": "/home/me/project/repo",`, `  "isGitRepo": true,`, "v shows the response as sent"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the resource view lacks %q:\n%s", want, screen)
		}
	}
	press(m, "v")
	screen = ansi.Strip(content(m))
	if !strings.Contains(screen, `{"jsonrpc":"2.0","id":9,"result":{"contents"`) || !strings.Contains(screen, "as sent") {
		t.Errorf("v did not show the response as sent:\n%s", screen)
	}
	press(m, "v")
	if screen = ansi.Strip(content(m)); !strings.Contains(screen, `  "isGitRepo": true,`) {
		t.Errorf("v again did not come back to the indented view:\n%s", screen)
	}
}
