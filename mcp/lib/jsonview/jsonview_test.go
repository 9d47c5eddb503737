package jsonview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

var samples = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi\n\"there\" \u00e9 \ud83d\ude00"}]}}`,
	`{"a":1,"a":2,"b":[1,2.5e-3,-0,true,false,null],"c":{},"d":[]}`,
	` { "k\u0041y" : "v" , "\u00e9" : [ { } ] } `,
	`"plain"`, `"\ud800"`, `"\ud800\u0041"`, "\"\xff\xfe\"", `"a\/b"`,
	`[]`, `[1,[2,[3]]]`, `0`, `-1.5E+10`, `true`, `null`,
	// invalid
	``, ` `, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `1e`, `.5`, `+1`,
	`"\x"`, `"\u12"`, "\"a\nb\"", `"unterminated`, `tru`, `nul`, `{"a":1}x`, `[1 2]`, `{"a" 1}`, `{1:2}`,
	`"\'"`,
	`{"A":1,"a":[2],"bc":[1,2],"BC":"x","other":{"a":1}}`, `{"b\u0063":[3]}`,
	// Dense escaped quotes (the byte loop takes over) with escaped backslashes before a quote.
	`{"t":"` + strings.Repeat(`\"x\\`, 40) + `\\\"\\\\","u":1}`,
	// Long strings (past the byte loop's 32 bytes), an escape at its edge.
	`["` + strings.Repeat("x", 31) + `\"` + strings.Repeat("y", 100) + `\\","` + strings.Repeat("z", 40) + `"]`,
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range samples {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

// Nesting deeper than encoding/json allows is invalid for both.
func TestValidDepthLimit(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			s := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
			if got, want := Valid(s), json.Valid(s); got != want {
				t.Errorf("depth %d of %q: Valid %v, json.Valid %v", n, open, got, want)
			}
		}
	}
	if Valid([]byte(strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1))) {
		t.Error("the test does not reach the limit")
	}
}

// checkViews compares every view with what json.Unmarshal gives for a
// valid input.
func checkViews(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	var wantObj map[string]json.RawMessage
	objErr := json.Unmarshal(data, &wantObj)
	gotObj, ok := Object(data)
	if ok != (objErr == nil && wantObj != nil) {
		t.Fatalf("Object(%q) ok=%v, json.Unmarshal: %v %v", data, ok, objErr, wantObj)
	}
	if ok {
		if len(gotObj) != len(wantObj) {
			t.Fatalf("Object(%q) = %q, want %q", data, gotObj, wantObj)
		}
		for k, v := range wantObj {
			if !bytes.Equal(gotObj[k], v) {
				t.Fatalf("Object(%q)[%q] = %q, want %q", data, k, gotObj[k], v)
			}
			if m, ok := Member(data, k); !ok || !bytes.Equal(m, v) {
				t.Fatalf("Member(%q, %q) = %q %v, want %q", data, k, m, ok, v)
			}
		}
	}
	var wantArr []json.RawMessage
	arrErr := json.Unmarshal(data, &wantArr)
	gotArr, ok := Array(data)
	if ok != (arrErr == nil && wantArr != nil) {
		t.Fatalf("Array(%q) ok=%v, json.Unmarshal: %v %v", data, ok, arrErr, wantArr)
	}
	if ok && fmt.Sprintf("%q", gotArr) != fmt.Sprintf("%q", wantArr) {
		t.Fatalf("Array(%q) = %q, want %q", data, gotArr, wantArr)
	}
	type picked struct {
		A  any
		Bc []int
	}
	var wantPick, gotPick picked
	pickErr := json.Unmarshal(data, &wantPick)
	if small, ok := Pick(data, "a", "bc"); ok {
		if err := json.Unmarshal(small, &gotPick); (err == nil) != (pickErr == nil) || fmt.Sprint(gotPick) != fmt.Sprint(wantPick) {
			t.Fatalf("Pick(%q) = %q decodes to %v (%v), the whole to %v (%v)", data, small, gotPick, err, wantPick, pickErr)
		}
	} else if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		t.Fatalf("Pick(%q) says it is not an object", data)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, data, "", "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", data, err)
	}
	// What follows the value is kept as it is; the value's lines are capped.
	value := bytes.TrimRight(data, " \t\r\n")
	indented.Truncate(indented.Len() - (len(data) - len(value)))
	indented = *bytes.NewBufferString(capIndent(indented.String(), "", "  ") + string(data[len(value):]))
	if got := Indent(nil, data, "  "); string(got) != indented.String() {
		t.Fatalf("Indent(%q) = %q, json.Indent gives %q", data, got, indented.String())
	}
	if got := indentedLines(IndentLines(data, "  ")); got != indented.String() {
		t.Fatalf("IndentLines(%q) = %q, json.Indent gives %q", data, got, indented.String())
	}
	checked, ok := ValidIndentLines(data, "  ")
	if !ok {
		t.Fatalf("ValidIndentLines(%q) says it is not valid", data)
	}
	if want := IndentLines(data, "  "); !slices.Equal(checked.marks, want.marks) || checked.n != want.n {
		t.Fatalf("ValidIndentLines(%q) marks %v (%d lines), IndentLines %v (%d)", data, checked.marks, checked.n, want.marks, want.n)
	}
	if got := indentedLines(checked); got != indented.String() {
		t.Fatalf("ValidIndentLines(%q) = %q, json.Indent gives %q", data, got, indented.String())
	}
	var wantStr string
	strErr := json.Unmarshal(data, &wantStr)
	gotStr, ok := String(data)
	isStr := bytes.HasPrefix(bytes.TrimSpace(data), []byte(`"`))
	if ok != isStr || isStr && (strErr != nil || gotStr != wantStr) {
		t.Fatalf("String(%q) = %q %v, json.Unmarshal gives %q %v", data, gotStr, ok, wantStr, strErr)
	}
}

func TestViewsAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range samples {
		checkViews(t, []byte(s))
	}
	// The case-insensitive match json.Unmarshal makes for a struct field.
	var st struct {
		IsError bool `json:"isError"`
	}
	raw := []byte(`{"isError":false,"ISERROR":true,"x":1}`)
	_ = json.Unmarshal(raw, &st)
	if v, ok := MemberFold(raw, "isError"); !ok || string(v) != "true" || !st.IsError {
		t.Fatalf("MemberFold = %q %v; encoding/json decoded %v", v, ok, st.IsError)
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", data, got, want)
		}
		if _, got := ValidIndentLines(data, "  "); got != json.Valid(data) {
			t.Fatalf("ValidIndentLines(%q) says valid %v, json.Valid says %v", data, got, !got)
		}
		checkViews(t, data)
		// Views of anything never panic.
		_, _ = Object(data)
		_, _ = Array(data)
		_, _ = String(data)
		_, _ = MemberFold(data, "a")
		_, _ = Pick(data, "a")
		_ = Indent(nil, data, "  ")
		_ = indentedLines(IndentLines(data, "  "))
	})
}

// capIndent is json.Indent's output with each line's indentation cut to
// MaxIndentDepth indents after prefix: what Indent promises. A line of
// valid JSON indented by json.Indent starts with its indentation and no
// other white space, since strings hold no raw newline.
func capIndent(s, prefix, indent string) string {
	most := prefix + strings.Repeat(indent, MaxIndentDepth)
	lines := strings.Split(s, "\n")
	for i, l := range lines[1:] {
		if rest := strings.TrimLeft(l[len(prefix):], " "); len(l)-len(rest) > len(most) {
			lines[i+1] = most + rest
		}
	}
	return strings.Join(lines, "\n")
}

// indentedLines joins an Indented's lines with "\n", asking for them out of
// order (the last mark's first, then from the start) as a view scrolled to
// the end and back does.
func indentedLines(x *Indented) string {
	n := x.Len()
	_ = x.Line(n - 1)
	_ = x.Line(n / 2)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = x.Line(i)
	}
	_, _ = x.Line(-1), x.Line(n) // outside: "", no panic
	return strings.Join(lines, "\n")
}

