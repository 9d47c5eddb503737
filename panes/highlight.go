package panes

import (
	"path"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// Code is highlighted by chroma: the lexer is chosen by the content's MIME
// type, else by the extension of its name (a resource's URI, a file name),
// else none; the colours are the theme's chroma style (themes.Theme.Chroma),
// written as 24-bit escapes by chroma's terminal formatter. The plain theme
// (NO_COLOR) shows everything plain.

// maxHighlightBytes bounds a text highlighted as a whole: chroma lexes
// about a megabyte a second (less for the richer languages), and past this
// a text is shown plain rather than holding up the screen.
const maxHighlightBytes = 64 << 10

// highlightBudget is how long one text may take to highlight before it is
// shown plain instead: a server chooses the text, and a lexer's regular
// expressions can be slow on a text made for them.
const highlightBudget = 200 * time.Millisecond

// highlight sanitises text (termsafe) and colours it as the language its
// MIME type names, else the one its name's extension says, one string a
// line (line feeds at its end dropped). It is nil when there is
// nothing to colour (no language, NO_COLOR, too big a text): the caller
// lays the text out its own way.
func highlight(t *themes.Theme, mime, name, text string) []string {
	return highlightSafe(t, lexerFor(mime, name), strings.TrimRight(termsafe.Block(text), "\n"))
}

// plainLines sanitises text and gives each line the content style: how
// text is shown that highlight left alone. Line feeds at its end are
// dropped.
func plainLines(t *themes.Theme, text string) []string {
	lines := strings.Split(strings.TrimRight(termsafe.Block(text), "\n"), "\n")
	for i, l := range lines {
		lines[i] = t.Result.Content.Render(l)
	}
	return lines
}

// highlightSafe colours text that is already safe to show with lx, one
// string a line (as many as text has); nil when it is not highlighted (no
// lexer, the plain theme, too big, or over highlightBudget).
func highlightSafe(t *themes.Theme, lx chroma.Lexer, text string) []string {
	style := t.Chroma()
	if lx == nil || style == nil || len(text) > maxHighlightBytes {
		return nil
	}
	// Lexed with a line feed at its end, as lexers expect a last line to
	// have (Markdown's list items, say); it is the output's last.
	var b strings.Builder
	if !format(&b, style, lx, text+"\n", highlightBudget) {
		return nil
	}
	lines := strings.Split(b.String(), "\n")
	return lines[:len(lines)-1]
}

// format writes text as lx cuts it in style's colours; false when lexing
// fails or takes longer than budget.
func format(b *strings.Builder, style *chroma.Style, lx chroma.Lexer, text string, budget time.Duration) bool {
	it, err := lx.Tokenise(nil, text)
	if err != nil {
		return false
	}
	var toks []chroma.Token
	started := time.Now()
	for tok := it(); tok != chroma.EOF; tok = it() {
		toks = append(toks, tok)
		if len(toks)%256 == 0 && time.Since(started) > budget {
			return false
		}
	}
	return formatters.TTY16m.Format(b, style, chroma.Literator(toks...)) == nil
}

// lexerFor is chroma's lexer for a MIME type, else for name's file
// extension (a URI's query and fragment left out); nil when neither names
// a language. text/plain and the like name none, so a plain-text MIME type
// does not hide a file.py's language.
func lexerFor(mime, name string) chroma.Lexer {
	mime = strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	if lx := lexerForMime(mime); lx != nil {
		return lx
	}
	if i := strings.IndexAny(name, "?#"); i >= 0 {
		name = name[:i]
	}
	return lexerForFile(path.Base(name))
}

// plainMimes name no language: chroma would lex them as plain text.
var plainMimes = map[string]bool{"": true, "text/plain": true, "application/octet-stream": true}

func lexerForMime(mime string) chroma.Lexer {
	if plainMimes[mime] {
		return nil
	}
	switch {
	case strings.HasSuffix(mime, "+json"):
		mime = "application/json"
	case mime == "text/markdown":
		mime = "text/x-markdown" // chroma knows Markdown by the older name
	case strings.HasSuffix(mime, "+xml"):
		mime = "application/xml"
	}
	return language(lexers.MatchMimeType(mime))
}

// lexerCache remembers chroma's answers by file name and by language:
// the registry tries every lexer's file name patterns, a few milliseconds a
// look-up. It is bounded, as servers choose the names.
type lexerCache struct {
	sync.Mutex
	m map[string]chroma.Lexer
}

func (c *lexerCache) get(key string, find func(string) chroma.Lexer) chroma.Lexer {
	c.Lock()
	defer c.Unlock()
	if lx, ok := c.m[key]; ok {
		return lx
	}
	lx := language(find(key))
	if c.m == nil || len(c.m) >= 512 {
		c.m = map[string]chroma.Lexer{}
	}
	c.m[key] = lx
	return lx
}

var fileLexers, languageLexers lexerCache

// lexerForFile is chroma's lexer for a file name (main.py, Makefile).
func lexerForFile(base string) chroma.Lexer {
	if base == "" || base == "." || base == "/" {
		return nil
	}
	return fileLexers.get(base, lexers.Match)
}

// lexerForLanguage is chroma's lexer for a fenced code block's language
// (its name or an alias: go, python, sh, ...), or nil.
func lexerForLanguage(lang string) chroma.Lexer {
	if lang == "" {
		return nil
	}
	return languageLexers.get(lang, lexers.Get)
}

// language is lx unless it only knows plain text.
func language(lx chroma.Lexer) chroma.Lexer {
	if lx == nil || lx.Config().Name == "plaintext" || lx.Config().Name == "fallback" {
		return nil
	}
	return chroma.Coalesce(lx)
}

// jsonLine lexes one line of pretty-printed JSON. chroma's JSON lexer
// tells a key from a string by the "{" it is in, which a line drawn on its
// own (the detail view and a big result draw only the lines on screen)
// does not have; these rules tell it by the ":" after it. On pretty-printed
// JSON the two agree colour for colour (TestJSONLineLexerAgreesWithChroma).
var jsonLine = sync.OnceValue(func() chroma.Lexer {
	return chroma.Coalesce(chroma.MustNewLexer(&chroma.Config{Name: "JSON line"}, func() chroma.Rules {
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
})

// colorJSON colours one line of JSON that is already safe to show (see
// termsafe) with the theme's chroma style; the plain theme leaves it as is.
func colorJSON(t *themes.Theme, line string) string {
	style := t.Chroma()
	if style == nil {
		return line
	}
	jsonLinesLexed.Add(1)
	var b strings.Builder
	if !format(&b, style, jsonLine(), line, highlightBudget) {
		return line
	}
	return b.String()
}

// jsonLinesLexed counts the lines colorJSON has lexed: the tests read it
// to check that a view colours what it draws, not a whole frame.
var jsonLinesLexed atomic.Int64

// fenceRe is a Markdown code fence's opening line: up to three spaces,
// three or more backticks or tildes, and the block's language, if named.
var fenceRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^ {0,3}(```+|~~~+)[ \t]*([^`\\s]*)")
})

// textRun is a run of lines of text: prose, or a fenced code block's
// lines (its fences included) already coloured.
type textRun struct {
	lines []string
	code  bool
}

// highlightFences cuts text that is already safe to show into prose and
// the fenced code blocks in it (Markdown's ```lang ... ```), and colours
// each block's code as its language; a block whose language chroma does
// not know, or an unclosed one, stays prose. The lines are text's, in
// order, none added or lost.
func highlightFences(t *themes.Theme, text string) []textRun {
	lines := strings.Split(text, "\n")
	if t.Chroma() == nil {
		return []textRun{{lines: lines}}
	}
	var runs []textRun
	from := 0 // the first line not yet in a run
	for i := 0; i < len(lines); i++ {
		m := fenceRe().FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if c := strings.TrimSpace(lines[j]); strings.HasPrefix(c, m[1]) && strings.Trim(c, m[1][:1]) == "" {
				end = j
				break
			}
		}
		if end < 0 {
			break
		}
		code := highlightSafe(t, lexerForLanguage(m[2]), strings.Join(lines[i+1:end], "\n"))
		if code != nil && len(code) == end-i-1 {
			if i > from {
				runs = append(runs, textRun{lines: lines[from:i]})
			}
			fence := t.Detail.Hint.Render
			block := append(append([]string{fence(lines[i])}, code...), fence(lines[end]))
			runs = append(runs, textRun{lines: block, code: true})
			from = end + 1
		}
		i = end
	}
	if from < len(lines) {
		runs = append(runs, textRun{lines: lines[from:]})
	}
	return runs
}
