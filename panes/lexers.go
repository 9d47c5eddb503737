package panes

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mcpscope's own highlighters: JSON, and Markdown line by line. A debugger
// of MCP traffic needs JSON above all, and Markdown for the text resources
// servers commonly expose; other text is shown plain. They were chroma
// lexers, and they still cut text exactly as those did (the tests compare
// them with chroma on every input they try); written out, they keep chroma
// and its regular-expression engine out of the binary, whose package
// initialisation every start of mcpscope paid for (issue 16).

// tokenKind is what a piece of highlighted text is.
type tokenKind uint8

const (
	tokText tokenKind = iota
	tokKey
	tokString
	tokNumber
	tokConstant
	tokPunct
)

// token is one piece of highlighted text.
type token struct {
	kind tokenKind
	text string
}

// lexer cuts text into tokens.
type lexer func(text string) []token

// lexerFor picks a lexer by mime type, else by the URI's file name; nil
// means plain text.
func lexerFor(mime, uri string) lexer {
	mime = strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	name := strings.ToLower(path.Base(uri))
	switch {
	case mime == "application/json" || strings.HasSuffix(mime, "+json") || strings.HasSuffix(name, ".json"):
		return lexJSON
	case mime == "text/markdown" || mime == "text/x-markdown" || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".markdown"):
		return lexMarkdown
	}
	return nil
}

// lexRunes is the text as the lexers read it: line ends made \n (\r\n and
// a lone \r), then runes, so that a byte that is not UTF-8 is one U+FFFD.
func lexRunes(text string) []rune {
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	return []rune(text)
}

// tokens collects the lexers' output, joining neighbours of one kind
// while the first is under 8 KiB (as chroma's Coalesce did: the colour
// escapes written around each token depend on where tokens are cut).
type tokens struct {
	out []token
	// pending is the token being grown: its kind and runes.
	kind    tokenKind
	pending []rune
	bytes   int // the UTF-8 length of pending
	started bool
}

func (ts *tokens) add(kind tokenKind, r []rune) {
	if len(r) == 0 {
		return
	}
	if ts.started && ts.kind == kind && ts.bytes < 8192 {
		ts.pending = append(ts.pending, r...)
		ts.bytes += runesLen(r)
		return
	}
	ts.flush()
	ts.kind, ts.pending, ts.bytes, ts.started = kind, append(ts.pending[:0], r...), runesLen(r), true
}

// runesLen is the length of r in UTF-8.
func runesLen(r []rune) int {
	n := 0
	for _, c := range r {
		n += utf8.RuneLen(c)
	}
	return n
}

func (ts *tokens) flush() {
	if ts.started {
		ts.out = append(ts.out, token{ts.kind, string(ts.pending)})
	}
	ts.started = false
}

func (ts *tokens) done() []token {
	ts.flush()
	return ts.out
}

// isSpace is \s of the expressions the lexers were written in.
func isSpace(r rune) bool { return unicode.IsSpace(r) }

// isWordRune is a word character for \b: a letter, a nonspacing mark, a
// decimal digit, connector punctuation, or a zero-width (non-)joiner.
func isWordRune(r rune) bool {
	return unicode.In(r, unicode.L, unicode.Mn, unicode.Nd, unicode.Pc) || r == '\u200D' || r == '\u200C'
}

// lexJSON colours JSON: keys, strings, numbers, true/false/null and
// punctuation. It tolerates a line cut in the middle of a string (a
// string without its closing quote is still a string).
func lexJSON(text string) []token {
	rs := lexRunes(text)
	var ts tokens
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case isSpace(r):
			j := i + 1
			for j < len(rs) && isSpace(rs[j]) {
				j++
			}
			ts.add(tokText, rs[i:j])
			i = j
		case r == '"':
			j, closed := jsonStringEnd(rs, i)
			kind := tokString
			if closed {
				k := j
				for k < len(rs) && isSpace(rs[k]) {
					k++
				}
				if k < len(rs) && rs[k] == ':' {
					kind = tokKey
				}
			}
			ts.add(kind, rs[i:j])
			i = j
		case jsonNumberEnd(rs, i) > i:
			j := jsonNumberEnd(rs, i)
			ts.add(tokNumber, rs[i:j])
			i = j
		case jsonConstantEnd(rs, i) > i:
			j := jsonConstantEnd(rs, i)
			ts.add(tokConstant, rs[i:j])
			i = j
		case strings.ContainsRune("{}[],:", r):
			ts.add(tokPunct, rs[i:i+1])
			i++
		default:
			ts.add(tokText, rs[i:i+1])
			i++
		}
	}
	return ts.done()
}

