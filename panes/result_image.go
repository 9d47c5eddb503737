package panes

import (
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/termimage"
)

// SetScreen shares how images are drawn (the root's, after its
// detection); nil draws none.
func (r *Result) SetScreen(s *termimage.Screen) {
	r.images.screen = s
	r.imagesChanged()
}

// imagesChanged lays the images out again after the protocol changed or
// the view came back.
func (r *Result) imagesChanged() {
	r.images.resend()
	if r.msg != nil && !r.loading && len(r.images.shown) > 0 {
		r.layout()
	}
}

// decodeImages starts decoding the result's images (images.go): the
// text of the result is on screen first.
func (r *Result) decodeImages() tea.Cmd {
	var refs []*imageRef
	for _, b := range r.blocks {
		if b.image != nil {
			refs = append(refs, b.image)
		}
	}
	cmd, changed := r.images.decode(refs)
	if changed {
		r.layout()
	}
	return cmd
}

// ReleaseImages deletes the kitty images the view sent: the view is
// left. ShowImages sends them again.
func (r *Result) ReleaseImages() {
	r.images.hidden = true
	r.images.release()
}

// ShowImages is the view coming back: images released are sent again.
func (r *Result) ShowImages() {
	r.images.hidden = false
	r.imagesChanged()
}

// imageLines are the lines that draw an image block's picture.
func (r *Result) imageLines(ref *imageRef, w int) []string {
	return r.images.lines(r.theme, ref, w, r.h-2-len(r.head)-3)
}
