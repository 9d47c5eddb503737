package ui

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/panes"
)

// pagedScript serves resources in two pages, the second malformed: its
// "resources" is not an array.
var pagedScript = mcptest.Script{
	Capabilities: json.RawMessage(`{"resources":{}}`),
	On: map[string][][]string{
		"resources/list": {
			{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":[{"uri":"demo://one","name":"one"}],"nextCursor":"p2"}}`},
			{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":{"uri":"demo://two"}}}`},
		},
	},
}

// "Load more" on a malformed page says so in the status line: the page is
// never shown as an empty one, and the first page stays.
func TestMalformedPageIsReportedInTheUI(t *testing.T) {
	m := New(Config{Target: "paged", Theme: "dark", NewClient: func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], Env: pagedScript.Env(), Grace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond}
		return mcp.NewClient(tr, mcp.Options{Timeout: 5 * time.Second})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("ready", func() bool { return m.state == mcp.StateReady })
	p.send(panes.ListPageMsg{Method: mcp.MethodResourcesList})
	p.until("the first page", func() bool { return len(m.lists[mcp.MethodResourcesList]) == 1 })
	p.send(panes.ListPageMsg{Method: mcp.MethodResourcesList, Cursor: "p2"})
	p.until("the malformed page reported", func() bool { return strings.Contains(m.note, "not an array") })
	if m.noteOK {
		t.Errorf("the malformed page is reported as a success: %q", m.note)
	}
	if !strings.Contains(m.note, `"p2"`) || !strings.HasPrefix(m.note, mcp.MethodResourcesList) {
		t.Errorf("the note does not say which page of which list: %q", m.note)
	}
	if n := len(m.lists[mcp.MethodResourcesList]); n != 1 {
		t.Errorf("%d resources shown after a malformed page, want the first page's 1", n)
	}
}
