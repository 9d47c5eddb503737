package panes

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
)

func tokens(t *testing.T, lx chroma.Lexer, line string) []chroma.Token {
	t.Helper()
	it, err := lx.Tokenise(nil, line)
	if err != nil {
		t.Fatal(err)
	}
	var out []chroma.Token
	for tok := it(); tok != chroma.EOF; tok = it() {
		if tok.Type != chroma.Text || tok.Value != " " {
			out = append(out, tok)
		}
	}
	return out
}

func TestJSONLexer(t *testing.T) {
	got := tokens(t, jsonLexer(), `  "name": "a \"b\"", "n": -1.5e3, "ok": true, "x": null}`)
	want := []chroma.Token{
		{Type: chroma.Text, Value: "  "},
		{Type: chroma.NameTag, Value: `"name"`}, {Type: chroma.Punctuation, Value: ":"},
		{Type: chroma.LiteralStringDouble, Value: `"a \"b\""`}, {Type: chroma.Punctuation, Value: ","},
		{Type: chroma.NameTag, Value: `"n"`}, {Type: chroma.Punctuation, Value: ":"},
		{Type: chroma.LiteralNumber, Value: "-1.5e3"}, {Type: chroma.Punctuation, Value: ","},
		{Type: chroma.NameTag, Value: `"ok"`}, {Type: chroma.Punctuation, Value: ":"},
		{Type: chroma.KeywordConstant, Value: "true"}, {Type: chroma.Punctuation, Value: ","},
		{Type: chroma.NameTag, Value: `"x"`}, {Type: chroma.Punctuation, Value: ":"},
		{Type: chroma.KeywordConstant, Value: "null"}, {Type: chroma.Punctuation, Value: "}"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d tokens %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("token %d = %v, want %v", i, got[i], want[i])
		}
	}
	// A line cut inside a string (a 20 MB value) still lexes, as a string.
	cut := tokens(t, jsonLexer(), `"data": "aGVsbG8gd29ybGQ…`)
	if last := cut[len(cut)-1]; last.Type != chroma.LiteralStringDouble {
		t.Errorf("cut string lexed as %v", last)
	}
}

func TestLexerForMimeAndName(t *testing.T) {
	for _, tc := range []struct {
		mime, uri string
		want      chroma.Lexer
	}{
		{"application/json", "", jsonLexer()},
		{"application/vnd.api+json; charset=utf-8", "", jsonLexer()},
		{"", "file:///srv/config.json", jsonLexer()},
		{"text/markdown", "", markdownLexer()},
		{"", "demo://readme.md", markdownLexer()},
		{"text/plain", "demo://notes.txt", nil},
	} {
		if got := lexerFor(tc.mime, tc.uri); got != tc.want {
			t.Errorf("lexerFor(%q, %q) = %v", tc.mime, tc.uri, got)
		}
	}
	if h := tokens(t, markdownLexer(), "## Tools"); len(h) != 1 || h[0].Type != chroma.NameTag {
		t.Errorf("a Markdown heading lexed as %v", h)
	}
}
