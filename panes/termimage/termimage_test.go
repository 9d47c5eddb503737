package termimage

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/charmbracelet/x/ansi/sixel"
	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
)

// knownImage is the test picture: four coloured quadrants, a transparent
// corner pixel, on w×h pixels.
func knownImage(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{200, 30, 30, 255}
			switch {
			case x >= w/2 && y < h/2:
				c = color.RGBA{30, 160, 60, 255}
			case x < w/2 && y >= h/2:
				c = color.RGBA{40, 60, 220, 255}
			case x >= w/2 && y >= h/2:
				c = color.RGBA{240, 200, 40, 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

// noisyImage is w×h pixels of noise, which nothing compresses.
func noisyImage(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	x := uint32(2463534242)
	for i := range m.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		m.Pix[i] = byte(x)
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	return m
}

func pngOf(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// declaredPNG is a real 1×1 PNG whose header says w×h: the decoder reads
// the size before any pixel, and the CRC is made right so that only the
// size is a lie.
func declaredPNG(t testing.TB, w, h uint32) []byte {
	t.Helper()
	b := pngOf(t, image.NewGray(image.Rect(0, 0, 1, 1)))
	// 8 bytes of signature, 4 of length, "IHDR", then width and height.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func TestDecodeMakesABoundedThumbnail(t *testing.T) {
	img, err := Decode(pngOf(t, knownImage(1200, 600)), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if img.Format != "png" || img.Width != 1200 || img.Height != 600 {
		t.Fatalf("got %s %d×%d, want png 1200×600", img.Format, img.Width, img.Height)
	}
	if b := img.Thumb.Bounds(); b.Dx() != ThumbSide || b.Dy() != ThumbSide/2 {
		t.Fatalf("thumbnail %v, want %d×%d", b, ThumbSide, ThumbSide/2)
	}
	if c := img.Thumb.RGBAAt(ThumbSide-10, ThumbSide/2-10); c != (color.RGBA{240, 200, 40, 255}) {
		t.Fatalf("the thumbnail's lower right is %v, want the yellow quadrant", c)
	}
}

// The images that must not stall or swell the view: each gives a line
// naming its MIME type and size, within 200 ms and 64 MiB.
func TestBadImagesSayWhyQuicklyAndSmall(t *testing.T) {
	cases := []struct {
		name, mime string
		data       []byte
		want       string // in the error; "" means it decodes
	}{
		{"malformed PNG", "image/png", append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0xff}, 500)...), "does not decode"},
		{"not an image", "image/png", []byte("<html>not a picture</html>"), "not a PNG, JPEG, GIF or WebP image"},
		{"20000x20000 declared", "image/png", declaredPNG(t, 20000, 20000), "declares 20000×20000 pixels, more than the 40 Mpx"},
		{"5000x5000 in a few bytes", "image/png", declaredPNG(t, 5000, 5000), "more than any real image packs"},
		{"truncated", "image/png", pngOf(t, knownImage(300, 300))[:120], "does not decode"},
		{"1x10000", "image/png", pngOf(t, knownImage(1, 10000)), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			var img *Image
			peak, took := heappeak.Of(func() { img, err = Decode(c.data, c.mime) })
			if c.want == "" {
				if err != nil {
					t.Fatalf("want a picture, got %v", err)
				}
				cols, rows := Fit(img.Thumb.Rect.Dx(), img.Thumb.Rect.Dy(), 76, 20, 1)
				if cols != 1 || rows != 20 {
					t.Fatalf("a 1×10000 image fits %d×%d cells, want 1×20", cols, rows)
				}
				if lines := HalfBlocks(img.Thumb, cols, rows, true); len(lines) != 20 {
					t.Fatalf("%d lines drawn", len(lines))
				}
			} else {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("want an *Error, got %v", err)
				}
				msg := err.Error()
				if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, c.mime+", ") || !strings.Contains(msg, sizeOf(len(c.data))) {
					t.Fatalf("error %q: want the MIME type, the size %s and %q", msg, sizeOf(len(c.data)), c.want)
				}
			}
			budget := 200 * time.Millisecond
			if raceEnabled {
				budget *= 5
			}
			if took > budget {
				t.Errorf("took %v, budget %v", took, budget)
			}
			if peak > 64<<20 {
				t.Errorf("the heap rose %d MiB, budget 64", peak>>20)
			}
		})
	}
}

