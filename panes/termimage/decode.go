// Package termimage draws a server's images in a terminal: it decodes PNG,
// JPEG, GIF (the first frame) and WebP with its bounds checked before any
// pixel is decoded, keeps a small thumbnail of each (a bounded cache of
// thumbnails, never of originals), and draws a thumbnail as true-colour
// half-block cells, or with the kitty graphics protocol, iTerm2's inline
// images or sixel where the terminal has them (Detector finds out which).
package termimage

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // the decoders register themselves with package image
	_ "image/jpeg"
	_ "image/png"
	"strings"

	xdraw "golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// The bounds an image must keep before it is decoded. An image beyond
// them is refused with a line saying why, never decoded partly.
const (
	// MaxPixels is the most pixels an image may declare: decoding 40
	// Mpx takes 160 MB of RGBA.
	MaxPixels = 40_000_000
	// MaxBytes is the largest encoded image decoded at all.
	MaxBytes = 32 << 20
	// maxPixelsPerByte bounds how far a declared size may run beyond
	// the file: deflate packs at most about a thousand bytes into one,
	// and a 1-bit image eight pixels into a byte, so a file that
	// declares more is a lie (a decompression bomb), not a picture.
	maxPixelsPerByte = 8 << 10
	// slackPixels lets a tiny file declare a small image whatever its
	// ratio (a 1 Mpx solid fill in 200 bytes is fine to decode).
	slackPixels = 1 << 20
	// ThumbSide is the longest side of a thumbnail: enough for a
	// preview across a wide pane, and a kitty placement scales it.
	ThumbSide = 512
)

// Error says why an image cannot be shown, naming its MIME type and size.
type Error struct {
	MIME string // as the server declared it
	Size int    // the encoded bytes
	Why  string
	Err  error // the decoder's error, if any
}

func (e *Error) Error() string {
	mime := e.MIME
	if mime == "" {
		mime = "an image with no mimeType"
	}
	return fmt.Sprintf("%s, %s: not shown: %s", mime, sizeOf(e.Size), e.Why)
}

func (e *Error) Unwrap() error { return e.Err }

// Image is a decoded image reduced to a thumbnail.
type Image struct {
	Format string // as the bytes say: png, jpeg, gif, webp
	// Width and Height are the original's, as declared.
	Width, Height int
	// Thumb is at most ThumbSide on its longest side; it is the original
	// when that is small already.
	Thumb *image.RGBA
	// Note says what was left out to draw it, if anything.
	Note string
}

// Config reads an image's format and declared size and checks them
// against the bounds, decoding no pixel.
func Config(data []byte, mime string) (image.Config, string, error) {
	fail := func(why string, err error) (image.Config, string, error) {
		return image.Config{}, "", &Error{MIME: mime, Size: len(data), Why: why, Err: err}
	}
	if len(data) == 0 {
		return fail("no data", nil)
	}
	if len(data) > MaxBytes {
		return fail(fmt.Sprintf("larger than the %s decoded for a preview (w writes it to a file)", sizeOf(MaxBytes)), nil)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return fail("not a PNG, JPEG, GIF or WebP image", err)
		}
		return fail("its header does not decode ("+err.Error()+")", err)
	}
	px := int64(cfg.Width) * int64(cfg.Height)
	switch {
	case cfg.Width <= 0 || cfg.Height <= 0:
		return fail(fmt.Sprintf("it declares %d×%d pixels", cfg.Width, cfg.Height), nil)
	case px > MaxPixels:
		return fail(fmt.Sprintf("it declares %d×%d pixels, more than the %d Mpx decoded", cfg.Width, cfg.Height, MaxPixels/1_000_000), nil)
	case px > int64(len(data))*maxPixelsPerByte+slackPixels:
		return fail(fmt.Sprintf("it declares %d×%d pixels in only %s, more than any real image packs", cfg.Width, cfg.Height, sizeOf(len(data))), nil)
	}
	return cfg, format, nil
}

// Decode checks an image's bounds (Config), decodes it and reduces it to
// a thumbnail. The original's pixels are dropped once the thumbnail is
// made.
func Decode(data []byte, mime string) (*Image, error) {
	img, err := decode(data, mime)
	if err == nil {
		return img, nil
	}
	if fixed, dropped := dropBadAncillaryChunks(data); fixed != nil {
		if img, err2 := decode(fixed, mime); err2 == nil {
			img.Note = droppedNote(dropped)
			return img, nil
		}
	}
	return nil, err
}

func decode(data []byte, mime string) (*Image, error) {
	cfg, format, err := Config(data, mime)
	if err != nil {
		return nil, err
	}
	m, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{MIME: mime, Size: len(data), Why: "it does not decode (" + err.Error() + ")", Err: err}
	}
	return &Image{Format: format, Width: cfg.Width, Height: cfg.Height, Thumb: thumbnail(m, ThumbSide)}, nil
}

// DecodeBase64 is Decode of an image sent as base64 (an MCP image block's
// data, a resource's blob); its size is checked before it is decoded.
func DecodeBase64(b64, mime string) (*Image, error) {
	if n := base64.StdEncoding.DecodedLen(len(b64)); n > MaxBytes+3 {
		return nil, &Error{MIME: mime, Size: n, Why: fmt.Sprintf("larger than the %s decoded for a preview (w writes it to a file)", sizeOf(MaxBytes))}
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, &Error{MIME: mime, Size: base64.StdEncoding.DecodedLen(len(b64)), Why: "its base64 does not decode (" + err.Error() + ")", Err: err}
	}
	return Decode(data, mime)
}

// thumbnail scales m down to at most side pixels on its longest side.
func thumbnail(m image.Image, side int) *image.RGBA {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > side || h > side {
		if w >= h {
			w, h = side, max(1, h*side/w)
		} else {
			w, h = max(1, w*side/h), side
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if w == b.Dx() && h == b.Dy() {
		draw.Draw(dst, dst.Bounds(), m, b.Min, draw.Src)
		return dst
	}
	// ApproxBiLinear: a preview's quality at a fraction of CatmullRom's
	// time on a large photo.
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), m, b, xdraw.Src, nil)
	return dst
}

// Scale draws m at exactly w×h pixels.
func Scale(m image.Image, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), m, m.Bounds(), xdraw.Src, nil)
	return dst
}

// sizeOf is a byte count as people read it.
func sizeOf(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// IsImageMIME reports whether a MIME type names an image format Decode
// reads.
func IsImageMIME(mime string) bool {
	mime, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mime)), ";")
	switch strings.TrimSpace(mime) {
	case "image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp":
		return true
	}
	return false
}
