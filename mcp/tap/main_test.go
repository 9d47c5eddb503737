package tap

import (
	"os"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer()
	os.Exit(m.Run())
}
