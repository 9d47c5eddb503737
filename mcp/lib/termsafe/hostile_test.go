package termsafe

import (
	"bytes"
	"encoding/json"
	"io"
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

// What a terminal acts on never passes any of the stream writers: ESC
// (OSC 52, OSC 0, OSC 8, CSI), other C0 controls, CR, DEL, C1, bidi and
// zero-width characters, invalid bytes; line feeds and tabs pass. Each
// shows what was there.
func TestStreamWritersLetNoControlThrough(t *testing.T) {
	hostile := "a\x1b]52;c;cHduZWQ=\x07b\x1b]0;title\x07\x1b]8;;http://x\x1b\\l\x1b[2J\r\x00\x7f\u009b2J\u202e\u200b\u2066\xff\tz\n"
	for _, tc := range []struct {
		name string
		w    func(*bytes.Buffer) io.Writer
		want string
	}{
		{"text", func(b *bytes.Buffer) io.Writer { return NewTextWriter(b) }, `a\x1b]52;c;cHduZWQ=\x07b\x1b]0;title\x07\x1b]8;;http://x\x1b\l\x1b[2J\r\x00\x7f\u009b2J\u202e\u200b\u2066\xff` + "\tz\n"},
		{"json", func(b *bytes.Buffer) io.Writer { return NewMachineWriter(b, false) }, `a\u001b]52;c;cHduZWQ=\u0007b\u001b]0;title\u0007\u001b]8;;http://x\u001b\l\u001b[2J\u000d\u0000\u007f\u009b2J\u202e\u200b\u2066\ufffd` + "\tz\n"},
		{"xml", func(b *bytes.Buffer) io.Writer { return NewMachineWriter(b, true) }, `a&#x001b;]52;c;cHduZWQ=&#x0007;b&#x001b;]0;title&#x0007;&#x001b;]8;;http://x&#x001b;\l&#x001b;[2J&#x000d;&#x0000;&#x007f;&#x009b;2J&#x202e;&#x200b;&#x2066;&#xfffd;` + "\tz\n"},
	} {
		var buf bytes.Buffer
		w := tc.w(&buf)
		// Byte by byte: every rune is split across writes.
		for i := 0; i < len(hostile); i++ {
			if _, err := w.Write([]byte{hostile[i]}); err != nil {
				t.Fatal(err)
			}
		}
		if got := buf.String(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
