package panes

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"

	"github.com/mcpscope/mcpscope/themes"
)

// writeTrueColour stands in for chroma's formatters.TTY16m; the panes'
// goldens depend on its bytes, so it must write exactly what TTY16m writes,
// for every theme's style and for text that spans lines.
func TestWriteTrueColourIsTTY16m(t *testing.T) {
	inputs := []string{
		`{"name": "add", "n": -1.5e3, "ok": true, "none": null, "list": [1, "two"]}`,
		"{\n  \"a\": \"line\\nbreak\",\n\r\n  \"b\": false\n}\n",
		`"unterminated`,
		"",
		"# A heading\n- item `code`\n```go\n",
	}
	styles := 0
	// A bold, underlined, italic entry with a background too, so that
	// every escape the formatter writes is compared.
	busy := chroma.MustNewStyle("busy", chroma.StyleEntries{
		chroma.Background:          "bg:#101010",
		chroma.NameTag:             "bold underline italic #82aaff bg:#202020",
		chroma.LiteralStringDouble: "#c3e88d",
	})
	named := map[string]*chroma.Style{"dark": themes.Dark().Chroma(), "light": themes.Light().Chroma(), "busy": busy}
	for name, style := range named {
		if style == nil {
			continue
		}
		styles++
		for _, lx := range []chroma.Lexer{jsonLexer(), markdownLexer()} {
			for _, in := range inputs {
				want := func() string {
					it, err := lx.Tokenise(nil, in)
					if err != nil {
						t.Fatal(err)
					}
					var b strings.Builder
					if err := formatters.TTY16m.Format(&b, style, it); err != nil {
						t.Fatal(err)
					}
					return b.String()
				}()
				it, err := lx.Tokenise(nil, in)
				if err != nil {
					t.Fatal(err)
				}
				var got strings.Builder
				writeTrueColour(&got, style, it)
				if got.String() != want {
					t.Errorf("theme %s, %q:\n got %q\nwant %q", name, in, got.String(), want)
				}
			}
		}
	}
	if styles == 0 {
		t.Fatal("no theme has a chroma style: nothing was compared")
	}
}