func hugeMessage() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 20<<20; i++ {
		fmt.Fprintf(&b, `line %07d: the quick brown fox jumps over the \"lazy\" dog\n`, i)
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + b.String() + `"}]}}`)
}

// BenchmarkValid20MB against json.Valid on the same 20 MB result.
func BenchmarkValid20MB(b *testing.B) {
	data := hugeMessage()
	b.Run("jsonview", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if !Valid(data) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if !json.Valid(data) {
				b.Fatal("invalid")
			}
		}
	})
}

// BenchmarkText20MB reads the text of the 20 MB result's first content
// block: views down to it, then one decode, against json.Unmarshal.
func BenchmarkText20MB(b *testing.B) {
	data := hugeMessage()
	b.Run("jsonview", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, _ := Member(data, "result")
			content, _ := Member(res, "content")
			blocks, _ := Array(content)
			text, _ := Member(blocks[0], "text")
			if s, ok := String(text); !ok || len(s) < 15<<20 {
				b.Fatal("no text")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v struct {
				Result struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			if json.Unmarshal(data, &v) != nil || len(v.Result.Content[0].Text) < 15<<20 {
				b.Fatal("no text")
			}
		}
	})
}

// StringView decodes as String does; a string without escapes is the
// input's own bytes (no copy), any other a decoded copy.
func TestStringViewSharesPlainStrings(t *testing.T) {
	for _, raw := range []string{`"plain text"`, ` "padded" `, `""`, `"with \"escapes\" \u00e9\n"`, `"bad utf8 ` + "\xff" + `"`, `"\ud800"`, `42`, `"`, `"unterminated`} {
		b := []byte(raw)
		got, ok := StringView(b)
		want, wantOK := String([]byte(raw))
		if got != want || ok != wantOK {
			t.Errorf("StringView(%q) = %q, %v; String gives %q, %v", raw, got, ok, want, wantOK)
		}
	}
	b := []byte(`"` + strings.Repeat("x", 1<<20) + `"`)
	s, ok := StringView(b)
	if !ok || len(s) != 1<<20 {
		t.Fatalf("StringView of a 1 MiB string: %d bytes, %v", len(s), ok)
	}
	if unsafe.StringData(s) != &b[1] {
		t.Fatal("a string without escapes was copied")
	}
}

// A value of thousands of lines (many marks apart) gives json.Indent's
// lines, whichever line is asked for first; with whitespace around it.
func TestIndentLinesAcrossMarks(t *testing.T) {
	var b strings.Builder
	b.WriteString(" \n[")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(" , ")
		}
		fmt.Fprintf(&b, `{"id":%d,"s":"a,b]{\"x\":[1]}","e":{},"f":[ ],"n":[[%d,[true,null]],{"k":{"l":-1.5e3}}]}`, i, i)
	}
	b.WriteString("]\n \n")
	data := []byte(b.String())
	var want bytes.Buffer
	if err := json.Indent(&want, data, "", "  "); err != nil {
		t.Fatal(err)
	}
	x := IndentLines(data, "  ")
	wantLines := strings.Split(want.String(), "\n")
	if x.Len() != len(wantLines) || x.Len() < 20*markEvery {
		t.Fatalf("%d lines, json.Indent gives %d (the test wants many marks)", x.Len(), len(wantLines))
	}
	for _, i := range []int{len(wantLines) - 1, 5 * markEvery, 5*markEvery - 1, 0, len(wantLines) - 3, 1234} {
		if got := x.Line(i); got != wantLines[i] {
			t.Fatalf("line %d is %q, json.Indent gives %q", i, got, wantLines[i])
		}
	}
	if got := indentedLines(x); got != want.String() {
		t.Fatal("the lines joined are not json.Indent's output")
	}
	checked, ok := ValidIndentLines(data, "  ")
	if !ok || !slices.Equal(checked.marks, x.marks) || checked.Len() != x.Len() || indentedLines(checked) != want.String() {
		t.Fatalf("ValidIndentLines: valid %v, %d lines (IndentLines %d), marks equal %v", ok, checked.Len(), x.Len(), slices.Equal(checked.marks, x.marks))
	}
}

