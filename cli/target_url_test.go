package cli

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/spf13/cobra"
)

// parseTarget runs the root command's flag parsing and target() without
// starting anything.
func parseTarget(t *testing.T, args ...string) (*target, string, error) {
	t.Helper()
	var cf connectFlags
	var got *target
	var gotErr error
	var stderr bytes.Buffer
	cmd := &cobra.Command{Use: "x", Args: cobra.ArbitraryArgs, SilenceErrors: true, SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			got, gotErr = cf.target(cmd, args)
			return nil
		}}
	cf.register(cmd.Flags())
	cmd.SetArgs(args)
	cmd.SetErr(&stderr)
	cmd.SetOut(&stderr)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("flag parsing: %v", err)
	}
	return got, stderr.String(), gotErr
}

func TestURLTargetPicksTransport(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"https://example.com/mcp"}, "*mcp.HTTPTransport"},
		{[]string{"http://127.0.0.1:1/mcp"}, "*mcp.HTTPTransport"},
		{[]string{"ws://example.com/mcp"}, "*mcp.WebSocketTransport"},
		{[]string{"WSS://example.com/mcp"}, "*mcp.WebSocketTransport"},
		{[]string{"--transport", "sse", "https://example.com/sse"}, "*mcp.SSETransport"},
		{[]string{"--transport", "ws", "https://example.com/mcp"}, "*mcp.WebSocketTransport"},
		{[]string{"--", "node", "server.js"}, "*mcp.StdioTransport"},
	} {
		tg, _, err := parseTarget(t, tc.args...)
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if got := typeName(tg.transport); got != tc.want {
			t.Errorf("%v: transport %s, want %s", tc.args, got, tc.want)
		}
	}
	tg, _, _ := parseTarget(t, "--transport", "streamable", "https://example.com/mcp")
	if h, ok := tg.transport.(*mcp.HTTPTransport); !ok || !h.NoSSEFallback {
		t.Errorf("--transport streamable must disable the HTTP+SSE fallback: %#v", tg.transport)
	}
	tg, _, _ = parseTarget(t, "--transport", "ws", "https://example.com/mcp")
	if w := tg.transport.(*mcp.WebSocketTransport); w.URL != "wss://example.com/mcp" {
		t.Errorf("--transport ws on https:// dials %s, want wss://", w.URL)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *mcp.HTTPTransport:
		return "*mcp.HTTPTransport"
	case *mcp.SSETransport:
		return "*mcp.SSETransport"
	case *mcp.WebSocketTransport:
		return "*mcp.WebSocketTransport"
	case *mcp.StdioTransport:
		return "*mcp.StdioTransport"
	}
	return "?"
}

func TestURLTargetHeadersAndBearer(t *testing.T) {
	t.Setenv("MCPSCOPE_TEST_TOKEN", "from-env")
	tg, _, err := parseTarget(t, "--header", "X-Api-Key: k1", "--header", "X-Trace:t", "--bearer-env", "MCPSCOPE_TEST_TOKEN", "https://example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	h := tg.transport.(*mcp.HTTPTransport).Header
	if h.Get("X-Api-Key") != "k1" || h.Get("X-Trace") != "t" || h.Get("Authorization") != "Bearer from-env" {
		t.Errorf("headers = %v", h)
	}
	if strings.Contains(tg.description, "from-env") {
		t.Errorf("the description shows the token: %s", tg.description)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--header", "no colon", "https://h/mcp"}, `expected "Name: value"`},
		{[]string{"--bearer", "a", "--bearer-env", "MCPSCOPE_TEST_TOKEN", "https://h/mcp"}, "not both"},
		{[]string{"--bearer-env", "MCPSCOPE_TEST_UNSET_VAR", "https://h/mcp"}, "unset or empty"},
		{[]string{"--bearer", "a", "--header", "Authorization: Basic x", "https://h/mcp"}, "give one"},
		{[]string{"--bearer", "a", "--", "node"}, "--bearer applies to a server URL"},
		{[]string{"-e", "A=1", "https://h/mcp"}, "--env applies to a stdio server"},
		{[]string{"--transport", "carrier-pigeon", "https://h/mcp"}, "expected auto, streamable, sse or ws"},
		{[]string{"--transport", "sse", "ws://h/mcp"}, "needs an http:// or https:// URL"},
		{[]string{"--ca", "/nonexistent/ca.pem", "https://h/mcp"}, "--ca"},
		{[]string{"somewhere.example.com/mcp"}, "give a server URL"},
	} {
		_, _, err := parseTarget(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := parseTarget(t, "--ca", bad, "https://h/mcp"); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("--ca with no certificate: %v", err)
	}
}

func TestInsecureWarnsAndMarksTheTarget(t *testing.T) {
	tg, stderr, err := parseTarget(t, "--insecure", "https://example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "WARNING") || !strings.Contains(stderr, "NOT verified") {
		t.Errorf("no loud warning on stderr: %q", stderr)
	}
	if !strings.Contains(tg.description, "TLS NOT VERIFIED") {
		t.Errorf("the header would not show it: %q", tg.description)
	}
	hc := tg.transport.(*mcp.HTTPTransport).HTTPClient
	if hc == nil {
		t.Fatal("no HTTP client for --insecure")
	}
}

// call against the demo server's HTTP handler, in both eras and over the
// legacy HTTP+SSE transport, through the real command line.
func TestCallOverHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	for _, args := range [][]string{
		{"call", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=40", srv.URL + "/mcp"},
		{"call", "--era", "modern", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=40", srv.URL + "/mcp"},
		{"call", "--transport", "sse", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=40", srv.URL + "/sse"},
	} {
		out, err, code := runCLI(t, args...)
		if code != exitOK || !strings.Contains(out, `"sum": 42`) {
			t.Errorf("%v: exit %d, err %v, out %s", args, code, err, out)
		}
	}
	_, err, code := runCLI(t, "call", "--method", "tools/list", "--transport", "streamable", srv.URL+"/sse")
	if code != exitConnection {
		t.Errorf("--transport streamable against an HTTP+SSE endpoint: exit %d (%v), want %d", code, err, exitConnection)
	}
}
