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
		if err := goleak.Find(); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}
