package panes

import (
	"strings"

	"github.com/mcpscope/mcpscope/themes"
)

// writeTrueColour writes highlighted tokens with the theme's 24-bit colour
// escapes, as chroma's formatters.TTY16m wrote them (the panes' goldens
// depend on these bytes): each token's colour before it, a reset after it,
// both repeated around every line end inside it.
func writeTrueColour(b *strings.Builder, syn *themes.Syntax, toks []token) {
	for _, tok := range toks {
		writeFormattedToken(b, colourOf(syn, tok.kind), tok.text)
	}
}

// colourOf is the escape that starts a token of kind k.
func colourOf(syn *themes.Syntax, k tokenKind) string {
	switch k {
	case tokKey:
		return syn.Key
	case tokString:
		return syn.String
	case tokNumber:
		return syn.Number
	case tokConstant:
		return syn.Constant
	case tokPunct:
		return syn.Punct
	}
	return syn.Text
}

// writeFormattedToken writes text with formatting, reset at the end of
// each line (\n or \r\n) and resumed on the next, as chroma's TTY
// formatters do.
func writeFormattedToken(b *strings.Builder, formatting, text string) {
	if formatting == "" {
		b.WriteString(text)
		return
	}
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			b.WriteString(formatting)
			b.WriteString(text)
			b.WriteString("\033[0m")
			return
		}
		end := i
		if end > 0 && text[end-1] == '\r' {
			end--
		}
		b.WriteString(formatting)
		b.WriteString(text[:end])
		b.WriteString("\033[0m")
		b.WriteString(text[end : i+1])
		text = text[i+1:]
	}
}
