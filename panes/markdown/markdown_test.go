package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/themes"
)

// sample has what the goldens must show: headings, lists, a code block,
// a table and a link.
const sample = "# Weather report\n\n" +
	"Forecast for **Lisbon**, from the `forecast` tool. See [the docs](https://example.com/docs).\n\n" +
	"## Next days\n\n" +
	"- Monday: sunny\n- Tuesday: *rain*\n  - heavy in the evening\n\n" +
	"1. check the sky\n2. take an umbrella\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}\n```\n\n" +
	"| day | high | low |\n|-----|------|-----|\n| Mon | 24 | 15 |\n| Tue | 19 | 13 |\n\n" +
	"> Data from a made-up service.\n"

func TestRenderGoldens(t *testing.T) {
	for _, tc := range []struct {
		name  string
		theme *themes.Theme
	}{{"dark", themes.Dark()}, {"light", themes.Light()}, {"nocolor", themes.NoColor()}} {
		for _, w := range []int{40, 76} {
			t.Run(fmt.Sprintf("%s-%d", tc.name, w), func(t *testing.T) {
				lines, ok := Render(tc.theme, sample, w)
				if !ok {
					t.Fatal("not rendered")
				}
				for i, l := range lines {
					if got := ansi.StringWidth(l); got > w {
						t.Errorf("line %d is %d cells wide, over %d: %q", i, got, w, l)
					}
				}
				golden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
			})
		}
	}
}

func TestRenderShowsWhatMarkdownMeans(t *testing.T) {
	lines, ok := Render(themes.NoColor(), sample, 76)
	if !ok {
		t.Fatal("not rendered")
	}
	plain := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"# Weather report", "## Next days", "• Monday: sunny", "1. check the sky",
		"fmt.Println(\"hi\", 42)", "the docs", "https://example.com/docs", "│ high", "│ Data from a made-up service."} {
		if !strings.Contains(plain, want) {
			t.Errorf("rendered text lacks %q:\n%s", want, plain)
		}
	}
	for _, gone := range []string{"**Lisbon**", "```", "|-----|", "- Monday"} {
		if strings.Contains(plain, gone) {
			t.Errorf("rendered text still has the source's %q:\n%s", gone, plain)
		}
	}
}

func TestRenderColoursFromTheTheme(t *testing.T) {
	dark, _ := Render(themes.Dark(), sample, 76)
	light, _ := Render(themes.Light(), sample, 76)
	plain, _ := Render(themes.NoColor(), sample, 76)
	d, l, p := strings.Join(dark, "\n"), strings.Join(light, "\n"), strings.Join(plain, "\n")
	// The dark palette's primary (#8B87FF) colours the top heading; the
	// light one's (#5A56E0) does in the light theme.
	if !strings.Contains(d, "38;2;139;135;255") || !strings.Contains(l, "38;2;90;86;224") {
		t.Errorf("headings are not in the theme's primary colour:\ndark %q\nlight %q", dark[0], light[0])
	}
	// Without a Highlighter, a code block is in the theme's code
	// colour (JSONString).
	if !strings.Contains(d, "38;2;195;232;141m    fmt.Println(\"hi\", 42)") {
		t.Errorf("the code block is not in the dark theme's code colour:\n%q", d)
	}
	if strings.Contains(p, "38;") || strings.Contains(p, "48;") {
		t.Errorf("NO_COLOR rendering has colours: %q", p)
	}
	if !strings.Contains(p, "\x1b[1m") {
		t.Errorf("NO_COLOR rendering lost bold: %q", p)
	}
}

// onlySGROut is what may reach the terminal: text, and SGR sequences.
var escapeSeq = regexp.MustCompile("\x1b[^m]*?(m|$)|\x1b[^\\[]")

