//go:build unix

package child

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func startGroup(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		Ended(cmd)
	})
	return cmd
}

// A guard someone killed is replaced at the next start, and the new one
// watches every group still running.
func TestGuardKilledIsReplaced(t *testing.T) {
	startGroup(t)
	first := GuardPID()
	if first == 0 {
		t.Fatal("no guard after a group was started")
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Its input ends up broken: the next start writes to a reader gone.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(first, 0) == nil && time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(first, &ws, syscall.WNOHANG, nil)
		time.Sleep(10 * time.Millisecond)
	}
	startGroup(t)
	if second := GuardPID(); second == 0 || second == first {
		t.Fatalf("guard %d after %d was killed", second, first)
	}
	guard.mu.Lock()
	n := len(guard.groups)
	guard.mu.Unlock()
	if n < 2 {
		t.Fatalf("the new guard watches %d groups, want both", n)
	}
}