func TestDecodeBase64SaysWhenTheBase64IsBroken(t *testing.T) {
	_, err := DecodeBase64("iVBORw0KGgo!!!", "image/png")
	if err == nil || !strings.Contains(err.Error(), "base64 does not decode") {
		t.Fatalf("got %v", err)
	}
}

func TestFitKeepsTheAspectRatio(t *testing.T) {
	cases := []struct{ w, h, maxC, maxR, px, cols, rows int }{
		{16, 16, 76, 20, 1, 16, 8},    // square: twice as wide in cells as tall
		{400, 200, 76, 20, 1, 76, 19}, // wide: the width binds
		{200, 400, 76, 20, 1, 20, 20}, // tall: the height binds
		{64, 64, 76, 20, 8, 8, 4},     // a graphics protocol: 8 px a column
		{10000, 1, 76, 20, 1, 76, 1},  // a line
		{0, 10, 76, 20, 1, 0, 0},      // nothing to draw
		{100, 100, 0, 20, 1, 0, 0},    // no room
		{1000, 1000, 300, 300, 1, 300, 150},
	}
	for _, c := range cases {
		cols, rows := Fit(c.w, c.h, c.maxC, c.maxR, c.px)
		if cols != c.cols || rows != c.rows {
			t.Errorf("Fit(%d, %d, %d, %d, %d) = %d×%d, want %d×%d", c.w, c.h, c.maxC, c.maxR, c.px, cols, rows, c.cols, c.rows)
		}
	}
}

// Drawn in pixels, an image takes the cells its size in the terminal's
// cells calls for, never blown up, and keeps its aspect ratio.
func TestFitPixelsUsesTheCellSize(t *testing.T) {
	cases := []struct{ w, h, maxC, maxR, cw, ch, cols, rows int }{
		{64, 64, 76, 20, 8, 16, 8, 4},       // as Fit with cells of 8×16
		{90, 100, 76, 20, 9, 20, 10, 5},     // 90×100 px in cells of 9×20
		{20, 20, 76, 20, 10, 20, 2, 1},      // small: its own size
		{2000, 1000, 76, 20, 8, 16, 76, 19}, // wide: the width binds
		{1000, 2000, 76, 20, 8, 16, 20, 20}, // tall: the height binds, 20 rows of 16 px is 320 px, 160 px wide
		{10000, 1, 76, 20, 8, 16, 76, 1},
		{100, 100, 76, 20, 0, 16, 0, 0},
	}
	for _, c := range cases {
		cols, rows := FitPixels(c.w, c.h, c.maxC, c.maxR, c.cw, c.ch)
		if cols != c.cols || rows != c.rows {
			t.Errorf("FitPixels(%d, %d, %d, %d, %d, %d) = %d×%d, want %d×%d", c.w, c.h, c.maxC, c.maxR, c.cw, c.ch, cols, rows, c.cols, c.rows)
		}
	}
}

