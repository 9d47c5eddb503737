package panes

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// want is a token a lexer must give a sample: its text, and the type it
// is or falls under (chroma.LiteralString covers a double-quoted string).
type want struct {
	text string
	typ  chroma.TokenType
}

// Each language's lexer cuts a representative text into the tokens a
// reader looks for, loses none of it and marks none of it an error.
func TestLexersTokenise(t *testing.T) {
	const (
		kw, kwType, kwConst = chroma.Keyword, chroma.KeywordType, chroma.KeywordConstant
		str, num, comment   = chroma.LiteralString, chroma.LiteralNumber, chroma.Comment
		fn, class, tag      = chroma.NameFunction, chroma.NameClass, chroma.NameTag
		attr, builtin, text = chroma.NameAttribute, chroma.NameBuiltin, chroma.Text
		variable, deco      = chroma.NameVariable, chroma.NameDecorator
	)
	for _, tc := range []struct {
		lang, sample string
		want         []want
	}{
		{"json", `{"name": "a: b", "n": -1.5e3, "ok": true, "none": null}`,
			[]want{{`"name"`, tag}, {`"a: b"`, str}, {"-1.5e3", num}, {"true", kwConst}, {"null", kwConst}}},
		{"jsonc", "// settings\n{\"a\": [1, \"x\"] /* inline */}\n",
			[]want{{"// settings", comment}, {`"a"`, tag}, {"1", num}, {`"x"`, str}, {"/* inline */", comment}}},
		{"jsonl", "{\"id\": 1}\n{\"id\": 2}\n", []want{{`"id"`, tag}, {"2", num}}},
		{"js", "// say\nconst re = /a\"b/g, n = 0x1F;\nasync function go(x) { return `t ${x + 1} \"q\"` + 'y'; }\n",
			[]want{{"// say", comment}, {"const", kw}, {`/a"b/g`, str}, {"0x1F", num}, {"async", kw}, {"go", fn}, {"return", kw},
				{"`t ", str}, {"1", num}, {"'y'", str}}},
		{"ts", "interface Shape { area(): number }\nclass Sq implements Shape { @log area(): number { return null as any; } }\n",
			[]want{{"interface", kw}, {"Shape", class}, {"number", kwType}, {"implements", kw}, {"Sq", class}, {"@log", deco}, {"null", kwConst}, {"any", kwType}}},
		{"python", "@tool\ndef add(a: int) -> int:\n    \"\"\"Add.\"\"\"\n    return a + 0.5  # sum\nclass A: pass\nx = f'{a}' if a is None else r\"\\d\"\n",
			[]want{{"@tool", deco}, {"def", kw}, {"add", fn}, {"int", builtin}, {`"""Add."""`, str}, {"0.5", num}, {"# sum", comment},
				{"A", class}, {"f'{a}'", str}, {"None", kwConst}, {`r"\d"`, str}}},
		{"go", "package main\n\n// Run runs.\nfunc Run(n int) error {\n\ts := `raw` + \"x\"\n\treturn fmt.Errorf(\"%d\", n+0x10, nil)\n}\n",
			[]want{{"package", kw}, {"// Run runs.", comment}, {"func", kw}, {"Run", fn}, {"int", kwType}, {"error", kwType},
				{"`raw`", str}, {`"x"`, str}, {"Errorf", fn}, {"0x10", num}, {"nil", kwConst}}},
		{"html", "<!DOCTYPE html>\n<!-- note -->\n<a href=\"/x\" class=main>Hi &amp; bye</a>\n<script>let n = 1;</script>\n<style>p { color: red; }</style>\n",
			[]want{{"<!-- note -->", comment}, {"a", tag}, {"href", attr}, {`"/x"`, str}, {"main", str}, {"&amp;", chroma.NameEntity},
				{"let", kw}, {"1", num}, {"color", attr}}},
		{"svg", "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r='4'/><![CDATA[x<y]]></svg>\n",
			[]want{{`<?xml version="1.0"?>`, chroma.CommentPreproc}, {"svg", tag}, {"xmlns", attr}, {"circle", tag}, {"'4'", str}, {"<![CDATA[x<y]]>", chroma.CommentPreproc}}},
		{"css", "/* main */\n@media print { .card > a:hover { color: #fff !important; margin: 0 -1.5em; font: 'x'; } }\n",
			[]want{{"/* main */", comment}, {"@media", kw}, {".card", class}, {"a", tag}, {":hover", deco}, {"color", attr},
				{"#fff", num}, {"!important", kw}, {"-1.5em", num}, {"'x'", str}}},
		{"yaml", "# conf\nname: demo # why\nport: 8080\non: true\nlist:\n  - 'a'\n  - \"b\"\ndesc: |\n  key: not a key\n  # not a comment\nnext: {a: 1}\n",
			[]want{{"# conf", comment}, {"name", tag}, {"# why", comment}, {"8080", num}, {"true", kwConst}, {"'a'", str}, {`"b"`, str},
				{"  key: not a key\n  # not a comment\n", str}, {"next", tag}, {"a", tag}, {"1", num}}},
		{"toml", "# cargo\n[package]\nname = \"x\"\nversion = 1\nok = false\nwhen = 1979-05-27\nlist = [1, 'two']\n",
			[]want{{"# cargo", comment}, {"package", kw}, {"name", tag}, {`"x"`, str}, {"1", num}, {"false", kwConst}, {"'two'", str}}},
		{"bash", "#!/bin/bash\n# setup\nif [ -n \"$HOME\" ]; then echo 'hi' \"x ${N}\" 2; fi\ncat <<EOF\nbody $x\nEOF\n",
			[]want{{"#!/bin/bash", comment}, {"# setup", comment}, {"if", kw}, {"$HOME", variable}, {"then", kw}, {"echo", builtin},
				{"'hi'", str}, {"${N}", variable}, {"2", num}, {"fi", kw}, {"body $x\nEOF", str}}},
		{"sql", "-- all\nSELECT id, 'it''s' FROM t WHERE n > 10 AND x IS NULL; /* done */ create table u (id bigint);\n",
			[]want{{"-- all", comment}, {"SELECT", kw}, {"'it''s'", str}, {"FROM", kw}, {"10", num}, {"NULL", kwConst},
				{"/* done */", comment}, {"create", kw}, {"bigint", kwType}}},
		{"markdown", "# Title\n\nSome *emph*, **strong** and `code`, a [link](https://x).\n\n- item\n> quote\n\n```go\nfunc f() {}\n```\n",
			[]want{{"# Title", chroma.GenericHeading}, {"*emph*", chroma.GenericEmph}, {"**strong**", chroma.GenericStrong}, {"`code`", str},
				{"link", tag}, {"https://x", attr}, {"-", kw}, {"quote", chroma.GenericEmph}, {"```go\n", str}, {"func", kw}}},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n",
			[]want{{"--- a/x\n+++ b/x\n", chroma.GenericHeading}, {"@@ -1 +1 @@\n", chroma.GenericSubheading}, {"-old\n", chroma.GenericDeleted},
				{"+new\n", chroma.GenericInserted}, {" same\n", text}}},
		{"rust", "/// doc\n#[derive(Debug)]\npub struct S<'a> { n: u32 }\nfn main() { let c = 'x'; println!(\"{}\", r#\"raw\"#, 1_000u64, None); }\n",
			[]want{{"/// doc", comment}, {"#[derive(Debug)]", deco}, {"struct", kw}, {"S", class}, {"u32", kwType}, {"fn", kw}, {"main", fn},
				{"'x'", str}, {"println!", builtin}, {`r#"raw"#`, str}, {"1_000u64", num}, {"None", builtin}}},
		{"java", "/** doc */\n@Override\npublic class A { long n = 10L; String s = \"hi\"; void run() { if (n > 0) return; } }\n",
			[]want{{"/** doc */", comment}, {"@Override", deco}, {"public", kw}, {"A", class}, {"long", kwType}, {"10L", num},
				{`"hi"`, str}, {"run", fn}, {"if", kw}}},
		{"c", "#include <stdio.h>\n/* c */\nstatic int f(const char *s) { return s == NULL ? 'x' : 0x10; } // end\n",
			[]want{{"#include", chroma.CommentPreproc}, {"<stdio.h>", chroma.CommentPreprocFile}, {"/* c */", comment}, {"static", kw}, {"int", kwType},
				{"f", fn}, {"NULL", kwConst}, {"'x'", str}, {"0x10", num}, {"// end", comment}}},
		{"cpp", "namespace n { class C final { auto f() noexcept -> bool { return nullptr == R\"(raw)\"; } }; }\n",
			[]want{{"namespace", kw}, {"C", class}, {"noexcept", kw}, {"bool", kwType}, {"nullptr", kwConst}, {`R"(raw)"`, str}}},
		{"make", "CC ?= gcc\n# build\nall: main.o\n\t$(CC) -o $@ main.o\n",
			[]want{{"CC", variable}, {"?=", chroma.Operator}, {"# build", comment}, {"all", fn}}},
		{"dockerfile", "FROM alpine\n# c\nRUN echo \"hi\" && exit 0\n",
			[]want{{"FROM", kw}, {"# c", comment}, {"RUN", kw}, {"echo", builtin}, {`"hi"`, str}}},
	} {
		lx := lexerForLanguage(tc.lang)
		if lx == nil {
			t.Errorf("%s: no lexer", tc.lang)
			continue
		}
		toks := lexTokens(t, lx, tc.sample)
		var all strings.Builder
		for _, tok := range toks {
			all.WriteString(tok.Value)
			if tok.Type == chroma.Error {
				t.Errorf("%s: %q is an error token", tc.lang, tok.Value)
			}
		}
		if all.String() != tc.sample {
			t.Errorf("%s: the tokens make %q, not the text", tc.lang, all.String())
		}
		for _, w := range tc.want {
			got, found := typeOf(toks, w.text)
			if !found {
				t.Errorf("%s: no token %q in %v", tc.lang, w.text, toks)
			} else if !under(got, w.typ) {
				t.Errorf("%s: %q is %s, want %s", tc.lang, w.text, got, w.typ)
			}
		}
	}
}

