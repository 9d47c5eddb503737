// Command mcpscope is an interactive terminal debugger for MCP servers: it
// connects to a server, shows every frame of the conversation live, and lets
// a server author explore and call what the server offers.
//
// The command line lives in package cli; this file only runs it.
package main

import (
	"os"

	"github.com/mcpscope/mcpscope/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(cli.Main(version))
}