func TestHalfBlocksDrawEachPairOfPixels(t *testing.T) {
	m := knownImage(4, 4)
	m.SetRGBA(0, 0, color.RGBA{}) // transparent: the terminal's background
	lines := HalfBlocks(m, 4, 2, true)
	want := []string{
		"\x1b[38;2;200;30;30m\x1b[49m▄\x1b[48;2;200;30;30m▀\x1b[38;2;30;160;60m\x1b[48;2;30;160;60m▀▀\x1b[m",
		"\x1b[38;2;40;60;220m\x1b[48;2;40;60;220m▀▀\x1b[38;2;240;200;40m\x1b[48;2;240;200;40m▀▀\x1b[m",
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q\nwant      %q", i, lines[i], want[i])
		}
		if w := ansi.StringWidth(lines[i]); w != 4 {
			t.Errorf("line %d is %d cells wide", i, w)
		}
	}
	plain := HalfBlocks(knownImage(4, 4), 4, 2, false)
	if plain[0] != "░░▒▒" || plain[1] != "░░▓▓" {
		t.Errorf("without colour: %q", plain)
	}
}

// sequences splits s into its APC, OSC and DCS payloads with x/ansi's own
// parser.
func sequences(s string) (apc [][]byte, osc [][]byte, dcs [][]byte, printed int) {
	p := ansi.NewParser()
	p.SetDataSize(0) // unlimited
	p.SetHandler(ansi.Handler{
		HandleApc: func(d []byte) { apc = append(apc, bytes.Clone(d)) },
		HandleOsc: func(_ int, d []byte) { osc = append(osc, bytes.Clone(d)) },
		HandleDcs: func(_ ansi.Cmd, _ ansi.Params, d []byte) { dcs = append(dcs, bytes.Clone(d)) },
		Print:     func(rune) { printed++ },
	})
	p.Parse([]byte(s))
	return
}

func sameImage(t *testing.T, got image.Image, want *image.RGBA) {
	t.Helper()
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Fatalf("decoded %v, want %v", got.Bounds(), want.Bounds())
	}
	for y := range want.Rect.Dy() {
		for x := range want.Rect.Dx() {
			r, g, b, a := got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y).RGBA()
			w := want.RGBAAt(x, y)
			if uint8(r>>8) != w.R || uint8(g>>8) != w.G || uint8(b>>8) != w.B || uint8(a>>8) != w.A {
				t.Fatalf("pixel %d,%d = %d,%d,%d,%d, want %v", x, y, r>>8, g>>8, b>>8, a>>8, w)
			}
		}
	}
}

// unwrapTmux is what tmux passes on of a run of passthrough sequences.
func unwrapTmux(s string) (string, bool) {
	var b strings.Builder
	for s != "" {
		rest, ok := strings.CutPrefix(s, "\x1bPtmux;")
		if !ok {
			return "", false
		}
		i := 0
		for ; i < len(rest); i++ {
			if rest[i] != 0x1b || i+1 == len(rest) {
				b.WriteByte(rest[i])
				continue
			}
			if rest[i+1] == '\\' {
				break
			}
			b.WriteByte(0x1b) // a doubled ESC
			i++
		}
		if i >= len(rest) {
			return "", false // never terminated
		}
		s = rest[i+2:]
	}
	return b.String(), true
}

// The kitty sequence, chunks joined as the terminal joins them, decodes
// back to the image, with its id, size and virtual placement.
func TestKittySequenceDecodesBackToTheImage(t *testing.T) {
	m := noisyImage(90, 60) // zlib leaves it big enough for several chunks
	for _, tmux := range []bool{false, true} {
		seq, err := KittyTransmit(m, 0x4d5301, 12, 4, tmux)
		if err != nil {
			t.Fatal(err)
		}
		if tmux {
			// tmux's passthrough: DCS tmux; with each ESC doubled,
			// undone as tmux undoes it.
			inner, ok := unwrapTmux(seq)
			if !ok {
				t.Fatalf("not wrapped for tmux: %q", seq[:min(len(seq), 40)])
			}
			seq = inner
		}
		apc, _, _, printed := sequences(seq)
		if printed != 0 || len(apc) < 2 {
			t.Fatalf("%d APCs and %d printed runes; want chunks only", len(apc), printed)
		}
		var opts kitty.Options
		var payload strings.Builder
		for i, a := range apc {
			keys, data, _ := strings.Cut(strings.TrimPrefix(string(a), "G"), ";")
			if i == 0 {
				if err := opts.UnmarshalText([]byte(keys)); err != nil {
					t.Fatal(err)
				}
			}
			more := strings.Contains(keys, "m=1")
			if more == (i == len(apc)-1) {
				t.Fatalf("chunk %d of %d has m=%v", i, len(apc), more)
			}
			payload.WriteString(data)
		}
		if opts.ID != 0x4d5301 || opts.Action != kitty.TransmitAndPut || !opts.VirtualPlacement || opts.Columns != 12 || opts.Rows != 4 || opts.Quiet != 2 {
			t.Fatalf("options %+v", opts)
		}
		raw, err := base64.StdEncoding.DecodeString(payload.String())
		if err != nil {
			t.Fatal(err)
		}
		d := &kitty.Decoder{Decompress: opts.Compression == kitty.Zlib, Format: opts.Format, Width: opts.ImageWidth, Height: opts.ImageHeight}
		got, err := d.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		sameImage(t, got, m)
	}
}

