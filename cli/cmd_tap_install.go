package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/spf13/cobra"
)

// tapInstallOptions are the flags of `mcpscope tap install|uninstall`.
type tapInstallOptions struct {
	config  string
	servers []string
	all     bool
	command string // what the client runs for the tap
}

func newTapInstallCommands() []*cobra.Command {
	mk := func(install bool) *cobra.Command {
		var o tapInstallOptions
		use, short := "uninstall", "Undo `tap install`: give the servers back their own commands, byte for byte"
		if install {
			use, short = "install", "Rewrite a client's config so that its stdio servers run through the tap"
		}
		cmd := &cobra.Command{
			Use:   use + " --config FILE (--server NAME... | --all)",
			Short: short,
			Long: short + `.

Works on Claude Desktop, Cursor and Claude Code ("mcpServers") and VS Code
("servers", or "mcp.servers" in settings.json) files. Only each server's command
and the start of its args change; comments and formatting stay. install keeps a
backup next to the file (FILE.mcpscope-backup, written once) and changes nothing
when run twice; uninstall restores the file exactly. Without --config, the usual
config files of those clients on this machine are listed.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runTapInstall(cmd.OutOrStdout(), install, o)
			},
		}
		cmd.Flags().StringVar(&o.config, "config", "", "the client's config file")
		stringListVar(cmd.Flags(), &o.servers, "server", "a server to change (repeatable)")
		cmd.Flags().BoolVar(&o.all, "all", false, "change every stdio server of the file")
		if install {
			cmd.Flags().StringVar(&o.command, "command", "", "the command the client runs for the tap (default: this mcpscope's full path)")
		}
		return cmd
	}
	return []*cobra.Command{mk(true), mk(false)}
}

func runTapInstall(out io.Writer, install bool, o tapInstallOptions) error {
	if o.config == "" {
		_, _ = fmt.Fprintln(out, "Client config files found on this machine (give one with --config):")
		n := 0
		for _, p := range tap.KnownConfigs() {
			if _, err := os.Stat(p); err == nil {
				_, _ = fmt.Fprintln(out, "  "+termsafe.String(p))
				n++
			}
		}
		if n == 0 {
			_, _ = fmt.Fprintln(out, "  none in the usual places")
		}
		return nil
	}
	if !o.all && len(o.servers) == 0 {
		return withCode(exitUsage, fmt.Errorf("name the servers with --server NAME, or give --all"))
	}
	data, err := os.ReadFile(o.config)
	if err != nil {
		return withCode(exitUsage, err)
	}
	fi, err := os.Stat(o.config)
	if err != nil {
		return withCode(exitUsage, err)
	}
	var next []byte
	var changed []string
	if install {
		self := o.command
		if self == "" {
			if self, err = os.Executable(); err != nil {
				self = "mcpscope"
			}
		}
		next, changed, err = tap.Install(data, self, o.servers)
	} else {
		next, changed, err = tap.Uninstall(data, o.servers)
	}
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("%s: %w", o.config, err))
	}
	if len(changed) == 0 {
		_, _ = fmt.Fprintf(out, "%s: nothing to change\n", termsafe.String(o.config))
		return nil
	}
	if install {
		backup := o.config + ".mcpscope-backup"
		if _, err := os.Stat(backup); os.IsNotExist(err) {
			if err := os.WriteFile(backup, data, 0o600); err != nil {
				return withCode(exitUsage, fmt.Errorf("backup: %w", err))
			}
		}
	}
	if err := os.WriteFile(o.config, next, fi.Mode().Perm()); err != nil {
		return withCode(exitUsage, err)
	}
	verb := "now run through the tap"
	if !install {
		verb = "run their own commands again"
	}
	_, _ = fmt.Fprintf(out, "%s: %s %s; restart the client\n", termsafe.String(o.config), termsafe.String(strings.Join(changed, ", ")), verb)
	return nil
}
