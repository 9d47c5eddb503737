package mdparse

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// depth is how deep the tree of src goes.
func depth(src string) int {
	doc := New().Parser().Parse(text.NewReader([]byte(src)))
	deepest := 0
	var walk func(n ast.Node, d int)
	walk = func(n ast.Node, d int) {
		deepest = max(deepest, d)
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c, d+1)
		}
	}
	walk(doc, 0)
	return deepest
}

// A line of thousands of markers parses no deeper than MaxMarkers
// levels (what goldmark takes the square of the line's length over); its
// text is all still there.
func TestCapNestingBoundsTheTree(t *testing.T) {
	for name, line := range map[string]string{
		"bullets": strings.Repeat("- ", 5000) + "x",
		"stars":   strings.Repeat("* ", 5000) + "x",
		"quotes":  strings.Repeat(">", 5000) + " x",
		"ordered": strings.Repeat("1. ", 5000) + "x",
		"mixed":   strings.Repeat("> - 2) + ", 2000) + "x",
	} {
		capped := CapNesting(line)
		if d := depth(capped); d > 2*MaxMarkers+4 {
			t.Errorf("%s: the tree is %d deep", name, d)
		}
		if d := depth(line); d <= 2*MaxMarkers+4 {
			t.Errorf("%s: uncapped, the tree is only %d deep: the case tests nothing", name, d)
		}
		if strings.ReplaceAll(capped, `\`, "") != line || strings.Count(capped, `\`) != 1 {
			t.Errorf("%s: capping did more than escape one marker: %q…", name, capped[:min(len(capped), 300)])
		}
	}
}

func TestCapNestingLeavesMarkdownAlone(t *testing.T) {
	for _, src := range []string{
		"# title\n\n- a\n  - b\n    1. c\n\n> quote\n> > nested\n",
		strings.Repeat("- ", MaxMarkers) + "x\n",
		strings.Repeat("-", 5000) + "\n" + strings.Repeat("> ", 10) + "text - - - - " + strings.Repeat("- ", 100),
		"12345678901. not a marker " + strings.Repeat("1. ", 100),
		"",
	} {
		if got := CapNesting(src); got != src {
			t.Errorf("CapNesting changed %q…", src[:min(len(src), 80)])
		}
	}
}
