package config

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestReadJSONCKeepsOffsets(t *testing.T) {
	t.Parallel()
	src := []byte(`{
  // a comment
  "calls": [ /* first */ {"a": 1}, "two", 3, ],
  "x": "http://not/a/comment",
}`)
	clean, err := ReadJSONC("f.json", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(clean) != len(src) {
		t.Fatalf("clean is %d bytes, src %d", len(clean), len(src))
	}
	top, err := Members(clean, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 2 || top[0].Key != "calls" || top[1].Key != "x" {
		t.Fatalf("members = %+v", top)
	}
	if got := string(src[top[1].ValueOff:top[1].ValueEnd]); got != `"http://not/a/comment"` {
		t.Errorf("x's value in the source = %s", got)
	}
	if l, c := Position(src, top[0].KeyOff); l != 3 || c != 3 {
		t.Errorf("calls key at %d:%d, want 3:3", l, c)
	}
	elems, closing, err := Elements(clean, top[0].ValueOff)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range elems {
		got = append(got, string(src[e.Off:e.End]))
	}
	if strings.Join(got, "|") != `{"a": 1}|"two"|3` {
		t.Errorf("elements = %q", got)
	}
	if src[closing] != ']' || closing != top[0].ValueEnd-1 {
		t.Errorf("closing bracket at %d (%q), the value ends at %d", closing, src[closing], top[0].ValueEnd)
	}
}

func TestReadJSONCSyntaxErrorHasLineAndColumn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src       string
		line, col int
	}{
		{"{\n  \"calls\": [\n    {\"a\": 1\n    {\"b\": 2}\n  ]\n}", 4, 5},
		{"{\n  \"calls\": [\n  /* never closed\n", 3, 3},
		{"{\n  \"a\": 1\n}\n}", 4, 1},
	} {
		_, err := ReadJSONC("calls.json", []byte(tc.src))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%q: err = %v, want an *Error", tc.src, err)
		}
		if ce.Line != tc.line || ce.Col != tc.col || ce.Path != "calls.json" {
			t.Errorf("%q: error at %s:%d:%d, want calls.json:%d:%d (%v)", tc.src, ce.Path, ce.Line, ce.Col, tc.line, tc.col, err)
		}
	}
}

// Reading a big config allocates about its size once (the text with its
// comments blanked), not a decoded copy of every value: a 60 MB config
// made tap install peak at 627 MB.
func TestReadJSONCOfABigFileCostsItsSize(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n  // servers\n  \"mcpServers\": {\n")
	for i := 0; b.Len() < 16<<20; i++ {
		fmt.Fprintf(&b, "    \"s%d\": {\"command\": \"node\", \"args\": [\"server.js\", %q]},\n", i, strings.Repeat("x", 4000))
	}
	b.WriteString("  }\n}\n")
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := ReadJSONC("big.json", data); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%.1f MB read with %.1f MB allocated", float64(len(data))/1e6, float64(allocated)/1e6)
	if allocated > uint64(len(data))*3/2 {
		t.Errorf("reading %d bytes allocated %d", len(data), allocated)
	}
}

// Reading a big file of servers for an edit neither copies it (it has no
// comments to blank) nor decodes its args into new strings: each reading
// held the file again, and tap install reads a file and then its edit (65
// MB of servers with 4 KB args: 407 MB, now 281 MB with a comment in it).
func TestReadOfABigFileOfServersViewsItsText(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := 0; b.Len() < 16<<20; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"s%d\": {\"command\": \"node\", \"args\": [\"server.js\", %q]}", i, strings.Repeat("x", 16000))
	}
	b.WriteString("\n  }\n}\n")
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := Read(JSON, data)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) < 1000 || d.Entries[7].Args[1] != strings.Repeat("x", 16000) {
		t.Fatalf("%d entries", len(d.Entries))
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%.1f MB read with %.1f MB allocated", float64(len(data))/1e6, float64(allocated)/1e6)
	if allocated > uint64(len(data))/4 {
		t.Errorf("reading %d bytes allocated %d", len(data), allocated)
	}
}
