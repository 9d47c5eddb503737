package cli

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

func TestURLTargetOAuthWiring(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, tc := range []struct {
		args      []string
		wantOAuth bool
	}{
		{[]string{"https://example.com/mcp"}, true},
		{[]string{"--client-id", "abc", "https://example.com/mcp"}, true},
		{[]string{"--bearer", "tok", "https://example.com/mcp"}, false},
		{[]string{"--header", "Authorization: Basic eA==", "https://example.com/mcp"}, false},
		{[]string{"--no-oauth", "https://example.com/mcp"}, false},
		{[]string{"ws://example.com/mcp"}, true},
	} {
		tg, err := parseConfigTarget(t, nil, tc.args...)
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		var got mcp.Authorizer
		switch tr := tg.transport.(type) {
		case *mcp.HTTPTransport:
			got = tr.Authorizer
		case *mcp.WebSocketTransport:
			got = tr.Authorizer
		}
		if (got != nil) != tc.wantOAuth {
			t.Errorf("%v: authorizer %T, want OAuth %v", tc.args, got, tc.wantOAuth)
		}
	}
	if _, err := parseConfigTarget(t, nil, "--client-id", "x", "--", "node", "srv.js"); err == nil {
		t.Error("--client-id on a stdio server was accepted")
	}
}

// --oauth-callback takes an address or a whole loopback redirect URI, as a
// client registered in advance has it.
func TestOAuthCallbackFlag(t *testing.T) {
	for _, tc := range []struct{ in, addr, path, err string }{
		{"", "", "", ""},
		{"127.0.0.1:8765", "127.0.0.1:8765", "", ""},
		{"http://localhost:8765/auth/callback", "localhost:8765", "/auth/callback", ""},
		{"http://127.0.0.1/cb", "127.0.0.1:0", "/cb", ""},
		{"http://[::1]:9/cb", "[::1]:9", "/cb", ""},
		{"https://localhost:8765/cb", "", "", "plain http"},
		{"http://example.com:8765/cb", "", "", "not a loopback host"},
		{"http://localhost:8765/cb?x=1", "", "", "query"},
	} {
		addr, path, err := callbackAddr(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: err %v, want one saying %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || addr != tc.addr || path != tc.path):
			t.Errorf("%q: %q %q %v, want %q %q", tc.in, addr, path, err, tc.addr, tc.path)
		}
	}
}
