package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/spf13/cobra"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// parseTarget runs the root command's flag parsing and target resolution.
func parseConfigTarget(t *testing.T, pick serverPicker, args ...string) (*target, error) {
	t.Helper()
	var cf connectFlags
	cmd := &cobra.Command{Use: "x", Args: cobra.ArbitraryArgs, RunE: func(*cobra.Command, []string) error { return nil }}
	cf.register(cmd.Flags())
	if err := cmd.ParseFlags(args); err != nil {
		return nil, err
	}
	cmd.SetContext(context.Background())
	cf.pick = pick
	return cf.target(cmd, cmd.Flags().Args())
}

const twoServers = `{
  // comments are allowed
  "mcpServers": {
    "files": {"command": "node", "args": ["files.js"], "env": {"ROOT": "/srv", "MODE": "ro"}, "cwd": "/tmp"},
    "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"X-Team": "core"}},
  }
}`

func TestConfigTargetStdio(t *testing.T) {
	path := writeConfig(t, twoServers)
	tg, err := parseConfigTarget(t, nil, "--config", path, "--server", "files", "-e", "MODE=rw")
	if err != nil {
		t.Fatal(err)
	}
	st, ok := tg.transport.(*mcp.StdioTransport)
	if !ok {
		t.Fatalf("transport = %T", tg.transport)
	}
	if st.Command != "node" || strings.Join(st.Args, " ") != "files.js" || st.Dir != "/tmp" {
		t.Errorf("command %q %v dir %q", st.Command, st.Args, st.Dir)
	}
	// -e comes after the file's env, so it wins in the child's environment.
	if got := strings.Join(st.Env, " "); got != "MODE=ro ROOT=/srv MODE=rw" {
		t.Errorf("env = %q", got)
	}
	if !strings.Contains(tg.description, "files (from mcp.json)") {
		t.Errorf("description = %q", tg.description)
	}
}

func TestConfigTargetHTTP(t *testing.T) {
	path := writeConfig(t, twoServers)
	tg, err := parseConfigTarget(t, nil, "--config", path, "--server", "remote", "--header", "X-Extra: 1")
	if err != nil {
		t.Fatal(err)
	}
	ht, ok := tg.transport.(*mcp.HTTPTransport)
	if !ok {
		t.Fatalf("transport = %T", tg.transport)
	}
	if ht.URL != "https://example.com/mcp" || ht.Header.Get("X-Team") != "core" || ht.Header.Get("X-Extra") != "1" {
		t.Errorf("url %q header %v", ht.URL, ht.Header)
	}
	if _, err := parseConfigTarget(t, nil, "--config", path, "--server", "remote", "-e", "A=1"); err == nil || !strings.Contains(err.Error(), "stdio server") {
		t.Errorf("-e on an HTTP server: %v", err)
	}
}

func TestConfigTargetChoosing(t *testing.T) {
	path := writeConfig(t, twoServers)
	if _, err := parseConfigTarget(t, nil, "--config", path); err == nil || !strings.Contains(err.Error(), "--server NAME (files, remote)") {
		t.Errorf("no --server, no picker: %v", err)
	}
	if _, err := parseConfigTarget(t, nil, "--config", path, "--server", "nope"); err == nil || !strings.Contains(err.Error(), "files") {
		t.Errorf("unknown --server: %v", err)
	}
	var offered []string
	pick := func(_ context.Context, title string, items []panes.PickerItem) (int, error) {
		for _, it := range items {
			offered = append(offered, it.Name+"="+it.Detail)
		}
		return 1, nil
	}
	tg, err := parseConfigTarget(t, pick, "--config", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tg.transport.(*mcp.HTTPTransport); !ok {
		t.Errorf("picking item 1 gave %T, want the http server", tg.transport)
	}
	if strings.Join(offered, ",") != "files=node files.js,remote=https://example.com/mcp" {
		t.Errorf("picker offered %v", offered)
	}
	quit := func(context.Context, string, []panes.PickerItem) (int, error) { return -1, nil }
	if _, err := parseConfigTarget(t, quit, "--config", path); !errors.Is(err, errNoChoice) {
		t.Errorf("quitting the picker: %v", err)
	}
	one := writeConfig(t, `{"servers": {"only": {"type": "stdio", "command": "srv"}}}`)
	if tg, err := parseConfigTarget(t, nil, "--config", one); err != nil || tg.transport.(*mcp.StdioTransport).Command != "srv" {
		t.Errorf("a single server is chosen without asking: %v", err)
	}
}

func TestConfigTargetBrokenFile(t *testing.T) {
	path := writeConfig(t, "{\n  \"mcpServers\": {\n    \"x\": {\"command\": 5}\n  }\n}")
	_, err := parseConfigTarget(t, nil, "--config", path)
	if err == nil || !strings.Contains(err.Error(), path+":3:") {
		t.Errorf("err = %v, want the file and line 3", err)
	}
	if _, err := parseConfigTarget(t, nil, "--server", "x"); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("--server alone: %v", err)
	}
}