// jsonStringEnd is where the string starting with the quote at i ends,
// and whether it ends with its closing quote: a backslash escapes any
// character but a line end; a backslash that escapes nothing ends the
// string before it.
func jsonStringEnd(rs []rune, i int) (int, bool) {
	j := i + 1
	for j < len(rs) {
		switch rs[j] {
		case '"':
			return j + 1, true
		case '\\':
			if j+1 >= len(rs) || rs[j+1] == '\n' {
				return j, false
			}
			j += 2
		default:
			j++
		}
	}
	return j, false
}

// jsonNumberEnd is the end of the number starting at i (i if none): an
// optional minus, 0 or digits not starting with 0, an optional fraction
// and exponent, each taken only whole.
func jsonNumberEnd(rs []rune, i int) int {
	digit := func(k int) bool { return k < len(rs) && rs[k] >= '0' && rs[k] <= '9' }
	j := i
	if j < len(rs) && rs[j] == '-' {
		j++
	}
	switch {
	case j < len(rs) && rs[j] == '0':
		j++
	case j < len(rs) && rs[j] >= '1' && rs[j] <= '9':
		for j++; digit(j); j++ {
		}
	default:
		return i
	}
	if j < len(rs) && rs[j] == '.' && digit(j+1) {
		for j += 2; digit(j); j++ {
		}
	}
	if j < len(rs) && (rs[j] == 'e' || rs[j] == 'E') {
		k := j + 1
		if k < len(rs) && (rs[k] == '+' || rs[k] == '-') {
			k++
		}
		if digit(k) {
			for k++; digit(k); k++ {
			}
			j = k
		}
	}
	return j
}

// jsonConstantEnd is the end of true, false or null at i when a word ends
// there (i if not).
func jsonConstantEnd(rs []rune, i int) int {
	for _, w := range [...]string{"true", "false", "null"} {
		n := len(w)
		if i+n > len(rs) || string(rs[i:i+n]) != w {
			continue
		}
		if i+n < len(rs) && isWordRune(rs[i+n]) {
			return i
		}
		return i + n
	}
	return i
}

// lexMarkdown colours Markdown as the panes show it, a line at a time:
// headings, list markers, code fences and code spans.
func lexMarkdown(text string) []token {
	rs := lexRunes(text)
	var ts tokens
	for i := 0; i < len(rs); {
		lineStart := i == 0 || rs[i-1] == '\n'
		if lineStart {
			if j := markdownHeadingEnd(rs, i); j > i {
				ts.add(tokKey, rs[i:j])
				i = j
				continue
			}
			if i+3 <= len(rs) && string(rs[i:i+3]) == "```" {
				j := lineEnd(rs, i+3)
				ts.add(tokPunct, rs[i:j])
				i = j
				continue
			}
			if j := markdownListMarkerEnd(rs, i); j > i {
				ts.add(tokPunct, rs[i:j])
				i = j
				continue
			}
		}
		if rs[i] == '`' {
			if j := indexRune(rs, i+1, '`'); j >= 0 {
				ts.add(tokString, rs[i:j+1])
				i = j + 1
				continue
			}
			ts.add(tokText, rs[i:i+1])
			i++
			continue
		}
		j := indexRune(rs, i, '`')
		if j < 0 {
			j = len(rs)
		}
		ts.add(tokText, rs[i:j])
		i = j
	}
	return ts.done()
}

// markdownHeadingEnd is the end of a heading at i (1-6 #, a space, the
// rest of the line), or i.
func markdownHeadingEnd(rs []rune, i int) int {
	n := 0
	for i+n < len(rs) && rs[i+n] == '#' && n < 6 {
		n++
	}
	if n == 0 || i+n >= len(rs) || !isSpace(rs[i+n]) {
		return i
	}
	return lineEnd(rs, i+n+1)
}

// markdownListMarkerEnd is the end of a list marker at i (spaces, then -,
// * or + or digits and a dot, then one space), or i.
func markdownListMarkerEnd(rs []rune, i int) int {
	j := i
	for j < len(rs) && isSpace(rs[j]) {
		j++
	}
	switch {
	case j < len(rs) && (rs[j] == '-' || rs[j] == '*' || rs[j] == '+'):
		j++
	case j < len(rs) && rs[j] >= '0' && rs[j] <= '9':
		for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
			j++
		}
		if j >= len(rs) || rs[j] != '.' {
			return i
		}
		j++
	default:
		return i
	}
	if j >= len(rs) || !isSpace(rs[j]) {
		return i
	}
	return j + 1
}

// lineEnd is the index of the next \n at or after i, or the end.
func lineEnd(rs []rune, i int) int {
	if j := indexRune(rs, i, '\n'); j >= 0 {
		return j
	}
	return len(rs)
}

func indexRune(rs []rune, from int, r rune) int {
	for k := from; k < len(rs); k++ {
		if rs[k] == r {
			return k
		}
	}
	return -1
}
