package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain ascii", "get_weather", "get_weather"},
		{"plain unicode", "météo — 天気 🌧", "météo — 天気 🌧"},
		{"empty", "", ""},
		{"OSC 0 set title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"CSI clear screen", "a\x1b[2Jb", `a\x1b[2Jb`},
		{"OSC 52 clipboard", "\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`},
		{"OSC with ST terminator", "\x1b]8;;http://x\x1b\\link", `\x1b]8;;http://x\x1b\link`},
		{"8-bit CSI", "x\u009b2Jy", `x\u009b2Jy`},
		{"8-bit OSC", "\u009d0;t\u009c", `\u009d0;t\u009c`},
		{"newline tab cr", "a\nb\tc\rd", `a\nb\tc\rd`},
		{"DEL and NUL", "\x7f\x00", `\x7f\x00`},
		{"line separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`},
		{"invalid utf8", "ok\xff\xfeok", `ok\xff\xfeok`},
		{"truncated utf8", "é\xc3", `é\xc3`},
		{"escape after unicode", "天\x1b", `天\x1b`},
		{"backslash kept", `C:\dir`, `C:\dir`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			assertInert(t, got, false)
		})
	}
}

func TestBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"keeps newlines", "line 1\nline 2\n", "line 1\nline 2\n"},
		{"tab at start", "\tx", "    x"},
		{"tab to next stop", "ab\tc", "ab  c"},
		{"tab stop resets per line", "abcde\tx\n\ty", "abcde   x\n    y"},
		{"tab after clean prefix", "abc\nde\tf\x1b", "abc\nde  f\\x1b"},
		{"crlf becomes lf", "a\r\nb", "a\nb"},
		{"lone cr escaped", "a\rb", `a\rb`},
		{"OSC title inside text", "desc\n\x1b]0;t\x07", "desc\n\\x1b]0;t\\x07"},
		{"clear screen", "\x1b[2J\n", "\\x1b[2J\n"},
		{"8-bit CSI", "\u009b31m", `\u009b31m`},
		{"line separator", "a\u2028b", `a\u2028b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Block(tt.in)
			if got != tt.want {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.want)
			}
			assertInert(t, got, true)
		})
	}
}

// assertInert checks the property every output must have, independently of
// the expected strings above: nothing in it can drive a terminal.
func assertInert(t *testing.T, s string, block bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("output %q is not valid UTF-8", s)
	}
	for _, r := range s {
		if r == '\n' && block {
			continue
		}
		if r < 0x20 || r == 0x7f || unsafeRune(r) {
			t.Errorf("output %q still holds %U", s, r)
		}
	}
}

func TestCleanStringIsNotCopied(t *testing.T) {
	in := strings.Repeat("a clean tool description ", 10)
	if n := testing.AllocsPerRun(100, func() { _ = String(in) }); n != 0 {
		t.Errorf("String allocated %v times on a clean string", n)
	}
	multi := "line one\nline two\n"
	if n := testing.AllocsPerRun(100, func() { _ = Block(multi) }); n != 0 {
		t.Errorf("Block allocated %v times on a clean string", n)
	}
}

func FuzzString(f *testing.F) {
	f.Add("\x1b]0;title\x07")
	f.Add("a\u009b\xff\tb\n")
	f.Fuzz(func(t *testing.T, s string) {
		assertInert(t, String(s), false)
		assertInert(t, Block(s), true)
	})
}

var sink string

func BenchmarkString(b *testing.B) {
	inputs := map[string]string{
		"clean-ascii":   strings.Repeat("Fetch the weather for a city. ", 20),
		"clean-unicode": strings.Repeat("Météo pour une ville — 天気. ", 20),
		"hostile":       strings.Repeat("ok \x1b]0;t\x07 \x1b[2J \u009b ", 20),
	}
	for name, in := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				sink = String(in)
			}
		})
	}
}

func BenchmarkBlock(b *testing.B) {
	in := strings.Repeat("{\n\t\"city\": \"Paris\",\n\t\"note\": \"\x1b[2J\"\n}\n", 50)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		sink = Block(in)
	}
}
