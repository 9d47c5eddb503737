package panes

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/themes"
)

// emptyRun is a colour escape with nothing before its reset: chroma's
// formatter writes one where a token ends at a line feed.
var emptyRun = regexp.MustCompile("\x1b\\[[0-9;]*m\x1b\\[0m")

// Pretty-printed JSON coloured a line at a time (colorJSON, as the views
// draw it) looks as it does coloured whole: on documents chosen for their
// edges and on random ones.
func TestJSONColoursTheSameLineByLine(t *testing.T) {
	docs := []string{
		`{"name": "add", "n": -1.5e3, "ok": true, "none": null, "list": [1, "two", 0.25, 3E+7], "o": {}, "a": []}`,
		`{"a \"quoted\" key": "a \\ backslash", "k:colon": "v: \"x\": 1", "é": "ü\u00e9\n\t", "": ""}`,
		`[[], {}, [{"deep": [[{"x": false}]]}], "}", "]", ":", ","]`,
		`"a lone string"`, `12`, `-0.5e-7`, `null`, `{"nested":{"a":{"b":{"c":[1,[2,[3]]]}}}}`,
		`{"inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"The \"first\" one"}},"required":["a"]}}`,
	}
	rng := rand.New(rand.NewPCG(27, 2026))
	for i := 0; i < 300; i++ {
		docs = append(docs, randomJSON(rng, 4))
	}
	whole := lexerFor("application/json", "")
	if whole == nil {
		t.Fatal("no JSON lexer")
	}
	for _, th := range []*themes.Theme{themes.Dark(), themes.Light()} {
		for _, doc := range docs {
			pretty := string(jsonview.Indent(nil, []byte(doc), "  "))
			var b strings.Builder
			if !format(&b, th.Chroma(), whole, pretty, time.Minute) {
				t.Fatalf("could not lex %s", pretty)
			}
			want := strings.Split(b.String(), "\n")
			got := strings.Split(pretty, "\n")
			if len(want) != len(got) {
				t.Fatalf("%d lines against %d", len(got), len(want))
			}
			for i, l := range got {
				g, w := emptyRun.ReplaceAllString(colorJSON(th, l), ""), emptyRun.ReplaceAllString(want[i], "")
				if g != w {
					t.Fatalf("line %d of\n%s\n got %q\nwant %q", i, pretty, g, w)
				}
			}
		}
	}
}

