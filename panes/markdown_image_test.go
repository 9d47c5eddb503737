package panes

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/panes/termimage"
	"github.com/mcpscope/mcpscope/themes"
)

// mdWide is mdReport with a paragraph that fits 100 columns, not 50.
const mdWide = mdReport + "\nA paragraph long enough to be wrapped at fifty columns, though not at a hundred.\n"

// mdImageRead is a resources/read result with a text/markdown content, an
// image blob and a plain text after it.
func mdImageRead(t *testing.T) json.RawMessage {
	b, err := json.Marshal(map[string]any{"contents": []any{
		map[string]any{"uri": "r.md", "mimeType": "text/markdown", "text": mdWide},
		map[string]any{"uri": "demo://logo.png", "mimeType": "image/png", "blob": base64.StdEncoding.EncodeToString(knownPNG(t))},
		map[string]any{"uri": "demo://after", "mimeType": "text/plain", "text": "after"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pictureRows are the lines of ls that draw a picture (half blocks, or
// kitty placeholders), and how wide the widest is.
func pictureRows(ls []string) (rows, cols int) {
	for _, l := range ls {
		if s := ansi.Strip(l); strings.ContainsAny(s, "▀▄") || strings.ContainsRune(s, kitty.Placeholder) {
			rows++
			cols = max(cols, ansi.StringWidth(strings.TrimSpace(s)))
		}
	}
	return rows, cols
}

// markdownWidth is how wide the widest line of mdReport rendered is.
func markdownWidth(ls []string) int {
	w := 0
	for _, l := range ls {
		s := ansi.Strip(l)
		for _, md := range []string{"Report", "• one", "• two", "x := 1", "docs https://", "paragraph", "hundred"} {
			if strings.Contains(s, md) {
				w = max(w, ansi.StringWidth(l))
			}
		}
	}
	return w
}

// checkOrder fails unless each of want is found in the view's lines after
// the one before it.
func checkOrder(t *testing.T, where string, ls []string, want ...string) {
	t.Helper()
	all := ansi.Strip(strings.Join(ls, "\n"))
	at := 0
	for _, w := range want {
		i := strings.Index(all[at:], w)
		if i < 0 {
			t.Fatalf("%s: no %q after what came before it:\n%s", where, w, all)
		}
		at += i + len(w)
	}
}

// A read with Markdown and an image shows both: the Markdown rendered,
// the picture below its size line. Resizing lays both out again, and m
// shows the source and back without losing the picture (nor, with the
// kitty protocol, sending it again).
func TestContentMarkdownAndImage(t *testing.T) {
	for _, p := range []termimage.Protocol{termimage.Blocks, termimage.Kitty} {
		t.Run(p.String(), func(t *testing.T) {
			s := termimage.NewScreen(p)
			c := NewContent(themes.Dark(), keymap.Default())
			c.SetScreen(s)
			c.SetSize(100, 40)
			cmd := c.SetDoc("resources/read", append([]DocPart{{Lines: []string{"a line above"}}}, ReadResultDoc(c.theme, mdImageRead(t))...), false)
			checkOrder(t, "before the decode", c.Lines(), "a line above", "• one", "binary, 442 bytes", "decoding the image…", "after")
			runContent(c, cmd)
			checkOrder(t, "decoded", c.Lines(), "a line above", "• one", "docs https://example.com/d", "binary, 442 bytes")
			if v := ansi.Strip(strings.Join(c.Lines(), "\n")); strings.Contains(v, "**one**") || strings.Contains(v, "decoding") {
				t.Fatalf("not rendered, or not decoded:\n%s", v)
			}
			if w := markdownWidth(c.Lines()); w <= 50 {
				t.Fatalf("at 100 columns the Markdown is only %d wide", w)
			}
			rows, wide := pictureRows(c.Lines())
			if rows == 0 {
				t.Fatalf("no picture:\n%s", ansi.Strip(strings.Join(c.Lines(), "\n")))
			}
			size := strings.Index(ansi.Strip(strings.Join(c.Lines(), "\n")), "binary, 442 bytes")
			pic := strings.IndexAny(ansi.Strip(strings.Join(c.Lines(), "\n")), "▀"+string(kitty.Placeholder))
			if pic < size {
				t.Fatal("the picture is not below its size line")
			}
			s.Take()

			c.SetSize(50, 24)
			if w := markdownWidth(c.Lines()); w == 0 || w > 48 {
				t.Errorf("at 50 columns the Markdown is %d wide: not laid out again", w)
			}
			// A half-block preview is sized to the pane; kitty's is the
			// picture's own size in cells, which fits both.
			narrowRows, narrow := pictureRows(c.Lines())
			if narrowRows == 0 || narrow > 46 || p == termimage.Blocks && narrow >= wide {
				t.Fatalf("at 50×24 the picture is %d rows of %d columns (was %d of %d at 100×40)", narrowRows, narrow, rows, wide)
			}
			checkOrder(t, "resized", c.Lines(), "• one", "binary, 442 bytes", "after")
			s.Take()

			c.Update(press("m"))
			checkOrder(t, "m", c.Lines(), "**one**", "binary, 442 bytes", "after")
			if r, w := pictureRows(c.Lines()); r != narrowRows || w != narrow {
				t.Errorf("m: the picture is %d rows of %d columns, was %d of %d", r, w, narrowRows, narrow)
			}
			c.Update(press("m"))
			checkOrder(t, "m again", c.Lines(), "• one", "binary, 442 bytes", "after")
			if r, _ := pictureRows(c.Lines()); r != narrowRows {
				t.Errorf("m again: the picture is %d rows, was %d", r, narrowRows)
			}
			if p == termimage.Kitty {
				if sent := s.Take(); sent != "" {
					t.Errorf("m sent the image again: %q", sent[:min(len(sent), 60)])
				}
			}
		})
	}
}

// A tool result's text block, Markdown under the setting, is rendered
// above its image block's picture; resizing lays both out again and m
// keeps the picture.
func TestResultMarkdownTextAndImage(t *testing.T) {
	result := json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":%q},{"type":"image","data":%q,"mimeType":"image/png"}]}`,
		mdWide, base64.StdEncoding.EncodeToString(knownPNG(t))))
	r, cmd := showResult(themes.Dark(), termimage.NewScreen(termimage.Blocks), 100, 40, result)
	r.SetMarkdownText(true)
	run(r, cmd)
	lines := func() []string {
		var out []string
		for i := range r.Lines() {
			out = append(out, r.renderLine(r.line(i)))
		}
		return out
	}
	checkOrder(t, "shown", lines(), "text (Markdown)", "• one", "[1] image")
	if v := ansi.Strip(strings.Join(lines(), "\n")); strings.Contains(v, "**one**") {
		t.Fatalf("the text block is not rendered:\n%s", v)
	}
	if w := markdownWidth(lines()); w <= 50 {
		t.Fatalf("at 100 columns the Markdown is only %d wide", w)
	}
	rows, wide := pictureRows(lines())
	if rows == 0 {
		t.Fatalf("no picture:\n%s", ansi.Strip(strings.Join(lines(), "\n")))
	}
	r.SetSize(50, 24)
	narrowRows, narrow := pictureRows(lines())
	if narrowRows == 0 || narrow >= wide {
		t.Fatalf("at 50×24 the picture is %d rows of %d columns (was %d of %d)", narrowRows, narrow, rows, wide)
	}
	if w := markdownWidth(lines()); w == 0 || w > 48 {
		t.Errorf("at 50 columns the Markdown is %d wide: not laid out again", w)
	}
	r.Update(press("m"))
	checkOrder(t, "m", lines(), "**one**", "[1] image")
	if got, _ := pictureRows(lines()); got != narrowRows {
		t.Errorf("m: the picture is %d rows, was %d", got, narrowRows)
	}
	r.Update(press("m"))
	checkOrder(t, "m again", lines(), "• one", "[1] image")
	if got, _ := pictureRows(lines()); got != narrowRows {
		t.Errorf("m again: the picture is %d rows, was %d", got, narrowRows)
	}
}
