package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/config"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/spf13/cobra"
)

// serverPicker asks the user to choose among a config file's servers; it
// returns an index or -1. The TUI sets one; headless commands leave it nil
// and ask for --server instead.
type serverPicker func(ctx context.Context, title string, items []panes.PickerItem) (int, error)

// errNoChoice means the user closed the server picker without choosing.
var errNoChoice = errors.New("no server chosen")

// configTarget builds the target for --config FILE [--server NAME]. Flags
// given on the command line add to what the file says: -e adds to and
// overrides its env, --cwd overrides its cwd, --header adds headers.
func (f *connectFlags) configTarget(cmd *cobra.Command, args []string) (*target, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("--config names the server to run; drop %q (or drop --config and give the server after --)", args[0])
	}
	file, err := config.Load(f.configPath)
	if err != nil {
		return nil, err
	}
	if len(file.Servers) == 0 {
		return nil, fmt.Errorf("%s: no servers defined", f.configPath)
	}
	srv, err := f.chooseServer(cmd.Context(), file)
	if err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("%s (from %s)", srv.Name, filepath.Base(file.Path))
	switch srv.Type {
	case config.TypeHTTP, config.TypeSSE:
		for _, name := range []string{"env", "cwd"} {
			if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
				return nil, fmt.Errorf("--%s applies to a stdio server; %q in %s is a %s server", name, srv.Name, f.configPath, srv.Type)
			}
		}
		// The file's headers come first so that --header can add to them.
		var hdrs []string
		for _, k := range sortedKeys(srv.Headers) {
			hdrs = append(hdrs, k+": "+srv.Headers[k])
		}
		f.headers = append(hdrs, f.headers...)
		if srv.Type == config.TypeSSE && f.transport == "auto" {
			f.transport = "sse"
		}
		t, err := f.urlTarget(cmd, srv.URL)
		if err != nil {
			return nil, fmt.Errorf("server %q in %s: %w", srv.Name, f.configPath, err)
		}
		t.description = desc + " " + t.description
		return t, nil
	default:
		if err := f.checkNoURLFlags(cmd); err != nil {
			return nil, err
		}
		var env []string
		for _, k := range sortedKeys(srv.Env) {
			env = append(env, k+"="+srv.Env[k])
		}
		env = append(env, f.env...) // later entries win in exec's environment
		dir := srv.Cwd
		if f.cwd != "" {
			dir = f.cwd
		}
		return &target{
			transport:   &mcp.StdioTransport{Command: srv.Command, Args: srv.Args, Env: env, Dir: dir, MaxLine: f.maxLine()},
			description: desc,
		}, nil
	}
}

// chooseServer picks by --server, the only server, or the picker.
func (f *connectFlags) chooseServer(ctx context.Context, file *config.File) (config.Server, error) {
	if f.serverName != "" {
		return file.Get(f.serverName)
	}
	if len(file.Servers) == 1 {
		return file.Servers[0], nil
	}
	if f.pick == nil {
		return config.Server{}, fmt.Errorf("%s defines %d servers; choose one with --server NAME (%s)",
			f.configPath, len(file.Servers), strings.Join(file.Names(), ", "))
	}
	items := make([]panes.PickerItem, len(file.Servers))
	for i, s := range file.Servers {
		detail := s.URL
		if s.Type == config.TypeStdio || s.Type == "" {
			detail = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		items[i] = panes.PickerItem{Name: s.Name, Kind: s.Type, Detail: detail}
	}
	i, err := f.pick(ctx, filepath.Base(file.Path), items)
	if err != nil {
		return config.Server{}, err
	}
	if i < 0 || i >= len(file.Servers) {
		return config.Server{}, errNoChoice
	}
	return file.Servers[i], nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
