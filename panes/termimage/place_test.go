package termimage

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/sixel"
)

// drawStep is one thing a Draw sequence does, in order.
type drawStep struct {
	kind     string // save, cup, restore, dcs, osc
	row, col int    // of a cup, from 1
	data     []byte // of a dcs or osc
}

// drawSteps parses a Draw sequence with x/ansi's parser.
func drawSteps(t *testing.T, s string) []drawStep {
	t.Helper()
	var steps []drawStep
	p := ansi.NewParser()
	p.SetDataSize(0)
	p.SetHandler(ansi.Handler{
		HandleEsc: func(cmd ansi.Cmd) {
			switch cmd.Final() {
			case '7':
				steps = append(steps, drawStep{kind: "save"})
			case '8':
				steps = append(steps, drawStep{kind: "restore"})
			case '\\': // the string terminator of the DCS
			default:
				t.Errorf("unexpected ESC %q", cmd.Final())
			}
		},
		HandleCsi: func(cmd ansi.Cmd, params ansi.Params) {
			if cmd.Final() != 'H' {
				t.Errorf("unexpected CSI %q", cmd.Final())
				return
			}
			row, _, _ := params.Param(0, 1)
			col, _, _ := params.Param(1, 1)
			steps = append(steps, drawStep{kind: "cup", row: row, col: col})
		},
		HandleDcs: func(_ ansi.Cmd, _ ansi.Params, d []byte) {
			steps = append(steps, drawStep{kind: "dcs", data: bytes.Clone(d)})
		},
		HandleOsc: func(_ int, d []byte) { steps = append(steps, drawStep{kind: "osc", data: bytes.Clone(d)}) },
		Print:     func(r rune) { t.Errorf("printed %q", r) },
	})
	p.Parse([]byte(s))
	return steps
}

// frameWith is a frame of height lines of width cells with rows placed
// at column x from line y (cut to the frame), each line as a pane draws
// it: styled text, a border, then the image's cells.
func frameWith(rows []string, x, y, width, height int) string {
	lines := make([]string, height)
	for i := range lines {
		line := "\x1b[38;2;1;2;3m│\x1b[m" + strings.Repeat(" ", x-1)
		if j := i - y; j >= 0 && j < len(rows) {
			line += rows[j]
		}
		lines[i] = ansi.Truncate(line, width, "")
	}
	return strings.Join(lines, "\n")
}

// An image wholly in the frame is drawn at its cells' top-left, once,
// and the sequence decodes back to the thumbnail.
func TestPlacedSixelIsDrawnAtItsCells(t *testing.T) {
	s := NewScreen(Sixel)
	s.SetCellSize(10, 20)
	img := &Image{Thumb: knownImage(40, 40), Width: 40, Height: 40}
	id := s.NewID()
	rows := s.Reserve(id, img, 4, 2, true)
	now := time.Unix(100, 0)
	frame := frameWith(rows, 3, 5, 40, 12)
	shown := s.Place(frame, now)
	if ansi.Strip(shown) != ansi.Strip(frame) {
		t.Fatalf("the frame's text changed:\n%s", ansi.Strip(shown))
	}
	if pending, changed := s.Pending(); !pending || !changed.Equal(now) {
		t.Fatalf("pending %v changed %v", pending, changed)
	}
	seq, err := s.Draw()
	if err != nil {
		t.Fatal(err)
	}
	steps := drawSteps(t, seq)
	if len(steps) != 4 || steps[0].kind != "save" || steps[1].kind != "cup" || steps[2].kind != "dcs" || steps[3].kind != "restore" {
		t.Fatalf("steps %+v", steps)
	}
	if steps[1].row != 6 || steps[1].col != 4 {
		t.Fatalf("drawn at row %d col %d, want 6, 4", steps[1].row, steps[1].col)
	}
	got, err := (&sixel.Decoder{}).Decode(bytes.NewReader(steps[2].data))
	if err != nil {
		t.Fatal(err)
	}
	want := Scale(img.Thumb, 4*10, 2*20)
	for i := 0; i < len(want.Pix); i += 4 {
		c := sixel.FromColor(color.RGBA{want.Pix[i], want.Pix[i+1], want.Pix[i+2], want.Pix[i+3]})
		r, g, b, a := c.RGBA()
		want.Pix[i], want.Pix[i+1], want.Pix[i+2], want.Pix[i+3] = uint8(r>>8), uint8(g>>8), uint8(b>>8), uint8(a>>8)
	}
	sameImage(t, got, want)
	// The same frame again draws nothing more.
	s.Place(frame, now.Add(time.Second))
	if again, _ := s.Draw(); again != "" {
		t.Fatalf("drawn again: %q", again[:min(len(again), 40)])
	}
	if pending, _ := s.Pending(); pending {
		t.Fatal("still pending")
	}
}

