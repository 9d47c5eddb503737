package termimage

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/charmbracelet/x/ansi/sixel"
)

func env(tmux string) func(string) string { return envWith(tmux, "") }

func envWith(tmux, termProgram string) func(string) string {
	return func(k string) string {
		switch k {
		case "TMUX":
			return tmux
		case "TERM_PROGRAM":
			return termProgram
		}
		return ""
	}
}

// The terminal's answers pick the protocol, the first that works of
// kitty, iTerm2, sixel and half-blocks; the primary device attributes,
// which every terminal sends, end the wait.
func TestDetectorReadsTheTerminalsAnswers(t *testing.T) {
	okKitty := uv.KittyGraphicsEvent{Options: kitty.Options{ID: 31}, Payload: []byte("OK")}
	da1, da1Sixel := uv.PrimaryDeviceAttributesEvent{62, 22}, uv.PrimaryDeviceAttributesEvent{62, 4, 22}
	open, closed := passthroughMsg{on: true}, passthroughMsg{on: false}
	cases := []struct {
		name, mode, tmux, termProgram string
		msgs                          []tea.Msg
		want                          Protocol
		wrap                          bool
	}{
		{"kitty answers", "auto", "", "", []tea.Msg{okKitty, da1}, Kitty, false},
		{"kitty says no", "auto", "", "", []tea.Msg{uv.KittyGraphicsEvent{Options: kitty.Options{ID: 31}, Payload: []byte("ENOTSUPPORTED")}, uv.PrimaryDeviceAttributesEvent{62}}, Blocks, false},
		{"silence, then DA1 with sixel", "auto", "", "", []tea.Msg{tea.TerminalVersionMsg{Name: "foot(1.16)"}, da1Sixel}, Sixel, false},
		{"DA1 without sixel", "auto", "", "", []tea.Msg{tea.TerminalVersionMsg{Name: "XTerm(390)"}, da1}, Blocks, false},
		{"iTerm2 by XTVERSION", "auto", "", "", []tea.Msg{tea.TerminalVersionMsg{Name: "iTerm2 3.5.4"}, da1Sixel}, ITerm2, false},
		{"iTerm2 by TERM_PROGRAM", "auto", "", "iTerm.app", []tea.Msg{da1}, ITerm2, false},
		{"WezTerm: iTerm2 before sixel", "auto", "", "", []tea.Msg{tea.TerminalVersionMsg{Name: "WezTerm 20240203"}, da1Sixel}, ITerm2, false},
		{"WezTerm with kitty on: kitty first", "auto", "", "WezTerm", []tea.Msg{okKitty, tea.TerminalVersionMsg{Name: "WezTerm 20240203"}, da1Sixel}, Kitty, false},
		{"another image's answer", "auto", "", "", []tea.Msg{uv.KittyGraphicsEvent{Options: kitty.Options{ID: 7}, Payload: []byte("OK")}, uv.PrimaryDeviceAttributesEvent{62}}, Blocks, false},
		{"tmux without passthrough", "auto", "/tmp/tmux-0/default,1,0", "", []tea.Msg{closed, da1}, Blocks, false},
		{"tmux drawing sixel itself", "auto", "x", "", []tea.Msg{closed, da1Sixel}, Sixel, false},
		{"tmux with passthrough", "auto", "/tmp/tmux-0/default,1,0", "", []tea.Msg{open, okKitty, uv.PrimaryDeviceAttributesEvent{62}}, Kitty, true},
		{"tmux in kitty, the query kept by tmux", "auto", "x", "", []tea.Msg{passthroughMsg{on: true, outerTerm: "xterm-kitty"}, uv.PrimaryDeviceAttributesEvent{62}}, Kitty, true},
		{"tmux in kitty without passthrough", "auto", "x", "", []tea.Msg{passthroughMsg{on: false, outerTerm: "xterm-kitty"}, da1}, Blocks, false},
		{"tmux in iTerm2", "auto", "x", "tmux", []tea.Msg{passthroughMsg{on: true, outerTerm: "xterm-256color", outerType: "iTerm2 3.5.4"}, tea.TerminalVersionMsg{Name: "tmux 3.4"}, da1}, ITerm2, true},
		{"tmux in iTerm2 without passthrough", "auto", "x", "", []tea.Msg{passthroughMsg{on: false, outerType: "iTerm2 3.5.4"}, da1}, Blocks, false},
		{"tmux in xterm", "auto", "x", "", []tea.Msg{passthroughMsg{on: true, outerTerm: "xterm-256color"}, uv.PrimaryDeviceAttributesEvent{62}}, Blocks, true},
		{"kitty forced", "kitty", "", "", []tea.Msg{uv.PrimaryDeviceAttributesEvent{62}}, Kitty, false},
		{"kitty forced in a closed tmux", "kitty", "x", "", []tea.Msg{closed, da1}, Blocks, false},
		{"iterm2 forced", "iterm2", "", "", []tea.Msg{da1Sixel}, ITerm2, false},
		{"iterm2 forced in a closed tmux", "iterm2", "x", "", []tea.Msg{closed, da1}, Blocks, false},
		{"sixel forced", "sixel", "", "", []tea.Msg{okKitty, da1}, Sixel, false},
		{"sixel forced in a closed tmux", "sixel", "x", "", []tea.Msg{closed, da1}, Sixel, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDetector(c.mode, envWith(c.tmux, c.termProgram))
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

// The cell size the terminal reports sizes sixel images; nonsense is
// ignored.
func TestCellSizeFromTheTerminal(t *testing.T) {
	d := NewDetector("auto", env(""))
	d.Start()
	d.Update(uv.CellSizeEvent{Width: 9, Height: 18})
	if _, done := d.Update(uv.PrimaryDeviceAttributesEvent{62, 4}); !done {
		t.Fatal("DA1 did not end the detection")
	}
	if w, h := d.CellSize(); w != 9 || h != 18 {
		t.Fatalf("cell %dx%d", w, h)
	}
	s := NewScreen(Sixel)
	s.SetCellSize(d.CellSize())
	s.SetCellSize(0, 0)
	s.SetCellSize(5000, 18)
	img := &Image{Thumb: knownImage(40, 40), Width: 40, Height: 40}
	s.Place(frameWith(s.Reserve(s.NewID(), img, 2, 1, true), 1, 0, 20, 3), time.Unix(1, 0))
	seq, err := s.Draw()
	if err != nil {
		t.Fatal(err)
	}
	steps := drawSteps(t, seq)
	got, err := (&sixel.Decoder{}).Decode(bytes.NewReader(steps[2].data))
	if err != nil {
		t.Fatal(err)
	}
	if b := got.Bounds(); b.Dx() != 18 || b.Dy() != 18 {
		t.Fatalf("a 2×1-cell sixel of %v pixels, want 18×18", b)
	}
}
