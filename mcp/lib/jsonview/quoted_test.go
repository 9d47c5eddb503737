package jsonview

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkQuoted holds a Quoted of raw to what String and StringIndented
// make of the whole string: the text, any slice of it, its lines, and its
// pretty-printed lines when it is JSON.
func checkQuoted(t *testing.T, raw []byte, rng *rand.Rand) (settled bool) {
	t.Helper()
	want, wantOK := String(raw)
	q, ok := NewQuoted(raw, "  ")
	if ok != wantOK {
		t.Fatalf("NewQuoted ok %v, String ok %v", ok, wantOK)
	}
	if !ok {
		return true
	}
	if q.Len() != len(want) || q.String() != want {
		t.Fatalf("the text differs from String's (%d bytes, want %d)", q.Len(), len(want))
	}
	for range 50 {
		from := rng.IntN(len(want) + 1)
		to := from + rng.IntN(len(want)-from+1)
		if got := q.Slice([]byte("x"), from, to); string(got) != "x"+want[from:to] {
			t.Fatalf("Slice(%d, %d) = %q…, want %q…", from, to, clip(string(got[1:])), clip(want[from:to]))
		}
	}
	lines := strings.Split(want, "\n")
	if q.LineCount() != len(lines) {
		t.Fatalf("%d lines, want %d", q.LineCount(), len(lines))
	}
	for _, i := range []int{0, len(lines) - 1, len(lines) / 2, rng.IntN(len(lines)), len(lines) / markEvery * markEvery, len(lines)/markEvery*markEvery - 1} {
		if i >= 0 && i < len(lines) && q.Line(i) != lines[i] {
			t.Fatalf("line %d is %q, want %q", i, clip(q.Line(i)), clip(lines[i]))
		}
	}
	_, wx, _ := StringIndented(raw, "  ")
	x, settled := q.JSONLines()
	if !settled {
		return false // the caller falls back to StringIndented
	}
	if (x == nil) != (wx == nil) {
		t.Fatalf("JSONLines gives lines: %v; StringIndented: %v", x != nil, wx != nil)
	}
	if x == nil {
		return true
	}
	if x.Len() != wx.Len() {
		t.Fatalf("%d pretty lines, want %d", x.Len(), wx.Len())
	}
	for _, i := range []int{0, x.Len() - 1, x.Len() / 2, rng.IntN(x.Len()), markEvery - 1, markEvery, 3*markEvery + 1} {
		if i < x.Len() && x.Line(i) != wx.Line(i) {
			t.Fatalf("pretty line %d is %q, want %q", i, x.Line(i), wx.Line(i))
		}
	}
	return true
}

func clip(s string) string { return s[:min(len(s), 60)] }

// bigJSONText is a JSON array of n records, some with strings that need
// escapes and runes of every width, as a tool sends a query's rows.
func bigJSONText(n int) string {
	var b strings.Builder
	b.WriteString(" \u00a0[")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n ")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"row %07d é 😀 \"q\" \\ \n","tags":["a",[],{}],"score":%d.5,"ok":true,"e":{}}`, i, i, i%100)
	}
	b.WriteString("]\u2003\n")
	return b.String()
}

// TestQuotedAsStringDecodes holds Quoted to String and StringIndented
// over texts of several 64 KiB marks and 256 KiB windows: JSON, plain
// lines, and malformed strings.
func TestQuotedAsStringDecodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	enc := func(s string) []byte { b, _ := json.Marshal(s); return b }
	cases := map[string][]byte{
		"empty":             []byte(`""`),
		"short":             []byte(`"a\nb\n"`),
		"json text":         enc(bigJSONText(30000)),
		"invalid json text": enc(bigJSONText(30000) + "x"),
		"json, far garbage": enc(bigJSONText(3000) + strings.Repeat(" \n", 1<<20) + "x  "),
		"json, far spaces":  enc(strings.Repeat("\u00a0", 100000) + bigJSONText(3000) + strings.Repeat(" \u2003", 1<<19)),
		"json cut short":    enc(bigJSONText(30000)[:2000000]),
		"plain lines":       enc(strings.Repeat("line é 😀 \t \"x\"\n", 60000)),
		"escaped unicode":   []byte(`"` + strings.Repeat(`\u00e9\ud83d\ude00\ud800x\n`, 60000) + `"`),
		"invalid utf-8":     []byte("\"" + strings.Repeat("ab\xff\xe2\x82c\n", 60000) + "\""),
		"bad escape":        []byte(`"` + strings.Repeat(`ab`, 100000) + `\x"`),
		"cut escape":        []byte(`"abc\u12"`),
		"spaces":            enc(strings.Repeat(" \u00a0\n", 70000)),
		"long string":       enc(`["` + strings.Repeat("y", 300000) + `"]`),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			// Only a token longer than the window leaves the answer to
			// StringIndented.
			if !checkQuoted(t, raw, rng) && name != "long string" {
				t.Error("not settled")
			}
		})
	}
}

// FuzzQuoted holds Quoted to String and StringIndented on any string.
func FuzzQuoted(f *testing.F) {
	f.Add(`"a\nb"`)
	f.Add(`"[1,{\"a\":[]}]"`)
	f.Add(`"\ud83d\ude00\ud800\u00e9"`)
	f.Add("\"\xff\xe2\x82 {}\"")
	f.Fuzz(func(t *testing.T, raw string) {
		_ = checkQuoted(t, []byte(raw), rand.New(rand.NewPCG(3, 4)))
	})
}
