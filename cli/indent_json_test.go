package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

var indentSeeds = []string{
	`{}`, `[]`, `{"a":1}`, `{"a":[1,2,{"b":[]},{}],"c":"x\"y\\\\z{,:}"}`, ` [ 1 , [ [ ] ] ]  `,
	`"just a string"`, `null`, `{"e":"\u00e9\u202e","n":-1.5e10,"t":true}`, `{"a":`, `not json`,
}

func FuzzWriteIndented(f *testing.F) {
	for _, s := range indentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want bytes.Buffer
		if err := json.Indent(&want, raw, "", "  "); err != nil {
			want.Reset()
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
