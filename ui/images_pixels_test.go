package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/sixel"
	"github.com/mcpscope/mcpscope/panes/termimage"
)

// pixelModel is a model drawing images as sixel at 80×24 with a clock
// the test moves, and placeTickMsgs sent by hand.
func pixelModel(t *testing.T) (*Model, *time.Time) {
	t.Helper()
	t.Setenv("TMUX", "")
	m := New(Config{Target: "test server", Images: "sixel"})
	now := time.Unix(1000, 0)
	m.placeClock = func() time.Time { return now }
	m.placeTick = func(time.Duration) tea.Cmd { return nil }
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	feed(m, sessionEvents())
	if m.screen.Protocol() != termimage.Sixel {
		t.Fatalf("forced sixel draws %s", m.screen.Protocol())
	}
	return m, &now
}

// tick is a placeTickMsg, and what it writes raw to the terminal.
func tick(m *Model) string {
	_, cmd := m.Update(placeTickMsg{})
	if cmd == nil {
		return ""
	}
	if raw, ok := cmd().(tea.RawMsg); ok {
		return raw.Msg.(string)
	}
	return ""
}

// cells draws a frame as the renderer does, to compare cells.
func cells(frame string, w, h int) *uv.ScreenBuffer {
	buf := uv.NewScreenBuffer(w, h)
	uv.NewStyledString(frame).Draw(buf, buf.Bounds())
	return &buf
}

// cupAndImage parses a Draw sequence: where the cursor was moved (from
// 1) and the sixel image, between a cursor save and restore.
func cupAndImage(t *testing.T, seq string) (row, col int, data []byte) {
	t.Helper()
	var saved, restored bool
	p := ansi.NewParser()
	p.SetDataSize(0)
	p.SetHandler(ansi.Handler{
		HandleEsc: func(cmd ansi.Cmd) {
			switch cmd.Final() {
			case '7':
				saved = row == 0
			case '8':
				restored = data != nil
			}
		},
		HandleCsi: func(cmd ansi.Cmd, params ansi.Params) {
			if cmd.Final() == 'H' {
				row, _, _ = params.Param(0, 1)
				col, _, _ = params.Param(1, 1)
			}
		},
		HandleDcs: func(_ ansi.Cmd, _ ansi.Params, d []byte) { data = bytes.Clone(d) },
		Print:     func(r rune) { t.Errorf("printed %q", r) },
	})
	p.Parse([]byte(seq))
	if !saved || !restored || row == 0 || data == nil {
		t.Fatalf("not save, move, image, restore: %q", seq[:min(len(seq), 60)])
	}
	return row, col, data
}

