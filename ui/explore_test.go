package ui

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// wire records every frame a client sends or receives, from OnEvent.
type wire struct {
	mu     sync.Mutex
	frames []*mcp.Frame
}

func (w *wire) observe(ev mcp.Event) {
	if fe, ok := ev.(mcp.FrameEvent); ok {
		w.mu.Lock()
		w.frames = append(w.frames, fe.Frame)
		w.mu.Unlock()
	}
}

// sent returns the raw outbound frames with a method (or the responses we
// sent, for method "").
func (w *wire) sent(kind mcp.Kind, method string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, f := range w.frames {
		if f.Dir == mcp.Outbound && f.Kind == kind && (method == "" || f.Method == method) {
			out = append(out, string(f.Raw))
		}
	}
	return out
}

// program is a small Bubble Tea loop for tests: Cmds run on goroutines and
// their messages come back to Update on the test goroutine, as in a real
// program, so the model is driven against a real server.
type program struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
}

func newProgram(t *testing.T, era mcp.Era, roots []policy.Root) (*program, *wire) {
	t.Helper()
	w := &wire{}
	m := New(Config{Target: "demo", Theme: "dark", Roots: roots, NewClient: func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], Args: []string{"demo-server"}, Grace: 200 * time.Millisecond}
		return mcp.NewClient(tr, mcp.Options{Era: era, Discover: true, OnEvent: w.observe})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the handshake and discovery", func() bool { return m.state == mcp.StateReady && len(m.lists["tools/list"]) > 0 })
	return p, w
}

func (p *program) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				p.run(c)
			}
		default:
			p.msgs <- msg
		}
	}()
}

// until processes messages until cond holds.
func (p *program) until(what string, cond func() bool) {
	p.t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case msg := <-p.msgs:
			_, cmd := p.m.Update(msg)
			p.run(cmd)
		case <-deadline:
			p.t.Fatalf("timed out waiting for %s; screen:\n%s", what, ansi.Strip(p.m.View().Content))
		}
	}
}

func (p *program) send(msg tea.Msg) {
	_, cmd := p.m.Update(msg)
	p.run(cmd)
	p.settle()
}

// settle applies the messages a key's Cmds produce right away (closing a
// modal is a Cmd), so the next key lands where a person's would.
func (p *program) settle() {
	for {
		select {
		case msg := <-p.msgs:
			_, cmd := p.m.Update(msg)
			p.run(cmd)
		case <-time.After(30 * time.Millisecond):
			return
		}
	}
}

func (p *program) keys(keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "space":
			msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		case "backspace":
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		case "right":
			msg = tea.KeyPressMsg{Code: tea.KeyRight}
		case "ctrl+s", "ctrl+d", "ctrl+r", "ctrl+t", "ctrl+y", "ctrl+n", "ctrl+f", "ctrl+o":
			msg = tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
		default:
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		p.send(msg)
	}
}

func eras() []mcp.Era { return []mcp.Era{mcp.EraLegacy, mcp.EraModern} }

// typeText types s one key at a time.
func (p *program) typeText(s string) {
	for _, r := range s {
		p.keys(string(r))
	}
}

