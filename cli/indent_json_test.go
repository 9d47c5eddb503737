package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

var indentSeeds = []string{
	`{}`, `[]`, `{"a":1}`, `{"a":[1,2,{"b":[]},{}],"c":"x\"y\\\\z{,:}"}`, ` [ 1 , [ [ ] ] ]  `,
	`"just a string"`, `null`, `{"e":"\u00e9\u202e","n":-1.5e10,"t":true}`, `{"a":`, `not json`,
	strings.Repeat("[", 100) + strings.Repeat("]", 100), strings.Repeat(`{"a":[`, 50) + "1" + strings.Repeat("]}", 50),
}

func FuzzWriteIndented(f *testing.F) {
	for _, s := range indentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		// jsonview.Indent is json.Indent's output (its own fuzz test
		// compares them) with the indentation capped.
		var want bytes.Buffer
		if json.Valid(raw) {
			want.Write(jsonview.Indent(nil, raw, "  "))
		} else {
			want.Write(raw)
		}
		var got bytes.Buffer
		if err := writeIndented(&got, raw); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("writeIndented(%q) =\n%q\nwant\n%q", raw, got.Bytes(), want.Bytes())
		}
	})
}
