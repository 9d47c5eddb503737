package jsonview

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigRecords is a JSON array of records as text, about n bytes, with
// extra inside the last record.
func bigRecords(n int, extra string) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"id":%d,"name":"row %07d","tags":["a","b"],"score":%d.5,"ok":true},`, i, i, i%100)
	}
	b.WriteString(`{"last":true` + extra + `}]`)
	return b.String()
}

// StringIndented decodes and indexes at once, and its answers are the
// one-after-the-other ones (StringView, then ValidIndentLines of the
// trimmed text) for long JSON texts, broken ones, ones that are not JSON,
// white space of both kinds around them, tokens longer than the window
// the indexer reads ahead (which the end of the decoded part can cut),
// and invalid UTF-8 (which makes the decoder move its output).
func TestStringIndentedIsDecodeThenIndex(t *testing.T) {
	long := strings.Repeat("x", 3*followWindow)
	digits := strings.Repeat("7", 3*followWindow)
	cases := map[string]string{
		"records":            bigRecords(900<<10, ""),
		"small":              `{"a":[1,2,{"b":"c"}]}`,
		"broken at the end":  bigRecords(900<<10, ",")[:900<<10],
		"broken early":       `[{"a":1}}` + bigRecords(900<<10, ""),
		"broken at the end2": bigRecords(900<<10, `,"x":tru`),
		"not JSON":           strings.Repeat("line of text\n", 300_000),
		"a number then text": "12 " + bigRecords(900<<10, ""),
		"white space around": " \n\u00a0\t" + bigRecords(900<<10, "") + "\u2003\n ",
		"long white space":   strings.Repeat(" ", 2*followWindow) + bigRecords(900<<10, ""),
		"long string":        bigRecords(900<<10, `,"s":"`+long+`"`),
		"long number":        bigRecords(900<<10, `,"n":`+digits),
		"long number, bad":   bigRecords(900<<10, `,"n":`+digits+`x`),
		"long strings":       strings.Repeat(`["`+long+`",`, 20) + "1" + strings.Repeat("]", 20),
		"deep":               strings.Repeat("[", 50) + bigRecords(900<<10, "") + strings.Repeat("]", 50),
		"too deep":           strings.Repeat("[", maxDepth+1) + bigRecords(900<<10, "") + strings.Repeat("]", maxDepth+1),
	}
	for name, text := range cases {
		raw, err := json.Marshal(text)
		if err != nil {
			t.Fatal(err)
		}
		checkStringIndented(t, name, raw)
	}
	// Not a frame's bytes: invalid UTF-8 grows the output as it is
	// decoded, early and late.
	esc, _ := json.Marshal(bigRecords(900<<10, ""))
	inner := esc[1 : len(esc)-1]
	checkStringIndented(t, "invalid UTF-8 late", []byte(`"`+string(inner[:len(inner)-20])+"\xff\xfe"+string(inner[len(inner)-20:])+`"`))
	checkStringIndented(t, "invalid UTF-8 early", []byte(`"[\"\xff\xfe\",`+string(inner[1:])+`"`))
	checkStringIndented(t, "invalid UTF-8 in white space", []byte(`"`+string(inner)+"\xff"+`"`))
	checkStringIndented(t, "not a string", []byte(`[1,2]`))
	checkStringIndented(t, "a bad escape", []byte(`"`+string(inner)+`\q"`))
}

func checkStringIndented(t *testing.T, name string, raw []byte) {
	t.Helper()
	wantText, wantOK := StringView(raw)
	var want *Indented
	if wantOK {
		want = jsonTextLines(wantText, "  ")
	}
	text, x, ok := StringIndented(raw, "  ")
	switch {
	case ok != wantOK || text != wantText:
		t.Fatalf("%s: decoded %v (%d bytes), StringView %v (%d bytes)", name, ok, len(text), wantOK, len(wantText))
	case (x == nil) != (want == nil):
		t.Fatalf("%s: lines %v, one step after the other %v", name, x != nil, want != nil)
	case x != nil && (x.Len() != want.Len() || indentedLines(x) != indentedLines(want)):
		t.Fatalf("%s: %d lines, one step after the other %d (or they differ)", name, x.Len(), want.Len())
	}
}
