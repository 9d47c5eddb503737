package tap

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// pipeSizeEnv makes the test binary a server that says on stderr how big
// its stdout pipe is, and ends.
const pipeSizeEnv = "MCPSCOPE_TAP_PIPE_SIZE"

func init() {
	if os.Getenv(pipeSizeEnv) == "" {
		return
	}
	const getPipeSize = 1032 // F_GETPIPE_SZ
	n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, getPipeSize, 0)
	if errno != 0 {
		fmt.Fprintln(os.Stderr, "pipe size:", errno)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "pipe size: %d\n", n)
	os.Exit(0)
}

// The server's stdout pipe is widened, so a flood can run ahead of a copy
// that waits for a CPU.
func TestStdioTapWidensTheServersStdoutPipe(t *testing.T) {
	privateDirs(t)
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if max, _ := strconv.Atoi(strings.TrimSpace(string(b))); max < serverPipeSize {
			t.Skipf("pipes are limited to %d bytes here", max)
		}
	}
	t.Setenv(pipeSizeEnv, "1")
	r := throughTap(t, StdioOptions{Command: os.Args[0]}, nil)
	if want := fmt.Sprintf("pipe size: %d\n", serverPipeSize); r.stderr.String() != want {
		t.Fatalf("the server saw %q, want %q", r.stderr.String(), want)
	}
}
