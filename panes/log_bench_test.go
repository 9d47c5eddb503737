package panes

import (
	"fmt"
	"testing"
	"time"

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

func BenchmarkLogView(b *testing.B) {
	for _, n := range []int{100, 100000} {
		b.Run(fmt.Sprintf("frames=%d", n), func(b *testing.B) {
			l := logWith(n)
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
	measure := func(n int) float64 {
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
	small, large := measure(100), measure(100000)
	ratio := large / small
	t.Logf("View: 100 frames %.0f ns/op, 100000 frames %.0f ns/op, ratio %.2f", small, large, ratio)
	if ratio > 3 {
		t.Errorf("View with 100,000 frames is %.1f× slower than with 100", ratio)
	}
}
