package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// codeServer offers a Python resource and a tool whose description holds
// a fenced block of Go.
var codeServer = mcptest.Script{
	Capabilities: json.RawMessage(`{"tools":{},"resources":{}}`),
	On: map[string][][]string{
		"tools/list":               {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"run_go","description":"Runs a Go program, for example:\n` + "```go" + `\nfunc main() { println(1) }\n` + "```" + `\nand returns what it printed.","inputSchema":{"type":"object"}}]}}`}},
		"resources/list":           {{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":[{"uri":"file:///x/main.py","name":"main.py","mimeType":"text/x-python"}]}}`}},
		"resources/templates/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"resourceTemplates":[]}}`}},
		"resources/read":           {{`{"jsonrpc":"2.0","id":{{id}},"result":{"contents":[{"uri":"file:///x/main.py","mimeType":"text/x-python","text":"def main():\n    return 42\n"}]}}`}},
	},
}

// sgrRe is a Select Graphic Rendition sequence; colourRe one that sets a
// foreground colour.
var (
	sgrRe    = regexp.MustCompile("\x1b\\[[0-9;:]*m")
	colourRe = regexp.MustCompile("\x1b\\[(?:[0-9;:]*;)?(?:3[0-7]|9[0-7]|38;[25];[0-9;:]+)m")
)

// colourBefore is the last colour sequence before word on the screen's row
// that holds it ("" when none), read from capture-pane -e; found is false
// when no row holds word.
func colourBefore(screen, word string) (colour string, found bool) {
	for _, row := range strings.Split(screen, "\n") {
		i := strings.Index(sgrRe.ReplaceAllString(row, ""), word)
		if i < 0 {
			continue
		}
		// Walk the row to the word's first character, remembering the
		// last colour set (the sequences right before it included).
		plain := 0
		for pos := 0; pos < len(row); {
			if loc := sgrRe.FindStringIndex(row[pos:]); loc != nil && loc[0] == 0 {
				if seq := row[pos : pos+loc[1]]; colourRe.MatchString(seq) {
					colour = seq
				} else if seq == "\x1b[0m" || seq == "\x1b[m" || seq == "\x1b[39m" {
					colour = ""
				}
				pos += loc[1]
				continue
			}
			if plain == i {
				break
			}
			pos++
			plain++
		}
		return colour, true
	}
	return "", false
}

// A Python resource (file:///x/main.py, text/x-python) and a fenced Go
// block in a tool's description are shown highlighted: their keywords in
// a colour of their own, other than the text's around them. Under NO_COLOR
// they are plain.
func flowCodeIsHighlighted(t *testing.T, a *accept) {
	for _, noColor := range []bool{false, true} {
		name := "colour"
		var env []string
		if noColor {
			name, env = "NO_COLOR", []string{"NO_COLOR=1"}
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := a.startWith(t, 120, 35, env, scriptArgs(codeServer)...)
			s.ready()
			screen := func(wait string) string {
				s.see(wait)
				return s.tmux("capture-pane", "-p", "-e", "-t", s.name)
			}
			s.keys("3")
			scr := screen("func main()")
			keyword, _ := colourBefore(scr, "func main()")
			prose, _ := colourBefore(scr, "and returns what it printed.")
			s.keys("4")
			s.see("main.py")
			s.keys("Enter")
			scr = screen("def main():")
			def, found := colourBefore(scr, "def main():")
			if !found {
				t.Fatalf("the resource's text is not shown:\n%s", s.capture())
			}
			fn, _ := colourBefore(scr, "main():")
			if noColor {
				for _, c := range []string{keyword, prose, def, fn} {
					if c != "" {
						t.Errorf("NO_COLOR: a colour %q on the code", c)
					}
				}
				return
			}
			if keyword == "" || keyword == prose {
				t.Errorf("the Go keyword is in %q, the prose around it in %q: not highlighted", keyword, prose)
			}
			if def == "" || def == fn {
				t.Errorf("the Python keyword is in %q, the function name in %q: not highlighted", def, fn)
			}
		})
	}
}
