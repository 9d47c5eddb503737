package termimage

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi/kitty"
)

func env(tmux string) func(string) string {
	return func(k string) string {
		if k == "TMUX" {
			return tmux
		}
		return ""
	}
}

// The terminal's answers pick the protocol; the primary device
// attributes, which every terminal sends, end the wait.
func TestDetectorReadsTheTerminalsAnswers(t *testing.T) {
	okKitty := uv.KittyGraphicsEvent{Options: kitty.Options{ID: 31}, Payload: []byte("OK")}
	cases := []struct {
		name, mode, tmux string
		msgs             []tea.Msg
		want             Protocol
		wrap             bool
	}{
		{"kitty answers", "auto", "", []tea.Msg{okKitty, uv.PrimaryDeviceAttributesEvent{62, 22}}, Kitty, false},
		{"kitty says no", "auto", "", []tea.Msg{uv.KittyGraphicsEvent{Options: kitty.Options{ID: 31}, Payload: []byte("ENOTSUPPORTED")}, uv.PrimaryDeviceAttributesEvent{62}}, Blocks, false},
		{"silence, then DA1 with sixel", "auto", "", []tea.Msg{tea.TerminalVersionMsg{Name: "foot(1.16)"}, uv.PrimaryDeviceAttributesEvent{62, 4}}, Blocks, false},
		{"another image's answer", "auto", "", []tea.Msg{uv.KittyGraphicsEvent{Options: kitty.Options{ID: 7}, Payload: []byte("OK")}, uv.PrimaryDeviceAttributesEvent{62}}, Blocks, false},
		{"tmux without passthrough", "auto", "/tmp/tmux-0/default,1,0", []tea.Msg{passthroughMsg{on: false}}, Blocks, false},
		{"tmux with passthrough", "auto", "/tmp/tmux-0/default,1,0", []tea.Msg{passthroughMsg{on: true}, okKitty, uv.PrimaryDeviceAttributesEvent{62}}, Kitty, true},
		{"tmux in kitty, the query kept by tmux", "auto", "x", []tea.Msg{passthroughMsg{on: true, outerTerm: "xterm-kitty"}, uv.PrimaryDeviceAttributesEvent{62}}, Kitty, true},
		{"tmux in kitty without passthrough", "auto", "x", []tea.Msg{passthroughMsg{on: false, outerTerm: "xterm-kitty"}}, Blocks, false},
		{"tmux in xterm", "auto", "x", []tea.Msg{passthroughMsg{on: true, outerTerm: "xterm-256color"}, uv.PrimaryDeviceAttributesEvent{62}}, Blocks, true},
		{"kitty forced", "kitty", "", []tea.Msg{uv.PrimaryDeviceAttributesEvent{62}}, Kitty, false},
		{"kitty forced in a closed tmux", "kitty", "x", []tea.Msg{passthroughMsg{on: false}}, Blocks, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDetector(c.mode, env(c.tmux))
			if cmd := d.Start(); cmd == nil {
				t.Fatal("Start asked nothing")
			}
			done := false
			for i, m := range c.msgs {
				_, done = d.Update(m)
				if done != (i == len(c.msgs)-1) {
					t.Fatalf("message %d: done = %v", i, done)
				}
			}
			if d.Protocol() != c.want || d.Tmux() != c.wrap {
				t.Fatalf("got %s (tmux %v), want %s (tmux %v): %s", d.Protocol(), d.Tmux(), c.want, c.wrap, d.Summary())
			}
		})
	}
	for _, mode := range []string{"off", "blocks"} {
		d := NewDetector(mode, env(""))
		if cmd := d.Start(); cmd != nil {
			t.Errorf("%s asks the terminal", mode)
		}
		if _, done := d.Update(uv.PrimaryDeviceAttributesEvent{62}); done {
			t.Errorf("%s: a late answer changes the protocol", mode)
		}
	}
}

// Deleting frees what was sent, once; switching away from kitty deletes
// everything still sent.
func TestScreenDeletesWhatItSent(t *testing.T) {
	s := NewScreen(Kitty)
	img := &Image{Thumb: knownImage(8, 8), Width: 8, Height: 8}
	a, b := s.NewID(), s.NewID()
	if a == b || a>>24 != 0 || b>>24 != 0 {
		t.Fatalf("ids %d %d", a, b)
	}
	for _, id := range []int{a, b} {
		if err := s.Send(id, img, 2, 1); err != nil {
			t.Fatal(err)
		}
	}
	if out := s.Take(); strings.Count(out, "\x1b_G") != 2 || s.Take() != "" {
		t.Fatalf("sent %q", out)
	}
	s.Delete(a, a)
	if out := s.Take(); out != KittyDelete(a, false) {
		t.Fatalf("delete %q", out)
	}
	s.Set(Blocks, false)
	if out := s.Take(); out != KittyDelete(b, false) || s.Live() != 0 {
		t.Fatalf("switching to blocks sent %q, %d live", out, s.Live())
	}
}
