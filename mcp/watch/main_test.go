package watch

import (
	"os"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer()
	code := m.Run()
	if code == 0 {
		// The child package's spawner lives as long as the process, on purpose
		// (its thread's end would send SIGTERM to every server it started).
		if err := goleak.Find(goleak.IgnoreTopFunction("github.com/mcpscope/mcpscope/mcp/lib/child.spawn")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}
