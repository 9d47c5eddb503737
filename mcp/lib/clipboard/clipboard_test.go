package clipboard

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeSystem is a system as the router sees it: an environment, tmux's
// set-clipboard, a clipboard tool that works or not.
type fakeSystem struct {
	tmux      bool
	setting   string // what tmux show-options -gv set-clipboard prints
	tool      string // "" when there is no clipboard tool
	bufferErr error
	ran       []string // the programs run, with their stdin
	copied    string   // what the clipboard tool got
}

func (f *fakeSystem) router() *Router {
	return &Router{
		Getenv: func(k string) string {
			if k == "TMUX" && f.tmux {
				return "/tmp/tmux-1000/default,1,0"
			}
			return ""
		},
		Run: func(_ context.Context, stdin, name string, args ...string) (string, error) {
			f.ran = append(f.ran, strings.Join(append([]string{name}, args...), " ")+" <"+stdin)
			if len(args) > 0 && args[0] == "load-buffer" {
				return "", f.bufferErr
			}
			return f.setting + "\n", nil
		},
		System: func(text string) (string, error) {
			if f.tool == "" {
				return "", errors.New("no clipboard tool")
			}
			f.copied = text
			return f.tool, nil
		},
	}
}

func TestCopyGoesWhereItArrives(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sys   fakeSystem
		via   Via
		where string
		why   string
	}{
		{"outside tmux, the terminal", fakeSystem{tool: "xclip"}, OSC52, "via OSC 52 (the terminal)", ""},
		{"tmux passing OSC 52 on", fakeSystem{tmux: true, setting: "on", tool: "xclip"}, OSC52, "via OSC 52 (the terminal)", ""},
		{"tmux's default swallows it", fakeSystem{tmux: true, setting: "external", tool: "xclip"}, System, "to the system clipboard (xclip)", "tmux set-clipboard is external"},
		{"no clipboard tool: tmux's buffer", fakeSystem{tmux: true, setting: "off"}, TmuxBuffer, "to tmux's paste buffer (prefix ] pastes)", "tmux set-clipboard is off"},
		{"nothing works: OSC 52 and why", fakeSystem{tmux: true, setting: "off", bufferErr: errors.New("tmux: exit status 1")}, OSC52, "via OSC 52 (the terminal)", "tmux set-clipboard is off; no clipboard tool; tmux: exit status 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := tc.sys
			r := sys.router().Copy(context.Background(), "the <text>")
			if r.Via != tc.via || r.Where() != tc.where || r.Why != tc.why {
				t.Errorf("got %+v (%s), want via %d %s, why %q", r, r.Where(), tc.via, tc.where, tc.why)
			}
			if r.Via == System && sys.copied != "the <text>" {
				t.Errorf("the tool got %q", sys.copied)
			}
			if r.Via == TmuxBuffer && (len(sys.ran) != 2 || sys.ran[1] != "tmux load-buffer - <the <text>") {
				t.Errorf("ran %q", sys.ran)
			}
			if !sys.tmux && len(sys.ran) > 0 {
				t.Errorf("outside tmux it ran %q", sys.ran)
			}
		})
	}
	var none *Router
	if r := none.Copy(context.Background(), "x"); r.Via != OSC52 {
		t.Errorf("a nil router: %+v", r)
	}
}

// The tool named is the one atotto/clipboard writes with, in its order.
func TestSystemToolFollowsTheLibrarysOrder(t *testing.T) {
	env := func(wayland bool) func(string) string {
		return func(k string) string {
			if k == "WAYLAND_DISPLAY" && wayland {
				return "wayland-0"
			}
			return ""
		}
	}
	on := func(tools ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, t := range tools {
				if t == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", errors.New("not found")
		}
	}
	for _, tc := range []struct {
		goos    string
		wayland bool
		tools   []string
		want    string
	}{
		{"linux", true, []string{"wl-copy", "wl-paste", "xclip"}, "wl-copy"},
		{"linux", false, []string{"wl-copy", "wl-paste", "xclip"}, "xclip"},
		{"linux", true, []string{"wl-copy", "xsel"}, "xsel"},
		{"linux", false, []string{"clip.exe", "powershell.exe"}, "clip.exe"},
		{"darwin", false, nil, "pbcopy"},
	} {
		if got := systemTool(tc.goos, env(tc.wayland), on(tc.tools...)); got != tc.want {
			t.Errorf("%s wayland=%t %v: %q, want %q", tc.goos, tc.wayland, tc.tools, got, tc.want)
		}
	}
}

// A clipboard tool that hangs does not hold the copy up: tmux's buffer
// takes it.
func TestCopyDoesNotWaitForAHangingTool(t *testing.T) {
	sys := fakeSystem{tmux: true, setting: "off", tool: "xclip"}
	r := sys.router()
	block := make(chan struct{})
	defer close(block)
	r.System = func(string) (string, error) { <-block; return "xclip", nil }
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // already past its time: the wait ends at once
	if got := r.Copy(ctx, "x"); got.Via != TmuxBuffer {
		t.Errorf("got %+v", got)
	}
}