// The user answers ask_user's elicitation in the modal's schema form (name
// typed, colour chosen, the subscribe default switched off) and accepts; the
// answer reaches the server (a JSON-RPC response in the legacy era,
// inputResponses on the retried tools/call in the modern era) and the tool
// echoes it. Decline and cancel answer without content.
func TestFlowElicitationAnsweredInModal(t *testing.T) {
	for _, era := range eras() {
		t.Run(era.String(), func(t *testing.T) {
			p, w := newProgram(t, era, nil)
			answered := func() string {
				return strings.Join(append(w.sent(mcp.KindResponse, ""), w.sent(mcp.KindRequest, "tools/call")...), "\n")
			}
			ask := func() {
				t.Helper()
				p.send(panes.CallToolMsg{Name: "ask_user", Args: json.RawMessage(`{"message":"Who are you?"}`)})
				p.until("the elicitation modal", func() bool { return p.m.modal == modalAsk && p.m.ask.Form() != nil })
			}
			ask()
			s := ansi.Strip(p.m.View().Content)
			if !strings.Contains(s, "Who are you?") || !strings.Contains(s, "[x] true") {
				t.Fatalf("the modal does not show the message and the subscribe default:\n%s", s)
			}
			if strings.Contains(s, "q quit") || !strings.Contains(s, "ctrl+c quit") || !strings.Contains(s, "ctrl+d decline") {
				t.Fatalf("the help bar does not show the modal's keys:\n%s", s)
			}
			// Accept is refused while name and colour are missing.
			p.keys("ctrl+s")
			if p.m.modal != modalAsk || strings.Contains(answered(), `"action"`) {
				t.Fatalf("an invalid form was accepted:\n%s", answered())
			}
			p.typeText("quinn") // the first field is edited at once; q types here: it does not quit
			p.keys("tab", "right", "right", "tab", "space", "ctrl+s")
			p.until("the tool result", func() bool { return p.m.modal == modalResult })
			if got := answered(); !strings.Contains(got, `"action":"accept"`) ||
				!strings.Contains(got, `"content":{"name":"quinn","colour":"green","subscribe":false}`) {
				t.Fatalf("no frame carried the answer:\n%s", got)
			}
			if !strings.Contains(p.m.toolStatus, "ask_user ok") {
				t.Fatalf("status %q", p.m.toolStatus)
			}
			for _, c := range []struct{ key, action string }{{"ctrl+d", "decline"}, {"esc", "cancel"}} {
				p.keys("esc")
				before := strings.Count(answered(), `"action":"`+c.action+`"`)
				ask()
				p.keys(c.key)
				p.until("the tool result", func() bool { return p.m.modal == modalResult })
				if n := strings.Count(answered(), `"action":"`+c.action+`"`); n <= before {
					t.Fatalf("%s sent no %s:\n%s", c.key, c.action, answered())
				}
			}
		})
	}
}

// Sampling: the user types the reply and picks a stop reason.
func TestFlowSamplingAnswered(t *testing.T) {
	for _, era := range eras() {
		t.Run(era.String(), func(t *testing.T) {
			p, w := newProgram(t, era, nil)
			p.send(panes.CallToolMsg{Name: "ask_model", Args: json.RawMessage(`{"prompt":"meaning?","max_tokens":5}`)})
			p.until("the sampling modal", func() bool { return p.m.modal == modalAsk && p.m.ask.Method() == "sampling/createMessage" })
			p.m.ask.SetReply("forty-two")
			p.keys("ctrl+t", "ctrl+s")
			p.until("the tool result", func() bool { return p.m.modal == modalResult })
			all := strings.Join(append(w.sent(mcp.KindResponse, ""), w.sent(mcp.KindRequest, "tools/call")...), "\n")
			if !strings.Contains(all, `"text":"forty-two"`) || !strings.Contains(all, `"stopReason":"stopSequence"`) {
				t.Fatalf("the reply frame is missing:\n%s", all)
			}
		})
	}
}

// Roots come from the configuration, are answered without a modal, and an
// edit sends notifications/roots/list_changed (legacy only).
func TestFlowRoots(t *testing.T) {
	for _, era := range eras() {
		t.Run(era.String(), func(t *testing.T) {
			p, w := newProgram(t, era, []policy.Root{{URI: "file:///work", Name: "work"}})
			p.send(panes.CallToolMsg{Name: "list_roots", Args: json.RawMessage(`{}`)})
			p.until("the tool result", func() bool { return p.m.modal == modalResult })
			if s := ansi.Strip(p.m.View().Content); !strings.Contains(s, "file:///work") {
				t.Fatalf("the roots are not in the result:\n%s", s)
			}
			p.keys("esc", "8", "a")
			for _, r := range "/srv" {
				p.keys(string(r))
			}
			p.keys("enter")
			p.until("the edit", func() bool { return len(p.m.roots.List()) == 2 })
			if era == mcp.EraLegacy {
				p.until("list_changed sent", func() bool { return len(w.sent(mcp.KindNotification, "notifications/roots/list_changed")) == 1 })
			} else if n := len(w.sent(mcp.KindNotification, "notifications/roots/list_changed")); n != 0 {
				t.Fatalf("modern era sent roots/list_changed %d time(s)", n)
			}
		})
	}
}