func TestHostileMarkdownCannotDriveTheTerminal(t *testing.T) {
	payloads := map[string]string{
		"text":       "hello \x1b]52;c;aGVsbG8=\x07 and \x1b[2J\x1b[H and \x9b31m C1 and \x1b]0;title\x1b\\",
		"heading":    "# title \x1b[5m blink\n",
		"code block": "```sh\necho \x1b]52;c;ZXZpbA==\x07\nprintf '\x1b[?1049h'\n```\n",
		"inline":     "run `\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\` now",
		"link url":   "[docs](https://example.com/\x1b]52;c;ZXZpbA==\x07) and <https://e.com/\x1b[2J>",
		"link text":  "[\x1b[2Jclick](https://example.com)",
		"table":      "| a | b |\n|---|---|\n| \x1b[2J | \x07 |\n",
		"image":      "![\x1b]2;t\x07alt](https://example.com/i.png \"\x1b[31m\")",
		"html":       "<span>\x1b]52;c;eA==\x07</span>\n\n<div>\x1b[2J</div>\n",
		"url title":  "[a](<https://e.com/\x1b[2J> \"\x1b]0;t\x07\")",
		"quote":      "> \x1b[2J quoted\n> - \x9b2J listed\n",
		"task":       "- [x] \x1b]52;c;eA==\x07 done\n",
	}
	for name, src := range payloads {
		for _, th := range []*themes.Theme{themes.Dark(), themes.NoColor()} {
			lines, ok := Render(th, src, 60)
			if !ok {
				t.Fatalf("%s: not rendered", name)
			}
			out := strings.Join(lines, "\n")
			for _, m := range escapeSeq.FindAllString(out, -1) {
				if !sgr.MatchString(m) {
					t.Errorf("%s: a sequence other than SGR reached the output: %q in %q", name, m, out)
				}
			}
			for _, r := range out {
				if r < 0x20 && r != '\n' && r != 0x1b || r == 0x7f || r >= 0x80 && r < 0xa0 {
					t.Errorf("%s: control %U reached the output: %q", name, r, out)
				}
			}
			if strings.Contains(src, "\x1b") && !strings.Contains(ansi.Strip(out), `\x1b`) {
				t.Errorf("%s: the server's ESC is not shown as \\x1b: %q", name, ansi.Strip(out))
			}
		}
	}
}

// A character reference can name a control character: goldmark resolves
// it after termsafe.Block has seen the source, so the text it yields
// must be made safe again.
func TestCharacterReferencesCannotDriveTheTerminal(t *testing.T) {
	for _, src := range []string{
		"&#27;]52;c;ZXZpbA==&#7; and &#x1b;[2J and &#155;31m",
		"[&#27;[2Jx](https://e.com/&#27;[2J)",
		"| &#x1B;[2J | b |\n|---|---|\n| &#7; | &#x9b;m |\n",
		"# &#27;]0;title&#7;\n\n![&#27;[5m](https://e.com/&#x1b;)",
	} {
		lines, _ := Render(themes.Dark(), src, 60)
		out := strings.Join(lines, "\n")
		for _, m := range escapeSeq.FindAllString(out, -1) {
			if !sgr.MatchString(m) {
				t.Errorf("%q: a sequence other than SGR reached the output: %q in %q", src, m, out)
			}
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != 0x1b || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Errorf("%q: control %U reached the output: %q", src, r, out)
			}
		}
		if plain := ansi.Strip(out); !strings.Contains(plain, `\x1b`) && !strings.Contains(plain, `\x07`) {
			t.Errorf("%q: the referenced control is not shown escaped: %q", src, plain)
		}
	}
}

func TestLinksAreTextNotHyperlinks(t *testing.T) {
	lines, _ := Render(themes.Dark(), "[docs](https://example.com/a)", 60)
	out := strings.Join(lines, "\n")
	if strings.Contains(out, "\x1b]8") {
		t.Errorf("a link was written as an OSC 8 hyperlink: %q", out)
	}
	if got := ansi.Strip(out); got != "docs https://example.com/a" {
		t.Errorf("link drawn as %q, want its text and its URL", got)
	}
}

func TestRenderIsBoundedAndCached(t *testing.T) {
	big := strings.Repeat("word ", MaxBytes/5+1)
	if _, ok := Render(themes.Dark(), big, 60); ok {
		t.Errorf("a %d-byte text was rendered; past MaxBytes it must be left to the caller as source", len(big))
	}
	if !TooBig(big) || TooBig(sample) {
		t.Errorf("TooBig disagrees with MaxBytes")
	}
	if note := TooBigNote(len(big)); !strings.Contains(note, "source") {
		t.Errorf("the note does not say the source is shown: %q", note)
	}
	// Just under the bound, with code blocks, a first rendering takes
	// well under a few seconds even on a shared machine (it runs off
	// the UI goroutine); the second is a cache hit.
	var b strings.Builder
	for b.Len() < MaxBytes-600 {
		b.WriteString("## Part\n\nSome *prose* with `code` and a [link](https://example.com).\n\n```go\nfunc f() int { return 42 }\n```\n\n- item\n- item\n\n")
	}
	src := b.String()
	th := themes.Dark()
	if _, st := Get(th, src, 100); st != Pending {
		t.Fatalf("Get of a %d-byte text not yet rendered: status %v, want Pending", len(src), st)
	}
	cmd := Request(th, src, 100)
	if cmd == nil {
		t.Fatal("Request gave no Cmd for a text not yet rendered")
	}
	if again := Request(th, src, 100); again != nil {
		t.Error("Request started a second rendering of a text already being rendered")
	}
	start := time.Now()
	if _, ok := cmd().(RenderedMsg); !ok {
		t.Fatal("the Cmd did not answer RenderedMsg")
	}
	first := time.Since(start)
	start = time.Now()
	lines, st := Get(th, src, 100)
	second := time.Since(start)
	if st != Rendered || len(lines) == 0 {
		t.Fatalf("after the Cmd, Get says %v", st)
	}
	if first > 5*time.Second {
		t.Errorf("rendering %d bytes took %v", len(src), first)
	}
	if second > time.Millisecond*10 {
		t.Errorf("Get after rendering took %v: not cached", second)
	}
	if Request(th, src, 100) != nil {
		t.Error("Request gave a Cmd for a text already rendered")
	}
	t.Logf("%d bytes: first %v, cached %v", len(src), first, second)
}