func TestPlacedITerm2ImageDecodesBackAndGoesThroughTmux(t *testing.T) {
	for _, tmux := range []bool{false, true} {
		t.Run(fmt.Sprint("tmux ", tmux), func(t *testing.T) {
			s := NewScreen(ITerm2)
			s.Set(ITerm2, tmux)
			img := &Image{Thumb: knownImage(40, 20), Width: 40, Height: 20}
			id := s.NewID()
			s.Place(frameWith(s.Reserve(id, img, 5, 2, true), 7, 1, 40, 6), time.Unix(1, 0))
			seq, err := s.Draw()
			if err != nil {
				t.Fatal(err)
			}
			if tmux {
				// Only the image goes through tmux: tmux moves the cursor.
				pre, rest, ok := strings.Cut(seq, "\x1bPtmux;")
				body, post, ok2 := strings.Cut(rest, "\x1b\\\x1b8")
				if !ok || !ok2 || !strings.HasPrefix(pre, "\x1b7") || post != "" {
					t.Fatalf("not wrapped: %q", seq[:min(len(seq), 60)])
				}
				inner, ok := unwrapTmux("\x1bPtmux;" + body + "\x1b\\")
				if !ok {
					t.Fatal("bad passthrough")
				}
				seq = pre + inner + "\x1b8"
			}
			steps := drawSteps(t, seq)
			if len(steps) != 4 || steps[1].kind != "cup" || steps[2].kind != "osc" || steps[1].row != 2 || steps[1].col != 8 {
				t.Fatalf("steps %+v", steps)
			}
			args, content, _ := strings.Cut(strings.TrimPrefix(string(steps[2].data), "1337;File="), ":")
			for _, want := range []string{"width=5", "height=2", "doNotMoveCursor=1"} {
				if !strings.Contains(args, want) {
					t.Errorf("%q lacks %s", args, want)
				}
			}
			raw, err := base64.StdEncoding.DecodeString(content)
			if err != nil {
				t.Fatal(err)
			}
			got, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			sameImage(t, got, img.Thumb)
		})
	}
}

// An image the frame cuts is not drawn: its visible cells show
// half-blocks, as wide as the reserved cells.
func TestCutImageShowsHalfBlocks(t *testing.T) {
	s := NewScreen(Sixel)
	img := &Image{Thumb: knownImage(40, 40), Width: 40, Height: 40}
	id := s.NewID()
	rows := s.Reserve(id, img, 4, 3, true)
	// Scrolled: only the last two rows are at the top of the frame.
	frame := frameWith(rows, 3, -1, 40, 6)
	shown := s.Place(frame, time.Unix(1, 0))
	if seq, _ := s.Draw(); seq != "" {
		t.Fatalf("a cut image is drawn: %q", seq[:min(len(seq), 40)])
	}
	got, want := strings.Split(shown, "\n"), strings.Split(frame, "\n")
	for i := range got {
		if ansi.StringWidth(got[i]) != ansi.StringWidth(want[i]) {
			t.Errorf("line %d is %d cells, was %d", i, ansi.StringWidth(got[i]), ansi.StringWidth(want[i]))
		}
	}
	for i := range 2 {
		if strings.Count(ansi.Strip(got[i]), "▀") != 4 {
			t.Errorf("line %d is not half-blocks: %q", i, got[i])
		}
	}
	if strings.Contains(shown, markerPrefix(id)) {
		t.Error("the cut image's cells are still reserved")
	}
}

// When the image moves, every one of its cells is written again (the row
// is in their colour, and their generation flips, so the renderer
// rewrites them) and it is drawn anew at its new place; gone from the
// frame, nothing is drawn.
func TestMovedImageRepaintsItsCellsAndIsDrawnAgain(t *testing.T) {
	s := NewScreen(Sixel)
	img := &Image{Thumb: knownImage(40, 40), Width: 40, Height: 40}
	id := s.NewID()
	rows := s.Reserve(id, img, 4, 3, true)
	first := strings.Split(s.Place(frameWith(rows, 3, 5, 40, 12), time.Unix(1, 0)), "\n")
	if seq, _ := s.Draw(); !strings.Contains(seq, ansi.CursorPosition(4, 6)) {
		t.Fatalf("first drawing %q", seq[:min(len(seq), 40)])
	}
	// Scrolled by one line: line 5 and 6 show rows 1 and 2 now, whose
	// cells the frame must write again.
	moved := strings.Split(s.Place(frameWith(rows, 3, 4, 40, 12), time.Unix(2, 0)), "\n")
	for line := 4; line <= 6; line++ {
		if moved[line] == first[line] {
			t.Errorf("line %d is the same as before: the renderer would not rewrite it", line)
		}
	}
	if pending, changed := s.Pending(); !pending || changed != time.Unix(2, 0) {
		t.Fatalf("pending %v changed %v", pending, changed)
	}
	seq, _ := s.Draw()
	if steps := drawSteps(t, seq); len(steps) != 4 || steps[1].row != 5 || steps[1].col != 4 {
		t.Fatalf("drawn again at %+v", steps)
	}
	// Moved back within a frame the terminal never saw: drawn again,
	// which is harmless; the cells flip again.
	back := strings.Split(s.Place(frameWith(rows, 3, 5, 40, 12), time.Unix(3, 0)), "\n")
	if back[5] == moved[5] {
		t.Error("line 5 did not change")
	}
	// Moved one column right: the cells it keeps would be the same
	// blanks in the same colour, but its generation flips their colour.
	right := strings.Split(s.Place(frameWith(rows, 4, 5, 40, 12), time.Unix(4, 0)), "\n")
	for line := 5; line <= 7; line++ {
		if ansi.Cut(right[line], 4, 7) == ansi.Cut(back[line], 4, 7) {
			t.Errorf("line %d: the cells kept by a sideways move are not written again", line)
		}
	}
	// A modal covers it: not in the frame, nothing drawn.
	s.Place(frameWith(nil, 3, 5, 40, 12), time.Unix(5, 0))
	if pending, _ := s.Pending(); pending {
		t.Fatal("a covered image is pending")
	}
	if seq, _ := s.Draw(); seq != "" {
		t.Fatalf("a covered image is drawn: %q", seq[:min(len(seq), 40)])
	}
	if len(s.Placements()) != 0 {
		t.Fatalf("placements %+v", s.Placements())
	}
}