func lexTokens(t *testing.T, lx chroma.Lexer, text string) []chroma.Token {
	t.Helper()
	toks, ok := lex(lx, text, time.Minute)
	if !ok {
		t.Fatalf("%s could not lex %q", lx.Config().Name, text)
	}
	return toks
}

// typeOf is the type of the first token whose text is text, spaces around
// it aside.
func typeOf(toks []chroma.Token, text string) (chroma.TokenType, bool) {
	for _, tok := range toks {
		if tok.Value == text || strings.TrimSpace(tok.Value) == text {
			return tok.Type, true
		}
	}
	return 0, false
}

// under says whether got is typ or one of its kinds.
func under(got, typ chroma.TokenType) bool {
	return got == typ || got.SubCategory() == typ || got.Category() == typ
}

// A lexer never hangs or panics on text made to trouble it, and keeps
// every byte: unclosed strings, comments and fences, a lone quote at the
// end, control characters termsafe left as visible text.
func TestLexersTakeAnyText(t *testing.T) {
	texts := []string{"", "\n", "\"", "'", "`", "/*", "<!--", "```go\nx", "${", "$(", "<<EOF\n", "#", "\\",
		"a: |\n", "[x", "<a b=", "r#\"", "\"\"\"", "'''", "é ü 中文 🙂", "\t\t\n\n", "@", "/re", "--", "{{{{", ")))"}
	for _, l := range langs {
		for _, text := range texts {
			var got strings.Builder
			for _, tok := range lexTokens(t, l.Lexer(), text) {
				got.WriteString(tok.Value)
			}
			if got.String() != text {
				t.Errorf("%s lost text: %q became %q", l.name, text, got.String())
			}
		}
	}
}

