package termimage

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/iterm2"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/charmbracelet/x/ansi/sixel"
)

// Cell sizes in pixels assumed where the terminal is not asked: a
// graphics protocol draws a w×h image across about w/CellWidth columns.
const (
	CellWidth  = 8
	CellHeight = 16
)

// Fit is how many cells (cols×rows) an image of w×h pixels takes within
// maxCols×maxRows, keeping its aspect ratio with cells twice as tall as
// they are wide. pxPerCol is how many of its pixels one column shows at
// full size (1 for half-blocks, CellWidth for a graphics protocol): an
// image is never blown up past that.
func Fit(w, h, maxCols, maxRows, pxPerCol int) (cols, rows int) {
	if w <= 0 || h <= 0 || maxCols <= 0 || maxRows <= 0 {
		return 0, 0
	}
	pxPerCol = max(pxPerCol, 1)
	cols = min(maxCols, (w+pxPerCol-1)/pxPerCol)
	// rows*2 cell-widths tall for cols wide: rows = cols*h/(2w).
	rows = max(1, (cols*h+w)/(2*w))
	if rows > maxRows {
		rows = maxRows
		cols = max(1, min(maxCols, (rows*2*w+h/2)/h))
	}
	return max(cols, 1), rows
}

// FitPixels is how many cells (cols×rows) an image of w×h pixels takes
// within maxCols×maxRows when drawn at its size in cells of cellW×cellH
// pixels, keeping its aspect ratio: the cell size the terminal reports
// (sixel and iTerm2 images are drawn in pixels) rather than Fit's cells
// twice as tall as they are wide. It never blows the image up.
func FitPixels(w, h, maxCols, maxRows, cellW, cellH int) (cols, rows int) {
	if w <= 0 || h <= 0 || maxCols <= 0 || maxRows <= 0 || cellW <= 0 || cellH <= 0 {
		return 0, 0
	}
	cols = min(maxCols, (w+cellW-1)/cellW)
	// rows*cellH pixels tall for cols*cellW wide: rows = cols*cellW*h/(w*cellH).
	rows = max(1, (2*cols*cellW*h+w*cellH)/(2*w*cellH))
	if rows > maxRows {
		rows = maxRows
		cols = max(1, min(maxCols, (2*rows*cellH*w+h*cellW)/(2*h*cellW)))
	}
	return max(cols, 1), rows
}

// HalfBlocks draws m as rows lines of cols cells: each cell an upper half
// block (▀) whose foreground is the upper pixel and whose background is
// the lower, in 24-bit colour. Transparent pixels are left to the
// terminal's background. Without colour (NO_COLOR) each cell is a shade
// (░▒▓█) of the two pixels' lightness.
func HalfBlocks(m image.Image, cols, rows int, colour bool) []string {
	if m == nil || cols <= 0 || rows <= 0 {
		return nil
	}
	px := Scale(m, cols, rows*2)
	out := make([]string, rows)
	var b strings.Builder
	for y := range rows {
		b.Reset()
		var lastFg, lastBg string
		for x := range cols {
			top := px.RGBAAt(x, 2*y)
			bot := px.RGBAAt(x, 2*y+1)
			if !colour {
				b.WriteRune(shade(top.R, top.G, top.B, top.A, bot.R, bot.G, bot.B, bot.A))
				continue
			}
			topOn, botOn := top.A >= 128, bot.A >= 128
			var fg, bg string
			var glyph string
			switch {
			case topOn && botOn:
				fg, bg, glyph = fgOf(top.R, top.G, top.B), bgOf(bot.R, bot.G, bot.B), "▀"
			case topOn:
				fg, bg, glyph = fgOf(top.R, top.G, top.B), "\x1b[49m", "▀"
			case botOn:
				fg, bg, glyph = fgOf(bot.R, bot.G, bot.B), "\x1b[49m", "▄"
			default:
				fg, bg, glyph = lastFg, "\x1b[49m", " "
			}
			if fg != lastFg {
				b.WriteString(fg)
				lastFg = fg
			}
			if bg != lastBg {
				b.WriteString(bg)
				lastBg = bg
			}
			b.WriteString(glyph)
		}
		if colour {
			b.WriteString("\x1b[m")
		}
		out[y] = b.String()
	}
	return out
}

func fgOf(r, g, b uint8) string { return "\x1b[38;2;" + rgb(r, g, b) + "m" }
func bgOf(r, g, b uint8) string { return "\x1b[48;2;" + rgb(r, g, b) + "m" }
func rgb(r, g, b uint8) string {
	return strconv.Itoa(int(r)) + ";" + strconv.Itoa(int(g)) + ";" + strconv.Itoa(int(b))
}

