package cli

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/tap"
)

// The viewer's live-session key starts a new mcpscope on what the tap
// watched: a stdio tap's command, run in the directory the tap ran it in
// (here a relative ./srv that exists only there), or an HTTP tap's URL.
// The session's target, run as `mcpscope call`, reaches the same server.
func TestLiveSessionFromATapReachesTheSameServer(t *testing.T) {
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home")) // where taps record
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	rt := filepath.Join(base, "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rt)
	srvDir := filepath.Join(base, "project")
	if err := os.Mkdir(srvDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.Args[0], filepath.Join(srvDir, "srv")); err != nil {
		t.Fatal(err)
	}
	// A client (call) runs its server through a tap, in the project's
	// directory, as a client's config would.
	tapCmd := "cd " + srvDir + " && exec " + os.Args[0] + " tap --name experiment -- env " + mcptest.EnvVar + "= ./srv"
	if out, err, code := runCLI(t, "call", "--method", "tools/list", "-e", asCLIVar+"=1", "--", "sh", "-c", tapCmd); code != exitOK {
		t.Fatalf("call through the tap: exit %d, %v: %s", code, err, out)
	}
	var l tap.Listed
	for deadline := time.Now().Add(10 * time.Second); l.File == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		taps, _ := tap.List()
		for _, c := range taps {
			if c.Name == "experiment" && !c.Live {
				l = c
			}
		}
	}
	if l.File == "" {
		t.Fatal("the tap's capture is not listed")
	}

	live := func(l tap.Listed) (args []string, dir string) {
		t.Helper()
		cmd, err := liveSessionCommand(l, tapsOptions{theme: "dark"})
		if err != nil {
			t.Fatal(err)
		}
		if len(cmd.Args) < 4 || cmd.Args[1] != "--theme" || cmd.Args[2] != "dark" {
			t.Fatalf("the live session runs %q", cmd.Args)
		}
		return cmd.Args[3:], cmd.Dir
	}
	call := func(target []string, dir string) string {
		t.Helper()
		c := exec.Command(os.Args[0], append([]string{"call", "--method", "tools/list"}, target...)...)
		c.Dir = dir
		c.Env = append(os.Environ(), asCLIVar+"=1")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("mcpscope call %q in %s: %v\n%s", target, dir, err, out)
		}
		return string(out)
	}

	target, dir := live(l)
	if dir != srvDir || strings.Join(target, " ") != "-- env "+mcptest.EnvVar+"= ./srv" {
		t.Errorf("the live session would run %q in %q; want the tap's command in %s", target, dir, srvDir)
	}
	if out := call(target, dir); !strings.Contains(out, `"tools"`) {
		t.Errorf("the live session's server did not list its tools:\n%s", out)
	}

	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	target, dir = live(tap.Listed{Info: tap.Info{URL: srv.URL + "/mcp", Transport: "http", File: l.File}})
	if strings.Join(target, " ") != srv.URL+"/mcp" {
		t.Errorf("the live session on an HTTP tap would open %q", target)
	}
	if out := call(target, dir); !strings.Contains(out, `"echo"`) {
		t.Errorf("the live session's server did not list its tools:\n%s", out)
	}

	redacted := tap.Listed{Info: tap.Info{Command: []string{"server", "--url", "https://x.example/?token=[redacted]"}, File: l.File}}
	if _, err := liveSessionCommand(redacted, tapsOptions{theme: "dark"}); err == nil || !strings.Contains(err.Error(), "redacted") {
		t.Errorf("a command with redacted values gave %v", err)
	}

	// A capture opened by its path (mcpscope open FILE) is a file someone
	// may have handed over: its command is not run, its URL is, and a
	// server given after the file is.
	fromFile := tapsOptions{theme: "dark", fromFile: true}
	if _, err := liveSessionCommand(l, fromFile); err == nil || !strings.Contains(err.Error(), "mcpscope open FILE -- env") {
		t.Errorf("the command of a capture opened as a file: %v", err)
	}
	if cmd, err := liveSessionCommand(tap.Listed{Info: tap.Info{URL: srv.URL + "/mcp", Transport: "http", File: l.File}}, fromFile); err != nil || cmd.Args[len(cmd.Args)-1] != srv.URL+"/mcp" {
		t.Errorf("the URL of a capture opened as a file: %v", err)
	}
	fromFile.live = []string{"--", "my-server"}
	if cmd, err := liveSessionCommand(l, fromFile); err != nil || strings.Join(cmd.Args[3:], " ") != "-- my-server" || cmd.Dir != "" {
		t.Errorf("a server given after the file: %v", err)
	}
}