// randomJSON is a random JSON value at most depth deep, with the strings
// and numbers that matter to a lexer.
func randomJSON(rng *rand.Rand, depth int) string {
	strs := []string{`"a"`, `""`, `"with \"quotes\""`, `"back\\slash"`, `"colon: x"`, `"{[,]}"`, `"é\u0301"`, `"tab\tnl\n"`, `"true"`}
	scalars := []string{"0", "-1", "12.5", "1e9", "-0.25E-3", "true", "false", "null"}
	switch k := rng.IntN(6); {
	case depth == 0 || k < 2:
		if rng.IntN(2) == 0 {
			return strs[rng.IntN(len(strs))]
		}
		return scalars[rng.IntN(len(scalars))]
	case k < 4:
		n := rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strs[rng.IntN(len(strs))] + ":" + randomJSON(rng, depth-1)
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		n := rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomJSON(rng, depth-1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
}

const pythonSource = "import os\n\n# a comment\ndef main(argv):\n    \"\"\"Doc.\"\"\"\n    return len(argv) + 1  # more\n\n\nclass A(object):\n    pass\n"

// A Python resource is coloured by its MIME type, its text kept cell for
// cell; the plain theme and plain text get no colour at all.
func TestHighlightPython(t *testing.T) {
	th := themes.Dark()
	lines := highlight(th, "text/x-python", "file:///x/main.py", pythonSource)
	want := strings.Split(strings.TrimRight(pythonSource, "\n"), "\n")
	if got := stripAll(lines); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the text changed:\n%q\nwant\n%q", got, want)
	}
	kw, comment := sgr(th.Palette.JSONBool), sgr(th.Palette.Muted)
	if !strings.Contains(lines[3], kw+"def") {
		t.Errorf("def is not in the keyword colour: %q", lines[3])
	}
	if !strings.Contains(lines[2], "\x1b[3m"+comment+"# a comment") {
		t.Errorf("the comment is not italic and muted: %q", lines[2])
	}
	if lines := highlight(themes.NoColor(), "text/x-python", "file:///x/main.py", pythonSource); lines != nil {
		t.Errorf("NO_COLOR highlighted: %q", lines)
	}
	if lines := highlight(th, "text/plain", "demo://notes.txt", pythonSource); lines != nil {
		t.Errorf("plain text was highlighted: %q", lines)
	}
	for i, l := range plainLines(th, pythonSource) {
		if l != th.Result.Content.Render(want[i]) {
			t.Errorf("plain line %d is %q", i, l)
		}
	}
}

// Server text is sanitised before it is lexed: a control sequence in a
// resource reaches the screen as visible text, highlighted or not.
func TestHighlightSanitises(t *testing.T) {
	for _, l := range highlight(themes.Dark(), "text/x-python", "x.py", "x = '\x1b]0;pwned\x07'\n") {
		if strings.Contains(ansi.Strip(l), "\x1b") || strings.Contains(l, "\x07") {
			t.Fatalf("a control character got through: %q", l)
		}
	}
}

func TestHighlightGivesUp(t *testing.T) {
	th := themes.Dark()
	if highlightSafe(th, lexerFor("text/x-python", ""), strings.Repeat("x = 1\n", maxHighlightBytes/6+1)) != nil {
		t.Error("a text over maxHighlightBytes was highlighted")
	}
	var b strings.Builder
	if format(&b, th.Chroma(), lexerFor("text/x-python", ""), strings.Repeat("x = 1\n", 200), 0) {
		t.Error("a text over its time budget was highlighted")
	}
	if highlight(th, "text/x-python", "", strings.Repeat("x = 1\n", maxHighlightBytes/6+1)) != nil {
		t.Error("highlight coloured a text over maxHighlightBytes")
	}
}

// A palette that leaves a colour out draws those tokens in the text colour.
func TestHighlightFallsBackToTheTextColour(t *testing.T) {
	p := themes.Dark().Palette
	p.JSONKey = nil
	th := themes.New(p, true)
	got := colorJSON(th, `"k": 1`)
	if want := sgr(p.Text) + `"k"`; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want it to start %q", got, want)
	}
}

// Fenced code blocks in a description are coloured as their language; the
// prose and every line stay as they were.
func TestHighlightFences(t *testing.T) {
	th := themes.Dark()
	text := "Runs a program.\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\") // say it\n}\n```\nThen:\n~~~python\nx = 1\n~~~\n```nosuchlanguage\nplain\n```\n```go\nunclosed"
	runs := highlightFences(th, text)
	var all []string
	var code []bool
	for _, r := range runs {
		all = append(all, r.lines...)
		for range r.lines {
			code = append(code, r.code)
		}
	}
	if got := strings.Join(stripAll(all), "\n"); got != text {
		t.Fatalf("the text changed:\n%s", got)
	}
	wantCode := []bool{false, false, true, true, true, true, true, false, true, true, true, false, false, false, false, false}
	if fmt.Sprint(code) != fmt.Sprint(wantCode) {
		t.Fatalf("code lines %v, want %v", code, wantCode)
	}
	if !strings.Contains(all[3], sgr(th.Palette.JSONBool)+"func") {
		t.Errorf("func is not a keyword: %q", all[3])
	}
	for _, r := range highlightFences(themes.NoColor(), text) {
		if r.code {
			t.Fatal("NO_COLOR highlighted a fenced block")
		}
	}
}

func stripAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Strip(l)
	}
	return out
}

func sgr(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("\x1b[38;2;%d;%d;%dm", r>>8, g>>8, b>>8)
}

