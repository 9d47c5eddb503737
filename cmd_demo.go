package main

import (
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/spf13/cobra"
)

func newDemoServerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo-server",
		Short: "Run the built-in demo MCP server on stdio",
		Long: `Runs mcpscope's demo server on stdin/stdout. It serves both protocol eras and
exercises everything a debugger must show: rich tool schemas, structured output,
progress, logging, elicitation, sampling, roots, resources, templates and prompts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return demo.RunStdio(cmd.Context())
		},
	}
}
