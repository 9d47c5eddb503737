package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Finding 5: zero-width characters and bidi marks are escaped like the
// other characters that lie.
func TestZeroWidthAndBidiMarksAreEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"read\u200bfile":  `read\u200bfile`,
		"a\u200db":        `a\u200db`,
		"\ufeffname":      `\ufeffname`,
		"x\u2060y\u2064z": `x\u2060y\u2064z`,
		"rtl\u200fmark":   `rtl\u200fmark`,
		"arabic\u061cx":   `arabic\u061cx`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if !Unsafe(in) {
			t.Errorf("Unsafe(%q) = false", in)
		}
	}
}

// Rendered escapes lying runes in a styled view and keeps its styling.
func TestRenderedKeepsStyling(t *testing.T) {
	view := "\x1b[1mvalue: ab\u202ecd\u200b\x1b[0m é"
	got := Rendered(view)
	if got != "\x1b[1mvalue: ab\\u202ecd\\u200b\x1b[0m é" {
		t.Fatalf("Rendered = %q", got)
	}
	if clean := "\x1b[1mplain é\x1b[0m"; Rendered(clean) != clean {
		t.Fatal("a clean view was changed")
	}
}

// Machine output for a terminal: still valid JSON with the same data, and
// no raw DEL, C1, bidi or zero-width character.
func TestEscapeJSONKeepsTheData(t *testing.T) {
	value := "a\x7fb\u009bc\u202ed\u200be\u2028f\xff"
	raw, _ := json.Marshal(map[string]string{"text": value})
	var buf bytes.Buffer
	w := NewMachineWriter(&buf, false)
	// Written in two halves, splitting a rune, as an encoder may.
	cut := bytes.Index(raw, []byte("\u202e")) + 1
	_, _ = w.Write(raw[:cut])
	_, _ = w.Write(raw[cut:])
	out := buf.String()
	for _, r := range []string{"\x7f", "\u009b", "\u202e", "\u200b", "\u2028"} {
		if strings.Contains(out, r) {
			t.Errorf("%q written raw: %q", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(out), &back); err != nil {
		t.Fatalf("not JSON any more: %v\n%s", err, out)
	}
	if want := strings.ToValidUTF8(value, "\ufffd"); back["text"] != want {
		t.Errorf("decoded %q, want %q", back["text"], want)
	}
	if x := string(EscapeXML([]byte("<a>x\u202ey</a>"))); x != "<a>x&#x202e;y</a>" {
		t.Errorf("EscapeXML = %q", x)
	}
}
