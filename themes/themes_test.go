package themes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

func TestNoColorHasNoColour(t *testing.T) {
	th := NoColor()
	out := th.Log.Incoming.Render("x") + th.Log.BadgeError.Render("ERR") + th.Header.Bar.Render("h") + th.JSON.Key.Render("k")
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
		t.Fatalf("NoColor styles emit colours: %q", out)
	}
	if sel := th.Log.Selected.Render("row"); !strings.Contains(sel, "\x1b[7m") && !strings.Contains(sel, ";7m") {
		t.Fatalf("NoColor selection is not reverse video: %q", sel)
	}
	if th.Chroma() != nil {
		t.Fatal("NoColor should not highlight")
	}
}

func TestDarkAndLightDiffer(t *testing.T) {
	d, l := Dark().Log.Incoming.Render("x"), Light().Log.Incoming.Render("x")
	if d == l || !strings.Contains(d, "38;2;") {
		t.Fatalf("dark %q and light %q", d, l)
	}
}

func TestChromaStyleFromPaletteIsMemoized(t *testing.T) {
	th := Dark()
	s := th.Chroma()
	if s == nil || s != th.Chroma() {
		t.Fatal("the chroma style is not built once")
	}
	r, g, b, _ := th.Palette.JSONKey.RGBA()
	if got, want := s.Get(chroma.NameTag).Colour.String(), fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8); got != want {
		t.Fatalf("JSON keys are %s, the palette says %s", got, want)
	}
	// A token type the palette names no colour for takes the text colour.
	if got, want := s.Get(chroma.NameVariable).Colour, s.Get(chroma.Text).Colour; got != want || !got.IsSet() {
		t.Fatalf("a variable is %s, text %s", got, want)
	}
	if s.Get(chroma.CommentSingle).Italic != chroma.Yes {
		t.Fatal("comments are not italic")
	}
}
