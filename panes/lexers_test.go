package panes

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"

	"github.com/mcpscope/mcpscope/themes"
)

// The chroma lexers mcpscope highlighted with until issue 16, kept here as
// the reference its own lexers must match token for token (chroma stays a
// dependency of the tests only).
var (
	refJSONLexer = chroma.Coalesce(chroma.MustNewLexer(&chroma.Config{Name: "JSON"}, func() chroma.Rules {
		return chroma.Rules{"root": {
			{Pattern: `\s+`, Type: chroma.Text},
			{Pattern: `"(?:\\.|[^"\\])*"(?=\s*:)`, Type: chroma.NameTag},
			{Pattern: `"(?:\\.|[^"\\])*"?`, Type: chroma.LiteralStringDouble},
			{Pattern: `-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`, Type: chroma.LiteralNumber},
			{Pattern: `(?:true|false|null)\b`, Type: chroma.KeywordConstant},
			{Pattern: `[{}\[\],:]`, Type: chroma.Punctuation},
			{Pattern: `.`, Type: chroma.Text},
		}}
	}))
	refMarkdownLexer = chroma.Coalesce(chroma.MustNewLexer(&chroma.Config{Name: "Markdown"}, func() chroma.Rules {
		return chroma.Rules{"root": {
			{Pattern: `^#{1,6}\s.*`, Type: chroma.NameTag},
			{Pattern: "^```.*", Type: chroma.Punctuation},
			{Pattern: `^\s*(?:[-*+]|[0-9]+\.)\s`, Type: chroma.Punctuation},
			{Pattern: "`[^`]*`", Type: chroma.LiteralStringDouble},
			{Pattern: "[^`]+", Type: chroma.Text},
			{Pattern: ".", Type: chroma.Text},
		}}
	}))
)

// refKinds names chroma's token types as the lexers' kinds.
var refKinds = map[chroma.TokenType]tokenKind{
	chroma.Text: tokText, chroma.NameTag: tokKey, chroma.LiteralStringDouble: tokString,
	chroma.LiteralNumber: tokNumber, chroma.KeywordConstant: tokConstant, chroma.Punctuation: tokPunct,
}

func refTokens(t *testing.T, lx chroma.Lexer, text string) []token {
	t.Helper()
	it, err := lx.Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	var out []token
	for tok := it(); tok != chroma.EOF; tok = it() {
		k, ok := refKinds[tok.Type]
		if !ok {
			t.Fatalf("chroma gave a %v token for %q", tok.Type, text)
		}
		out = append(out, token{k, tok.Value})
	}
	return out
}

// refStyle is the chroma style mcpscope built from a theme's palette.
func refStyle(th *themes.Theme) *chroma.Style {
	p := th.Palette
	entries := chroma.StyleEntries{}
	add := func(tt chroma.TokenType, c interface{ RGBA() (r, g, b, a uint32) }) {
		if c != nil && !reflect.ValueOf(c).IsZero() {
			r, g, b, _ := c.RGBA()
			entries[tt] = "#" + hex2(r>>8) + hex2(g>>8) + hex2(b>>8)
		}
	}
	add(chroma.Text, p.Text)
	add(chroma.NameTag, p.JSONKey)
	add(chroma.LiteralString, p.JSONString)
	add(chroma.LiteralStringDouble, p.JSONString)
	add(chroma.LiteralNumber, p.JSONNumber)
	add(chroma.KeywordConstant, p.JSONBool)
	add(chroma.Keyword, p.JSONBool)
	add(chroma.Punctuation, p.JSONPunct)
	add(chroma.Error, p.Error)
	return chroma.MustNewStyle("mcpscope", entries)
}

func hex2(v uint32) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>4&15], digits[v&15]})
}

// lexerInputs are the texts both lexers are compared on: JSON and Markdown
// as servers send them, and their edges.
var lexerInputs = []string{
	`  "name": "a \"b\"", "n": -1.5e3, "ok": true, "x": null}`,
	`{"name": "add", "n": -1.5e3, "ok": true, "none": null, "list": [1, "two"]}`,
	"{\n  \"a\": \"line\\nbreak\",\n\r\n  \"b\": false\n}\n",
	`"unterminated`, `"ends in a backslash\`, `"key"   :1`, `"key" x: 1`, `"a\"": 2`,
	`"data": "aGVsbG8gd29ybGQ…`, "", " ", "\t\r\n", "\r", "a\rb\r\nc",
	`-`, `-0`, `05`, `1.`, `1.e5`, `1e`, `1e+`, `1E-7`, `-12.50e+003x`, `0.0.0`,
	`true`, `truex`, `true_`, `true1`, `true,`, `trueé`, "true\u200d", "true\u0301", `nullnull`, `falsey`, `Null`,
	"\u00a0\u2003\u3000\u0085 \"k\"\u2028:\u00a0v", "\"k\"\u00a0:1", "\xff\xfe\"bad\xc3\"", "\"é\": \"ü\"",
	strings.Repeat("x", 9000), strings.Repeat(" ", 9000) + "1", strings.Repeat("\\\"", 5000),
	"# A heading", "####### seven", "###### six", "#no space", "#\nnext", "## Tools\r# again",
	"```go", "```", "``", "`code` and `more", "- item `code`", "  * item", "+", "+ ", "12. step", "12.step", "1) no",
	"-\r# head", "text ` lone", "`a\nb`", "- `x` - y", "\t- tab", "10. `x`",
	"# A heading\n- item `code`\n```go\n",
}

