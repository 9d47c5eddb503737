package tap

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/watch"
)

// Test-binary roles besides the fake and demo servers:
//
//	MCPSCOPE_TAP_FLOOD=N         a server that answers the first line with N
//	                             notifications, then waits for stdin's end
//	MCPSCOPE_TAP_STUCK_VIEWER=S  a viewer that connects to hub socket S and
//	                             never reads (killed by the test)
//	MCPSCOPE_TAP_ECHO=1          a server that writes every line back at once
//	MCPSCOPE_TAP_AS_TAP=1        the tap itself: RunStdio on this process's
//	                             stdio, the server's command in the arguments
//	MCPSCOPE_TAP_RELAY=1         a bare relay (the benchmarks' control): the
//	                             server's command in the arguments, its stdio
//	                             copied both ways, nothing recorded
//	MCPSCOPE_TAP_RELOAD=PATH     the tap with hot reload (tap --watch PATH), the
//	                             server's command in the arguments
const (
	floodEnv       = "MCPSCOPE_TAP_FLOOD"
	stuckViewerEnv = "MCPSCOPE_TAP_STUCK_VIEWER"
	echoEnv        = "MCPSCOPE_TAP_ECHO"
	asTapEnv       = "MCPSCOPE_TAP_AS_TAP"
	relayEnv       = "MCPSCOPE_TAP_RELAY"
	reloadTapEnv   = "MCPSCOPE_TAP_RELOAD"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer()
	if os.Getenv(asTapEnv) != "" {
		_ = os.Unsetenv(asTapEnv)
		Lean()
		out, _ := RunStdio(context.Background(), StdioOptions{Name: "bench", Command: os.Args[1], Args: os.Args[2:]})
		os.Exit(out.Code)
	}
	if path, ok := os.LookupEnv(reloadTapEnv); ok {
		_ = os.Unsetenv(reloadTapEnv)
		out, err := RunStdio(context.Background(), StdioOptions{Name: "reload", Command: os.Args[1], Args: os.Args[2:],
			Reload: &ReloadOptions{Watch: watch.Options{Paths: []string{path}}}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(out.Code)
	}
	if code, ok := runHTTPRole(); ok {
		os.Exit(code)
	}
	if os.Getenv(relayEnv) != "" {
		os.Exit(relay(os.Args[1:]))
	}
	if os.Getenv(echoEnv) != "" {
		in := bufio.NewReaderSize(os.Stdin, 64<<10)
		for {
			line, err := in.ReadBytes('\n')
			if len(line) > 0 {
				_, _ = os.Stdout.Write(line)
			}
			if err != nil {
				os.Exit(0)
			}
		}
	}
	if sock, ok := os.LookupEnv(stuckViewerEnv); ok {
		c, err := net.Dial("unix", sock)
		if err != nil {
			os.Exit(2)
		}
		defer func() { _ = c.Close() }()
		fmt.Println("attached")
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if n, ok := os.LookupEnv(floodEnv); ok {
		os.Exit(flood(n))
	}
	os.Exit(m.Run())
}

func flood(arg string) int {
	n, _ := strconv.Atoi(arg)
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadBytes('\n'); err != nil {
		return 1
	}
	for i := 0; i < n; i++ {
		// One write per message, as a server that logs as it goes does.
		_, _ = fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"event %d of a flood"}}`+"\n", i)
	}
	for {
		if _, err := in.ReadBytes('\n'); err != nil {
			return 0
		}
	}
}

// relay starts the server and copies its stdio both ways, as the tap does
// but with nothing else: the least a process in the pipe can cost.
func relay(argv []string) int {
	_ = os.Unsetenv(relayEnv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 2
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 2
	}
	if err := cmd.Start(); err != nil {
		return 2
	}
	go func() {
		_, _ = io.CopyBuffer(in, os.Stdin, make([]byte, copyBuf))
		_ = in.Close()
	}()
	buf := make([]byte, copyBuf)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			_, _ = os.Stdout.Write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	_ = cmd.Wait()
	return cmd.ProcessState.ExitCode()
}