// shade is the block of the two pixels' mean lightness, transparent ones
// counting as dark.
func shade(r1, g1, b1, a1, r2, g2, b2, a2 uint8) rune {
	l := func(r, g, b, a uint8) int { return (299*int(r) + 587*int(g) + 114*int(b)) * int(a) / 255 / 1000 }
	switch v := (l(r1, g1, b1, a1) + l(r2, g2, b2, a2)) / 2; {
	case v < 40:
		return ' '
	case v < 100:
		return '░'
	case v < 160:
		return '▒'
	case v < 220:
		return '▓'
	default:
		return '█'
	}
}

// KittyTransmit is the kitty graphics sequence that sends m as image id
// and places it virtually over cols×rows cells: the image shows where
// the cells of KittyPlaceholders are drawn, so it scrolls, is covered
// and is cut as text is. In tmux each chunk is wrapped for its
// passthrough.
func KittyTransmit(m image.Image, id, cols, rows int, tmux bool) (string, error) {
	var b strings.Builder
	o := &kitty.Options{
		Action:           kitty.TransmitAndPut,
		ID:               id,
		Format:           kitty.RGBA,
		Compression:      kitty.Zlib,
		Transmission:     kitty.Direct,
		ImageWidth:       m.Bounds().Dx(),
		ImageHeight:      m.Bounds().Dy(),
		VirtualPlacement: true,
		Columns:          cols,
		Rows:             rows,
		Quiet:            2,
		Chunk:            true,
	}
	if tmux {
		o.ChunkFormatter = ansi.TmuxPassthrough
	}
	if err := kitty.EncodeGraphics(&b, m, o); err != nil {
		return "", fmt.Errorf("encode the kitty graphics: %w", err)
	}
	return b.String(), nil
}

// KittyPlaceholders are the rows×cols cells that show image id's virtual
// placement: each the placeholder character with its row and column as
// diacritics, in a foreground colour that is the image's id.
func KittyPlaceholders(id, cols, rows int) []string {
	fg := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", id>>16&0xff, id>>8&0xff, id&0xff)
	out := make([]string, rows)
	var b strings.Builder
	for y := range rows {
		b.Reset()
		b.WriteString(fg)
		for x := range cols {
			b.WriteRune(kitty.Placeholder)
			b.WriteRune(kitty.Diacritic(y))
			b.WriteRune(kitty.Diacritic(x))
		}
		b.WriteString("\x1b[39m")
		out[y] = b.String()
	}
	return out
}

// MaxKittyCells is the most rows or columns a placeholder can number.
const MaxKittyCells = 297

// KittyDelete is the sequence that deletes image id and frees its data.
func KittyDelete(id int, tmux bool) string {
	seq := ansi.KittyGraphics(nil, "a=d", "d=I", "i="+strconv.Itoa(id), "q=2")
	if tmux {
		return ansi.TmuxPassthrough(seq)
	}
	return seq
}

// KittyQuery asks whether the terminal speaks the kitty graphics
// protocol: one that does answers OK for image 31.
const KittyQuery = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"

// ITerm2Image is the iTerm2 inline-image sequence that draws m across
// cols×rows cells at the cursor, the cursor left where it was.
func ITerm2Image(m image.Image, cols, rows int) (string, error) {
	var p bytes.Buffer
	if err := png.Encode(&p, m); err != nil {
		return "", fmt.Errorf("encode the image as PNG: %w", err)
	}
	return ansi.ITerm2(iterm2.File{
		Name:            base64.StdEncoding.EncodeToString([]byte("mcpscope.png")),
		Size:            int64(p.Len()),
		Width:           iterm2.Cells(cols),
		Height:          iterm2.Cells(rows),
		Inline:          true,
		DoNotMoveCursor: true,
		Content:         []byte(base64.StdEncoding.EncodeToString(p.Bytes())),
	}), nil
}

// SixelImage is the sixel sequence that draws m scaled to cols×rows cells of
// cellW×cellH pixels at the cursor.
func SixelImage(m image.Image, cols, rows, cellW, cellH int) (string, error) {
	px := Scale(m, cols*cellW, rows*cellH)
	var p bytes.Buffer
	if err := (&sixel.Encoder{}).Encode(&p, px); err != nil {
		return "", fmt.Errorf("encode the image as sixel: %w", err)
	}
	// P2 = 1: pixels of no colour leave what is under them.
	return ansi.SixelGraphics(0, 1, 0, p.Bytes()), nil
}
