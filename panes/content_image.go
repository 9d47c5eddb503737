package panes

import (
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/termimage"
)

// ContentImage is an image of a resources/read result, drawn below line
// After of the lines ReadResultParts made.
type ContentImage struct {
	After int
	ref   *imageRef
}

// SetScreen shares how images are drawn.
func (c *Content) SetScreen(s *termimage.Screen) {
	c.images.screen = s
	c.images.resend()
	c.placeImages()
}

// SetImages draws imgs below their lines (After counts from offset: the
// lines Set was given before ReadResultParts's). The returned Cmd decodes
// them; the text is on screen first.
func (c *Content) SetImages(offset int, imgs []ContentImage) tea.Cmd {
	c.placed = c.placed[:0]
	refs := make([]*imageRef, 0, len(imgs))
	for _, im := range imgs {
		im.After += offset
		c.placed = append(c.placed, im)
		refs = append(refs, im.ref)
	}
	cmd, _ := c.images.decode(refs)
	c.placeImages()
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
