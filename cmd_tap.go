package main

import (
	"context"
	"errors"
	"os"
	"os/signal"

	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/spf13/cobra"
)

// tapOptions are the flags of `mcpscope tap`.
type tapOptions struct {
	name          string
	recordSecrets bool
	noHub         bool
}

func newTapCommand() *cobra.Command {
	var o tapOptions
	cmd := &cobra.Command{
		Use:   "tap [--name NAME] -- CMD [ARGS...]",
		Short: "Sit between a real client and a stdio server and record what they say",
		Long: `tap is what a client's config runs instead of the server's command. It starts the
server and copies the client's stdin to it and its stdout back, byte for byte;
nothing else is ever written to stdout. The server's stderr passes through,
signals are forwarded, and the tap exits with the server's status.

Every tapped conversation is recorded in $XDG_STATE_HOME/mcpscope/taps/ (a
session file, environment values redacted), and each live tap opens a socket
only you can open, so that ` + "`mcpscope taps`" + ` can show it live. A viewer that is
slow, absent or killed changes nothing for the client.`,
		Example: `  # in claude_desktop_config.json: "command": "mcpscope",
  #   "args": ["tap", "--name", "weather", "--", "node", "build/index.js"]
  mcpscope tap --name weather -- node build/index.js
  mcpscope taps                      # watch it`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return withCode(exitUsage, errors.New("tap: give the server's command after --, as in mcpscope tap --name NAME -- CMD [ARGS]"))
			}
			runStdioTap(o, args)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "name the tap in `mcpscope taps` (e.g. the server's name in the client's config)")
	f.BoolVar(&o.recordSecrets, "record-secrets", false, "record environment values as they are instead of redacting them")
	f.BoolVar(&o.noHub, "no-live", false, "record only: open no socket for a live viewer")
	return cmd
}

// runStdioTap runs the tap and ends the process the way the server ended:
// with its status, or killed by the same signal. It never returns.
func runStdioTap(o tapOptions, args []string) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, tap.ForwardedSignals...)
	// Signals are the server's to act on: the tap forwards them and keeps
	// copying until the server ends, so the command's context (cancelled
	// on Ctrl+C) does not bound it.
	out, _ := tap.RunStdio(context.Background(), tap.StdioOptions{
		Name: o.name, Command: args[0], Args: args[1:], Signals: sigs,
		Recording: tap.Recording{KeepSecrets: o.recordSecrets, NoHub: o.noHub},
	})
	signal.Stop(sigs)
	if out.Signal != nil {
		tap.Reraise(out.Signal)
		os.Exit(tap.SignalCode(out.Signal))
	}
	os.Exit(out.Code)
}