// ValidIndentLines is Valid's answer where the grammar is broken (each
// case is one mistake in an otherwise valid value, many marks in) and at
// encoding/json's nesting limit.
func TestValidIndentLinesRejectsWhatValidRejects(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 500 {
		fmt.Fprintf(&b, `{"id":%d,"t":["a",{"b":null}]},`, i)
	}
	good := b.String() + `{"end":true}]`
	for _, bad := range []string{
		b.String() + `]`,                   // a trailing comma
		b.String() + `{"end":true}`,        // unclosed
		b.String() + `{"end":true}]]`,      // closed twice
		b.String() + `{"end" true}]`,       // no colon
		b.String() + `{end:true}]`,         // a bare key
		b.String() + `{"end":tru}]`,        // a broken literal
		b.String() + `{"end":01}]`,         // a leading zero
		b.String() + `{"end":"\x"}]`,       // a bad escape
		b.String() + `{"end":true]}`,       // crossed brackets
		b.String() + `{"end":true}] 1`,     // two values
		b.String() + `{"end":true,}]`,      // a trailing comma in an object
		b.String() + `{"a":1 "b":2}]`,      // no comma
		b.String() + "{\"end\":\"\x01\"}]", // a control character
	} {
		if Valid([]byte(bad)) {
			t.Fatalf("the case is valid: %q", bad[len(b.String()):])
		}
		if _, ok := ValidIndentLines([]byte(bad), "  "); ok {
			t.Fatalf("ValidIndentLines accepts %q at the end", bad[len(b.String()):])
		}
	}
	if _, ok := ValidIndentLines([]byte(good), "  "); !ok {
		t.Fatal("ValidIndentLines rejects the valid value")
	}
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, inner := range []string{"", "1"} {
			deep := []byte(strings.Repeat("[", depth) + inner + strings.Repeat("]", depth))
			if _, ok := ValidIndentLines(deep, "  "); ok != Valid(deep) || ok != json.Valid(deep) {
				t.Fatalf("%d deep around %q: ValidIndentLines %v, Valid %v, json.Valid %v", depth, inner, ok, Valid(deep), json.Valid(deep))
			}
		}
	}
}

// A value nested 9,990 deep pretty-prints in bytes proportional to its
// own: each line is indented at most MaxIndentDepth levels, every token is
// there, and the text is the same JSON. Uncapped it was 200 MB from 80 KB.
func TestIndentDeepNestingStopsGrowing(t *testing.T) {
	const depth = 9990
	data := []byte(strings.Repeat(`{"a":[`, depth/2) + `"x"` + strings.Repeat(`]}`, depth/2))
	var want bytes.Buffer
	if err := json.Indent(&want, data, "> ", "  "); err != nil {
		t.Fatal(err)
	}
	got := IndentPrefix(nil, data, "> ", "  ")
	if len(got) > 100*len(data) {
		t.Fatalf("%d bytes indented to %d", len(data), len(got))
	}
	if string(got) != capIndent(want.String(), "> ", "  ") {
		t.Fatal("IndentPrefix is not json.Indent's output with its indentation capped")
	}
	if plain := Indent(nil, data, "  "); !json.Valid(plain) || !bytes.Equal(compact(t, plain), compact(t, data)) {
		t.Fatal("the capped text is not the same JSON")
	}
	widest := 0
	for l := range strings.SplitSeq(string(got), "\n") {
		widest = max(widest, len(l))
	}
	if most := len("> ") + 2*MaxIndentDepth + len(`"a": [`); widest > most {
		t.Fatalf("a line of %d bytes; at most %d expected", widest, most)
	}
	x := IndentLines(data, "  ")
	if got := indentedLines(x); got != string(Indent(nil, data, "  ")) {
		t.Fatal("IndentLines does not give Indent's lines")
	}
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.Bytes()
}