func BenchmarkHighlight(b *testing.B) {
	th := themes.Dark()
	python := strings.Repeat(pythonSource, 160) // 16 KB
	line := `      "description": "Adds two numbers \"a\" and b", "minimum": -1.5e3, "x": true,`
	b.Run("python-16KB", func(b *testing.B) {
		b.SetBytes(int64(len(python)))
		for b.Loop() {
			highlight(th, "text/x-python", "", python)
		}
	})
	b.Run("json-line", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			colorJSON(th, line)
		}
	})
	b.Run("lexer-by-name", func(b *testing.B) {
		for b.Loop() {
			lexerFor("", "file:///x/main.py")
		}
	})
}

// A text's last line is lexed as a line: a Markdown list's last item is an
// item too.
func TestHighlightLastLine(t *testing.T) {
	th := themes.Dark()
	lines := highlight(th, "text/markdown", "", "- one\n- two\n\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, sgr(th.Palette.JSONBool)+"-") {
			t.Errorf("the list marker is not coloured: %q", l)
		}
	}
}

// A resource read and a prompt's messages show their code highlighted: the
// resource by its MIME type, a message's fenced block by its language.
func TestContentHighlightsCode(t *testing.T) {
	th := themes.Dark()
	kw := sgr(th.Palette.JSONBool)
	find := func(lines []string, plain string) string {
		t.Helper()
		for _, l := range lines {
			if strings.TrimSpace(ansi.Strip(l)) == plain {
				return l
			}
		}
		t.Fatalf("%q is not shown: %q", plain, lines)
		return ""
	}
	read := ReadResultLines(th, []byte(`{"contents":[{"uri":"file:///x/main.py","mimeType":"text/x-python","text":"def main():\n    pass\n"}]}`))
	if l := find(read, "def main():"); !strings.Contains(l, kw+"def") {
		t.Errorf("the Python resource is not highlighted: %q", l)
	}
	prompt := PromptResultLines(th, []byte(`{"messages":[{"role":"user","content":{"type":"text","text":"Review:\n`+"```go"+`\nfunc f() {}\n`+"```"+`"}}]}`))
	if l := find(prompt, "func f() {}"); !strings.Contains(l, kw+"func") {
		t.Errorf("the prompt's Go block is not highlighted: %q", l)
	}
	if l := find(prompt, "Review:"); strings.Contains(l, kw) {
		t.Errorf("the prompt's prose is highlighted: %q", l)
	}
	for _, l := range ReadResultLines(themes.NoColor(), []byte(`{"contents":[{"uri":"file:///x/main.py","mimeType":"text/x-python","text":"def main():\n    pass\n"}]}`)) {
		if strings.Contains(l, "\x1b[38") {
			t.Errorf("NO_COLOR: %q", l)
		}
	}
}

// highlight writes what chroma's TTY16m formatter writes, byte for byte:
// for every token type a lexer gives (the negative ones style a page's
// lines and numbers), in both themes and one that leaves colours out, for
// tokens that span lines and end them (with "\n" and "\r\n").
func TestTrueColourIsTTY16m(t *testing.T) {
	p := themes.Dark().Palette
	p.JSONKey, p.Muted = nil, nil
	values := []string{"x", "", "a\nb", "a\r\nb\n", "\n\n", "end\n", " \t"}
	for _, th := range []*themes.Theme{themes.Dark(), themes.Light(), themes.New(p, true)} {
		var toks []chroma.Token
		for tt := range chroma.StandardTypes {
			if tt < 0 {
				continue
			}
			for _, v := range values {
				toks = append(toks, chroma.Token{Type: tt, Value: v})
			}
		}
		for _, l := range langs {
			it, err := l.Lexer().Tokenise(nil, "x = \"s\" # c\n// c\n<a b='c'>1.5</a>\n")
			if err != nil {
				t.Fatal(err)
			}
			toks = append(toks, it.Tokens()...)
		}
		var want, got strings.Builder
		if err := formatters.TTY16m.Format(&want, th.Chroma(), chroma.Literator(toks...)); err != nil {
			t.Fatal(err)
		}
		writeTrueColour(&got, th.Chroma(), toks)
		if got.String() != want.String() {
			g, w := got.String(), want.String()
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Fatalf("differs at byte %d:\n got %q\nwant %q", i, g[max(0, i-40):min(len(g), i+40)], w[max(0, i-40):min(len(w), i+40)])
		}
	}
}
