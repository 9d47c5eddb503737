//go:build unix

package tap

import (
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A signal the tap receives reaches the server (SIGUSR1 has no Windows
// counterpart, hence its own file).
func TestStdioTapForwardsSignals(t *testing.T) {
	privateDirs(t)
	sigs := make(chan os.Signal, 1)
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	var stderr syncBuffer
	done := make(chan *Outcome, 1)
	go func() {
		out, _ := RunStdio(context.Background(), StdioOptions{Command: "sh", Args: []string{"-c", `trap 'echo got USR1 >&2; exit 5' USR1; echo ready >&2; while :; do sleep 0.02; done`},
			Stdin: inR, Stdout: io.Discard, Stderr: &stderr, Signals: sigs})
		done <- out
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stderr.String(), "ready") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	sigs <- syscall.SIGUSR1
	select {
	case out := <-done:
		if out.Code != 5 || !strings.Contains(stderr.String(), "got USR1") {
			t.Fatalf("code %d stderr %q", out.Code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the forwarded signal did not end the server")
	}
}
