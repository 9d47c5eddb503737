package tap

import (
	"slices"
	"testing"
)

// The tap records JSON-RPC messages exactly, whatever their members are
// called (a tool's "password" argument is the server's business), and
// redacts the secrets of anything else an HTTP client sends or gets.
func TestRedactBodyLeavesJSONRPCExact(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"p","access_token":"t"}}}`,
		`{"id":1,"method":"x","params":{"token":"t"},"jsonrpc":"2.0"}`,
		`[{"jsonrpc":"2.0","id":1,"result":{"api_key":"k"}}]`,
	} {
		if out, names := redactBody([]byte(body)); string(out) != body || names != nil {
			t.Errorf("a JSON-RPC body was changed: %s -> %s %q", body, out, names)
		}
	}
	out, names := redactBody([]byte(`{"access_token":"t","token_type":"Bearer"}`))
	if string(out) != `{"access_token":"[redacted]","token_type":"Bearer"}` || !slices.Equal(names, []string{"access_token"}) {
		t.Errorf("a token answer: %s %q", out, names)
	}
}
