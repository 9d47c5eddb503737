package termimage

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// iTerm2 and sixel images paint pixels at the cursor instead of showing
// through cells, so a view cannot draw them in its lines. The view
// reserves the image's cells instead (Reserve): blank cells in a colour
// that names the image and the row. The root finds them in each frame it
// builds (Place), and once that frame is on the terminal writes the
// images wholly visible over them (Draw). An image the frame cuts
// (scrolled half out, cut by a narrow pane) is drawn as half-blocks in
// its cells instead; one covered or left is simply not in the frame.
//
// Erasing: the terminal forgets an image's pixels in a cell when the cell
// is written. Every frame in which an image's place changes writes its
// cells anew: where the image was, something else is drawn, and where it
// now is, its cells' colour flips (Place), so the renderer, which writes
// only the cells that changed, writes them all.

// pixelState is what a Screen knows of the images it draws with a pixel
// protocol.
type pixelState struct {
	reserved map[int]*reservation // by markerKey
	seen     map[int]Placement    // where each was in the last frame built
	drawn    map[int]Placement    // what was written to the terminal
	changed  time.Time            // when a frame last moved an image
}

func (p *pixelState) clear() {
	p.reserved, p.seen, p.drawn = nil, nil, nil
}

// reservation is an image a view reserved cells for.
type reservation struct {
	id         int
	img        *Image
	cols, rows int
	colour     bool
	gen        int      // flips whenever the image's place changes
	blocks     []string // the half-block rows, made when first needed
	seq        string   // the image's sequence, for seqKey
	seqKey     [5]int
}

// Placement is where an image's reserved cells are in a frame: X, Y the
// column and row of the top-left cell (from 0), and whether every cell is
// there (Whole).
type Placement struct {
	ID         int
	X, Y       int
	Cols, Rows int
	Whole      bool
	gen        int
}

// markerKey is the part of an image id its cells' colour carries.
func markerKey(id int) int { return id & 0xffff }

func markerPrefix(id int) string {
	return fmt.Sprintf("\x1b[38;2;%d;%d;", id>>8&0xff, id&0xff)
}

func marker(id, row, gen int) string {
	return markerPrefix(id) + strconv.Itoa(row<<1|gen&1) + "m"
}

// Reserve registers image id, drawn over cols×rows cells with the pixel
// protocol in use, and returns the rows of blank cells that the view
// shows in its place. colour says the half-blocks drawn when the image is
// cut may use colour (not under NO_COLOR).
func (s *Screen) Reserve(id int, img *Image, cols, rows int, colour bool) []string {
	rows = min(rows, 127) // the row is 7 bits of the colour
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := &s.pixels
	if ps.reserved == nil {
		ps.reserved = map[int]*reservation{}
	}
	k := markerKey(id)
	r := ps.reserved[k]
	if r == nil || r.id != id || r.img != img || r.cols != cols || r.rows != rows || r.colour != colour {
		r = &reservation{id: id, img: img, cols: cols, rows: rows, colour: colour}
		ps.reserved[k] = r
	}
	out := make([]string, rows)
	blank := strings.Repeat(" ", cols)
	for y := range rows {
		out[y] = marker(id, y, 0) + blank + "\x1b[39m"
	}
	return out
}

// CellSize is the terminal's cell in pixels (CellWidth × CellHeight
// until it answers).
func (s *Screen) CellSize() (w, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cellW, s.cellH
}

// Placing says images are drawn with a pixel protocol and a view has
// reserved cells for some, or some were in the last frame: the next frame
// may move them.
func (s *Screen) Placing() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protocol.Pixels() && (len(s.pixels.reserved) > 0 || len(s.pixels.seen) > 0 || len(s.pixels.drawn) > 0)
}

// Forget drops the reservations of images a view no longer shows.
func (s *Screen) Forget(ids ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if r := s.pixels.reserved[markerKey(id)]; r != nil && r.id == id {
			delete(s.pixels.reserved, markerKey(id))
		}
	}
}

// cellHit is one row of reserved cells found in a frame.
type cellHit struct {
	line, pos, end int // the marker's bytes in its line
	col, row       int
	blanks         int // blank cells after the marker
}

