package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/themes"
)

// upTo repeats unit to just under n bytes, whole units only.
func upTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit))
}

// A resource the size highlight still colours (maxHighlightBytes), in the
// two languages servers send most: pretty-printed JSON and Python.
func BenchmarkHighlight64KB(b *testing.B) {
	th := themes.Dark()
	doc := `{"name": "add", "description": "Adds \"a\" and b", "n": -1.5e3, "ok": true, "none": null, "list": [1, "two", 0.25], "o": {"deep": [false]}}`
	json := upTo(string(jsonview.Indent(nil, []byte(doc), "  "))+"\n", maxHighlightBytes)
	python := upTo(pythonSource, maxHighlightBytes)
	for _, tc := range []struct{ name, mime, text string }{
		{"json", "application/json", json},
		{"python", "text/x-python", python},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				// Timed without highlightBudget, which would cut a slow run short.
				var out strings.Builder
				if !format(&out, th.Chroma(), lexerFor(tc.mime, ""), tc.text, time.Minute) {
					b.Fatal("not highlighted")
				}
			}
		})
	}
}
