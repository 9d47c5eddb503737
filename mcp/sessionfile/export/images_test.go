package export

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"image"
	"image/png"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

func smallPNG(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 5, 3))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageSession is a tools/call whose answer carries the given content
// blocks, with isError when failed.
func imageSession(t *testing.T, blocks string, failed bool) *Session {
	now := time.Now()
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot","arguments":{}}}`
	resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"content":[%s],"isError":%v}}`, blocks, failed)
	events := []mcp.Event{
		mcp.FrameEvent{Frame: &mcp.Frame{Seq: 1, Time: now, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: mcp.ID("1"), Raw: []byte(req)}},
		mcp.FrameEvent{Frame: &mcp.Frame{Seq: 2, Time: now.Add(time.Millisecond), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: mcp.ID("1"), ReplyTo: 1, ReplyToMethod: "tools/call", Raw: []byte(resp)}},
	}
	return FromEvents("x.jsonl", record.Entry{Type: "session", Target: "srv"}, events)
}

func imageBlock(mime string, data []byte) string {
	return fmt.Sprintf(`{"type":"image","mimeType":%q,"data":%q}`, mime, base64.StdEncoding.EncodeToString(data))
}

// The HTML page shows a result's PNG inline as a data: URI; what it does
// not show (a type it does not draw, bytes that are not what the type
// says, SVG) is a line saying why, with its size.
func TestHTMLShowsImagesInline(t *testing.T) {
	pic := smallPNG(t)
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>`)
	s := imageSession(t, strings.Join([]string{
		imageBlock("image/png", pic),
		imageBlock("image/svg+xml", svg),
		imageBlock("image/png", []byte("<html><script>alert(1)</script></html>")),
		imageBlock("image/jpeg", bytes.Repeat([]byte{0xff}, maxInlineImage+10)),
	}, ","), false)
	var buf bytes.Buffer
	if err := HTML(&buf, s); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	imgs := regexp.MustCompile(`<img class="shot" src="([^"]*)"`).FindAllStringSubmatch(page, -1)
	// (the attribute's + is written &#43;, which the browser reads as +)
	if len(imgs) != 1 || html.UnescapeString(imgs[0][1]) != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(pic) {
		t.Fatalf("images shown: %v", imgs)
	}
	for _, want := range []string{
		"image/svg+xml, 66 bytes: not embedded (the page shows only PNG, JPEG, GIF and WebP images)",
		"image/png, 38 bytes: not embedded (its bytes are text/html; charset=utf-8, not image/png)",
		"image/jpeg, 4.0 MB: not embedded (larger than the 4.0 MB a page embeds)",
	} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, " src=\"data:image/svg") || strings.Contains(page, "<svg") {
		t.Error("the SVG reached the page as markup or an image")
	}
}

// The Markdown report quotes a failing answer without the image's base64:
// a line with its type and size stands for it.
func TestMarkdownEmbedsNoImage(t *testing.T) {
	pic := bytes.Repeat(smallPNG(t), 20)
	s := imageSession(t, imageBlock("image/png", pic), true)
	var buf bytes.Buffer
	if err := Markdown(&buf, s); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	b64 := base64.StdEncoding.EncodeToString(pic)
	if strings.Contains(md, b64[:40]) {
		t.Fatalf("the report quotes the image's base64:\n%s", md)
	}
	for _, want := range []string{
		fmt.Sprintf(`"data": "(%s of base64 not quoted)"`, sizeText(len(b64))),
		fmt.Sprintf("- image/png, %s: not embedded (a Markdown report shows no image; the HTML export does)", sizeText(len(pic))),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// An answer with Markdown and an image shows both in the page: the
// picture under the answer's JSON, the Markdown rendered under it.
func TestHTMLShowsMarkdownAndImages(t *testing.T) {
	s := imageSession(t, strings.Join([]string{
		`{"type":"resource","resource":{"uri":"demo://r.md","mimeType":"text/markdown","text":"# Report\n\n- one"}}`,
		imageBlock("image/png", smallPNG(t)),
	}, ","), false)
	var buf bytes.Buffer
	if err := HTML(&buf, s); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	img := strings.Index(page, `<img class="shot" src="data:image/png;base64,`)
	md := strings.Index(page, `<div class="md"><h1>Report</h1>`)
	if img < 0 || md < 0 || !strings.Contains(page, "<li>one</li>") {
		t.Fatalf("the page lacks the picture (%d) or the Markdown (%d)", img, md)
	}
	if json := strings.Index(page, `&#34;mimeType&#34;: &#34;image/png&#34;`); json < 0 || json > img {
		t.Errorf("the picture is not under the answer's JSON (%d, %d)", json, img)
	}
}
