package demo_test

import (
	"strings"
	"testing"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The markdown tool answers a text block of Markdown for the user and an
// embedded resource that says text/markdown: what the TUI renders.
func TestMarkdownTool(t *testing.T) {
	cs, _ := connectLegacy(t)
	res := callTool(t, cs, "markdown", map[string]any{})
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("markdown = isError %v, %d blocks", res.IsError, len(res.Content))
	}
	txt, ok := res.Content[0].(*sdkmcp.TextContent)
	if !ok {
		t.Fatalf("first block is %T, want text", res.Content[0])
	}
	for _, want := range []string{"# Demo report", "\n- ", "```go\n", "|------|", "](https://"} {
		if !strings.Contains(txt.Text, want) {
			t.Errorf("the report lacks %q (a heading, a list, a code block, a table, a link)", want)
		}
	}
	if txt.Annotations == nil || len(txt.Annotations.Audience) != 1 || txt.Annotations.Audience[0] != "user" {
		t.Errorf("text annotations = %+v, want audience [user]", txt.Annotations)
	}
	emb, ok := res.Content[1].(*sdkmcp.EmbeddedResource)
	if !ok || emb.Resource == nil || emb.Resource.MIMEType != "text/markdown" || emb.Resource.URI != "demo://readme" || emb.Resource.Text == "" {
		t.Fatalf("second block = %#v, want the readme embedded as text/markdown (a resource o can read)", res.Content[1])
	}
}
