package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
)

// A --record file that cannot be written is said while the TUI runs: a
// row in the log and the status line, through Config.Notices, whatever
// the source is doing.
func TestNoticeIsALogRowAndTheStatusLine(t *testing.T) {
	ch := make(chan mcp.TransportEvent, 1)
	m := New(Config{Target: "test server", Notices: ch})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	ch <- mcp.TransportEvent{Time: time.Now(), Kind: "record", Summary: "recording stopped (no space left on device): s.jsonl ends here",
		Err: errors.New("write s.jsonl: no space left on device")}
	msg := waitForNotice(m.cfg.Notices)()
	_, next := m.Update(msg)
	if next == nil {
		t.Error("the notices' pump was not re-armed")
	}
	screen := screenOf(m)
	if !strings.Contains(screen, "⇄ record recording stopped") {
		t.Fatalf("no row says the recording stopped:\n%s", screen)
	}
	lines := strings.Split(screen, "\n")
	status := ""
	for _, l := range lines {
		if strings.Contains(l, "no space left") {
			status = l
		}
	}
	if status == "" {
		t.Errorf("the status line does not name the failed write:\n%s", screen)
	}
	if waitForNotice(nil) != nil {
		t.Error("no notices channel still starts a pump")
	}
}
