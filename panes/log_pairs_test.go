package panes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// bigExchange is a tools/list request and an answer of about size bytes
// (just under what is formatted when it opens): many short JSON lines, the
// case where colouring each one costs most.
func bigExchange(size int) OpenExchangeMsg {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":2,"result":{"tools":[`)
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"does thing %d","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}}}}`, i, i)
	}
	b.WriteString(`]}}`)
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	req := &mcp.Frame{Seq: 1, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/list", ID: mcp.ID("2"), Time: at,
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)}
	resp := &mcp.Frame{Seq: 2, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: mcp.ID("2"), Time: at, Latency: 3 * time.Millisecond,
		ReplyTo: 1, ReplyToMethod: "tools/list", Raw: []byte(b.String())}
	return OpenExchangeMsg{Request: req, Response: resp}
}

// BenchmarkOpenExchange is x then enter on a 256 KB answer: the exchange
// formatted and its first screen drawn.
func BenchmarkOpenExchange(b *testing.B) {
	msg := bigExchange(syncFormatLimit)
	th := themes.Default(true)
	c := NewContent(th, keymap.Default())
	c.SetSize(120, 33)
	for b.Loop() {
		c.SetLazy(ExchangeLines(th, msg))
		_ = c.View()
	}
}

// allLines is every line as drawn.
func allLines(l *LazyLines) []string {
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.Line(i)
	}
	return out
}

// Opening a 256 KB exchange (x, enter) or frame lexes the lines on screen,
// not the whole frame: colouring all ten thousand lines of it up front
// took a quarter of a second where formatting it takes a tenth of that.
func TestOpeningABigFrameLexesOnlyWhatIsDrawn(t *testing.T) {
	msg := bigExchange(syncFormatLimit)
	th := themes.Default(true)
	const rows = 35

	c := NewContent(th, keymap.Default())
	c.SetSize(120, rows)
	before := jsonLinesLexed.Load()
	title, lines := ExchangeLines(th, msg)
	c.SetLazy(title, lines)
	first := c.View()
	if lines.Len() < 5000 {
		t.Fatalf("the exchange has %d lines: the test needs a frame of thousands", lines.Len())
	}
	if n := jsonLinesLexed.Load() - before; n > rows {
		t.Errorf("opening the exchange lexed %d of its %d lines; the screen shows %d", n, lines.Len(), rows)
	}
	// Coloured all the same, at the top and at the end.
	if !strings.Contains(first, `"jsonrpc"`) || !strings.Contains(first, "\x1b[") {
		t.Errorf("the first screen is not the coloured JSON:\n%s", first)
	}
	c.Update(press("G"))
	last := lines.Len() - 2
	if want := colorJSON(th, lines.text[last]); lines.Line(last) != want || !strings.Contains(want, "\x1b[") {
		t.Errorf("line %d drawn as %q, want %q", last, lines.Line(last), want)
	}

	d := NewDetail(th, keymap.Default(), nil)
	d.SetSize(120, rows)
	before = jsonLinesLexed.Load()
	if cmd := d.SetFrame(msg.Response); cmd != nil {
		d.Update(cmd())
	}
	_ = d.View()
	if n := jsonLinesLexed.Load() - before; n > rows {
		t.Errorf("opening the frame lexed %d lines; the screen shows %d", n, rows)
	}
}
