package themes

import (
	"fmt"
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
	if th.Syntax() != nil {
		t.Fatal("NoColor should not highlight")
	}
}

func TestDarkAndLightDiffer(t *testing.T) {
	d, l := Dark().Log.Incoming.Render("x"), Light().Log.Incoming.Render("x")
	if d == l || !strings.Contains(d, "38;2;") {
		t.Fatalf("dark %q and light %q", d, l)
	}
}

func TestSyntaxFromPaletteIsMemoized(t *testing.T) {
	th := Dark()
	s := th.Syntax()
	if s == nil || s != th.Syntax() {
		t.Fatal("syntax colours not built once")
	}
	r, g, b, _ := th.Palette.JSONKey.RGBA()
	if want := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", r>>8, g>>8, b>>8); s.Key != want {
		t.Fatalf("JSON keys are %q, the palette says %q", s.Key, want)
	}
}
