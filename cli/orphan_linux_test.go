package cli

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// killedLeavesNoServer SIGKILLs mcpscope, which cannot shut its server
// down then, and fails unless the server is gone within a few seconds.
// The server is deaf (it stops reading stdin after the handshake), so the
// closed stdin does not end it: only the parent-death signal can.
func killedLeavesNoServer(t *testing.T, p *cliProcess) {
	t.Helper()
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait() // killed: its status says nothing more
	deadline := time.Now().Add(5 * time.Second)
	for p.serverAlive() {
		if time.Now().After(deadline) {
			t.Fatalf("the server (pid %d) still runs 5 s after mcpscope was killed; output:\n%s", p.serverPID(), p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// call's server (the TUI's is started the same way) ends with mcpscope,
// even when mcpscope is killed with SIGKILL.
func TestKilledCallLeavesNoServer(t *testing.T) {
	p := startCLI(t, "deaf", "call", "--timeout", "60s", "--method", "tools/list")
	p.waitForServer(t)
	if p.cmd.ProcessState != nil {
		t.Fatalf("call ended before it was killed; output:\n%s", p.out.String())
	}
	killedLeavesNoServer(t, p)
}

// A tap killed with SIGKILL (a client that kills its servers so) leaves no
// server behind.
func TestKilledTapLeavesNoServer(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	rt, err := os.MkdirTemp("", "tap") // a socket's path must be short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	p := &cliProcess{pidFile: filepath.Join(t.TempDir(), "server.pid")}
	p.cmd = exec.Command(os.Args[0], "tap", "--name", "killed", "--", "env",
		mcptest.EnvVar+"=deaf", mcptest.PIDFileVar+"="+p.pidFile, os.Args[0])
	p.cmd.Env = append(os.Environ(), asCLIVar+"=1")
	p.cmd.Stderr = &p.out
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
		p.killServer()
	})
	// The handshake, through the tap: the server is deaf after it.
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.Contains(line, `"result"`) {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait() // its stderr is then whole
		t.Fatalf("no answer to initialize through the tap (%v): %q; stderr:\n%s", err, line, p.out.String())
	}
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	p.waitForServer(t)
	killedLeavesNoServer(t, p)
}