func TestKittyPlaceholdersNumberEveryCell(t *testing.T) {
	lines := KittyPlaceholders(0x4d5301, 3, 2)
	if len(lines) != 2 {
		t.Fatal(len(lines))
	}
	for y, l := range lines {
		if !strings.HasPrefix(l, "\x1b[38;2;77;83;1m") {
			t.Fatalf("line %d's colour is not the id: %q", y, l)
		}
		if w := ansi.StringWidth(l); w != 3 {
			t.Fatalf("line %d is %d cells wide, want 3", y, w)
		}
		for x := range 3 {
			cell := string([]rune{kitty.Placeholder, kitty.Diacritic(y), kitty.Diacritic(x)})
			if !strings.Contains(l, cell) {
				t.Fatalf("line %d lacks cell %d", y, x)
			}
		}
	}
	if d := KittyDelete(7, false); d != "\x1b_Ga=d,d=I,i=7,q=2\x1b\\" {
		t.Fatalf("delete %q", d)
	}
}

func TestITerm2SequenceDecodesBackToTheImage(t *testing.T) {
	m := knownImage(40, 20)
	seq, err := ITerm2Image(m, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	_, osc, _, printed := sequences(seq)
	if len(osc) != 1 || printed != 0 {
		t.Fatalf("%d OSCs, %d printed", len(osc), printed)
	}
	args, content, ok := strings.Cut(strings.TrimPrefix(string(osc[0]), "1337;File="), ":")
	if !ok {
		t.Fatalf("no content in %q", osc[0][:40])
	}
	for _, want := range []string{"inline=1", "width=10", "height=5", "doNotMoveCursor=1"} {
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
	sameImage(t, got, m)
}

func TestSixelSequenceDecodesBackToTheImage(t *testing.T) {
	// Four flat colours: sixel's palette holds them exactly, so the
	// decoded pixels must equal the scaled image's (sixel's colours are
	// percentages: compared after the same rounding).
	m := knownImage(2*CellWidth, 2*CellHeight)
	seq, err := SixelImage(m, 2, 2, CellWidth, CellHeight)
	if err != nil {
		t.Fatal(err)
	}
	_, _, dcs, printed := sequences(seq)
	if len(dcs) != 1 || printed != 0 {
		t.Fatalf("%d DCSs, %d printed", len(dcs), printed)
	}
	got, err := (&sixel.Decoder{}).Decode(bytes.NewReader(dcs[0]))
	if err != nil {
		t.Fatal(err)
	}
	want := Scale(m, 2*CellWidth, 2*CellHeight)
	for i := 0; i < len(want.Pix); i += 4 {
		c := sixel.FromColor(color.RGBA{want.Pix[i], want.Pix[i+1], want.Pix[i+2], want.Pix[i+3]})
		r, g, b, a := c.RGBA()
		want.Pix[i], want.Pix[i+1], want.Pix[i+2], want.Pix[i+3] = uint8(r>>8), uint8(g>>8), uint8(b>>8), uint8(a>>8)
	}
	sameImage(t, got, want)
}

func TestCacheKeepsThumbnailsWithinItsBudget(t *testing.T) {
	b64 := func(w, h int) string { return base64.StdEncoding.EncodeToString(pngOf(t, knownImage(w, h))) }
	one := 100 * 100 * 4
	c := NewCache(3 * one)
	keys := make([]Key, 0, 5)
	for i := range 5 {
		s := b64(100, 100+i) // each its own bytes
		if _, err := c.Get(s, "image/png"); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, KeyOf(s))
	}
	if c.Bytes() > 3*one+5*100*4 {
		t.Fatalf("the cache holds %d bytes, budget %d", c.Bytes(), 3*one)
	}
	if _, _, ok := c.Lookup(keys[0]); ok {
		t.Fatal("the oldest thumbnail is still kept")
	}
	if img, _, ok := c.Lookup(keys[4]); !ok || img.Height != 104 {
		t.Fatal("the newest thumbnail is not kept")
	}
	// An error is remembered too: a bad image is not decoded again.
	bad := base64.StdEncoding.EncodeToString(declaredPNG(t, 20000, 20000))
	_, err1 := c.Get(bad, "image/png")
	_, err2, ok := c.Lookup(KeyOf(bad))
	if err1 == nil || !ok || err2 != err1 {
		t.Fatalf("the error is not kept: %v %v %v", err1, ok, err2)
	}
}

func TestParseMode(t *testing.T) {
	for _, ok := range []string{"auto", "KITTY", "blocks", "off", ""} {
		if _, err := ParseMode(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if _, err := ParseMode("sixels"); err == nil || !strings.Contains(err.Error(), "auto, kitty, iterm2, sixel, blocks, off") {
		t.Errorf("sixels: %v", err)
	}
}

// fiveMBPNG is a PNG of noise of about 5 MB.
func fiveMBPNG(t testing.TB) []byte {
	m := noisyImage(1140, 1140)
	return pngOf(t, m)
}

func BenchmarkDecode5MBPNG(b *testing.B) {
	data := base64.StdEncoding.EncodeToString(fiveMBPNG(b))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		img, err := DecodeBase64(data, "image/png")
		if err != nil {
			b.Fatal(err)
		}
		HalfBlocks(img.Thumb, 76, 20, true)
	}
}

// server-everything's get-tiny-image: a PNG whose iCCP chunk has a wrong
// CRC, which browsers draw. It is drawn, and the view says what was left
// out; a critical chunk's wrong CRC is still an error.
func TestAPNGWithABadAncillaryChunkIsDrawn(t *testing.T) {
	data, err := os.ReadFile("testdata/everything-tiny-image.png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err == nil {
		t.Fatal("image/png reads it now: the workaround can go")
	}
	img, err := Decode(data, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if img.Width != 20 || img.Height != 20 || !strings.Contains(img.Note, "iCCP") {
		t.Fatalf("%d×%d, note %q", img.Width, img.Height, img.Note)
	}
	bad := bytes.Clone(data)
	bad[29] ^= 1 // IHDR's CRC
	if _, err := Decode(bad, "image/png"); err == nil {
		t.Fatal("a wrong IHDR CRC was let through")
	}
}

// FuzzDecode: whatever bytes a server sends as an image, Decode gives a
// picture within its bounds or an *Error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add(pngOf(f, knownImage(4, 3)))
	f.Add(declaredPNG(f, 20000, 20000))
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"))
	f.Add([]byte("\xff\xd8\xff\xdb"))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := Decode(b, "image/png")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		if r := img.Thumb.Rect; r.Dx() > ThumbSide || r.Dy() > ThumbSide || r.Empty() {
			t.Fatalf("thumbnail %v", r)
		}
	})
}
