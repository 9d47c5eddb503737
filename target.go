package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// connectFlags are the flags every command that connects to a server shares.
type connectFlags struct {
	env             []string
	cwd             string
	timeout         time.Duration
	era             string
	protocolVersion string
	logLevel        string
}

func (f *connectFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.env, "env", "e", nil, "set an environment variable for the server (KEY=VALUE, repeatable)")
	fs.StringVar(&f.cwd, "cwd", "", "working directory for the server")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "per-request timeout")
	fs.StringVar(&f.era, "era", "legacy", "protocol era: legacy (initialize), modern (2026-07-28, server/discover) or auto (probe)")
	fs.StringVar(&f.protocolVersion, "protocol-version", "", "protocol version to offer (default: the era's latest)")
}

// target describes the server to connect to.
type target struct {
	transport   mcp.Transport
	description string // for the header and error messages
	demo        bool   // the built-in demo server
}

// target builds the transport from the arguments after "--" (or, with none,
// mcpscope's own demo server, spawned as a subprocess so it is debugged over
// a real stdio pipe like any other server).
func (f *connectFlags) target(cmd *cobra.Command, args []string) (*target, error) {
	for _, kv := range f.env {
		if !strings.Contains(kv, "=") || strings.HasPrefix(kv, "=") {
			return nil, fmt.Errorf("-e %q: expected KEY=VALUE", kv)
		}
	}
	if _, ok := mcp.ParseEra(f.era); !ok {
		return nil, fmt.Errorf("--era %q: expected legacy, modern or auto", f.era)
	}
	if v := f.protocolVersion; v != "" && !mcp.IsLegacyVersion(v) && !mcp.IsModernVersion(v) {
		return nil, fmt.Errorf("--protocol-version %q: mcpscope speaks %s and %s", v,
			strings.Join(mcp.LegacyVersions, ", "), strings.Join(mcp.ModernVersions, ", "))
	}
	if dash := cmd.ArgsLenAtDash(); dash > 0 {
		return nil, fmt.Errorf("unexpected argument %q before --; put the server command after --", args[0])
	} else if dash < 0 && len(args) > 0 {
		return nil, fmt.Errorf("unexpected argument %q; put the server command after --, e.g. mcpscope -- %s", args[0], strings.Join(args, " "))
	}
	if len(args) == 0 {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("cannot find mcpscope's own binary to run the demo server: %w", err)
		}
		return &target{
			transport:   &mcp.StdioTransport{Command: self, Args: []string{"demo-server"}, Env: f.env, Dir: f.cwd},
			description: "built-in demo server",
			demo:        true,
		}, nil
	}
	return &target{
		transport:   &mcp.StdioTransport{Command: args[0], Args: args[1:], Env: f.env, Dir: f.cwd},
		description: strings.Join(args, " "),
	}, nil
}

// clientOptions turns the flags into client options.
func (f *connectFlags) clientOptions() mcp.Options {
	era, _ := mcp.ParseEra(f.era)
	return mcp.Options{
		Era:             era,
		ProtocolVersion: f.protocolVersion,
		Timeout:         f.timeout,
		LogLevel:        f.logLevel,
	}
}
