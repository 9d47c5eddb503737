package panes

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// Code is highlighted by mcpscope's own lexers (highlight_lexers.go),
// built on chroma's core at their first use: the language is chosen by the
// content's MIME type, else by its name (a resource's URI, a file name),
// else none; a Markdown code fence's by its info string. The colours are
// the theme's chroma style (themes.Theme.Chroma), written as 24-bit
// escapes as chroma's terminal formatter writes them. The plain theme (NO_COLOR) shows
// everything plain. chroma's own lexer registry is not used: it builds
// every one of its lexers when the program starts, whether or not anything
// is highlighted.

// maxHighlightBytes bounds a text highlighted as a whole: chroma's regular
// expressions lex about a megabyte a second, and past this
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
	toks, ok := lex(lx, text, budget)
	if ok {
		writeTrueColour(b, style, toks)
	}
	return ok
}

// lex cuts text into tokens with lx, a run of tokens of one type joined
// into one; false when lexing fails or takes longer than budget. The time
// is checked at every token: chroma's Coalesce would read a whole run of
// one type (a long line of characters no rule names) before it returned,
// however long that took, and join it a token at a time.
func lex(lx chroma.Lexer, text string, budget time.Duration) ([]chroma.Token, bool) {
	it, err := lx.Tokenise(nil, text)
	if err != nil {
		return nil, false
	}
	var toks []chroma.Token
	var run strings.Builder
	var runType chroma.TokenType
	started := time.Now()
	for tok := it(); tok != chroma.EOF; tok = it() {
		if time.Since(started) > budget {
			return nil, false
		}
		if run.Len() > 0 && tok.Type != runType {
			toks = append(toks, chroma.Token{Type: runType, Value: run.String()})
			run.Reset()
		}
		runType = tok.Type
		run.WriteString(tok.Value)
	}
	if run.Len() > 0 {
		toks = append(toks, chroma.Token{Type: runType, Value: run.String()})
	}
	return toks, true
}

// writeTrueColour writes toks in style's colours as 24-bit SGR escapes,
// byte for byte as chroma's TTY16m formatter does (TestTrueColourIsTTY16m)
// without linking chroma's formatters package and its HTML and SVG
// formatters, whose registry is built at every start, nor rebuilding the
// style at every call as TTY16m does to drop its background. A coloured
// token is reset at each line's end and resumed after it, so that every
// line stands alone.
func writeTrueColour(b *strings.Builder, style *chroma.Style, toks []chroma.Token) {
	sgrs := map[chroma.TokenType]string{}
	for _, tok := range toks {
		sgr, ok := sgrs[tok.Type]
		if !ok {
			sgr = sgrFor(style.Get(tok.Type))
			sgrs[tok.Type] = sgr
		}
		if sgr == "" {
			b.WriteString(tok.Value)
			continue
		}
		for text := tok.Value; text != ""; {
			lf := strings.IndexByte(text, '\n')
			if lf < 0 {
				b.WriteString(sgr + text + "\x1b[0m")
				break
			}
			end := lf // a line ends at its "\r\n" or "\n"
			if end > 0 && text[end-1] == '\r' {
				end--
			}
			b.WriteString(sgr + text[:end] + "\x1b[0m" + text[end:lf+1])
			text = text[lf+1:]
		}
	}
}

// sgrFor is the escape sequence that starts a token drawn as e: bold,
// underline, italic and the foreground colour (a background is left to
// the terminal); "" when e sets none of them.
func sgrFor(e chroma.StyleEntry) string {
	e.Background = 0
	if e.IsZero() {
		return ""
	}
	var sgr string
	if e.Bold == chroma.Yes {
		sgr += "\x1b[1m"
	}
	if e.Underline == chroma.Yes {
		sgr += "\x1b[4m"
	}
	if e.Italic == chroma.Yes {
		sgr += "\x1b[3m"
	}
	if e.Colour.IsSet() {
		sgr += fmt.Sprintf("\x1b[38;2;%d;%d;%dm", e.Colour.Red(), e.Colour.Green(), e.Colour.Blue())
	}
	return sgr
}

// lexerFor is the lexer for a MIME type, else for name's file name or
// extension (a URI's query and fragment left out); nil when neither names
// a language. text/plain and the like name none, so a plain-text MIME type
// does not hide a file.py's language.
func lexerFor(mime, name string) chroma.Lexer {
	mime = strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	l := langForMime(mime)
	if l == nil {
		if i := strings.IndexAny(name, "?#"); i >= 0 {
			name = name[:i]
		}
		l = langForFile(path.Base(name))
	}
	if l == nil {
		return nil
	}
	return l.Lexer()
}

// lexerForLanguage is the lexer for a fenced code block's language (its
// name or an alias: go, python, sh, ...), or nil.
func lexerForLanguage(name string) chroma.Lexer {
	if l := langForAlias(name); l != nil {
		return l.Lexer()
	}
	return nil
}

// highlightCode colours a Markdown fenced code block's code as the
// language its info string names (its name or an alias, in any case), one
// string a line, the code sanitised first (termsafe, which leaves text it
// has sanitised as it is); nil when the language is unknown, the theme
// plain or the code too big.
func highlightCode(t *themes.Theme, lang, code string) []string {
	lx := lexerForLanguage(lang)
	if lx == nil {
		return nil
	}
	return highlightSafe(t, lx, termsafe.Block(code))
}

// jsonLine lexes one line of pretty-printed JSON: the JSON lexer, which
// tells a key from a string by the ":" after it rather than by the "{" it
// is in, as a line drawn on its own (the detail view and a big result draw
// only the lines on screen) has no "{" before it. On pretty-printed JSON,
// line by line and whole agree colour for colour
// (TestJSONColoursTheSameLineByLine).
func jsonLine() chroma.Lexer { return langJSON.Lexer() }

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
// each block's code as its language; a block whose language highlight does
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
