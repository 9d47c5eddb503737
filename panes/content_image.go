package panes

import (
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/termimage"
)

// placedImage is an image of the content view's document, drawn below
// line After of base.
type placedImage struct {
	After int
	ref   *imageRef
}

// SetScreen shares how images are drawn.
func (c *Content) SetScreen(s *termimage.Screen) {
	c.images.screen = s
	c.images.resend()
	c.placeImages()
}

// decodeImages starts decoding the document's images: the returned Cmd
// decodes them off the UI goroutine, and the text is on screen first.
func (c *Content) decodeImages() tea.Cmd {
	var refs []*imageRef
	for _, p := range c.doc {
		if p.image != nil {
			refs = append(refs, p.image)
		}
	}
	cmd, _ := c.images.decode(refs)
	return cmd
}

// placeImages lays the lines out again with each image's below its line.
func (c *Content) placeImages() {
	c.laidW, c.laidH = c.w, c.h
	if len(c.placed) == 0 {
		if c.base != nil {
			c.lines = c.base
		}
		c.body.SetLen(c.count())
		return
	}
	lines := make([]string, 0, len(c.base)+16)
	next := 0
	// An image before any line (After -1) opens the view.
	for next < len(c.placed) && c.placed[next].After < 0 {
		lines = append(lines, c.images.lines(c.theme, c.placed[next].ref, max(c.w-2, 1), c.rows()-3)...)
		next++
	}
	for i, l := range c.base {
		lines = append(lines, l)
		for next < len(c.placed) && c.placed[next].After == i {
			lines = append(lines, c.images.lines(c.theme, c.placed[next].ref, max(c.w-2, 1), c.rows()-3)...)
			next++
		}
	}
	c.lines = lines
	c.body.SetLen(c.count())
}

// ReleaseImages deletes the kitty images the view sent: it is left.
func (c *Content) ReleaseImages() {
	c.images.hidden = true
	c.images.release()
}

// ShowImages is the view coming back: images released are sent again.
func (c *Content) ShowImages() {
	c.images.hidden = false
	c.images.resend()
	if len(c.placed) > 0 {
		c.placeImages()
	}
}
