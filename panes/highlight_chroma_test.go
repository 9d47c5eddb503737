package panes

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/mcpscope/mcpscope/themes"
)

// Our lexers stand in for chroma's registry (which costs every start of
// every command), so they are held to chroma's own lexers here, where the
// tests may link it: JSON, the language a server's text most often is,
// coloured exactly as chroma colours it; in every other language, the
// strings, comments and numbers (what a reader's eye looks for) where
// chroma finds them, on at least nine bytes in ten. Names are coloured
// more freely (a TOML key as a key, a Rust attribute as a decorator where
// chroma calls it a comment).
func TestLexersAgreeWithChroma(t *testing.T) {
	st := themes.Default(true).Chroma()
	for _, tc := range []struct{ file, chromaName, sample string }{
		{"a.json", "json", `{
  "tools": [
    {"name": "add", "description": "Adds \"a\" and b.", "inputSchema": {"type": "object", "properties": {"a": {"type": "number", "minimum": -1.5e3}}, "required": ["a"]}},
    {"name": "ping", "annotations": {"readOnlyHint": true, "title": null}}
  ],
  "nextCursor": "eyJwIjoyfQ==", "count": 2
}
`},
		{"a.js", "javascript", `// A server's tool, in JavaScript.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const server = new McpServer({ name: 'demo', version: "1.0.0" });
/* Register the tool. */
server.tool("add", { a: 1, b: 2.5 }, async ({ a, b }) => {
  const sum = a + b; // the answer
  return { content: [{ type: "text", text: ` + "`sum is ${sum}`" + ` }] };
});
`},
		{"a.ts", "typescript", `interface Args { a: number; b?: string }
// Adds.
export async function add(args: Args): Promise<number> {
  const n: number = 0x1f + 42;
  return args.a + n; /* done */
}
`},
		{"a.py", "python", `# A tool in Python.
import json

def add(a: int, b: float = 0.5) -> dict:
    """Add a and b."""
    total = a + b  # the sum
    return {"content": [{"type": "text", "text": json.dumps(total)}], 'n': 3}
`},
		{"a.go", "go", "package main\n\n// Add adds.\nfunc Add(a, b int) (int, error) {\n\ts := `raw` + \"x\\n\"\n\t_ = s\n\treturn a + b + 0x10, nil /* ok */\n}\n"},
		{"a.html", "html", "<!DOCTYPE html>\n<!-- a view -->\n<html><body class=\"main\"><p id='x'>Hi &amp; bye</p></body></html>\n"},
		{"a.css", "css", "/* card */\n.card > a:hover { color: #fff; margin: 0 -1.5em; font-family: 'Inter', sans-serif; }\n"},
		{"a.yaml", "yaml", "# config\nname: demo # why\nport: 8080\nlist:\n  - 'a'\n  - \"b\"\n"},
		{"a.sh", "bash", "#!/bin/sh\n# start the server\nPORT=${PORT:-3001}\necho \"port $PORT\" 'and more' # say\nexec node dist/index.js --port 42\n"},
		{"a.sql", "sql", "-- the tools\nSELECT name, count(*) FROM tools WHERE size > 10 AND name = 'add' /* x */;\n"},
		{"a.md", "markdown", "# Title\n\nSome `code` and **bold**.\n\n```json\n{\"a\": 1}\n```\n"},
		{"a.c", "c", "/* add */\n#include <stdio.h>\nint add(int a, int b) { return a + b + 0x2; } // sum\nconst char *s = \"x\\n\";\n"},
		{"a.java", "java", "// Adds.\npublic class Add { static int add(int a) { String s = \"x\"; return a + 42; } /* end */ }\n"},
	} {
		ours := lexerFor("", tc.file)
		theirs := lexers.Get(tc.chromaName)
		if ours == nil || theirs == nil {
			t.Fatalf("%s: ours %v, chroma's %v", tc.file, ours != nil, theirs != nil)
		}
		a, c := byteTokens(t, ours, tc.sample), byteTokens(t, chroma.Coalesce(theirs), tc.sample)
		if len(a) != len(tc.sample) || len(c) != len(tc.sample) {
			t.Fatalf("%s: %d and %d bytes lexed of %d", tc.file, len(a), len(c), len(tc.sample))
		}
		if tc.chromaName == "json" {
			for i := range a {
				if ca, cc := st.Get(a[i]).Colour, st.Get(c[i]).Colour; ca != cc && strings.TrimSpace(tc.sample[i:i+1]) != "" {
					t.Errorf("%s: byte %d (%q) is %v (%v), chroma's %v (%v)", tc.file, i, tc.sample[max(0, i-8):min(len(tc.sample), i+8)], a[i], ca, c[i], cc)
					break
				}
			}
			continue
		}
		want, same := 0, 0
		for i := range c {
			if k := literalKind(c[i]); k != "" && strings.TrimSpace(tc.sample[i:i+1]) != "" {
				want++
				if literalKind(a[i]) == k {
					same++
				}
			}
		}
		if want == 0 {
			t.Fatalf("%s: chroma finds no string, comment or number in the sample", tc.file)
		}
		if same*10 < want*9 {
			t.Errorf("%s: %d of chroma's %d string, comment and number bytes are ours too", tc.file, same, want)
		}
	}
}

// byteTokens is the token type of each byte of text as lx cuts it.
func byteTokens(t *testing.T, lx chroma.Lexer, text string) []chroma.TokenType {
	t.Helper()
	it, err := lx.Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	var out []chroma.TokenType
	for tok := it(); tok != chroma.EOF; tok = it() {
		for range len(tok.Value) {
			out = append(out, tok.Type)
		}
	}
	return out
}

// literalKind is "string", "comment", "number" or "" (anything else).
func literalKind(tt chroma.TokenType) string {
	switch {
	case tt.InCategory(chroma.Comment):
		return "comment"
	case tt == chroma.LiteralString || tt.InSubCategory(chroma.LiteralString):
		return "string"
	case tt == chroma.LiteralNumber || tt.InSubCategory(chroma.LiteralNumber):
		return "number"
	}
	return ""
}
