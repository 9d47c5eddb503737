//go:build unix

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// orphanServer is a server run as `sh -c`: the shell ignores SIGTERM, its
// child (sleep) too, and it never answers; it writes both pids to a file,
// what it reads to that file's name plus ".in", and waits for its child,
// whatever its stdin does.
const orphanServer = `trap '' TERM
(trap '' TERM; exec sleep 300) &
echo "$$ $!" > "$1"
cat > "$1.in"
wait`

// alive reports whether pid runs (a zombie waiting to be reaped does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// sigkillLeavesNothing starts mcpscope with args (ending in the server's
// command), waits until the server and its child run and the server has
// its first message, SIGKILLs mcpscope and wants neither left 2 s later.
//
// The first message is the moment from which nothing may be left: the
// guard learns of the server's process group as soon as the server is
// exec'd, before anything is written to it, but a server can write its
// pid file in the microseconds between the two, which no user's kill
// lands in and no start without a debugger's stop could close.
func sigkillLeavesNothing(t *testing.T, stdin bool, args ...string) {
	t.Helper()
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	args = append(args, "sh", "-c", orphanServer, "sh", pidFile)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var out bytes.Buffer
	var clientIn *os.File
	cmd.Stdout, cmd.Stderr = &out, &out
	if stdin {
		// The tap's client: it keeps the tap's stdin open and sends one
		// message.
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = w.Close() }()
		clientIn = w
		cmd.Stdin = r
		defer func() { _ = r.Close() }()
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	t.Cleanup(func() {
		for _, p := range pids {
			_ = syscall.Kill(-p, syscall.SIGKILL)
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if stdin {
		// The client's first message, which the tap passes on.
		if _, err := clientIn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	// The server writes its pids first, then what it reads.
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(pidFile)
		in, _ := os.ReadFile(pidFile + ".in")
		if err == nil && bytes.HasSuffix(b, []byte("\n")) && len(in) > 0 {
			for _, f := range strings.Fields(string(b)) {
				p, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("pid file %q", b)
				}
				pids = append(pids, p)
			}
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the server never started and got its first message (pids %q, read %q):\n%s", b, in, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	for {
		var left []string
		for _, p := range pids {
			if alive(p) {
				left = append(left, strconv.Itoa(p))
			}
		}
		if len(left) == 0 {
			t.Logf("all gone %v after the SIGKILL", time.Since(killed).Round(time.Millisecond))
			return
		}
		if time.Since(killed) > 2*time.Second {
			t.Fatalf("2 s after mcpscope was SIGKILLed, processes %s of its server still run (the shell %d, its child %d)",
				strings.Join(left, ", "), pids[0], pids[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A SIGKILLed call leaves nothing of its server: not the `sh -c` that
// ignores SIGTERM, not its child that ignores it too.
func TestSIGKILLedCallLeavesNoProcess(t *testing.T) {
	t.Parallel()
	sigkillLeavesNothing(t, false, "call", "--method", "tools/list", "--timeout", "60s", "--")
}

// The same for the stdio tap, its client still connected.
func TestSIGKILLedTapLeavesNoProcess(t *testing.T) {
	t.Parallel()
	sigkillLeavesNothing(t, true, "tap", "--")
}