// Progress moves the bar; the cancel key sends notifications/cancelled and
// marks the request cancelled.
func TestFlowProgressAndCancel(t *testing.T) {
	for _, era := range eras() {
		t.Run(era.String(), func(t *testing.T) {
			p, w := newProgram(t, era, nil)
			p.send(panes.CallToolMsg{Name: "slow_count", Args: json.RawMessage(`{"steps":50,"delay_ms":100}`)})
			p.until("progress", func() bool { o := p.m.activity.Running(); return o != nil && o.Notes >= 2 })
			o := p.m.activity.Running()
			if o.Total != 50 || o.Progress < 1 {
				t.Fatalf("progress %g/%g", o.Progress, o.Total)
			}
			if s := ansi.Strip(p.m.View().Content); !strings.Contains(s, "slow_count") || !strings.Contains(s, "/50") {
				t.Fatalf("the status bar shows no bar:\n%s", s)
			}
			p.keys("X")
			p.until("the cancellation", func() bool { return o.Status == panes.OpCancelled })
			c := w.sent(mcp.KindNotification, "notifications/cancelled")
			if len(c) != 1 {
				t.Fatalf("notifications/cancelled sent %d times", len(c))
			}
		})
	}
}

// Resources: read, subscribe (legacy), template with completion; prompts
// with completion and the prompts/get result.
func TestFlowResourcesAndPrompts(t *testing.T) {
	for _, era := range eras() {
		t.Run(era.String(), func(t *testing.T) {
			p, w := newProgram(t, era, nil)
			p.keys("4")
			p.until("resources listed", func() bool { return len(p.m.resources.Resources()) > 0 })
			p.keys("enter")
			p.until("the read result", func() bool { return p.m.modal == modalContent })
			if len(w.sent(mcp.KindRequest, "resources/read")) != 1 {
				t.Fatal("no resources/read sent")
			}
			p.keys("esc", "t", "enter")
			if p.m.resources.Form() == nil {
				t.Fatal("enter on a template opened no form")
			}
			p.until("completion/complete", func() bool { return len(w.sent(mcp.KindRequest, "completion/complete")) > 0 })
			p.keys("esc", "5")
			p.until("prompts listed", func() bool { return len(p.m.prompts.Prompts()) > 0 })
			if !p.m.prompts.Select("greet") {
				t.Fatal("no greet prompt")
			}
			p.keys("enter")
			p.typeText("Ada")
			p.keys("tab", "p")
			f := p.m.prompts.Form()
			p.until("the style suggestions", func() bool { return len(f.Suggestions()) == 1 && f.Suggestions()[0] == "pirate" })
			if got := strings.Join(w.sent(mcp.KindRequest, "completion/complete"), "\n"); !strings.Contains(got, `"ref":{"name":"greet","type":"ref/prompt"}`) ||
				!strings.Contains(got, `"argument":{"name":"style","value":"p"}`) || !strings.Contains(got, `"context":{"arguments":{"name":"Ada"}}`) {
				t.Fatalf("no completion/complete for the typed style:\n%s", got)
			}
			if s := ansi.Strip(p.m.View().Content); !strings.Contains(s, "suggestions for style") || !strings.Contains(s, "▸ pirate") || !strings.Contains(s, "ctrl+y") {
				t.Fatalf("the suggestion is not shown under the form:\n%s", s)
			}
			p.keys("ctrl+y", "ctrl+s")
			p.until("the prompt result", func() bool { return p.m.modal == modalContent })
			if s := ansi.Strip(p.m.View().Content); !strings.Contains(s, "user") || !strings.Contains(s, "Ada") || !strings.Contains(s, "pirate") {
				t.Fatalf("the prompt messages are not shown:\n%s", s)
			}
			if got := strings.Join(w.sent(mcp.KindRequest, "prompts/get"), "\n"); !strings.Contains(got, `"arguments":{"name":"Ada","style":"pirate"}`) {
				t.Fatalf("prompts/get did not carry the form's arguments:\n%s", got)
			}
			if era == mcp.EraLegacy {
				p.keys("esc", "4", "t", "s")
				p.until("subscribed", func() bool { return len(p.m.resources.Subscribed()) == 1 })
				if len(w.sent(mcp.KindRequest, "resources/subscribe")) != 1 {
					t.Fatal("no resources/subscribe sent")
				}
			}
		})
	}
}

