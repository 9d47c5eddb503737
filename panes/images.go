package panes

import (
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/termimage"
	"github.com/mcpscope/mcpscope/themes"
)

// imageRef is an image a view shows: an image block, or a resource's
// blob of an image type.
type imageRef struct {
	key  termimage.Key
	data string // base64, decoded off the UI goroutine
	mime string
}

// newImageRef refers to an image sent as base64.
func newImageRef(b64, mime string) *imageRef {
	return &imageRef{key: termimage.KeyOf(b64), data: b64, mime: mime}
}

// shownImage is what became of one image of a view: decoded (or not, and
// why), and, drawn with the kitty protocol, its id and the cells it was
// last placed over.
type shownImage struct {
	pending    bool
	img        *termimage.Image
	err        error
	id         int
	cols, rows int // as sent to the terminal; zero: not sent
}

// imageSet is the images one view shows (the result view's, the content
// view's): decoded in Cmds, drawn as the screen says, and with the kitty
// protocol sent when drawn and deleted when the view is left.
type imageSet struct {
	screen *termimage.Screen
	gen    int // which of the view's contents the images belong to
	shown  map[termimage.Key]*shownImage
	// hidden: the view is left, and nothing is sent to the terminal.
	hidden bool
}

// imageDecodedMsg carries an image decoded off the UI goroutine to the
// set that asked for it.
type imageDecodedMsg struct {
	set *imageSet
	gen int
	key termimage.Key
	img *termimage.Image
	err error
}

// maxImageRows is the tallest preview: a screenshot should not push the
// rest of the result a page down.
const maxImageRows = 24

// reset forgets the images of the view's last contents, deleting what
// was sent of them.
func (s *imageSet) reset() {
	s.release()
	s.shown = nil
	s.gen++
}

// release deletes the kitty images sent; they are sent again when next
// drawn.
func (s *imageSet) release() {
	if s.screen == nil {
		return
	}
	var ids []int
	for _, st := range s.shown {
		if st.id != 0 {
			ids = append(ids, st.id)
		}
		st.cols, st.rows = 0, 0
	}
	s.screen.Delete(ids...)
	s.screen.Forget(ids...)
}

// resend makes the next drawing send every image again (the protocol
// changed, or the view came back).
func (s *imageSet) resend() {
	for _, st := range s.shown {
		st.cols, st.rows = 0, 0
	}
}

// decode starts decoding the images not decoded yet, each in a Cmd of its
// own; one already in the cache is taken at once. changed says the view
// must lay its lines out again.
func (s *imageSet) decode(refs []*imageRef) (cmd tea.Cmd, changed bool) {
	if s.screen == nil || s.screen.Protocol() == termimage.Off {
		return nil, false
	}
	var cmds []tea.Cmd
	for _, ref := range refs {
		if s.shown == nil {
			s.shown = map[termimage.Key]*shownImage{}
		}
		if _, ok := s.shown[ref.key]; ok {
			continue
		}
		changed = true
		if img, err, ok := s.screen.Cache.Lookup(ref.key); ok {
			s.shown[ref.key] = &shownImage{img: img, err: err}
			continue
		}
		s.shown[ref.key] = &shownImage{pending: true}
		cache, gen, job := s.screen.Cache, s.gen, *ref // a copy the Cmd owns
		cmds = append(cmds, func() tea.Msg {
			img, err := cache.Get(job.data, job.mime)
			return imageDecodedMsg{set: s, gen: gen, key: job.key, img: img, err: err}
		})
	}
	return tea.Batch(cmds...), changed
}

// decoded takes a decoded image; it reports whether it is this set's.
func (s *imageSet) decoded(msg imageDecodedMsg) bool {
	st, ok := s.shown[msg.key]
	if msg.set != s || msg.gen != s.gen || !ok {
		return false
	}
	st.pending, st.img, st.err = false, msg.img, msg.err
	return true
}

// lines draw ref's picture within w cells and maxRows rows: a
// half-block preview, the kitty placeholders (after sending the image
// when its cells changed), the cells reserved for an iTerm2 or sixel
// image, or the line that says why there is none.
func (s *imageSet) lines(th *themes.Theme, ref *imageRef, w, maxRows int) []string {
	st := s.shown[ref.key]
	if st == nil || s.screen == nil {
		return nil
	}
	const indent = "  "
	switch {
	case st.pending:
		return []string{indent + th.Detail.Hint.Render("decoding the image…")}
	case st.err != nil:
		return []string{indent + th.Detail.Problem.Render(termsafe.String(st.err.Error()))}
	}
	maxRows = min(maxImageRows, max(maxRows, 4))
	var out []string
	if st.img.Note != "" {
		out = append(out, indent+th.Detail.Hint.Render(st.img.Note))
	}
	var cells []string
	switch s.screen.Protocol() {
	case termimage.Blocks:
		cols, rows := termimage.Fit(st.img.Thumb.Rect.Dx(), st.img.Thumb.Rect.Dy(), w-len(indent), maxRows, 1)
		cells = termimage.HalfBlocks(st.img.Thumb, cols, rows, !th.Plain)
	case termimage.Kitty:
		cols, rows := termimage.Fit(st.img.Width, st.img.Height, min(w-len(indent), termimage.MaxKittyCells), min(maxRows, termimage.MaxKittyCells), termimage.CellWidth)
		if st.id == 0 {
			st.id = s.screen.NewID()
		}
		if (st.cols != cols || st.rows != rows) && !s.hidden {
			if err := s.screen.Send(st.id, st.img, cols, rows); err != nil {
				return []string{indent + th.Detail.Problem.Render(termsafe.String(err.Error()))}
			}
			st.cols, st.rows = cols, rows
		}
		cells = termimage.KittyPlaceholders(st.id, cols, rows)
	case termimage.ITerm2, termimage.Sixel:
		// Blank cells the root draws the image over once the frame is on
		// the terminal (termimage.Place); cut, they show half-blocks.
		cw, ch := s.screen.CellSize()
		cols, rows := termimage.FitPixels(st.img.Width, st.img.Height, w-len(indent), maxRows, cw, ch)
		if st.id == 0 {
			st.id = s.screen.NewID()
		}
		cells = s.screen.Reserve(st.id, st.img, cols, rows, !th.Plain)
	}
	for _, c := range cells {
		out = append(out, indent+c)
	}
	return out
}

// kittyIDs are the kitty ids of the set's images (for tests).
func (s *imageSet) kittyIDs() []int {
	var ids []int
	for _, st := range s.shown {
		if st.id != 0 {
			ids = append(ids, st.id)
		}
	}
	return ids
}