// The language is picked by MIME type (parameters and case aside,
// structured suffixes too), else by the name's file name or extension,
// and a code fence's by its name or alias.
func TestLanguageSelection(t *testing.T) {
	name := func(lx chroma.Lexer) string {
		if lx == nil {
			return ""
		}
		return lx.Config().Name
	}
	for _, tc := range []struct{ mime, name, want string }{
		{"application/json", "", "JSON"},
		{"application/json; charset=utf-8", "", "JSON"},
		{"application/schema+json", "", "JSON"},
		{"application/x-ndjson", "", "JSON"},
		{"", "events.jsonl", "JSON"},
		{"text/javascript", "", "JavaScript"},
		{"", "app.mjs", "JavaScript"},
		{"", "app.cjs", "JavaScript"},
		{"", "App.jsx", "JavaScript"},
		{"application/typescript", "", "TypeScript"},
		{"", "App.TSX", "TypeScript"},
		{"text/x-python; charset=utf-8", "", "Python"},
		{"", "tool.py", "Python"},
		{"", "main.go", "Go"},
		{"text/html;profile=mcp-app", "ui://widget", "HTML"},
		{"application/xhtml+xml", "", "HTML"},
		{"image/svg+xml", "", "XML"},
		{"application/rss+xml", "", "XML"},
		{"application/atom+xml", "", "XML"},
		{"", "feed.rss", "XML"},
		{"text/css", "", "CSS"},
		{"application/yaml", "", "YAML"},
		{"application/openapi+yaml", "", "YAML"},
		{"", "config.yml", "YAML"},
		{"application/toml", "", "TOML"},
		{"", "Cargo.toml", "TOML"},
		{"application/x-sh", "", "Shell"},
		{"", "setup.zsh", "Shell"},
		{"", "/home/u/.bashrc", "Shell"},
		{"application/sql", "", "SQL"},
		{"", "schema.sql", "SQL"},
		{"text/markdown", "", "Markdown"},
		{"text/markdown; variant=GFM", "", "Markdown"},
		{"", "demo://readme.md", "Markdown"},
		{"text/x-diff", "", "Diff"},
		{"", "fix.patch", "Diff"},
		{"", "lib.rs", "Rust"},
		{"text/x-java", "", "Java"},
		{"", "x.h", "C"},
		{"", "x.hpp", "C++"},
		{"application/octet-stream", "x/Makefile", "Makefile"},
		{"", "Dockerfile", "Dockerfile"},
		{"text/plain", "file:///x/main.py", "Python"}, // text/plain names no language: the name does
		{"", "https://h/src/main.go?ref=1#L3", "Go"},  // a URI's query and fragment are not its name
		{"TEXT/X-PYTHON", "", "Python"},               // MIME types are case-insensitive
		{"text/plain", "demo://notes.txt", ""},
		{"application/x-unknown", "demo://clock", ""},
		{"", "demo://dir/", ""},
		{"", "", ""},
	} {
		if got := name(lexerFor(tc.mime, tc.name)); got != tc.want {
			t.Errorf("lexerFor(%q, %q) = %q, want %q", tc.mime, tc.name, got, tc.want)
		}
	}
	for alias, want := range map[string]string{
		"js": "JavaScript", "javascript": "JavaScript", "jsx": "JavaScript", "ts": "TypeScript", "tsx": "TypeScript",
		"py": "Python", "python": "Python", "Python": "Python", "go": "Go", "golang": "Go", "html": "HTML", "xml": "XML",
		"svg": "XML", "css": "CSS", "yaml": "YAML", "yml": "YAML", "toml": "TOML", "sh": "Shell", "bash": "Shell",
		"shell": "Shell", "zsh": "Shell", "sql": "SQL", "md": "Markdown", "markdown": "Markdown", "diff": "Diff",
		"patch": "Diff", "json": "JSON", "jsonc": "JSON", "rust": "Rust", "rs": "Rust", "java": "Java", "c": "C",
		"cpp": "C++", "c++": "C++", "makefile": "Makefile", "dockerfile": "Dockerfile",
		"": "", "text": "", "plaintext": "", "nosuchlanguage": "",
	} {
		if got := name(lexerForLanguage(alias)); got != want {
			t.Errorf("lexerForLanguage(%q) = %q, want %q", alias, got, want)
		}
	}
}

