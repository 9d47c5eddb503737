// Package clipboard decides where a copy goes and says where it went.
//
// A terminal program copies by OSC 52: it writes an escape sequence and
// the terminal puts the text on the clipboard. That works over SSH, needs
// no tool, and is what mcpscope does by default. Inside tmux it works only
// when tmux passes the sequence on (set-clipboard on); with tmux's default
// (external) or off the sequence is swallowed and nothing says so. There
// the copy goes to the system clipboard instead (wl-copy, xclip, xsel,
// pbcopy, clip.exe, through github.com/atotto/clipboard), or, without one,
// to tmux's own paste buffer. Copy runs programs (tmux, the clipboard
// tool): call it from a tea.Cmd, never from Update.
package clipboard

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/atotto/clipboard"
)

// Via is where a copy went.
type Via uint8

// The places a copy can go.
const (
	// OSC52: the caller writes the sequence (tea.SetClipboard); the
	// terminal carries it out and never says whether it did.
	OSC52 Via = iota
	// System: the system clipboard, written by Tool.
	System
	// TmuxBuffer: tmux's paste buffer (prefix ] pastes it).
	TmuxBuffer
)

// Result says where a copy went, in words a status line can use.
type Result struct {
	Via  Via
	Tool string // the program that wrote the system clipboard (xclip), for System
	// Why says why OSC 52 was not used, or why it may not arrive ("tmux
	// set-clipboard is external"); "" when there is nothing to say.
	Why string
}

// Where is the place a copy went, as the end of "copied X, N B, ...":
// "to the system clipboard (xclip)", "via OSC 52 (the terminal)".
func (r Result) Where() string {
	switch r.Via {
	case System:
		return "to the system clipboard (" + r.Tool + ")"
	case TmuxBuffer:
		return "to tmux's paste buffer (prefix ] pastes)"
	}
	return "via OSC 52 (the terminal)"
}

// Router decides where copies go. Its fields are what it asks of the
// system; the zero value asks nothing and copies by OSC 52, and Default
// asks the real one.
type Router struct {
	// Getenv reads the environment (TMUX tells tmux apart).
	Getenv func(string) string
	// Run runs a program with stdin and returns its standard output
	// (tmux show, tmux load-buffer).
	Run func(ctx context.Context, stdin string, name string, args ...string) (string, error)
	// System writes the system clipboard and names the tool that did;
	// nil when there is none.
	System func(text string) (tool string, err error)
}

// Default is the router of the running system: the process's
// environment, real programs, and the system clipboard through
// github.com/atotto/clipboard.
func Default() *Router {
	return &Router{Getenv: os.Getenv, Run: run, System: writeSystem}
}

// tmuxTimeout bounds each tmux command: a copy must not hang on a tmux
// server that does not answer.
const tmuxTimeout = 2 * time.Second

// Copy puts text where it will arrive. For OSC52 it writes nothing: the
// caller sends the sequence. Outside tmux that is always the answer (a
// terminal that refuses OSC 52 cannot be detected); inside tmux with
// set-clipboard on too. Otherwise the system clipboard, then tmux's
// buffer; when both fail, OSC 52 with why it may not arrive.
func (r *Router) Copy(ctx context.Context, text string) Result {
	if r == nil || r.Getenv == nil || r.Getenv("TMUX") == "" || r.Run == nil {
		return Result{Via: OSC52}
	}
	qctx, cancel := context.WithTimeout(ctx, tmuxTimeout)
	setting, err := r.Run(qctx, "", "tmux", "show-options", "-gv", "set-clipboard")
	cancel()
	setting = strings.TrimSpace(setting)
	if err == nil && setting == "on" {
		return Result{Via: OSC52}
	}
	why := "tmux passes OSC 52 on only with set-clipboard on"
	if err == nil && setting != "" {
		why = fmt.Sprintf("tmux set-clipboard is %s", setting)
	}
	var failed []string
	if r.System != nil {
		tool, err := r.system(ctx, text)
		if err == nil {
			return Result{Via: System, Tool: tool, Why: why}
		}
		failed = append(failed, err.Error())
	}
	bctx, cancel := context.WithTimeout(ctx, tmuxTimeout)
	defer cancel()
	_, err = r.Run(bctx, text, "tmux", "load-buffer", "-")
	if err == nil {
		return Result{Via: TmuxBuffer, Why: why}
	}
	failed = append(failed, err.Error())
	return Result{Via: OSC52, Why: why + "; " + strings.Join(failed, "; ")}
}

// system writes the system clipboard, giving up after systemTimeout: a
// clipboard tool that hangs (waiting for a display that never answers)
// must not hold the copy up; it is left to finish or fail on its own.
func (r *Router) system(ctx context.Context, text string) (string, error) {
	type outcome struct {
		tool string
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		tool, err := r.System(text)
		done <- outcome{tool, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, systemTimeout)
	defer cancel()
	select {
	case o := <-done:
		return o.tool, o.err
	case <-ctx.Done():
		return "", fmt.Errorf("the clipboard tool did not finish within %s", systemTimeout)
	}
}

// systemTimeout bounds a write of the system clipboard.
const systemTimeout = 3 * time.Second

func run(ctx context.Context, stdin string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return string(out), nil
}

// writeSystem writes the system clipboard through atotto/clipboard and
// names the tool it used.
func writeSystem(text string) (string, error) {
	if clipboard.Unsupported {
		return "", fmt.Errorf("no clipboard tool (wl-copy, xclip, xsel, clip.exe) found")
	}
	if err := clipboard.WriteAll(text); err != nil {
		return "", err
	}
	return systemTool(runtime.GOOS, os.Getenv, exec.LookPath), nil
}

// systemTool names the program atotto/clipboard writes with. atotto
// chooses it once, at start, and does not say which, so this follows its
// order (clipboard_unix.go in v0.1.4): wl-copy under Wayland (with
// wl-paste), xclip, xsel, termux-clipboard-set, clip.exe (WSL);
// pbcopy on macOS; the Windows clipboard on Windows.
func systemTool(goos string, getenv func(string) string, lookPath func(string) (string, error)) string {
	switch goos {
	case "darwin":
		return "pbcopy"
	case "windows":
		return "the Windows clipboard"
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, err := lookPath(n); err != nil {
				return false
			}
		}
		return true
	}
	switch {
	case getenv("WAYLAND_DISPLAY") != "" && has("wl-copy", "wl-paste"):
		return "wl-copy"
	case has("xclip"):
		return "xclip"
	case has("xsel"):
		return "xsel"
	case has("termux-clipboard-set", "termux-clipboard-get"):
		return "termux-clipboard-set"
	case has("clip.exe", "powershell.exe"):
		return "clip.exe"
	}
	return "the system's clipboard tool"
}
