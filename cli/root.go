// Package cli is mcpscope's command line: the commands and their flags,
// how a target (a command, a URL, a client's config file) becomes a
// connection, and the headless commands' output and exit codes. The
// protocol client lives in package mcp, the terminal UI in package ui.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/spf13/cobra"
)

// version is mcpscope's version, given by main (set at build time with
// -ldflags "-X main.version=...").
var version = "0.1.0-dev"

// Exit codes, shared by every headless command and documented in --help and
// docs/commands.md.
const (
	exitOK          = 0
	exitServerError = 1 // the server answered with an error
	exitUsage       = 2 // usage or invalid input
	exitConnection  = 3 // connection or handshake failure
	exitTimeout     = 4 // a request timed out
)

const exitCodesHelp = `Exit codes:
  0  ok
  1  the server answered with an error (a JSON-RPC error, or a tool result with isError: true)
  2  usage or invalid input
  3  connection or handshake failure
  4  timeout`

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
	// shown is set when the command's own output already said it (a
	// report's summary line): Main prints nothing more.
	shown bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// withCodeShown is withCode for an error the command's output has already
// shown: printed again on stderr, a terminal would show it twice.
func withCodeShown(code int, err error) error {
	return &exitError{code: code, err: err, shown: true}
}

// printError writes a command's error as Main does: once, unless its
// output already showed it.
func printError(w io.Writer, err error) {
	var ee *exitError
	if err == nil || (errors.As(err, &ee) && ee.shown) {
		return
	}
	_, _ = fmt.Fprintln(w, "mcpscope: "+termsafe.Block(err.Error()))
}

// shutdownBudget bounds how long a command spends stopping the server once
// it is done (or interrupted): SIGTERM or ctrl+c must end any command
// within a second, whatever the server does.
const shutdownBudget = 500 * time.Millisecond

// shutdown closes a client within shutdownBudget: stdin is closed, then
// SIGTERM, then SIGKILL, the steps fitted in the budget.
func shutdown(c *mcp.Client) {
	shutdownWithin(c, shutdownBudget)
}

// shutdownWithin closes a client within budget (see shutdown).
func shutdownWithin(c *mcp.Client, budget time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	_ = c.Shutdown(ctx)
}

// checkShutdownBudget is check's budget when it ends on its own: the doctor
// calls a server that needs SIGTERM a fault (stdio/forced-exit), so the
// server gets a fair second to exit after its stdin closes, not the 0.2 s
// that a busy machine or a Node server's exit can exceed. Interrupted, check
// keeps shutdownBudget.
const checkShutdownBudget = 1500 * time.Millisecond

// Main runs mcpscope with the process's arguments and returns its exit
// code; v is the version the binary was built as.
func Main(v string) int {
	if v != "" {
		version = v
	}
	mcp.ClientVersion = version
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCommand()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	printError(os.Stderr, err)
	return exitCode(err)
}

// exitCode is the process exit code for a command's error: usage errors
// (cobra's own included) are 2 unless the error carries a code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}

func newRootCommand() *cobra.Command {
	var (
		cf  connectFlags
		tui tuiFlags
	)
	root := &cobra.Command{
		Use:   "mcpscope [flags] [-- CMD [ARGS...]]",
		Short: "An interactive terminal debugger for MCP servers",
		Long: `mcpscope connects to an MCP server and shows every frame of the conversation live,
the handshake first; explore what the server offers and call its tools.

With no target it runs against its built-in demo server.`,
		Example: `  mcpscope                                   # the built-in demo server
  mcpscope -- node build/index.js            # a stdio server
  mcpscope https://example.com/mcp           # a remote server (Streamable HTTP, SSE fallback)
  mcpscope --config ~/.cursor/mcp.json       # a server from a client's config file
  mcpscope --watch src --build 'npm run build' -- node build/index.js   # restart on save
  mcpscope call --method tools/list -- uvx my-server`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		// Every command's stdout and stderr, on a terminal, let no
		// control sequence through (terminal_out.go).
		PersistentPreRun: func(cmd *cobra.Command, _ []string) { wrapTerminals(cmd) },
		RunE: func(cmd *cobra.Command, args []string) error {
			cf.pick, cf.tui, cf.confirmOpen = tui.pickServer, true, &openConfirmer{}
			target, err := cf.target(cmd, args)
			if errors.Is(err, errNoChoice) {
				return nil // the user closed the picker: nothing to do
			}
			if err != nil {
				return withCode(exitUsage, err)
			}
			return runTUI(cmd.Context(), target, &cf, &tui)
		},
	}
	cf.register(root.Flags())
	tui.register(root.Flags())
	root.AddCommand(newCallCommand(), newDiffCommand(), newReplayCommand(), newTestCommand(), newOpenCommand(), newExportCommand(), newDemoServerCommand(), newCheckCommand(), newConformanceClientCommand())
	root.AddCommand(newTapCommand(), newTapsCommand()) // the tap (cmd_tap.go, cmd_taps.go)
	return root
}
