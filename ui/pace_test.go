package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// pacedClock is a Paced model on a clock the test moves.
func pacedClock(m *Model) (*Paced, *time.Time) {
	p := m.Paced()
	now := t0
	p.now = func() time.Time { return now }
	return p, &now
}

// framesShown is the frame count in the log's title of a view.
func framesShown(v tea.View) string {
	i := strings.Index(v.Content, "Log · ")
	if i < 0 {
		return ""
	}
	f, _, _ := strings.Cut(v.Content[i:], " frames")
	return f
}

// During a flood a frame is built at most once a displayPace, however many
// batches arrive; the last batch is drawn by the frameMsg that the pace
// asked for; a key is drawn at once, inside the pace.
func TestPacedBuildsAtMostOneFrameAPace(t *testing.T) {
	p, now := pacedClock(newTestModel("dark", 120, 35))
	p.Update(eventsMsg{events: sessionEvents()})
	_ = p.View()
	if p.builds != 1 {
		t.Fatalf("first batch: %d builds, want 1", p.builds)
	}
	// 40 batches of 50 notifications, 1 ms apart: 40 ms is three paces.
	var tick tea.Cmd
	evs := notifications(100, 2000)
	for i := 0; i < 40; i++ {
		*now = now.Add(time.Millisecond)
		_, cmd := p.Update(eventsMsg{events: evs[i*50 : (i+1)*50]})
		if cmd != nil && tick == nil {
			tick = cmd
		}
		_ = p.View()
	}
	if p.builds < 2 || p.builds > 4 {
		t.Fatalf("40 batches over 40 ms built %d frames, want 2 to 4 (one a %v)", p.builds, displayPace)
	}
	if got, want := framesShown(p.View()), fmt.Sprintf("Log · %d", 2005); got == want {
		t.Fatalf("the last batch is already on screen inside the pace (%q): the test does not test the wait", got)
	}
	if tick == nil {
		t.Fatal("no frameMsg was asked for while frames were held back")
	}
	// The frameMsg comes a pace later and the last batch is drawn.
	*now = now.Add(displayPace)
	p.Update(frameMsg{})
	if got, want := framesShown(p.View()), fmt.Sprintf("Log · %d", 2005); got != want {
		t.Fatalf("after the frameMsg the title shows %q, want %q", got, want)
	}
	// A key inside the pace is drawn at once.
	builds := p.builds
	*now = now.Add(time.Millisecond)
	p.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if v := p.View(); p.builds != builds+1 || !strings.Contains(v.Content, "paused") {
		t.Fatalf("a key inside the pace: %d new builds, paused shown %v; want it drawn at once",
			p.builds-builds, strings.Contains(v.Content, "paused"))
	}
	// Nothing changed: no build, however long it has been.
	*now = now.Add(time.Second)
	builds = p.builds
	_ = p.View()
	if p.builds != builds {
		t.Fatal("a View with nothing changed built a frame")
	}
}

// A frameMsg that arrives early (a key built a frame after the tick was
// asked for) waits for the rest of the pace instead of dropping the frame.
func TestPacedFrameMsgNeverDropsTheLastBatch(t *testing.T) {
	p, now := pacedClock(newTestModel("dark", 120, 35))
	p.Update(eventsMsg{events: sessionEvents()})
	_ = p.View()
	*now = now.Add(time.Millisecond)
	if _, cmd := p.Update(eventsMsg{events: notifications(100, 10)}); cmd == nil {
		t.Fatal("a held batch asked for no frameMsg")
	}
	_ = p.View()
	*now = now.Add(5 * time.Millisecond)
	p.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	_ = p.View()
	*now = now.Add(time.Millisecond)
	p.Update(eventsMsg{events: notifications(110, 10)})
	_ = p.View()
	*now = now.Add(10 * time.Millisecond) // the first frameMsg: 4 ms after the key's frame
	_, cmd := p.Update(frameMsg{})
	if cmd == nil {
		t.Fatal("an early frameMsg with a held batch asked for no later one")
	}
	if got := framesShown(p.View()); got == "Log · 25" {
		t.Fatalf("the frame was built inside the pace")
	}
	*now = now.Add(displayPace)
	p.Update(frameMsg{})
	if got := framesShown(p.View()); got != "Log · 25" {
		t.Fatalf("the last batch is not drawn: %q", got)
	}
}

// While events come in full batches (a flood), a frame is built at most
// once a floodPace; the first small batch after it is drawn at the
// display's pace again, and a key at once throughout.
func TestPacedSlowsDownDuringAFlood(t *testing.T) {
	p, now := pacedClock(newTestModel("dark", 120, 35))
	p.Update(eventsMsg{events: sessionEvents()})
	_ = p.View()
	// 100 full batches, 2 ms apart: 200 ms, three flood paces (twelve
	// display paces).
	evs := notifications(100, 100*maxBatch)
	for i := range 100 {
		*now = now.Add(2 * time.Millisecond)
		p.Update(eventsMsg{events: evs[i*maxBatch : (i+1)*maxBatch]})
		_ = p.View()
	}
	if p.builds < 2 || p.builds > 5 {
		t.Fatalf("100 full batches over 200 ms built %d frames, want 2 to 5 (one a %v)", p.builds, floodPace)
	}
	// A key is drawn at once.
	builds := p.builds
	*now = now.Add(time.Millisecond)
	p.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if _ = p.View(); p.builds != builds+1 {
		t.Fatal("a key during a flood was not drawn at once")
	}
	// The flood is over: a small batch a display pace after the last
	// frame is drawn, as before the flood.
	*now = now.Add(displayPace)
	p.Update(eventsMsg{events: notifications(100+100*maxBatch, 3)})
	if got, want := framesShown(p.View()), fmt.Sprintf("Log · %d", 5+100*maxBatch+3); got != want {
		t.Fatalf("after the flood a small batch a display pace later shows %q, want %q", got, want)
	}
}
