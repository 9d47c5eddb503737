package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// floodThroughPump pushes n notifications through a stream channel as the
// client does (a producer as fast as it can, a buffer of mcp.EventBuffer)
// and drains it as the program does: waitForEvents, Update, View per batch.
// It returns how many batches (and so Views) the flood cost.
func floodThroughPump(m *Model, evs []mcp.Event) (batches int) {
	ch := make(chan mcp.Event, mcp.EventBuffer)
	go func() {
		for _, ev := range evs {
			ch <- ev
		}
		close(ch)
	}()
	for {
		msg := waitForEvents(m.gen, ch)().(eventsMsg)
		m.Update(msg)
		_ = m.View()
		if len(msg.events) > 0 {
			batches++
		}
		if msg.closed {
			return batches
		}
	}
}

// BenchmarkFloodThroughUI is issue 16's flood: 50,000 notifications into
// the real model, counting the Views (full frames) they cost.
func BenchmarkFloodThroughUI(b *testing.B) {
	const n = 50000
	evs := notifications(1, n)
	b.ReportAllocs()
	views := 0
	for b.Loop() {
		m := newTestModel("dark", 120, 35)
		views += floodThroughPump(m, evs)
		if got := m.logPane.Frames(); got != n {
			b.Fatalf("log holds %d frames, want %d", got, n)
		}
	}
	b.ReportMetric(float64(views)/float64(b.N), "views/op")
	b.ReportMetric(float64(n*b.N)/float64(views), "events/view")
}

// The stream's buffer holds a whole batch, so a reader that falls behind
// takes everything waiting at once instead of 64 events per frame.
func TestStreamBufferHoldsAWholeBatch(t *testing.T) {
	if mcp.EventBuffer < maxBatch {
		t.Fatalf("mcp.EventBuffer is %d, smaller than a batch (%d): a flood is drawn every %d events", mcp.EventBuffer, maxBatch, mcp.EventBuffer+1)
	}
	ch := make(chan mcp.Event, mcp.EventBuffer)
	for _, ev := range notifications(1, mcp.EventBuffer) {
		ch <- ev
	}
	close(ch)
	msg := waitForEvents(0, ch)().(eventsMsg)
	if len(msg.events) != maxBatch {
		t.Fatalf("one wait took %d of %d queued events, want %d", len(msg.events), mcp.EventBuffer, maxBatch)
	}
	for i, ev := range msg.events {
		if seq := ev.(mcp.FrameEvent).Frame.Seq; seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: order lost", i, seq)
		}
	}
}

// BenchmarkViewDuringFlood is one frame of a flood: a batch of 2,048
// notifications applied, then View.
func BenchmarkViewDuringFlood(b *testing.B) {
	m := newTestModel("dark", 120, 35)
	feed(m, notifications(1, 10000))
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// The help bar is kept between frames, but follows its keys (focus,
// modals), the size and the theme: what is drawn is always what laying
// it out afresh gives.
func TestHelpBarCacheFollowsKeysSizeAndTheme(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	fresh := func() []string { return m.layoutHelp(m.helpBindings(), m.layout.help.Dy()) }
	check := func(step string) []string {
		t.Helper()
		_ = m.View()
		got, want := m.renderHelp(m.layout.help.Dy()), fresh()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: the help bar drawn is stale:\n got %q\nwant %q", step, got, want)
		}
		if rows := m.helpRows(); rows != m.layoutHelpRows(m.helpBindings()) {
			t.Fatalf("%s: helpRows %d is stale", step, rows)
		}
		return got
	}
	first := check("start")
	press(m, "tab")
	if afterTab := check("after tab"); strings.Join(afterTab, "") == strings.Join(first, "") {
		t.Fatalf("the help bar did not change with focus, so this test proves nothing: %q", afterTab)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	check("after resize to 80x24")
	before := strings.Join(check("before theme"), "")
	m.setTheme(themes.Default(false))
	if after := strings.Join(check("after theme"), ""); after == before {
		t.Fatalf("the help bar kept the dark theme's styles")
	}
}
