package tap

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
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
const (
	floodEnv       = "MCPSCOPE_TAP_FLOOD"
	stuckViewerEnv = "MCPSCOPE_TAP_STUCK_VIEWER"
	echoEnv        = "MCPSCOPE_TAP_ECHO"
	asTapEnv       = "MCPSCOPE_TAP_AS_TAP"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer()
	if os.Getenv(asTapEnv) != "" {
		_ = os.Unsetenv(asTapEnv)
		Lean()
		out, _ := RunStdio(context.Background(), StdioOptions{Name: "bench", Command: os.Args[1], Args: os.Args[2:]})
		os.Exit(out.Code)
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