func TestCacheIsBounded(t *testing.T) {
	for i := range cacheEntries * 2 {
		Render(themes.Dark(), fmt.Sprintf("text %d", i), 40)
	}
	cache.Lock()
	n := len(cache.m)
	cache.Unlock()
	if n > cacheEntries {
		t.Errorf("the cache holds %d renderings, over %d", n, cacheEntries)
	}
	// Big renderings: the bytes bound holds, whatever the count.
	th := themes.Dark()
	for i := range 12 {
		src := strings.Repeat(fmt.Sprintf("word%d **bold** `code` ", i), MaxBytes/24)
		Render(th, src, 30)
	}
	cache.Lock()
	held := 0
	for k, l := range cache.m {
		held += cost(k, l)
	}
	counted := cache.bytes
	cache.Unlock()
	if held > cacheBytes || held != counted {
		t.Errorf("the cache holds %d bytes (counted %d), bound %d", held, counted, cacheBytes)
	}
}

func TestIsMIME(t *testing.T) {
	for mime, want := range map[string]bool{"text/markdown": true, "Text/Markdown; charset=utf-8": true,
		"text/x-markdown": true, "text/plain": false, "": false, "application/json": false} {
		if IsMIME(mime) != want {
			t.Errorf("IsMIME(%q) = %v", mime, !want)
		}
	}
}

// Whatever the Markdown, only text and SGR sequences come out, and no
// control character but a line feed.
func FuzzRender(f *testing.F) {
	f.Add(sample)
	f.Add("[x](https://e.com/\x1b]52;c;eA==\x07)\n\n```sh\n\x1b[2J\n```\n| \x9b | b |\n|---|---|\n")
	f.Add("<span>\x1b]8;;http://e\x1b\\x\x1b]8;;\x1b\\</span>")
	th := themes.Dark()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			return
		}
		lines, ok := Render(th, src, 40)
		if !ok {
			return
		}
		out := strings.Join(lines, "\n")
		for _, m := range escapeSeq.FindAllString(out, -1) {
			if !sgr.MatchString(m) {
				t.Fatalf("%q reached the output of %q", m, src)
			}
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != 0x1b || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("control %U reached the output of %q", r, src)
			}
		}
	})
}

// rich has every construct the renderer lays out, with wide characters,
// emoji and words longer than a line.
const rich = "Title\n=====\n\nA hard break  \nand a soft\nbreak, &amp; &copy; \\*escaped\\* ~~struck~~. " +
	"日本語のテキストはとても長いのでここで折り返す必要がありますね 🎉🎉 emoji.\n\n" +
	"A long URL: https://example.com/a/very/long/path/that/does/not/fit/in/the/width?query=1 and <mail@example.com>.\n\n" +
	"- [x] done task\n- [ ] open task\n    1. nested ordered\n    2. second\n\n       with a paragraph\n\n" +
	"10. ten\n11. eleven\n\n> quote with **bold**\n>\n> > nested quote\n> - list in quote\n\n" +
	"<div class=\"x\">\nraw <b>html</b>\n</div>\n\nInline <span>html</span>. ![alt text](https://e.com/i.png \"title\")\n\n" +
	"    indented code\n    block with a line far longer than any of the widths the test lays it out at\n\n***\n\n" +
	"| left | center | right | a long column |\n|:-----|:------:|------:|------|\n" +
	"| a | b | c | the quick brown fox jumps over the lazy dog again and again |\n| `code` | **bold** | 12345 | [link](https://e.com) |\n"

