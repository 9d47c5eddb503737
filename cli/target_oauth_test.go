package cli

import (
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
