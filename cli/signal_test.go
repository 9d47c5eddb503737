//go:build unix

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// cliProcess is mcpscope running as a process against the fake server.
type cliProcess struct {
	cmd     *exec.Cmd
	out     bytes.Buffer
	pidFile string
}

// startCLI starts mcpscope with args, its target the fake server with the
// given behaviours.
func startCLI(t *testing.T, behaviours string, args ...string) *cliProcess {
	t.Helper()
	p := &cliProcess{pidFile: filepath.Join(t.TempDir(), "server.pid")}
	args = append(args, "-e", mcptest.EnvVar+"="+behaviours, "-e", mcptest.PIDFileVar+"="+p.pidFile, "--", os.Args[0])
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), asCLIVar+"=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
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
	return p
}

// waitExit waits for mcpscope to end, at most limit; it returns the exit
// code, or fails the test.
func (p *cliProcess) waitExit(t *testing.T, limit time.Duration) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		_ = p.cmd.Wait() // the exit code, read from ProcessState, is what the tests check
		close(done)
	}()
	select {
	case <-done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-done
		t.Fatalf("mcpscope still running after %s; output:\n%s", limit, p.out.String())
		return -1
	}
}

func (p *cliProcess) serverPID() int {
	b, err := os.ReadFile(p.pidFile)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(string(b))
	return pid
}

// serverAlive says whether the server process still exists once mcpscope
// has exited (it would then be an orphan).
func (p *cliProcess) serverAlive() bool {
	pid := p.serverPID()
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

func (p *cliProcess) killServer() {
	if pid := p.serverPID(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitForServer waits until the fake server has started (it writes its
// pid first) and the handshake had time to finish.
func (p *cliProcess) waitForServer(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.serverPID() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the server never started; output:\n%s", p.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
}

// bigToolArgs is a tools/call argument larger than a pipe's buffer (and
// under Linux's 128 kB limit for one command-line argument).
func bigToolArgs() string {
	return `{"message":"` + strings.Repeat("x", 120_000) + `"}`
}

// call --timeout 1s against a server that never reads stdin (and ignores
// SIGTERM) exits 4 within 2 s. It used to run until the server exited. The
// 2 s are counted from the server's start: starting two test binaries on a
// loaded CI machine is not what this measures.
func TestCallTimeoutWhenServerDoesNotRead(t *testing.T) {
	start := time.Now()
	p := startCLI(t, "deaf,ignore-term", "call", "--timeout", "1s", "--method", "tools/call", "--tool-name", "echo", "--no-validate", "--tool-args-json", bigToolArgs())
	serverStarted := make(chan time.Time, 1)
	go func() {
		for p.serverPID() == 0 && time.Since(start) < 10*time.Second {
			time.Sleep(2 * time.Millisecond)
		}
		serverStarted <- time.Now()
	}()
	code := p.waitExit(t, 5*time.Second)
	end := time.Now()
	began := <-serverStarted
	t.Logf("exit %d after %s (%s from the server's start)", code, end.Sub(start).Round(time.Millisecond), end.Sub(began).Round(time.Millisecond))
	if code != exitTimeout {
		t.Errorf("exit code %d, want %d (timeout); output:\n%s", code, exitTimeout, p.out.String())
	}
	if d := end.Sub(began); d > 2*time.Second {
		t.Errorf("took %s from the server's start, want within 2 s", d)
	}
	if p.serverAlive() {
		t.Errorf("the server outlived mcpscope")
	}
}

// SIGTERM and SIGINT (ctrl+c) end call and check within 1 s, whatever the
// server does: here it reads nothing and ignores SIGTERM and SIGINT.
func TestSignalEndsCommandsWithinOneSecond(t *testing.T) {
	commands := map[string][]string{
		"call":      {"call", "--method", "tools/call", "--tool-name", "echo", "--no-validate", "--tool-args-json", bigToolArgs()},
		"call-list": {"call", "--method", "tools/list"},
		"check":     {"check"},
	}
	for name, args := range commands {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(name+"/"+sig.String(), func(t *testing.T) {
				p := startCLI(t, "deaf,ignore-term", args...)
				p.waitForServer(t)
				if p.cmd.ProcessState != nil {
					t.Fatalf("mcpscope ended before the signal; output:\n%s", p.out.String())
				}
				sent := time.Now()
				_ = p.cmd.Process.Signal(sig)
				p.waitExit(t, 5*time.Second)
				elapsed := time.Since(sent)
				t.Logf("ended %s after %s", name, elapsed.Round(time.Millisecond))
				limit := time.Second
				if raceEnabled {
					limit = 3 * time.Second
				}
				if elapsed > limit {
					t.Errorf("%s ended %s after %s; want within %s", name, elapsed, sig, limit)
				}
				if p.serverAlive() {
					t.Errorf("the server outlived mcpscope")
				}
			})
		}
	}
}
