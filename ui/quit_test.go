package ui

import (
	"bytes"
	"os"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// Quitting takes less than a second whatever the server does: this one
// stops reading stdin after the handshake (so a request is stuck in its
// write), ignores stdin's end and ignores SIGTERM, and the transport keeps
// its default grace periods (2 s each) as the real TUI does.
func TestQuitWithinOneSecond(t *testing.T) {
	newClient := func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], Env: []string{mcptest.EnvVar + "=deaf,ignore-term"}}
		return mcp.NewClient(tr, mcp.Options{Discover: true})
	}
	tm := teatest.NewTestModel(t, New(Config{Theme: "dark", Target: "deaf", NewClient: newClient}), teatest.WithInitialTermSize(120, 35))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("ready"))
	}, teatest.WithDuration(10*time.Second))
	time.Sleep(200 * time.Millisecond) // tools/list is now waiting for an answer that never comes
	start := time.Now()
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	m := tm.FinalModel(t).(*Model)
	m.Close()
	elapsed := time.Since(start)
	t.Logf("quit took %s", elapsed.Round(time.Millisecond))
	if elapsed > time.Second {
		t.Fatalf("quitting took %s; want under 1 s", elapsed)
	}
}