// A fenced code block's code is coloured by its info string's language;
// an unknown language, the plain theme and too big a block are not.
func TestHighlightCode(t *testing.T) {
	th := themes.Dark()
	code := "def main():\n    return \"hi\"  # greet"
	lines := highlightCode(th, "py", code)
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	if got := strings.Join(stripAll(lines), "\n"); got != code {
		t.Fatalf("the code changed: %q", got)
	}
	if !strings.Contains(lines[0], sgr(th.Palette.JSONBool)+"def") {
		t.Errorf("def is not in the keyword colour: %q", lines[0])
	}
	if !strings.Contains(lines[1], sgr(th.Palette.JSONString)+`"hi"`) {
		t.Errorf("the string is not in the string colour: %q", lines[1])
	}
	if !strings.Contains(lines[1], sgr(th.Palette.Muted)+"# greet") {
		t.Errorf("the comment is not muted: %q", lines[1])
	}
	if got := highlightCode(th, "golang", "func f() {}"); len(got) != 1 || !strings.Contains(got[0], sgr(th.Palette.JSONBool)+"func") {
		t.Errorf("golang: %q", got)
	}
	if got := highlightCode(th, "nosuchlanguage", code); got != nil {
		t.Errorf("an unknown language was coloured: %q", got)
	}
	if got := highlightCode(th, "", code); got != nil {
		t.Errorf("a block with no language was coloured: %q", got)
	}
	if got := highlightCode(themes.NoColor(), "py", code); got != nil {
		t.Errorf("NO_COLOR coloured: %q", got)
	}
	if got := highlightCode(th, "py", strings.Repeat("x = 1\n", maxHighlightBytes/6+1)); got != nil {
		t.Error("a block over maxHighlightBytes was coloured")
	}
	hostile := "echo '\x1b[31mred\x1b]0;title\x07'"
	lines = highlightCode(th, "sh", hostile)
	if len(lines) != 1 || ansi.Strip(lines[0]) != termsafe.Block(hostile) {
		t.Errorf("highlightCode did not show the escapes as text: %q", lines)
	}
	for _, l := range lines {
		if strings.Contains(l, "\x1b[31m") || strings.Contains(l, "\x1b]") || strings.Contains(l, "\x07") {
			t.Errorf("highlightCode let an escape through: %q", l)
		}
	}
}

