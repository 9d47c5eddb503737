package mcp

import "testing"

// Only a 400 that says the session is unknown ends the session; other 400s
// (a bad header, a bad request) stay errors of that one request.
func TestForgotSession(t *testing.T) {
	for _, c := range []struct {
		status  int
		session string
		body    string
		want    bool
	}{
		{400, "s1", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`, true},
		{400, "s1", `Bad Request: session not found`, true},
		{400, "s1", `{"error":{"message":"Invalid or expired session"}}`, true},
		{400, "", `Bad Request: No valid session ID provided`, false},
		{400, "s1", `Bad Request: Unsupported protocol version`, false},
		{400, "s1", `Bad Request: Mcp-Session-Id header is required`, false},
		{500, "s1", `No valid session ID provided`, false},
	} {
		if got := forgotSession(c.status, c.session, []byte(c.body)); got != c.want {
			t.Errorf("forgotSession(%d, %q, %q) = %v, want %v", c.status, c.session, c.body, got, c.want)
		}
	}
}
