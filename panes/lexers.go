package panes

import (
	"path"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// mcpscope's own chroma lexers. chroma's lexer registry parses all of its
// ~280 lexer definitions when its package is loaded, about 15 ms at every
// start of mcpscope, the headless `call` included (measured: 56 ms → 40 ms
// for `mcpscope --version`). A debugger of MCP traffic needs JSON above
// all, and Markdown for the text resources servers commonly expose; other
// text is shown plain.

// jsonLexer colours JSON: keys, strings, numbers, true/false/null and
// punctuation. It tolerates a line cut in the middle of a string.
var jsonLexer = sync.OnceValue(func() chroma.Lexer {
	return chroma.Coalesce(chroma.MustNewLexer(&chroma.Config{Name: "JSON", Aliases: []string{"json"}}, func() chroma.Rules {
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

// markdownLexer colours a Markdown line: headings, list markers, code spans
// and fences. It works line by line, as the panes highlight.
var markdownLexer = sync.OnceValue(func() chroma.Lexer {
	return chroma.Coalesce(chroma.MustNewLexer(&chroma.Config{Name: "Markdown", Aliases: []string{"markdown"}}, func() chroma.Rules {
		return chroma.Rules{"root": {
			{Pattern: `^#{1,6}\s.*`, Type: chroma.NameTag},
			{Pattern: "^```.*", Type: chroma.Punctuation},
			{Pattern: `^\s*(?:[-*+]|[0-9]+\.)\s`, Type: chroma.Punctuation},
			{Pattern: "`[^`]*`", Type: chroma.LiteralStringDouble},
			{Pattern: "[^`]+", Type: chroma.Text},
			{Pattern: ".", Type: chroma.Text},
		}}
	}))
})

// lexerFor picks a lexer by mime type, else by the URI's file name; nil
// means plain text.
func lexerFor(mime, uri string) chroma.Lexer {
	mime = strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	name := strings.ToLower(path.Base(uri))
	switch {
	case mime == "application/json" || strings.HasSuffix(mime, "+json") || strings.HasSuffix(name, ".json"):
		return jsonLexer()
	case mime == "text/markdown" || mime == "text/x-markdown" || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".markdown"):
		return markdownLexer()
	}
	return nil
}
