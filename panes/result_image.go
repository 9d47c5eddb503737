package panes

import (
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/termimage"
)

// imageRef is an image in a result: an image block, or an embedded
// resource's blob of an image type.
type imageRef struct {
	key  termimage.Key
	data string // base64, decoded off the UI goroutine
	mime string
}

// shownImage is what became of one image of the result shown: decoded
// (or not, and why), and, drawn with the kitty protocol, its id and the
// cells it was last placed over.
type shownImage struct {
	pending    bool
	img        *termimage.Image
	err        error
	id         int
	cols, rows int // as sent to the terminal; zero: not sent
}

// imageDecodedMsg carries an image decoded off the UI goroutine.
type imageDecodedMsg struct {
	gen int
	key termimage.Key
	img *termimage.Image
	err error
}

// maxImageRows is the tallest preview: a screenshot should not push the
// rest of the result a page down.
const maxImageRows = 24

// SetScreen shares how images are drawn (the root's, after its
// detection); nil draws none.
func (r *Result) SetScreen(s *termimage.Screen) {
	r.screen = s
	r.imagesChanged()
}

// imagesChanged lays the images out again after the protocol changed or
// the view came back.
func (r *Result) imagesChanged() {
	for _, st := range r.images {
		st.cols, st.rows = 0, 0
	}
	if r.msg != nil && !r.loading && len(r.images) > 0 {
		r.layout()
	}
}

// decodeImages starts decoding the result's images that are not decoded
// yet: each in a Cmd of its own, the text of the result on screen first.
// One already in the cache is shown at once.
func (r *Result) decodeImages() tea.Cmd {
	if r.screen == nil || r.screen.Protocol() == termimage.Off {
		return nil
	}
	var cmds []tea.Cmd
	relayout := false
	for _, b := range r.blocks {
		ref := b.image
		if ref == nil {
			continue
		}
		if r.images == nil {
			r.images = map[termimage.Key]*shownImage{}
		}
		if _, ok := r.images[ref.key]; ok {
			continue
		}
		if img, err, ok := r.screen.Cache.Lookup(ref.key); ok {
			r.images[ref.key] = &shownImage{img: img, err: err}
			relayout = true
			continue
		}
		r.images[ref.key] = &shownImage{pending: true}
		relayout = true
		cache, gen, job := r.screen.Cache, r.gen, *ref // a copy the Cmd owns
		cmds = append(cmds, func() tea.Msg {
			img, err := cache.Get(job.data, job.mime)
			return imageDecodedMsg{gen: gen, key: job.key, img: img, err: err}
		})
	}
	if relayout {
		r.layout()
	}
	return tea.Batch(cmds...)
}

// imageDecoded takes a decoded image, if it belongs to the result shown.
func (r *Result) imageDecoded(msg imageDecodedMsg) {
	st, ok := r.images[msg.key]
	if msg.gen != r.gen || !ok {
		return
	}
	st.pending, st.img, st.err = false, msg.img, msg.err
	r.layout()
}

// ReleaseImages deletes the kitty images the view sent: the view is
// left. ShowImages sends them again.
func (r *Result) ReleaseImages() {
	r.hidden = true
	r.releaseImages()
}

// releaseImages deletes the kitty images the view sent (it is left, or
// shows another result).
func (r *Result) releaseImages() {
	if r.screen == nil {
		return
	}
	var ids []int
	for _, st := range r.images {
		if st.id != 0 {
			ids = append(ids, st.id)
		}
		st.cols, st.rows = 0, 0
	}
	r.screen.Delete(ids...)
}

// ShowImages is the view coming back: images released are sent again.
func (r *Result) ShowImages() {
	r.hidden = false
	r.imagesChanged()
}

// imageLines are the lines that draw an image block's picture, w cells
// wide at most: a half-block preview, the kitty placeholders, or the
// line that says why there is none.
func (r *Result) imageLines(ref *imageRef, w int) []string {
	th := r.theme
	st := r.images[ref.key]
	if st == nil || r.screen == nil {
		return nil
	}
	switch {
	case st.pending:
		return []string{"  " + th.Detail.Hint.Render("decoding the image…")}
	case st.err != nil:
		return []string{"  " + th.Detail.Problem.Render(termsafe.String(st.err.Error()))}
	}
	maxRows := min(maxImageRows, max(r.h-2-len(r.head)-3, 4))
	indent := "  "
	var note []string
	if st.img.Note != "" {
		note = []string{indent + th.Detail.Hint.Render(st.img.Note)}
	}
	switch r.screen.Protocol() {
	case termimage.Blocks:
		cols, rows := termimage.Fit(st.img.Thumb.Rect.Dx(), st.img.Thumb.Rect.Dy(), w-len(indent), maxRows, 1)
		return append(note, indented(indent, termimage.HalfBlocks(st.img.Thumb, cols, rows, !th.Plain))...)
	case termimage.Kitty:
		cols, rows := termimage.Fit(st.img.Width, st.img.Height, min(w-len(indent), termimage.MaxKittyCells), min(maxRows, termimage.MaxKittyCells), termimage.CellWidth)
		if st.id == 0 {
			st.id = r.screen.NewID()
		}
		if (st.cols != cols || st.rows != rows) && !r.hidden {
			if err := r.screen.Send(st.id, st.img, cols, rows); err != nil {
				return []string{"  " + th.Detail.Problem.Render(termsafe.String(err.Error()))}
			}
			st.cols, st.rows = cols, rows
		}
		return append(note, indented(indent, termimage.KittyPlaceholders(st.id, cols, rows))...)
	}
	return nil
}

func indented(indent string, lines []string) []string {
	for i, l := range lines {
		lines[i] = indent + l
	}
	return lines
}
