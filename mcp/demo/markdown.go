package demo

import (
	"context"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// report is the Markdown the markdown tool returns: a heading of each
// level shown, a list, a code block, a table and a link, what a client
// that renders Markdown must draw.
const report = "# Demo report\n\n" +
	"The **mcpscope** demo server answers in *Markdown*. Read more in the [MCP specification](https://modelcontextprotocol.io/specification).\n\n" +
	"## Checks\n\n" +
	"- handshake: `ok`\n- tools listed: 12\n  - with annotations: 11\n- resources: 3\n\n" +
	"## Example call\n\n" +
	"```go\nres, err := session.CallTool(ctx, &mcp.CallToolParams{Name: \"add\", Arguments: map[string]any{\"a\": 2, \"b\": 3}})\nif err != nil {\n\treturn err\n}\n```\n\n" +
	"## Latencies\n\n" +
	"| tool | calls | p50 | p95 |\n|------|------:|----:|----:|\n| add | 12 | 3 ms | 8 ms |\n| echo | 4 | 2 ms | 5 ms |\n| slow_count | 1 | 5.1 s | 5.1 s |\n\n" +
	"> Numbers are made up: this is a demo.\n"

// The embedded resource beside the report is the server's readme, which
// says it is Markdown by its MIME type (a text block has none), and which
// o in the result view reads again from the server.

func addMarkdownTool(s *sdkmcp.Server) {
	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:  "markdown",
		Title: "Markdown report",
		Description: "Returns a **Markdown** report: headings, a list, a code block, a table and a link.\n\n" +
			"The text block is for the user (`annotations.audience`); the readme follows it, embedded as `text/markdown`.",
		InputSchema: emptySchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, markdownReport)
}

func markdownReport(_ context.Context, _ *sdkmcp.CallToolRequest, _ struct{}) (*sdkmcp.CallToolResult, any, error) {
	return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{
		&sdkmcp.TextContent{Text: report, Annotations: &sdkmcp.Annotations{Audience: []sdkmcp.Role{"user"}}},
		&sdkmcp.EmbeddedResource{Resource: &sdkmcp.ResourceContents{URI: readmeURI, MIMEType: "text/markdown", Text: readme}},
	}}, nil, nil
}