func TestRenderFitsTheWidth(t *testing.T) {
	for _, th := range []*themes.Theme{themes.Dark(), themes.NoColor()} {
		for _, w := range []int{8, 20, 33, 60, 120} {
			lines, ok := Render(th, rich, w)
			if !ok {
				t.Fatal("not rendered")
			}
			for i, l := range lines {
				if got := ansi.StringWidth(l); got > w {
					t.Errorf("width %d: line %d is %d cells wide: %q", w, i, got, ansi.Strip(l))
				}
			}
			// Nothing is lost: every word of the text is there.
			plain := strings.Join(strings.Fields(ansi.Strip(strings.Join(lines, "\n"))), " ")
			for _, word := range []string{"Title", "&", "©", "*escaped*", "struck", "🎉🎉", "done", "eleven", "nested",
				"<b>html</b>", "image:", "alt", "indented", "12345", "https://e.com"} {
				if !strings.Contains(plain, word) && w >= 20 {
					t.Errorf("width %d: %q is missing:\n%s", w, word, plain)
				}
			}
		}
	}
}

func TestRenderLaysOutEachConstruct(t *testing.T) {
	lines, _ := Render(themes.NoColor(), rich, 60)
	out := strings.Join(lines, "\n")
	plain := ansi.Strip(out)
	for _, want := range []string{
		"# Title",                        // a setext heading, as its level
		"A hard break\nand a soft break", // hard break ends the line; soft is a space
		"• [✓] done task\n• [ ] open task\n  1. nested ordered",
		"10. ten\n11. eleven",
		"│ quote with bold\n│\n│ │ nested quote",
		"│ • list in quote",
		"<div class=\"x\">\nraw <b>html</b>\n</div>", // raw HTML as text
		"Inline <span>html</span>.",
		"image: alt text →", "https://e.com/i.png",
		"  indented code\n",
		"─────",
		" left   │ center │ right │ a long column",
		" a      │   b    │     c │ the quick brown fox jumps",
		"link https://e.com",
		"https://example.com/a/very/long/path",
		"mail@example.com.",
	} {
		if !strings.Contains(plain, want) {
			t.Errorf("the rendering lacks %q:\n%s", want, plain)
		}
	}
	if !strings.Contains(out, "\x1b[4mhttps://example.com/a/very/long/path") || !strings.Contains(out, "query=1\x1b[m and") {
		t.Errorf("a bare URL is not in the URL style, or its style spills over: %q", out)
	}
	if !strings.Contains(out, "\x1b[9mstruck\x1b[m") {
		t.Errorf("strikethrough is not crossed out: %q", out)
	}
	if !strings.Contains(out, "`code`") {
		t.Errorf("without colour, inline code lost its backticks: %q", out)
	}
}

// A table too wide for its columns at any reasonable width is shown as
// records, one "header: value" line a cell, rather than cut.
func TestNarrowTableBecomesRecords(t *testing.T) {
	src := "| name | kind | size | owner | created | modified |\n|---|---|---|---|---|---|\n" +
		"| report.txt | file | 12 KB | ana | 2026-01-01 | 2026-02-02 |\n| photos | dir | 3 GB | bo | 2025-05-05 | 2026-03-03 |\n"
	lines, _ := Render(themes.NoColor(), src, 24)
	plain := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"name: report.txt", "modified: 2026-02-02", "name: photos", "owner: bo"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the records lack %q:\n%s", want, plain)
		}
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 24 {
			t.Errorf("line %d is %d cells wide: %q", i, w, l)
		}
	}
}

func TestHighlighterColoursFencedCode(t *testing.T) {
	var asked []string
	SetHighlighter(func(th *themes.Theme, lang, code string) []string {
		asked = append(asked, lang+":"+code)
		// A highlighter's output is trusted for its SGR only: anything
		// else it lets through is dropped.
		return []string{"\x1b[31mred\x1b[m \x1b]52;c;eA==\x07plain\x07", "\x1b[32m" + strings.Repeat("g", 30) + "\x1b[m"}
	})
	defer SetHighlighter(nil)
	src := "```go\nx := 1\n```\n\n    indented\n"
	lines, _ := Render(themes.Dark(), src, 20)
	out := strings.Join(lines, "\n")
	if len(asked) != 1 || asked[0] != "go:x := 1" {
		t.Fatalf("the highlighter was asked %q, want the fenced block only", asked)
	}
	want := []string{"  \x1b[31mred\x1b[m plain", "  \x1b[32mgggggggggggggggggg\x1b[m", "  \x1b[32mgggggggggggg\x1b[m"}
	for i, w := range want {
		if i >= len(lines) || lines[i] != w {
			t.Errorf("line %d: got %q, want %q (all: %q)", i, lines[min(i, len(lines)-1)], w, out)
		}
	}
	// A highlighter that gives nothing leaves the code in the code
	// colour.
	SetHighlighter(func(*themes.Theme, string, string) []string { return nil })
	if lines, _ := Render(themes.Dark(), src, 20); len(lines) == 0 || lines[0] != "  \x1b[38;2;195;232;141mx := 1\x1b[m" {
		t.Errorf("with no highlighting, the code is %q", lines)
	}
	asked = nil
	SetHighlighter(func(th *themes.Theme, lang, code string) []string {
		asked = append(asked, lang)
		return []string{"\x1b[31mcoloured\x1b[m"}
	})
	plain, _ := Render(themes.NoColor(), src, 20)
	if len(asked) != 0 || strings.Contains(strings.Join(plain, "\n"), "38;") {
		t.Errorf("the plain theme's code went through the highlighter: %q", plain)
	}
}

