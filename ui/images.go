package ui

import (
	"os"

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
	}
	m.screen = termimage.NewScreen(first)
	m.result.SetScreen(m.screen)
	m.content.SetScreen(m.screen)
}

// imagesDetected switches to what the terminal answered.
func (m *Model) imagesDetected() {
	m.screen.Set(m.images.Protocol(), m.images.Tmux())
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
