package export

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// inlineImageTypes are the image types the HTML page shows inline: the
// bitmap formats every browser draws. SVG is not one: it is a document
// that can carry script and links, not a picture.
var inlineImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// Bounds on what a page embeds: a session of screenshots stays a page
// that opens, and what is left out says so.
const (
	maxInlineImage  = 4 << 20  // decoded bytes of one image
	maxInlineImages = 32 << 20 // decoded bytes of all of a page's images
)

// frameImage is an image carried by a frame: a tools/call result's image
// block, or a resources/read result's blob of an image type.
type frameImage struct {
	MIME string // as declared
	Size int    // decoded bytes
	// Src is the data: URI the page shows, empty when it is not shown;
	// Why then says why.
	Src template.URL
	Why string
	b64 string // the base64 as in the frame
}

// Note is the line that stands for the image where it is not shown.
func (im frameImage) Note() string {
	mime := im.MIME
	if mime == "" {
		mime = "image of no mimeType"
	}
	return fmt.Sprintf("%s, %s: not embedded (%s)", mime, sizeText(im.Size), im.Why)
}

// imagesOf are the images in a response frame's result, read through
// jsonview (a frame may be megabytes of base64).
func imagesOf(raw []byte) []frameImage {
	result, ok := jsonview.Member(raw, "result")
	if !ok {
		return nil
	}
	var out []frameImage
	if content, ok := jsonview.Member(result, "content"); ok {
		blocks, _ := jsonview.Array(content)
		for _, b := range blocks {
			typ, _ := member(b, "type")
			if typ != "image" {
				continue
			}
			data, _ := member(b, "data")
			mime, _ := member(b, "mimeType")
			out = append(out, frameImage{MIME: mime, b64: data})
		}
	}
	if contents, ok := jsonview.Member(result, "contents"); ok {
		items, _ := jsonview.Array(contents)
		for _, c := range items {
			mime, _ := member(c, "mimeType")
			blob, ok := member(c, "blob")
			if ok && strings.HasPrefix(strings.ToLower(mime), "image/") {
				out = append(out, frameImage{MIME: mime, b64: blob})
			}
		}
	}
	return out
}

// member is a string member of a JSON object, decoded.
func member(raw []byte, key string) (string, bool) {
	v, ok := jsonview.Member(raw, key)
	if !ok {
		return "", false
	}
	return jsonview.String(v)
}

// inline decides whether the page shows each image, within the page's
// budget: a type of inlineImageTypes whose bytes are what it says, within
// the bounds.
func inline(imgs []frameImage, budget *int) {
	for i := range imgs {
		im := &imgs[i]
		im.Size = base64.StdEncoding.DecodedLen(len(im.b64))
		mime := strings.ToLower(strings.TrimSpace(strings.SplitN(im.MIME, ";", 2)[0]))
		switch {
		case !inlineImageTypes[mime]:
			im.Why = "the page shows only PNG, JPEG, GIF and WebP images"
			continue
		case im.Size > maxInlineImage:
			im.Why = "larger than the " + sizeText(maxInlineImage) + " a page embeds"
			continue
		case im.Size > *budget:
			im.Why = "the page's images passed " + sizeText(maxInlineImages)
			continue
		}
		data, err := base64.StdEncoding.DecodeString(im.b64)
		if err != nil {
			im.Why = "its base64 does not decode"
			continue
		}
		im.Size = len(data)
		if sniffed := http.DetectContentType(data); sniffed != mime {
			im.Why = "its bytes are " + sniffed + ", not " + mime
			continue
		}
		*budget -= len(data)
		// Decoded and encoded again: only base64's own alphabet reaches
		// the attribute.
		im.Src = template.URL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data))
	}
}

// sizeText is a byte count as people read it.
func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// withoutImageData is a frame's pretty JSON with each image's base64
// replaced by a note: what the Markdown report quotes, which cannot show
// an image.
func withoutImageData(body string, imgs []frameImage) string {
	for _, im := range imgs {
		if len(im.b64) < 16 {
			continue // too short to replace anything but itself
		}
		body = strings.ReplaceAll(body, `"`+im.b64+`"`, fmt.Sprintf(`"(%s of base64 not quoted)"`, sizeText(len(im.b64))))
	}
	return body
}