// BenchmarkRender times rendering lists and tables of 16, 64 and 256 KB
// at 100 cells (uncached): go test ./panes/markdown -run '^$' -bench Render
func BenchmarkRender(b *testing.B) {
	list := func(n int) string {
		var s strings.Builder
		for i := 0; s.Len() < n; i++ {
			fmt.Fprintf(&s, "- item %d with **bold** and `code` and a [link](https://example.com/%d)\n  - nested *item* %d\n", i, i, i)
		}
		return s.String()
	}
	table := func(n int) string {
		var s strings.Builder
		s.WriteString("| name | value | description |\n|---|---:|---|\n")
		for i := 0; s.Len() < n; i++ {
			fmt.Fprintf(&s, "| row %d | %d | some **words** in a cell that may wrap at a narrow width |\n", i, i*7)
		}
		return s.String()
	}
	th := themes.Dark()
	for _, kb := range []int{16, 64, 256} {
		for _, kind := range []struct {
			name string
			make func(int) string
		}{{"list", list}, {"table", table}} {
			src := kind.make(kb << 10)
			b.Run(fmt.Sprintf("%s-%dKB", kind.name, kb), func(b *testing.B) {
				for b.Loop() {
					render(th, src, 100)
				}
			})
		}
	}
}

// What leaves nothing to draw draws nothing: no blank lines for link
// reference definitions, none inside an HTML block ended by a closing
// line; and a list keeps its ")" delimiter.
func TestRenderAddsNoLines(t *testing.T) {
	for src, want := range map[string]string{
		"<script>\nalert(1)\n</script>\n\nafter":      "<script>\nalert(1)\n</script>\n\nafter",
		"<!-- a\ncomment -->\n\nafter":                "<!-- a\ncomment -->\n\nafter",
		"before\n\n[ref]: https://e.com\n\nsee [ref]": "before\n\nsee ref https://e.com",
		"1) one\n2) two":                              "1) one\n2) two",
	} {
		lines, _ := Render(themes.NoColor(), src, 40)
		if got := ansi.Strip(strings.Join(lines, "\n")); got != want {
			t.Errorf("%q rendered as\n%q, want\n%q", src, got, want)
		}
	}
}

// Nesting past maxNest, or too deep for the width, is drawn flat: a
// server's thousands of ">" or "- " neither cost the square of their
// count nor come out a character a line.
func TestDeepNestingIsDrawnFlat(t *testing.T) {
	for name, src := range map[string]string{
		"quotes":  strings.Repeat(">", 5000) + " deepest\n",
		"lists":   strings.Repeat("- ", 5000) + "deepest\n",
		"ordered": strings.Repeat("1. ", 5000) + "deepest\n",
		"indent": func() string {
			var b strings.Builder
			for i := range 200 {
				b.WriteString(strings.Repeat("  ", i) + "- level\n")
			}
			return b.String()
		}(),
	} {
		lines, ok := Render(themes.Dark(), src, 60)
		if !ok {
			t.Fatalf("%s: not rendered", name)
		}
		out := ansi.Strip(strings.Join(lines, "\n"))
		if !strings.Contains(out, "deepest") && !strings.Contains(out, "level") {
			t.Errorf("%s: the text is gone", name)
		}
		bars := 0
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > 60 {
				t.Errorf("%s: line %d is %d cells wide", name, i, w)
			}
			bars = max(bars, strings.Count(ansi.Strip(l), "│"))
		}
		if bars > maxNest {
			t.Errorf("%s: a line has %d quote bars, over %d", name, bars, maxNest)
		}
		if len(lines) > len(src)/2 {
			t.Errorf("%s: %d lines for %d bytes: drawn narrower than it should", name, len(lines), len(src))
		}
	}
}