// chroma's lexer and style registries cost every start of every command
// (each parses its embedded definitions at package initialisation), so
// no package of mcpscope imports them: panes highlights with its own
// lexers (cli's TestStartupLinksTheChosenLibraries keeps them out of the
// binary through any other library too).
func TestNoChromaRegistry(t *testing.T) {
	const module = "github.com/mcpscope/mcpscope"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module) {
			t.Fatalf("go list printed %q", line)
		}
		seen++
		for _, imp := range fields[1:] {
			if imp == "github.com/alecthomas/chroma/v2/lexers" || imp == "github.com/alecthomas/chroma/v2/styles" {
				t.Errorf("%s imports %s", fields[0], imp)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list named only %d packages:\n%s", seen, out)
	}
}

// A long string or line is coloured, as a whole, well within
// highlightBudget: a pattern that repeats an alternation a character at a
// time overflows chroma's engine's backtracking stack on a long token,
// fails, and leaves the text to be lexed a character at a time, each
// trying every rule again (TestLexersTakeAnyText checks no text is lost).
func TestHighlightLongTokens(t *testing.T) {
	th := themes.Dark()
	blob := strings.Repeat("QUJDREVGR0hJSktMTU5PUA==", 2000) // 48 KB, as a server's base64 data is
	str := chroma.LiteralString
	for _, tc := range []struct {
		lang, text, long string
		want             chroma.TokenType
	}{
		{"json", `{"data": "` + blob + `"}`, `"` + blob + `"`, str},
		{"json", `{"data": "` + strings.Repeat(`\"a\": 1, `, 5000) + `"}`, `"` + strings.Repeat(`\"a\": 1, `, 5000) + `"`, str},
		{"yaml", "data: " + strings.Repeat("word ", 9000) + "end", strings.Repeat("word ", 9000) + "end", chroma.Text},
		{"python", `x = "` + blob + `"`, `"` + blob + `"`, str},
		{"js", "x = `" + blob + "`", "`" + blob + "`", str},
		{"sh", `echo "` + blob + `"`, `"` + blob + `"`, str},
		{"sql", `select '` + blob + `'`, `'` + blob + `'`, str},
		{"markdown", "text " + strings.Repeat("`", 40000), strings.Repeat("`", 40000), str},
	} {
		start := time.Now()
		lines := highlightCode(th, tc.lang, tc.text)
		if lines == nil {
			t.Errorf("%s: a long token was not highlighted (%v)", tc.lang, time.Since(start))
			continue
		}
		toks := lexTokens(t, lexerForLanguage(tc.lang), tc.text)
		if got, found := typeOf(toks, tc.long); !found || !under(got, tc.want) {
			t.Errorf("%s: the long token is not one %s token (%v, %v)", tc.lang, tc.want, got, found)
		}
	}
}

// Views highlight from several goroutines (a Markdown text past 1 KB is
// rendered by a command): a lexer is built once, and lexes in any number
// at a time (go test -race).
func TestLexersConcurrently(t *testing.T) {
	th := themes.Dark()
	var wg sync.WaitGroup
	for range 4 {
		for _, l := range langs {
			wg.Go(func() {
				if highlightCode(th, l.aliases[0], "x = \"s\" # c\n// c\n<a b='c'>1.5</a>") == nil {
					t.Errorf("%s: not highlighted", l.name)
				}
			})
		}
	}
	wg.Wait()
}