// Our lexers cut every input exactly as the chroma lexers did.
func TestLexersMatchChroma(t *testing.T) {
	check := func(name string, ours lexer, ref chroma.Lexer, in string) {
		t.Helper()
		got, want := ours(in), refTokens(t, ref, in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %q:\n got %q\nwant %q", name, in, got, want)
		}
	}
	for _, in := range lexerInputs {
		check("json", lexJSON, refJSONLexer, in)
		check("markdown", lexMarkdown, refMarkdownLexer, in)
	}
	// And on random text made of the characters that matter to them.
	alphabet := []string{"\"", "\\", ":", ",", "{", "}", "[", "]", " ", "\t", "\n", "\r", "\u00a0", "-", "+", ".", "0", "1", "9", "e", "E",
		"true", "false", "null", "t", "x", "é", "\u0301", "_", "#", "`", "*", "```", "1.", "\xff", "…"}
	rng := rand.New(rand.NewPCG(16, 2026))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := rng.IntN(24); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check("json", lexJSON, refJSONLexer, b.String())
		check("markdown", lexMarkdown, refMarkdownLexer, b.String())
		if t.Failed() {
			return
		}
	}
}

func TestJSONLexer(t *testing.T) {
	var got []token
	for _, tok := range lexJSON(`  "name": "a \"b\"", "n": -1.5e3, "ok": true, "x": null}`) {
		if tok.kind != tokText || tok.text != " " {
			got = append(got, tok)
		}
	}
	want := []token{
		{tokText, "  "},
		{tokKey, `"name"`}, {tokPunct, ":"},
		{tokString, `"a \"b\""`}, {tokPunct, ","},
		{tokKey, `"n"`}, {tokPunct, ":"},
		{tokNumber, "-1.5e3"}, {tokPunct, ","},
		{tokKey, `"ok"`}, {tokPunct, ":"},
		{tokConstant, "true"}, {tokPunct, ","},
		{tokKey, `"x"`}, {tokPunct, ":"},
		{tokConstant, "null"}, {tokPunct, "}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A line cut inside a string (a 20 MB value) still lexes, as a string.
	cut := lexJSON(`"data": "aGVsbG8gd29ybGQ…`)
	if last := cut[len(cut)-1]; last.kind != tokString {
		t.Errorf("cut string lexed as %v", last)
	}
}

func TestLexerForMimeAndName(t *testing.T) {
	ptr := func(l lexer) uintptr {
		if l == nil {
			return 0
		}
		return reflect.ValueOf(l).Pointer()
	}
	for _, tc := range []struct {
		mime, uri string
		want      lexer
	}{
		{"application/json", "", lexJSON},
		{"application/vnd.api+json; charset=utf-8", "", lexJSON},
		{"", "file:///srv/config.json", lexJSON},
		{"text/markdown", "", lexMarkdown},
		{"", "demo://readme.md", lexMarkdown},
		{"text/plain", "demo://notes.txt", nil},
	} {
		if got := lexerFor(tc.mime, tc.uri); ptr(got) != ptr(tc.want) {
			t.Errorf("lexerFor(%q, %q) is not the lexer wanted", tc.mime, tc.uri)
		}
	}
	if h := lexMarkdown("## Tools"); len(h) != 1 || h[0].kind != tokKey {
		t.Errorf("a Markdown heading lexed as %v", h)
	}
}

// writeTrueColour writes what chroma's formatters.TTY16m wrote with the
// style mcpscope built from each theme's palette (the panes' goldens
// depend on these bytes), for text that spans lines too.
func TestWriteTrueColourIsTTY16m(t *testing.T) {
	compared := 0
	for name, th := range map[string]*themes.Theme{"dark": themes.Dark(), "light": themes.Light()} {
		syn, style := th.Syntax(), refStyle(th)
		if syn == nil {
			t.Fatalf("theme %s has no syntax colours", name)
		}
		for _, lx := range []struct {
			ours lexer
			ref  chroma.Lexer
		}{{lexJSON, refJSONLexer}, {lexMarkdown, refMarkdownLexer}} {
			for _, in := range lexerInputs {
				it, err := lx.ref.Tokenise(nil, in)
				if err != nil {
					t.Fatal(err)
				}
				var want strings.Builder
				if err := formatters.TTY16m.Format(&want, style, it); err != nil {
					t.Fatal(err)
				}
				var got strings.Builder
				writeTrueColour(&got, syn, lx.ours(in))
				if got.String() != want.String() {
					t.Errorf("theme %s, %q:\n got %q\nwant %q", name, in, got.String(), want.String())
				}
				compared++
			}
		}
	}
	if compared == 0 {
		t.Fatal("nothing was compared")
	}
}

// A theme whose palette leaves a kind without a colour draws it in the
// text colour, as chroma's style inheritance did.
func TestSyntaxFallsBackToTheTextColour(t *testing.T) {
	p := themes.Dark().Palette
	p.JSONKey, p.JSONNumber = nil, nil
	th := themes.New(p, true)
	in := `{"k": 12, "s": "v"}`
	it, err := refJSONLexer.Tokenise(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	var want, got strings.Builder
	if err := formatters.TTY16m.Format(&want, refStyle(th), it); err != nil {
		t.Fatal(err)
	}
	writeTrueColour(&got, th.Syntax(), lexJSON(in))
	if got.String() != want.String() {
		t.Errorf("got %q\nwant %q", got.String(), want.String())
	}
	if !utf8.ValidString(got.String()) {
		t.Error("not UTF-8")
	}
}
