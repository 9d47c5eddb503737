package themes

import (
	"github.com/alecthomas/chroma/v2"
	"strings"
	"testing"
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
		t.Fatal("chroma style not built once")
	}
	if got, want := s.Get(chroma.NameTag).Colour.String(), hex(th.Palette.JSONKey); got != want {
		t.Fatalf("JSON keys are %s in chroma, %s in the palette", got, want)
	}
}
