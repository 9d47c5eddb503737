package jsonview

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Strings dense with escapes are read 64 bytes at a time; these cross the
// blocks' edges with runs of backslashes, escaped and bare quotes, \u
// escapes (good and bad), control characters and UTF-8, and are held to
// encoding/json's answers: Valid to json.Valid, skipString and the
// string's end to where json.Decoder ends it.
func TestStringBlocksAgreeWithEncodingJSON(t *testing.T) {
	pieces := []string{`\"`, `\\`, `\\\"`, `\\\\`, `x`, `ab`, `\u00e9`, `\n`, "é", `/`, strings.Repeat("y", 61)}
	bad := []string{`\u12`, `\uZZZZ`, `\q`, "\x01", `"`, `\`, "\x1f"}
	rng := rand.New(rand.NewPCG(1, 2))
	valid := 0
	for range 20000 {
		// 16 escaped quotes first: past them the blocks take over.
		var b strings.Builder
		b.WriteString(`["` + strings.Repeat(`\"`, 16+rng.IntN(3)))
		for range rng.IntN(120) {
			if rng.IntN(200) == 0 {
				b.WriteString(bad[rng.IntN(len(bad))])
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		b.WriteString(`",1]`)
		data := []byte(b.String())
		got, want := Valid(data), json.Valid(data)
		if got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", data, got, want)
		}
		if !want {
			continue
		}
		valid++
		var elems []json.RawMessage
		if err := json.Unmarshal(data, &elems); err != nil || len(elems) == 0 {
			t.Fatalf("%q: %v", data, err)
		}
		if end := skipString(data, 1); end != 1+len(elems[0]) {
			t.Fatalf("skipString(%q) ends at %d, the string is %d bytes", data, end, len(elems[0]))
		}
		var s string
		_ = json.Unmarshal(elems[0], &s)
		if got, ok := String(elems[0]); !ok || got != s {
			t.Fatalf("String(%q) = %q, json.Unmarshal gives %q", elems[0], got, s)
		}
	}
	if valid < 1000 {
		t.Fatalf("only %d valid strings: the test checks too little", valid)
	}
}

// jsonText20MB is 20 MB of JSON records (a query's rows sent as a tool's
// text) and the same as a JSON string, escaped as it is inside a frame:
// a backslash or a quote every few bytes.
func jsonText20MB() (text, quoted []byte) {
	var b strings.Builder
	b.WriteString(`[`)
	for i := 0; b.Len() < 20<<20; i++ {
		if i > 0 {
			b.WriteString(`,`)
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"row %07d","tags":["a","b"],"score":%d.5,"ok":true}`, i, i, i%100)
	}
	b.WriteString(`]`)
	q, _ := json.Marshal(b.String())
	return []byte(b.String()), q
}

// BenchmarkJSONText20MB is what each step on a 20 MB JSON text's way to
// the screen costs: skipping and checking it as an escaped string (each
// reader of the frame), decoding it, checking the text as JSON and
// indexing its pretty-printed lines, or both at once (what the result
// view does).
func BenchmarkJSONText20MB(b *testing.B) {
	text, quoted := jsonText20MB()
	for _, bench := range []struct {
		name string
		data []byte
		run  func(b *testing.B, data []byte)
	}{
		{"skip-escaped", quoted, func(b *testing.B, data []byte) {
			if skipString(data, 0) != len(data) {
				b.Fatal("not at the end")
			}
		}},
		{"valid-escaped", quoted, func(b *testing.B, data []byte) {
			if !Valid(data) {
				b.Fatal("invalid")
			}
		}},
		{"decode-escaped", quoted, func(b *testing.B, data []byte) {
			if s, ok := String(data); !ok || len(s) != len(text) {
				b.Fatal("not decoded")
			}
		}},
		{"valid-text", text, func(b *testing.B, data []byte) {
			if !Valid(data) {
				b.Fatal("invalid")
			}
		}},
		{"indent-lines-text", text, func(b *testing.B, data []byte) {
			if IndentLines(data, "  ").Len() < 1<<20 {
				b.Fatal("too few lines")
			}
		}},
		{"valid-indent-lines-text", text, func(b *testing.B, data []byte) {
			if x, ok := ValidIndentLines(data, "  "); !ok || x.Len() < 1<<20 {
				b.Fatal("invalid or too few lines")
			}
		}},
		{"decode-then-valid-indent-lines", quoted, func(b *testing.B, data []byte) {
			s, ok := String(data)
			if x := jsonTextLines(s, "  "); !ok || x == nil || x.Len() < 1<<20 {
				b.Fatal("not decoded or too few lines")
			}
		}},
		{"decode-and-valid-indent-lines-at-once", quoted, func(b *testing.B, data []byte) {
			if _, x, ok := StringIndented(data, "  "); !ok || x == nil || x.Len() < 1<<20 {
				b.Fatal("not decoded or too few lines")
			}
		}},
		{"quoted-marks", quoted, func(b *testing.B, data []byte) {
			if q, ok := NewQuoted(data, "  "); !ok || q.Len() != len(text) {
				b.Fatal("not read")
			}
		}},
		{"quoted-valid-indent-lines", quoted, func(b *testing.B, data []byte) {
			q, ok := NewQuoted(data, "  ")
			if x, settled := q.JSONLines(); !ok || !settled || x == nil || x.Len() < 1<<20 {
				b.Fatal("not read or too few lines")
			}
		}},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(int64(len(bench.data)))
			b.ReportAllocs()
			for b.Loop() {
				bench.run(b, bench.data)
			}
		})
	}
}

// Decoding grows its output for invalid UTF-8 (one byte becomes the
// three of U+FFFD) wherever the bad bytes are: among words, escapes and
// the last few bytes.
func TestStringDecodesInvalidUTF8(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("\xff", 100),
		strings.Repeat("a\\\"\xff", 50) + "\xfe",
		strings.Repeat("abcdefg\xff", 40) + `\u00e9\ud83d\ude00\ud800x` + strings.Repeat("\xc3", 9),
		"\xff\xff\xff" + strings.Repeat("é", 30) + `\n\t\u0041` + "\xe2\x82",
	} {
		data := []byte(`"` + s + `"`)
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := String(data); !ok || got != want {
			t.Fatalf("String(%q) = %q, json.Unmarshal gives %q", data, got, want)
		}
	}
}
