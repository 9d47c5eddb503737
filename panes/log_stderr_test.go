package panes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// The log holds the last stderrKeepLines stderr lines: older ones leave
// it, one row says how many went and how many bytes, and nothing else
// moves: the cursor stays on its frame, a response that comes after the
// flood still pairs with its request, and every line is either kept or
// counted.
func TestLogKeepsTheLastStderrLines(t *testing.T) {
	l := NewLog(themes.Default(true), keymap.Default())
	l.SetSize(120, 35)
	l.Focus()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := &mcp.Frame{Seq: 1, Time: at, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: "1",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`), Transport: "stdio"}
	l.Append(mcp.FrameEvent{Frame: req})
	if !l.SelectFrame(req) {
		t.Fatal("the request is not in the log")
	}
	const n = 50000
	for i := range n {
		l.Append(mcp.StderrEvent{Time: at, Line: fmt.Sprintf("line %05d", i)})
	}
	l.Append(mcp.StderrEvent{Time: at, Line: "after a flood the server dropped", Dropped: 1000, DroppedBytes: 100000})
	resp := &mcp.Frame{Seq: 2, Time: at, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "1", ReplyTo: 1, ReplyToMethod: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`), Transport: "stdio"}
	l.Append(mcp.FrameEvent{Frame: resp})

	if l.stderrLines > stderrKeepLines+stderrKeepLines/4 || len(l.entries) > stderrKeepLines*2 {
		t.Errorf("the log holds %d stderr lines in %d entries", l.stderrLines, len(l.entries))
	}
	kept, counted := 0, 0
	for i := range l.entries {
		if e := &l.entries[i]; e.kind == entryStderr {
			if d := l.data(e); d.dropped > 0 {
				counted += d.dropped
			} else {
				kept++
			}
		}
	}
	if kept+counted != n+1+1000 || kept != l.stderrLines {
		t.Errorf("%d lines kept and %d counted, of %d (and 1,000 the server dropped)", kept, counted, n+1)
	}
	if f := l.Selected(); f == nil || f.Seq != 1 {
		t.Errorf("the cursor left the request: %v", f)
	}
	if ref := l.indexOf(resp); ref < 0 || l.partner[ref] == 0 || l.store.Frame(int(l.partner[ref]-1)).Seq != 1 {
		t.Error("the response after the flood is not paired with its request")
	}
	s := ansi.Strip(l.View())
	if !strings.Contains(s, "earlier lines dropped (") {
		t.Errorf("no row says lines were dropped:\n%s", s)
	}
	l.Update(logKey("G"))
	if s := ansi.Strip(l.View()); !strings.Contains(s, fmt.Sprintf("line %05d", n-1)) || !strings.Contains(s, "1,000 earlier lines dropped (100.0 kB)") {
		t.Errorf("the last lines, or the server's drop, are not shown:\n%s", s)
	}
}