// Place finds the reserved cells in a frame the root built, and returns
// the frame to show: each image's cells in the colour of its current
// generation (flipped when its place changed since the last frame, so
// that they are written again), and an image that is not wholly in the
// frame drawn as half-blocks in the cells that are. now is when the
// frame was built.
func (s *Screen) Place(frame string, now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := &s.pixels
	if !s.protocol.Pixels() || len(ps.reserved) == 0 {
		if len(ps.seen) > 0 || len(ps.drawn) > 0 {
			ps.seen, ps.drawn, ps.changed = nil, nil, now
		}
		return frame
	}
	var lines []string
	hits := map[int][]cellHit{}
	for k, r := range ps.reserved {
		prefix := markerPrefix(r.id)
		if !strings.Contains(frame, prefix) {
			continue
		}
		if lines == nil {
			lines = strings.Split(frame, "\n")
		}
		for li, line := range lines {
			for off := 0; ; {
				i := strings.Index(line[off:], prefix)
				if i < 0 {
					break
				}
				pos := off + i
				off = pos + len(prefix)
				digits := off
				for digits < len(line) && line[digits] >= '0' && line[digits] <= '9' {
					digits++
				}
				if digits == off || digits >= len(line) || line[digits] != 'm' {
					continue
				}
				b, _ := strconv.Atoi(line[off:digits])
				end := digits + 1
				n := 0
				for end+n < len(line) && line[end+n] == ' ' {
					n++
				}
				if row := b >> 1; row < r.rows {
					hits[k] = append(hits[k], cellHit{line: li, pos: pos, end: end, col: ansi.StringWidth(line[:pos]), row: row, blanks: n})
				}
				off = end
			}
		}
	}
	type edit struct {
		pos, end int
		text     string
	}
	edits := map[int][]edit{}
	seen := map[int]Placement{}
	for k, hs := range hits {
		r := ps.reserved[k]
		sort.Slice(hs, func(i, j int) bool { return hs[i].line < hs[j].line })
		whole := len(hs) == r.rows
		for i, h := range hs {
			if h.row != i || h.line != hs[0].line+i || h.col != hs[0].col || h.blanks < r.cols {
				whole = false
			}
		}
		p := Placement{ID: r.id, X: hs[0].col, Y: hs[0].line - hs[0].row, Cols: r.cols, Rows: r.rows, Whole: whole}
		if old, ok := ps.seen[k]; !ok || old.X != p.X || old.Y != p.Y || old.Cols != p.Cols || old.Rows != p.Rows || old.Whole != p.Whole || old.ID != p.ID {
			r.gen ^= 1
			ps.changed = now
		}
		p.gen = r.gen
		seen[k] = p
		if d, ok := ps.drawn[k]; ok && d != p {
			delete(ps.drawn, k)
		}
		for _, h := range hs {
			if whole {
				edits[h.line] = append(edits[h.line], edit{h.pos, h.end, marker(r.id, h.row, r.gen)})
				continue
			}
			if r.blocks == nil {
				r.blocks = HalfBlocks(r.img.Thumb, r.cols, r.rows, r.colour)
			}
			n := min(h.blanks, r.cols)
			edits[h.line] = append(edits[h.line], edit{h.pos, h.end + n, ansi.Truncate(r.blocks[h.row], n, "")})
		}
	}
	for k := range ps.seen {
		if _, ok := seen[k]; !ok {
			ps.changed = now
		}
	}
	for k := range ps.drawn {
		if _, ok := seen[k]; !ok {
			delete(ps.drawn, k)
		}
	}
	ps.seen = seen
	if len(edits) == 0 {
		return frame
	}
	for li, es := range edits {
		sort.Slice(es, func(i, j int) bool { return es[i].pos > es[j].pos })
		line := lines[li]
		for _, e := range es {
			line = line[:e.pos] + e.text + line[e.end:]
		}
		lines[li] = line
	}
	return strings.Join(lines, "\n")
}

// Pending says an image wholly in the last frame is not drawn yet, and
// when a frame last moved an image: Draw waits until that frame is surely
// on the terminal.
func (s *Screen) Pending() (pending bool, changed time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, p := range s.pixels.seen {
		if d, ok := s.pixels.drawn[k]; p.Whole && (!ok || d != p) {
			return true, s.pixels.changed
		}
	}
	return false, s.pixels.changed
}

// Placements are the images of the last frame, by id (for tests).
func (s *Screen) Placements() []Placement {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Placement, 0, len(s.pixels.seen))
	for _, p := range s.pixels.seen {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Redraw forgets what was drawn: the terminal cleared its screen (a
// resize), so every image wholly in view is drawn again.
func (s *Screen) Redraw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pixels.drawn = nil
}

// Draw is the sequence that draws each image wholly in the last frame and
// not drawn since it got there: the cursor saved, moved to the image's
// top-left cell, the image, the cursor restored. Write it only once that
// frame is on the terminal, or the frame's writing of the image's cells
// erases it.
func (s *Screen) Draw() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := &s.pixels
	var b strings.Builder
	keys := make([]int, 0, len(ps.seen))
	for k := range ps.seen {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var firstErr error
	for _, k := range keys {
		p := ps.seen[k]
		if d, ok := ps.drawn[k]; !p.Whole || ok && d == p {
			continue
		}
		r := ps.reserved[k]
		if r == nil || r.id != p.ID {
			continue
		}
		seq, err := s.encodeLocked(r)
		if err != nil {
			firstErr = err
			continue
		}
		b.WriteString(ansi.SaveCursor)
		b.WriteString(ansi.CursorPosition(p.X+1, p.Y+1))
		b.WriteString(seq)
		b.WriteString(ansi.RestoreCursor)
		if ps.drawn == nil {
			ps.drawn = map[int]Placement{}
		}
		ps.drawn[k] = p
	}
	return b.String(), firstErr
}

// encodeLocked is r's image in the protocol in use, encoded once per size.
func (s *Screen) encodeLocked(r *reservation) (string, error) {
	key := [5]int{int(s.protocol), r.cols, r.rows, s.cellW, s.cellH}
	if s.tmux {
		key[0] += 100
	}
	if r.seq != "" && r.seqKey == key {
		return r.seq, nil
	}
	var seq string
	var err error
	switch s.protocol {
	case ITerm2:
		seq, err = ITerm2Image(r.img.Thumb, r.cols, r.rows)
		if err == nil && s.tmux {
			seq = ansi.TmuxPassthrough(seq)
		}
	case Sixel:
		seq, err = SixelImage(r.img.Thumb, r.cols, r.rows, s.cellW, s.cellH)
	default:
		return "", fmt.Errorf("images drawn as %s are not placed", s.protocol)
	}
	if err != nil {
		return "", err
	}
	r.seq, r.seqKey = seq, key
	return seq, nil
}
