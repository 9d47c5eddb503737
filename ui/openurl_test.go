package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
)

// drain runs a command the way the program would, batches included,
// feeding every message back into the model.
func drain(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	// The re-armed ask pump blocks until the next ask: give up on a
	// command that has not returned quickly (it owns only this model's
	// channel, which the test no longer uses).
	out := make(chan tea.Msg, 1)
	go func() { out <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-out:
	case <-time.After(200 * time.Millisecond):
		return
	}
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			drain(m, c)
		}
	case askMsg:
		// The re-armed ask pump: nothing more is queued in these tests.
	default:
		_, next := m.Update(msg)
		drain(m, next)
	}
}

func ctrl(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

func fakeOpener(t *testing.T) *[]string {
	var started []string
	oldO, oldS := openurl.Opener, openurl.Start
	t.Cleanup(func() { openurl.Opener, openurl.Start = oldO, oldS })
	openurl.Opener = func() (string, error) { return "/bin/fake-open", nil }
	openurl.Start = func(_, raw string) error { started = append(started, raw); return nil }
	return &started
}

// Finding 6: ctrl+o on a javascript: or file: URL elicitation opens
// nothing, answers "decline" (not "accept"), and the status line says so.
func TestRefusedURLElicitationDeclines(t *testing.T) {
	started := fakeOpener(t)
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd"} {
		m := newTestModel("dark", 120, 35)
		params, _ := json.Marshal(map[string]string{"mode": "url", "message": "log in", "url": bad, "elicitationId": "e1"})
		a := &pendingAsk{id: 1, ctx: context.Background(), req: &mcp.ServerRequest{Method: "elicitation/create", Params: params}, reply: make(chan askReply, 1)}
		_, cmd := m.Update(askMsg{ask: a})
		drain(m, cmd)
		if m.modal != modalAsk {
			t.Fatalf("%s: the modal did not open", bad)
		}
		_, cmd = m.Update(ctrl('o'))
		drain(m, cmd)
		select {
		case r := <-a.reply:
			if !strings.Contains(string(r.result), `"decline"`) {
				t.Errorf("%s: answered %s, want decline", bad, r.result)
			}
		default:
			t.Fatalf("%s: no answer", bad)
		}
		if !strings.Contains(m.note, "declined") || !strings.Contains(m.note, "only http and https") {
			t.Errorf("%s: note %q", bad, m.note)
		}
		if !strings.Contains(content(m), "declined") {
			t.Errorf("%s: the refusal is not on screen", bad)
		}
	}
	if len(*started) != 0 {
		t.Fatalf("opened %q", *started)
	}
}

// Finding 1: the TUI asks before an OAuth authorization URL is opened,
// showing its host; only ctrl+o says yes.
func TestConfirmOpenAsksShowingTheHost(t *testing.T) {
	for _, c := range []struct {
		key  tea.KeyPressMsg
		want bool
	}{{ctrl('o'), true}, {ctrl('d'), false}, {tea.KeyPressMsg{Code: tea.KeyEscape}, false}} {
		m := newTestModel("dark", 120, 35)
		got := make(chan bool, 1)
		go func() {
			ok, _ := m.ConfirmOpen(context.Background(), "https://login.evil.example:8443/authorize?client_id=x")
			got <- ok
		}()
		var a *pendingAsk
		select {
		case a = <-m.asks:
		case <-time.After(2 * time.Second):
			t.Fatal("ConfirmOpen asked nothing")
		}
		_, cmd := m.Update(askMsg{ask: a})
		drain(m, cmd)
		screen := content(m)
		if !strings.Contains(screen, "login.evil.example:8443") || !strings.Contains(screen, "Open the authorization page") {
			t.Fatalf("the confirmation does not show the host:\n%s", screen)
		}
		_, cmd = m.Update(c.key)
		drain(m, cmd)
		select {
		case ok := <-got:
			if ok != c.want {
				t.Errorf("key %v: agreed = %v", c.key, ok)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("key %v: no answer", c.key)
		}
		if m.modal == modalAsk {
			t.Errorf("key %v: the modal stayed open", c.key)
		}
	}
}