// A sixel image in the result view: its cells are reserved in the frame,
// it is drawn over them (once the frame has had time to reach the
// terminal), not while a modal covers it, and leaving the view writes
// its cells again.
func TestSixelImageIsDrawnOverItsCells(t *testing.T) {
	m, now := pixelModel(t)
	_, cmd := m.Update(imageCall(t))
	follow(m, cmd)
	frame := m.View().Content
	ps := m.screen.Placements()
	if len(ps) != 1 || !ps[0].Whole {
		t.Fatalf("placements %+v", ps)
	}
	p := ps[0]
	// 64×32 pixels in cells of 8×16: 8×2 cells, below the block's
	// header, inside the modal.
	if p.Cols != 8 || p.Rows != 2 {
		t.Fatalf("reserved %d×%d cells", p.Cols, p.Rows)
	}
	lines := strings.Split(ansi.Strip(frame), "\n")
	if !strings.Contains(lines[p.Y-1], "image/png") || strings.TrimSpace(ansi.Cut(lines[p.Y], p.X, p.X+p.Cols)) != "" {
		t.Fatalf("image at row %d col %d:\n%s", p.Y, p.X, strings.Join(lines, "\n"))
	}
	if !m.layoutContains(p) {
		t.Fatalf("image at %+v outside the modal %v", p, m.layout.modal)
	}

	// Not before the frame can be on the terminal.
	if seq := tick(m); seq != "" {
		t.Fatal("drawn before the frame settled")
	}
	*now = now.Add(placeSettle)
	seq := tick(m)
	row, col, data := cupAndImage(t, seq)
	if row != p.Y+1 || col != p.X+1 {
		t.Fatalf("drawn at row %d col %d, want %d %d", row, col, p.Y+1, p.X+1)
	}
	img, err := (&sixel.Decoder{}).Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 8*termimage.CellWidth || b.Dy() != 2*termimage.CellHeight {
		t.Fatalf("sixel of %v", b)
	}
	if r, g, b, _ := img.At(0, 0).RGBA(); r>>8 < 250 || g>>8 > 5 || b>>8 > 5 {
		t.Fatalf("top-left pixel %d,%d,%d, want red", r>>8, g>>8, b>>8)
	}
	if again := tick(m); again != "" {
		t.Fatal("drawn twice")
	}

	// The help over it: not in the frame, not drawn.
	m.modal = modalHelp
	covered := m.View().Content
	*now = now.Add(time.Second)
	if seq := tick(m); seq != "" || len(m.screen.Placements()) != 0 {
		t.Fatalf("drawn under a modal: %q", seq)
	}
	repainted(t, frame, covered, p)
	// Back: drawn again once settled.
	m.modal = modalResult
	m.View()
	*now = now.Add(placeSettle)
	if row, _, _ := cupAndImage(t, tick(m)); row != p.Y+1 {
		t.Fatalf("drawn again at row %d", row)
	}

	// esc leaves the view: every reserved cell is written again, and
	// nothing is drawn.
	frame = m.View().Content
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if left := follow(m, cmd); left != "" {
		t.Fatalf("leaving wrote %q", left)
	}
	if m.modal == modalResult {
		t.Fatal("esc left the result open")
	}
	repainted(t, frame, m.View().Content, p)
	*now = now.Add(time.Second)
	if seq := tick(m); seq != "" {
		t.Fatalf("drawn after leaving: %q", seq[:min(len(seq), 40)])
	}
	if m.screen.Placing() {
		t.Fatal("still placing images after the view was left")
	}
}

// repainted fails unless every cell of p differs between the frames, so
// that the renderer, which writes only changed cells, writes them all and
// the terminal forgets the image's pixels there.
func repainted(t *testing.T, before, after string, p termimage.Placement) {
	t.Helper()
	a, b := cells(before, 80, 24), cells(after, 80, 24)
	for y := p.Y; y < p.Y+p.Rows; y++ {
		for x := p.X; x < p.X+p.Cols; x++ {
			if a.CellAt(x, y).Equal(b.CellAt(x, y)) {
				t.Fatalf("cell %d,%d is unchanged: the renderer would leave the image's pixels", x, y)
			}
		}
	}
}

// layoutContains says p lies inside the modal rectangle.
func (m *Model) layoutContains(p termimage.Placement) bool {
	r := m.layout.modal
	return p.X >= r.Min.X && p.Y >= r.Min.Y && p.X+p.Cols <= r.Max.X && p.Y+p.Rows <= r.Max.Y
}

// A sixel image scrolled half out of the view is not drawn: its visible
// rows show half-blocks, and the layout keeps its width.
func TestSixelImageCutByScrollingShowsHalfBlocks(t *testing.T) {
	m, now := pixelModel(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 16})
	call := imageCall(t)
	// Text after the image, so that the view scrolls.
	call.result.Result = json.RawMessage(strings.Replace(string(call.result.Result), `]}`,
		`,{"type":"text","text":"`+strings.Repeat(`line\n`, 40)+`"}]}`, 1))
	_, cmd := m.Update(call)
	follow(m, cmd)
	m.View()
	ps := m.screen.Placements()
	if len(ps) != 1 {
		t.Fatalf("placements %+v", ps)
	}
	// Scroll down until the image's first row leaves the view.
	for range 20 {
		m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
		frame := m.View().Content
		ps = m.screen.Placements()
		if len(ps) == 1 && !ps[0].Whole {
			if !strings.Contains(ansi.Strip(frame), "▀") {
				t.Fatalf("a cut image shows no half-blocks:\n%s", ansi.Strip(frame))
			}
			lines := strings.Split(frame, "\n")
			if len(lines) != 16 {
				t.Fatalf("%d lines", len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w != 80 {
					t.Fatalf("line %d is %d cells wide", i, w)
				}
			}
			*now = now.Add(time.Second)
			if seq := tick(m); seq != "" {
				t.Fatal("a cut image is drawn")
			}
			return
		}
	}
	t.Fatalf("the image was never cut by scrolling: %+v", ps)
}
