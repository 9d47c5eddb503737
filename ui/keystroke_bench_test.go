package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// A typed character must be on screen within a frame (16 ms) of Update
// plus View at 120×35: in the sampling reply and in a tool's form field.
// (61 characters once took about a second to appear.)

func samplingAt120(tb testing.TB) *Model {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	queueAsk(m, "sampling/createMessage", samplingParams)
	_ = m.View()
	return m
}

func toolFormAt120(tb testing.TB) *Model {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	withBookTrip(tb, m)
	press(m, "3", "enter")
	_ = m.View()
	return m
}

var keyX = tea.KeyPressMsg{Code: 'x', Text: "x"}

// keystroke is one typed character, drawn.
func keystroke(m *Model) {
	m.Update(keyX)
	_ = m.View()
}

func BenchmarkSamplingReplyKeystroke(b *testing.B) {
	m := samplingAt120(b)
	b.ReportAllocs()
	for b.Loop() {
		keystroke(m)
	}
}

func BenchmarkToolFormKeystroke(b *testing.B) {
	m := toolFormAt120(b)
	b.ReportAllocs()
	for b.Loop() {
		keystroke(m)
	}
}

// The guard for the benchmarks above: 61 characters (a reply as long as
// the one that was once slow), on screen well inside a frame each. The budget is the frame
// itself; a keystroke takes about a tenth of it (see the benchmarks).
func TestTypedCharacterIsOnScreenWithinAFrame(t *testing.T) {
	for name, open := range map[string]func(testing.TB) *Model{"sampling reply": samplingAt120, "tool form field": toolFormAt120} {
		m := open(t)
		start := time.Now()
		for i := 0; i < 61; i++ {
			keystroke(m)
		}
		// The mean, not the slowest: one keystroke may meet a GC pause or
		// the other packages' tests on a shared machine.
		budget := 16 * time.Millisecond
		if raceEnabled {
			budget *= 10 // the race detector slows this path about tenfold
		}
		if mean := time.Since(start) / 61; mean > budget {
			t.Errorf("%s: a keystroke took %v on average (Update plus View), over %v", name, mean, budget)
		}
	}
	m := samplingAt120(t)
	for i := 0; i < 61; i++ {
		keystroke(m)
	}
	if got := m.ask.Reply(); len(got) != 61 {
		t.Fatalf("the reply holds %d characters, want 61", len(got))
	}
}
