package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// floodThroughPump pushes n notifications through a stream channel as the
// client does (a producer as fast as it can, a buffer of mcp.EventBuffer)
// and drains it as the program does: waitForEvents, Update and View per
// batch through the Paced wrapper, and the frameMsg it asks for after the
// last batch. It returns how many batches the flood took and how many
// frames were built.
func floodThroughPump(p *Paced, evs []mcp.Event) (batches, builds int) {
	m := p.Model()
	ch := make(chan mcp.Event, mcp.EventBuffer)
	go func() {
		for _, ev := range evs {
			ch <- ev
		}
		close(ch)
	}()
	for {
		msg := waitForEvents(m.gen, ch)().(eventsMsg)
		p.Update(msg)
		_ = p.View()
		if len(msg.events) > 0 {
			batches++
		}
		if msg.closed {
			break
		}
	}
	if p.waiting { // the program would deliver it a pace later
		time.Sleep(p.pace() - time.Since(p.built))
		p.Update(frameMsg{})
		_ = p.View()
	}
	return batches, p.builds
}

// BenchmarkFloodThroughUI is the budget's flood: 50,000 notifications into
// the real model, counting the batches (Updates) and the frames built
// (Views that did work) they cost.
func BenchmarkFloodThroughUI(b *testing.B) {
	const n = 50000
	evs := notifications(1, n)
	b.ReportAllocs()
	batches, builds := 0, 0
	for b.Loop() {
		m := newTestModel("dark", 120, 35)
		nb, nf := floodThroughPump(m.Paced(), evs)
		batches, builds = batches+nb, builds+nf
		if got := m.logPane.Frames(); got != n {
			b.Fatalf("log holds %d frames, want %d", got, n)
		}
	}
	b.ReportMetric(float64(batches)/float64(b.N), "batches/op")
	b.ReportMetric(float64(builds)/float64(b.N), "views/op")
}

// Through the pump and the pace, the last frame built shows every frame
// of the flood, and far fewer frames are built than batches applied.
func TestFloodThroughPumpShowsTheLastFrame(t *testing.T) {
	p := newTestModel("dark", 120, 35).Paced()
	batches, builds := floodThroughPump(p, notifications(1, 20000))
	if !strings.Contains(p.last.Content, "Log · 20000 frames") {
		t.Fatalf("after the flood the frame on screen is not at 20000 frames:\n%s", p.last.Content)
	}
	t.Logf("%d batches, %d frames built", batches, builds)
	if builds < 1 || builds > batches {
		t.Fatalf("%d frames built for %d batches", builds, batches)
	}
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

// sideBySide is lipgloss's join without the measuring: the same bytes for
// the real panes at several sizes, foci and explorer slots, and for blocks
// that do not line up (where it hands over to lipgloss).
func TestSideBySideMatchesLipgloss(t *testing.T) {
	lip := func(left string, right ...string) string {
		return lipgloss.JoinHorizontal(lipgloss.Top, left, lipgloss.JoinVertical(lipgloss.Left, right...))
	}
	checked := 0
	for _, size := range [][2]int{{120, 35}, {100, 30}, {160, 50}, {80, 24}} {
		for _, keys := range [][]string{nil, {"tab"}, {"tab", "tab"}, {"5"}, {"6"}, {"7"}} {
			m := newTestModel("dark", size[0], size[1])
			feed(m, sessionEvents())
			feed(m, notifications(100, 500))
			press(m, keys...)
			_ = m.View()
			if m.layout.tabbed {
				continue
			}
			left, right := m.logPane.View(), []string{m.caps.View(), m.renderSlotTabs(), m.pane(m.explorer).View()}
			if got, want := sideBySide(left, right...), lip(left, right...); got != want {
				t.Fatalf("%dx%d after %v: sideBySide differs from lipgloss:\n got %q\nwant %q", size[0], size[1], keys, got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no side-by-side layout was checked")
	}
	for _, c := range [][]string{
		{"ab\ncd\nef", "x\ny"},                  // right column shorter
		{"ab\ncd", "xy", "z"},                   // right blocks of different widths
		{"ab", "x\ny\nz"},                       // right column taller
		{"a\u00e9\ncd", "\x1b[1mx\x1b[0m", "y"}, // styled and wide runes
	} {
		if got, want := sideBySide(c[0], c[1:]...), lip(c[0], c[1:]...); got != want {
			t.Errorf("sideBySide(%q) = %q, lipgloss gives %q", c, got, want)
		}
	}
}
