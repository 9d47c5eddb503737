package ui

import (
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/termimage"
)

// initImages sets up how images are drawn: half-blocks at once (or
// kitty, when the setting forces it outside tmux), and the terminal asked
// from Init for what it can do (termimage.Detector).
func (m *Model) initImages() {
	mode, err := termimage.ParseMode(m.cfg.Images)
	if err != nil {
		mode = "auto" // the command checked the flag; a bad Config draws as auto
	}
	m.images = termimage.NewDetector(mode, os.Getenv)
	first := termimage.Blocks
	switch {
	case mode == "off":
		first = termimage.Off
	case mode == "kitty" && os.Getenv("TMUX") == "":
		first = termimage.Kitty
	case mode == "iterm2" && os.Getenv("TMUX") == "":
		first = termimage.ITerm2
	case mode == "sixel":
		first = termimage.Sixel
	}
	m.screen = termimage.NewScreen(first)
	m.result.SetScreen(m.screen)
	m.content.SetScreen(m.screen)
}

// imagesDetected switches to what the terminal answered.
func (m *Model) imagesDetected() {
	m.screen.Set(m.images.Protocol(), m.images.Tmux())
	m.screen.SetCellSize(m.images.CellSize())
	m.log.Debug(m.images.Summary())
	// Laid out again for the new protocol; a view that is not shown
	// sends nothing until it is.
	m.result.SetScreen(m.screen)
	m.content.SetScreen(m.screen)
}

// ReleaseImages is the sequence that deletes every image still in the
// terminal's memory, to write after the program ends.
func (m *Model) ReleaseImages() string {
	m.screen.DeleteAll()
	return m.screen.Take()
}

// placeSettle is how long after a frame moved an iTerm2 or sixel image
// the image is drawn: the renderer writes a frame within a display pace
// of its building, and an image written before the frame that blanks its
// cells would be erased by it. Bubble Tea writes raw output just before
// each frame, so the wait spans three frames and some slack.
const placeSettle = 3*displayPace + 10*time.Millisecond

// placeNow is the clock of the images' placement (tests set placeClock).
func (m *Model) placeNow() time.Time {
	if m.placeClock != nil {
		return m.placeClock()
	}
	return time.Now()
}

// placeTickMsg asks whether the images of the last frame can be drawn.
type placeTickMsg struct{}

// armPlacement asks, once, for a placeTickMsg when images drawn with
// iTerm2 or sixel are in view or were: the frame about to be built may
// move them.
func (m *Model) armPlacement() tea.Cmd {
	if m.placeArmed || !m.screen.Placing() {
		return nil
	}
	m.placeArmed = true
	return m.placeAfter(placeSettle)
}

// placeAfter is a placeTickMsg after d (tests replace placeTick).
func (m *Model) placeAfter(d time.Duration) tea.Cmd {
	if m.placeTick != nil {
		return m.placeTick(d)
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return placeTickMsg{} })
}

// placeImages draws the images of the last frame that wait to be drawn,
// once that frame has had time to reach the terminal; until then it
// waits again.
func (m *Model) placeImages() tea.Cmd {
	m.placeArmed = false
	pending, changed := m.screen.Pending()
	if !pending {
		return nil
	}
	if wait := placeSettle - m.placeNow().Sub(changed); wait > 0 {
		m.placeArmed = true
		return m.placeAfter(wait)
	}
	seq, err := m.screen.Draw()
	if err != nil {
		m.log.Debug("images: drawing failed", "err", err)
	}
	if seq == "" {
		return nil
	}
	return tea.Raw(seq)
}
