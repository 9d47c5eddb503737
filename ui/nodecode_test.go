package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The UI decodes no protocol payload: the session (mcp/session) does the
// protocol and hands the UI typed events. A json.Unmarshal or a JSON
// decoder here would be orchestration creeping back in (before the
// session existed, ui had 17 json.Unmarshal calls, 13 of them ignoring the
// error). Panes may decode what they render; this package may not.
func TestUIDecodesNoProtocolPayload(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := map[string]bool{"Unmarshal": true, "NewDecoder": true}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		jsonName := "" // how the file names encoding/json, if it imports it
		for _, imp := range f.Imports {
			if imp.Path.Value == `"encoding/json"` {
				jsonName = "json"
				if imp.Name != nil {
					jsonName = imp.Name.Name
				}
			}
		}
		if jsonName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == jsonName && forbidden[sel.Sel.Name] {
				t.Errorf("%s: %s.%s in package ui: decode protocol payloads in mcp/session and pass typed events",
					fset.Position(sel.Pos()), jsonName, sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("only %d non-test files checked: is the test running in ui/?", checked)
	}
}
