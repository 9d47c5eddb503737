package panes

import (
	"github.com/mcpscope/mcpscope/panes/markdown"
	"github.com/mcpscope/mcpscope/themes"
)

// Rendered Markdown's fenced code is coloured as the panes colour code
// elsewhere: by the fence's language, in the theme's syntax colours.
func init() { markdown.SetHighlighter(markdownCode) }

// markdownCode is markdown.Highlighter: nil (the code shown in the
// theme's code colour) when the language is unknown or the code too big.
func markdownCode(t *themes.Theme, lang, code string) []string {
	return highlightCode(t, lang, code)
}
