package panes

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// logWith makes a focused 120×35 log holding n notification frames, with
// the cursor mid-way (so the view is not just the tail).
func logWith(n int) *Log {
	l := NewLog(themes.Dark(), keymap.Default())
	l.SetSize(120, 35)
	l.Focus()
	for i := 0; i < n; i++ {
		l.Append(mcp.FrameEvent{Frame: &mcp.Frame{Seq: int64(i + 1), Time: logAt(i), Dir: mcp.Inbound, Kind: mcp.KindNotification,
			Method: "notifications/message", Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)}})
	}
	l.MoveBy(-n / 2)
	return l
}

// logExchangesWith makes a focused 120×35 log of n frames as a Streamable
// HTTP session makes them: tools/call requests (each naming its tool), an
// HTTP exchange row, the answer (every fifth a tool's isError, every
// seventh the server's error), in the exchanges view, with the cursor
// mid-way.
func logExchangesWith(n int) *Log {
	l := NewLog(themes.Dark(), keymap.Default())
	l.SetSize(120, 35)
	l.Focus()
	l.TogglePaired()
	for i := 0; i < n; i += 2 {
		id := fmt.Sprint(i/2 + 1)
		req := &mcp.Frame{Seq: int64(i + 1), Time: logAt(i), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: mcp.ID(id),
			Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)}
		l.Append(mcp.FrameEvent{Frame: req})
		l.Append(mcp.TransportEvent{Time: logAt(i), Kind: "http", Summary: "POST /mcp → 200 text/event-stream 1ms"})
		resp := &mcp.Frame{Seq: int64(i + 2), Time: logAt(i + 1), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: mcp.ID(id),
			ReplyTo: req.Seq, ReplyToMethod: "tools/call", Latency: time.Millisecond,
			Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"Echo: hello"}],"isError":` + fmt.Sprint(i%10 == 0) + `}}`)}
		if i%14 == 0 {
			resp.Kind, resp.ErrorCode, resp.ErrorMessage = mcp.KindErrorResponse, -32603, "boom"
			resp.Raw = []byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"boom"}}`)
		}
		l.Append(mcp.FrameEvent{Frame: resp})
	}
	l.MoveBy(-len(l.shown) / 2)
	return l
}

// logWrappedWith is logWith scrolled sideways by W: rows drawn whole and
// folded by the list.
func logWrappedWith(n int) *Log {
	l := logWith(n)
	l.Update(tea.KeyPressMsg{Code: 'W', Text: "W", Mod: tea.ModShift})
	if !l.list.Wrapping() {
		panic("W did not wrap the log")
	}
	return l
}

func BenchmarkLogView(b *testing.B) {
	views := map[string]func(int) *Log{"frames": logWith, "exchanges": logExchangesWith, "wrapped": logWrappedWith}
	for _, view := range []string{"frames", "exchanges", "wrapped"} {
		for _, n := range []int{100, 100000} {
			b.Run(fmt.Sprintf("%s/frames=%d", view, n), func(b *testing.B) {
				l := views[view](n)
				i := 0
				b.ResetTimer()
				for b.Loop() {
					// Scroll a row each time: a cold row gets styled, as when
					// the log scrolls or frames arrive.
					l.MoveBy(1 - 2*((i/100)%2))
					i++
					_ = l.View()
				}
			})
		}
	}
}

// Switching views re-indexes the log once: a pass over the entries,
// drawing nothing but the rows on screen.
func BenchmarkLogTogglePaired(b *testing.B) {
	l := logExchangesWith(100000)
	for b.Loop() {
		l.TogglePaired()
		_ = l.View()
	}
}

// The log's View costs what is visible, not what is logged: 100,000
// frames render in less than twice the time of 100. The bound in the issue
// is 2×; the assertion allows 3× so a noisy machine does not fail it, while
// a View that walked every entry would be hundreds of times slower.
func TestLogViewCostIndependentOfLength(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	// Each round scrolls one row, so rows are styled as in real use rather
	// than all served from the row cache.
	measure := func(logWith func(int) *Log, n int) float64 {
		l := logWith(n)
		best := 0.0
		for range 5 { // best of five, against scheduler noise
			const views = 200
			start := time.Now()
			for i := range views {
				l.MoveBy(1 - 2*(i/100))
				_ = l.View()
			}
			if ns := float64(time.Since(start).Nanoseconds()) / views; best == 0 || ns < best {
				best = ns
			}
		}
		return best
	}
	for _, view := range []struct {
		name string
		make func(int) *Log
	}{{"frames", logWith}, {"exchanges", logExchangesWith}, {"wrapped", logWrappedWith}} {
		logWith := view.make
		var small, large, ratio float64
		// A second try when the first is over the bound: on a loaded
		// machine one measurement can meet a burst of other work, while
		// a View that walked every entry is slow every time.
		for try := 0; try < 2 && (try == 0 || ratio > 3); try++ {
			small, large = measure(logWith, 100), measure(logWith, 100000)
			ratio = large / small
			t.Logf("%s View: 100 frames %.0f ns/op, 100000 frames %.0f ns/op, ratio %.2f", view.name, small, large, ratio)
		}
		if ratio > 3 {
			t.Errorf("%s: View with 100,000 frames is %.1f× slower than with 100", view.name, ratio)
		}
	}
}