// Logging: setLevel in the legacy era, _meta logLevel in the modern era;
// notifications/message lands in the server log.
func TestFlowLogging(t *testing.T) {
	for _, era := range eras() {
		t.Run(era.String(), func(t *testing.T) {
			p, w := newProgram(t, era, nil)
			p.keys("6", "l", "enter") // the picker starts on "info"
			if era == mcp.EraLegacy {
				p.until("setLevel", func() bool { return len(w.sent(mcp.KindRequest, "logging/setLevel")) == 1 })
			}
			p.send(panes.CallToolMsg{Name: "log_burst", Args: json.RawMessage(`{"count":3,"level":"warning"}`)})
			p.until("the log messages", func() bool { return p.m.serverLog.Len() == 3 })
			if era == mcp.EraModern {
				calls := strings.Join(w.sent(mcp.KindRequest, "tools/call"), "\n")
				if !strings.Contains(calls, `"io.modelcontextprotocol/logLevel":"info"`) {
					t.Fatalf("the per-request level is missing:\n%s", calls)
				}
			}
		})
	}
}

// Ping shows the round trip.
func TestFlowPing(t *testing.T) {
	p, w := newProgram(t, mcp.EraLegacy, nil)
	p.keys("P")
	p.until("the ping", func() bool { return strings.HasPrefix(p.m.note, "ping: round trip") })
	if len(w.sent(mcp.KindRequest, "ping")) != 1 {
		t.Fatal("no ping frame")
	}
}

// A re-list after list_changed (coalesced and diffed by the session, see
// mcp/session) is shown: the timeline says what changed and the tools
// pane shows the new list.
func TestListChangedShowsTheDiff(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	feed(m, []mcp.Event{session.ListChangedEvent{Time: at(40), Method: mcp.MethodToolsList, Known: true,
		Items: []json.RawMessage{json.RawMessage(`{"name":"echo","inputSchema":{"type":"object"}}`), json.RawMessage(`{"name":"sum","inputSchema":{"type":"object"}}`)},
		Diff:  session.Diff{Added: []string{"sum"}, Removed: []string{"add"}}}})
	if log := ansi.Strip(m.logPane.View()); !strings.Contains(log, "tools/list changed: added sum; removed add") {
		t.Errorf("no diff in the timeline:\n%s", log)
	}
	if n := len(m.lists[mcp.MethodToolsList]); n != 2 {
		t.Errorf("the model shows %d tools after the re-list, want 2", n)
	}
}

// At 80×24 an open form has many keys, so the help bar takes three rows;
// the modal area (the tools form, drawn over it) must end above them, and
// every row of the help bar must be on screen as renderHelp draws it.
func TestModalLeavesHelpBarVisible(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 35}} {
		m := newTestModel("dark", sz.w, sz.h)
		feed(m, sessionEvents())
		press(m, "3", "enter") // the tools pane, the form of echo
		if !m.toolsWide {
			t.Fatalf("%dx%d: the tools form is not open", sz.w, sz.h)
		}
		l := m.layout
		if l.modal.Max.Y > l.help.Min.Y || l.modal.Min.Y < 1 {
			t.Fatalf("%dx%d: modal rows %d-%d, help bar from row %d", sz.w, sz.h, l.modal.Min.Y, l.modal.Max.Y-1, l.help.Min.Y)
		}
		screen := strings.Split(ansi.Strip(content(m)), "\n")
		help := m.renderHelp(l.help.Dy())
		for i, want := range help {
			if got, want := strings.TrimRight(screen[l.help.Min.Y+i], " "), strings.TrimRight(ansi.Strip(want), " "); got != want {
				t.Fatalf("%dx%d: help row %d is covered:\n got %q\nwant %q", sz.w, sz.h, i, got, want)
			}
		}
		if bar := strings.Join(screen[l.help.Min.Y:], "\n"); !strings.Contains(bar, "ctrl+c quit") || strings.Contains(bar, "q quit") {
			t.Fatalf("%dx%d: the form's help bar does not say that only ctrl+c quits:\n%s", sz.w, sz.h, bar)
		}
	}
}

