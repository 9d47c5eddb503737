package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// badScript is a misbehaving server: a banner on stdout, an initialize
// result whose serverInfo.version is a number, and a list_changed
// notification for a capability it never declared.
var badScript = mcptest.Script{
	Start: []string{"bad server v1 starting"},
	On: map[string][][]string{
		"initialize": {{
			`{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"{{version}}","capabilities":{},"serverInfo":{"name":"bad","version":1}}}`,
		}},
		"notifications/initialized": {{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`}},
	},
}

func badClient() *mcp.Client {
	tr := &mcp.StdioTransport{Command: os.Args[0], Env: badScript.Env(),
		Grace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond}
	return mcp.NewClient(tr, mcp.Options{Timeout: 5 * time.Second, Analyzer: doctor.New(doctor.Options{})})
}

// Detection is live: a diagnostic follows the event that caused it in the
// stream, with nothing between them, and the log row of that frame has its
// badge as soon as the diagnostic is in. (The client queues a frame and its
// diagnostics together, but the pump may take them in two batches: the
// frame ends one, its diagnostic starts the next, a frame apart on screen.)
func TestDiagnosticFollowsItsFrameAndBadgesIt(t *testing.T) {
	c := badClient()
	ch := c.Events()
	m := newTestModel("dark", 120, 35)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = c.Connect(ctx)
		time.Sleep(300 * time.Millisecond) // let the list_changed arrive
		_ = c.Close()
	}()
	var diags, badged int
	var stream []mcp.Event // every event so far, across batches
	for {
		msg := waitForEvents(m.gen, ch)().(eventsMsg)
		m.Update(msg)
		for _, ev := range msg.events {
			stream = append(stream, ev)
			i := len(stream) - 1
			dev, ok := ev.(mcp.DiagnosticEvent)
			if !ok {
				continue
			}
			diags++
			// The cause is the nearest event before it that is not a diagnostic.
			j := i - 1
			for j > 0 {
				if _, isDiag := stream[j].(mcp.DiagnosticEvent); !isDiag {
					break
				}
				j--
			}
			if j < 0 {
				t.Fatalf("diagnostic %s came before any event", dev.Diagnostic.Rule)
			}
			fe, isFrame := stream[j].(mcp.FrameEvent)
			if dev.Diagnostic.Rule != "framing/non-json-stdout" {
				continue
			}
			if !isFrame || len(dev.Diagnostic.Frames) == 0 || dev.Diagnostic.Frames[0] != fe.Frame.Seq {
				t.Fatalf("non-json diagnostic %v not right after its frame (%T)", dev.Diagnostic.Frames, stream[j])
			}
			// The badge is on screen after this very Update.
			if row := ansi.Strip(m.logPane.View()); !strings.Contains(row, "INVALID E") {
				t.Fatalf("the banner's row has no E badge:\n%s", row)
			}
			badged++
		}
		if msg.closed {
			break
		}
	}
	if diags < 2 || badged != 1 {
		t.Fatalf("%d diagnostics, %d badged banner rows; want ≥2 and 1", diags, badged)
	}
	rules := map[string]bool{}
	for _, g := range m.diags.Rules() {
		rules[g] = true
	}
	for _, want := range []string{"framing/non-json-stdout", "capabilities/list-changed-without-capability"} {
		if !rules[want] {
			t.Errorf("rule %s did not fire; got %v", want, m.diags.Rules())
		}
	}
}

// diagEvents is a session with two diagnostics on frames and one on stderr.
func diagEvents() []mcp.Event {
	evs := sessionEvents()
	evs = append(evs,
		mcp.DiagnosticEvent{Time: at(19), Diagnostic: &mcp.Diagnostic{
			Rule: "tools/name-characters", Severity: mcp.SeverityWarning, Frames: []int64{5},
			Message: `tool name "add" is fine but this one is not`, Why: "Some clients reject the tool.",
			Fix: "Use A-Z a-z 0-9 _ - . only.", SpecRef: "server/tools#tool-names"}},
		mcp.DiagnosticEvent{Time: at(19), Diagnostic: &mcp.Diagnostic{
			Rule: "lifecycle/initialize-result-fields", Severity: mcp.SeverityError, Frames: []int64{2},
			Message: "serverInfo.version is a number, not a string", Why: "Strict clients reject the handshake and show no tools.",
			Fix: "Send serverInfo.version as a string.", SpecRef: "basic/lifecycle#initialization"}},
		mcp.StderrEvent{Time: at(20), Line: "\x1b]0;pwned\x07warning"},
		mcp.DiagnosticEvent{Time: at(20), Diagnostic: &mcp.Diagnostic{
			Rule: "security/control-characters", Severity: mcp.SeverityHint,
			Message: "stderr holds terminal control sequences", Why: "They can retitle or corrupt a terminal.",
			Fix: "Strip escapes from log output.", SpecRef: "security"}},
	)
	return evs
}

func TestEnterOnDiagnosticJumpsToItsFrame(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	feed(m, diagEvents())
	press(m, "9")
	if m.focus != focusDiagnostics {
		t.Fatalf("9 focused %v", m.focus)
	}
	// The error rule sorts first; enter opens it, down and enter jump.
	press(m, "enter", "j", "enter")
	if m.modal != modalDetail || m.detail.Frame() == nil || m.detail.Frame().Seq != 2 {
		t.Fatalf("modal %v, detail frame %v; want frame #2", m.modal, m.detail.Frame())
	}
	if f := m.logPane.Selected(); f == nil || f.Seq != 2 || m.focus != focusLog {
		t.Fatalf("log cursor on %v, focus %v; want frame #2 in the log", f, m.focus)
	}
	s := ansi.Strip(content(m))
	for _, want := range []string{"serverInfo.version is a number", "why  Strict clients", "fix  Send serverInfo.version", "spec basic/lifecycle"} {
		if !strings.Contains(s, want) {
			t.Errorf("detail lacks %q:\n%s", want, s)
		}
	}
	// esc closes the detail; the log row carries the badge.
	press(m, "esc")
	if s := ansi.Strip(content(m)); !strings.Contains(s, "resp   E result of initialize") || !strings.Contains(s, "resp   W result of tools/list") {
		t.Errorf("log rows lack the badges:\n%s", s)
	}
	if s := ansi.Strip(content(m)); !strings.Contains(s, "1 error · 1 warning · 1 hint") && !strings.Contains(s, "1E · 1W · 1H") {
		t.Errorf("no count in the header:\n%s", s)
	}
}

// Goldens of the diagnostics pane in the root model at 80×24 and 120×35,
// dark and light, with one rule open.
func TestDiagnosticsPaneGoldens(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 35}} {
			t.Run(fmt.Sprintf("%s/%dx%d", theme, sz.w, sz.h), func(t *testing.T) {
				m := newTestModel(theme, sz.w, sz.h)
				feed(m, diagEvents())
				press(m, "9", "enter", "j")
				v := content(m)
				requireScreen(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)
			})
		}
	}
}

// A command that does not exist: the status bar and the log say so in
// plain words, with the fix, and not as a bare Go error.
func TestFailedConnectionShowsCauseAndFix(t *testing.T) {
	m := New(Config{Theme: "dark", Target: "nope", NewClient: func() *mcp.Client {
		return mcp.NewClient(&mcp.StdioTransport{Command: "mcpscope-no-such-command-xyz"}, mcp.Options{Timeout: 5 * time.Second})
	}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	runUntil(t, m, m.Init(), func() bool { return m.ended && !m.connecting })
	s := ansi.Strip(content(m))
	lines := strings.Split(s, "\n")
	status := lines[len(lines)-1-m.layout.help.Dy()]
	if !strings.Contains(status, `The server command "mcpscope-no-such-command-xyz" was not found`) || !strings.Contains(status, "fix: Install it") {
		t.Errorf("status bar lacks cause and fix: %q", status)
	}
	// The log wraps the explanation over note rows: read them back joined.
	var notes []string
	for _, l := range lines {
		if i := strings.Index(l, "◆ note "); i >= 0 {
			notes = append(notes, strings.TrimSpace(strings.TrimRight(l[i+len("◆ note "):], "│ ")))
		}
	}
	joined := strings.Join(notes, " ")
	for _, want := range []string{"connection failed: The server command \"mcpscope-", "was not found on PATH.", "likely fix: Install it, or give its absolute path"} {
		if !strings.Contains(joined, want) {
			t.Errorf("log lacks %q:\n%s", want, s)
		}
	}
	m.Close()
}
