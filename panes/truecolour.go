package panes

import (
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// writeTrueColour writes chroma's tokens with 24-bit colour escapes, the
// output of chroma's formatters.TTY16m byte for byte. It is here so that
// mcpscope does not link chroma's formatters package, which registers
// every formatter at init and brings the HTML and SVG formatters (an
// embedded font among them) into the binary for this one function; it
// also clears the style's background once per style rather than on every
// line, as TTY16m did.
func writeTrueColour(b *strings.Builder, style *chroma.Style, it chroma.Iterator) {
	style = withoutBackground(style)
	for token := it(); token != chroma.EOF; token = it() {
		entry := style.Get(token.Type)
		if entry.IsZero() {
			b.WriteString(token.Value)
			continue
		}
		formatting := ""
		if entry.Bold == chroma.Yes {
			formatting += "\033[1m"
		}
		if entry.Underline == chroma.Yes {
			formatting += "\033[4m"
		}
		if entry.Italic == chroma.Yes {
			formatting += "\033[3m"
		}
		if entry.Colour.IsSet() {
			formatting += rgbEscape(38, entry.Colour)
		}
		if entry.Background.IsSet() {
			formatting += rgbEscape(48, entry.Background)
		}
		writeFormattedToken(b, formatting, token.Value)
	}
}

func rgbEscape(sgr int, c chroma.Colour) string {
	return "\033[" + strconv.Itoa(sgr) + ";2;" + strconv.Itoa(int(c.Red())) + ";" +
		strconv.Itoa(int(c.Green())) + ";" + strconv.Itoa(int(c.Blue())) + "m"
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

// clearedStyles holds each style with its background cleared (chroma's
// clearBackground), built once per style: a theme's style lives as long
// as the theme.
var clearedStyles sync.Map // *chroma.Style -> *chroma.Style

func withoutBackground(style *chroma.Style) *chroma.Style {
	if s, ok := clearedStyles.Load(style); ok {
		return s.(*chroma.Style)
	}
	builder := style.Builder()
	bg := builder.Get(chroma.Background)
	bg.Background = 0
	bg.NoInherit = true
	builder.AddEntry(chroma.Background, bg)
	cleared, err := builder.Build()
	if err != nil {
		cleared = style
	}
	s, _ := clearedStyles.LoadOrStore(style, cleared)
	return s.(*chroma.Style)
}