// In the modern era there is no resources/subscribe: subscribing opens a
// subscriptions/listen stream naming the URI, the server's
// notifications/resources/updated are counted, and unsubscribing ends the
// stream (notifications/cancelled on stdio).
func TestModernSubscriptionListens(t *testing.T) {
	p, w := newProgram(t, mcp.EraModern, nil)
	p.send(panes.SubscribeMsg{URI: "demo://clock", On: true})
	p.until("the listen request", func() bool { return len(w.sent(mcp.KindRequest, "subscriptions/listen")) == 1 })
	listen := w.sent(mcp.KindRequest, "subscriptions/listen")[0]
	if !strings.Contains(listen, `"resourceSubscriptions":["demo://clock"]`) {
		t.Fatalf("listen request: %s", listen)
	}
	if n := len(w.sent(mcp.KindRequest, "resources/subscribe")); n != 0 {
		t.Errorf("the modern era sent resources/subscribe %d times", n)
	}
	p.until("an update of the clock counted", func() bool { return p.m.resources.Updates("demo://clock") >= 1 })
	if got := p.m.resources.Subscribed(); len(got) != 1 {
		t.Errorf("subscribed = %v", got)
	}
	p.send(panes.SubscribeMsg{URI: "demo://clock", On: false})
	p.until("the listen stream cancelled", func() bool {
		return strings.Contains(strings.Join(w.sent(mcp.KindNotification, "notifications/cancelled"), ""), `"requestId"`)
	})
	// The pane hears that the subscription ended through the session's
	// events, which may come a moment after the cancellation is written:
	// waiting for the frame alone failed about once in a loaded CI run.
	p.until("the subscription gone from the resources pane", func() bool { return len(p.m.resources.Subscribed()) == 0 })
}

// Every key of the focused context is in the help bar, even for the schema
// form's many keys at 80×24 (they need four rows there).
func TestEveryFormKeyShownAt80x24(t *testing.T) {
	p, _ := newProgram(t, mcp.EraLegacy, nil)
	p.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	p.keys("3", "/")
	p.typeText("book")
	p.keys("enter", "enter")
	p.until("the book_trip form", func() bool { return strings.Contains(ansi.Strip(p.m.View().Content), "Call book_trip") })
	screen := ansi.Strip(p.m.View().Content)
	for _, b := range p.m.helpBindings() {
		want := b.Help().Key + " " + b.Help().Desc
		if !strings.Contains(screen, want) {
			t.Errorf("the help bar lacks %q:\n%s", want, screen)
		}
	}
}

// A list_changed the session did not follow (the capability was not
// declared) and a notification it could not read are noted in the timeline.
func TestIgnoredListChangedIsNoted(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	feed(m, []mcp.Event{session.ListChangeIgnoredEvent{Time: at(40), Method: mcp.MethodPromptsList, Capability: "prompts"},
		session.UnreadableEvent{Time: at(41), Seq: 9, Method: mcp.NotifyProgress, Err: errors.New("progress is not a number")}})
	log := ansi.Strip(m.logPane.View())
	if !strings.Contains(log, "ignored a list_changed for prompts") {
		t.Errorf("no note of the ignored list_changed in the log:\n%s", log)
	}
	if !strings.Contains(log, "notifications/progress (frame 9) could not be rea") {
		t.Errorf("no note of the unreadable notification in the log:\n%s", log)
	}
}
