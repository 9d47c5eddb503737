package mcptest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Hostile is an MCP server over streamable HTTP that attacks the client
// debugging it, one knob per attack the client must withstand.
// It answers initialize, tools/list and tools/call with hand-written JSON,
// and records every request it receives (headers included) so a test can
// tell what the client sent where.
//
// Knobs left at their zero value make a well-behaved server.
type Hostile struct {
	// OAuth: when AuthorizationEndpoint is set, /mcp answers 401 to any
	// request without "Bearer granted" and publishes protected resource
	// metadata and authorization server metadata naming these endpoints
	// (file:, javascript:, plain http to another host...). TokenEndpoint
	// and RegistrationEndpoint default to this server's /token and
	// /register, which grant "granted".
	AuthorizationEndpoint string
	TokenEndpoint         string
	RegistrationEndpoint  string

	// RedirectTo makes /mcp answer every POST with RedirectStatus (307
	// when zero) to this URL: another origin, or https→http.
	RedirectTo     string
	RedirectStatus int

	// Tools is the tools/list result's "tools" array (raw JSON); one
	// harmless tool when empty.
	Tools string
	// Result is the raw tools/call result; a short text when empty.
	Result string
	// SSE answers POSTs with text/event-stream; SSEPrefix is written
	// before the event (comment keep-alives, huge lines...).
	SSE       bool
	SSEPrefix func(w http.ResponseWriter)

	Srv *httptest.Server

	mu   sync.Mutex
	seen []Seen
}

// Seen is one request the hostile server received.
type Seen struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   string
}

// StartHostile starts h on a loopback httptest server (http, or https
// when tls) closed at the end of the test.
func StartHostile(t testing.TB, h *Hostile, tls bool) *Hostile {
	t.Helper()
	if tls {
		h.Srv = httptest.NewTLSServer(h)
	} else {
		h.Srv = httptest.NewServer(h)
	}
	t.Cleanup(h.Srv.Close)
	return h
}

// URL is the MCP endpoint.
func (h *Hostile) URL() string { return h.Srv.URL + "/mcp" }

// Requests returns what the server received so far.
func (h *Hostile) Requests() []Seen {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Seen(nil), h.seen...)
}

// ServeHTTP records the request and answers it as the knobs say: OAuth
// metadata and the 401 challenge, the redirect, then the MCP methods.
func (h *Hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body strings.Builder
	if r.Body != nil {
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Body.Read(buf)
			body.Write(buf[:n])
			if err != nil || body.Len() > 1<<20 {
				break
			}
		}
	}
	h.mu.Lock()
	h.seen = append(h.seen, Seen{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body.String()})
	h.mu.Unlock()
	// The base URL is the one this request came to: h.Srv is set after
	// the server starts serving, so reading it here would race with
	// StartHostile (the race detector sees no order through the network).
	base := "http://" + r.Host
	if r.TLS != nil {
		base = "https://" + r.Host
	}
	oauth := h.AuthorizationEndpoint != ""
	switch {
	case oauth && r.URL.Path == "/.well-known/oauth-protected-resource/mcp":
		writeJSONTo(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
		return
	case oauth && r.URL.Path == "/.well-known/oauth-authorization-server":
		tokenEP, regEP := h.TokenEndpoint, h.RegistrationEndpoint
		if tokenEP == "" {
			tokenEP = base + "/token"
		}
		if regEP == "" {
			regEP = base + "/register"
		}
		writeJSONTo(w, 200, map[string]any{
			"issuer": base, "authorization_endpoint": h.AuthorizationEndpoint, "token_endpoint": tokenEP,
			"registration_endpoint": regEP, "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		})
		return
	case oauth && r.URL.Path == "/register":
		writeJSONTo(w, 201, map[string]any{"client_id": "hostile-client", "token_endpoint_auth_method": "none"})
		return
	case oauth && r.URL.Path == "/token":
		writeJSONTo(w, 200, map[string]any{"access_token": "granted", "token_type": "Bearer", "expires_in": 3600})
		return
	case r.URL.Path != "/mcp":
		http.NotFound(w, r)
		return
	}
	if oauth && r.Header.Get("Authorization") != "Bearer granted" {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, base+"/.well-known/oauth-protected-resource/mcp"))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if h.RedirectTo != "" && r.Method == http.MethodPost {
		status := h.RedirectStatus
		if status == 0 {
			status = http.StatusTemporaryRedirect
		}
		http.Redirect(w, r, h.RedirectTo, status)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal([]byte(body.String()), &req)
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result string
	switch req.Method {
	case "initialize":
		result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`
	case "tools/list":
		tools := h.Tools
		if tools == "" {
			tools = `[{"name":"echo","inputSchema":{"type":"object"}}]`
		}
		result = `{"tools":` + tools + `}`
	case "tools/call":
		result = h.Result
		if result == "" {
			result = `{"content":[{"type":"text","text":"ok"}]}`
		}
	default:
		result = `{}`
	}
	frame := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`
	if h.SSE {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		if h.SSEPrefix != nil {
			h.SSEPrefix(w)
		}
		_, _ = fmt.Fprintf(w, "event: message\ndata: %s\n\n", frame) // the client under test may hang up
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	_, _ = w.Write([]byte(frame))
}

func writeJSONTo(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
