package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// fakeServer is a protected MCP resource and its authorization server on
// one loopback httptest server. Every request is recorded, so tests can
// assert what was asked for and in which order.
type fakeServer struct {
	t   *testing.T
	srv *httptest.Server

	// Protected resource.
	prmPath         string   // where PRM is served; "" for none
	prmInHeader     bool     // advertise it in WWW-Authenticate
	prmResource     string   // overrides the PRM resource
	scopesSupported []string // PRM scopes_supported
	headerScope     string   // scope in the 401 challenge
	needScope       []string // scopes every MCP request needs (403 otherwise)
	alwaysForbid    bool     // answer every authenticated request 403 insufficient_scope
	forbidNoCode    bool     // a missing scope is 403 with scope= but no error= (the go-sdk's way)
	refuseTokens    bool     // answer every token 401 invalid_token (a server that cannot validate them)

	// Authorization server.
	issuerPath    string // e.g. "/tenant1"; "" for the origin
	metaPath      string // where AS metadata is served
	pkceMethods   []string
	noPKCEField   bool
	cimd          bool
	noRegister    bool
	authMethods   []string
	asScopes      []string
	expiresIn     int
	giveRefresh   bool
	wantBasicAuth string                                       // "id:secret" required at the token endpoint
	grantOnly     []string                                     // the token endpoint grants only these of the scopes asked, and names them
	authorizeWith func(w http.ResponseWriter, r *http.Request) // replaces the approving /authorize

	mu        sync.Mutex
	requests  []string            // "GET /path"
	authQuery []url.Values        // authorization requests
	tokenForm []url.Values        // token requests
	tokenAuth []string            // Authorization headers at the token endpoint
	registers []map[string]any    // registration bodies
	tokens    map[string][]string // access token → scopes
	n         int
	lastChal  string
}

func newFake(t *testing.T, configure func(f *fakeServer)) *fakeServer {
	t.Helper()
	f := &fakeServer{
		t:           t,
		prmPath:     "/.well-known/oauth-protected-resource/mcp",
		prmInHeader: true,
		metaPath:    "/.well-known/oauth-authorization-server",
		pkceMethods: []string{"S256"},
		authMethods: []string{"none"},
		expiresIn:   3600,
		tokens:      map[string][]string{},
	}
	if configure != nil {
		configure(f)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) mcpURL() string { return f.srv.URL + "/mcp" }
func (f *fakeServer) issuer() string { return f.srv.URL + f.issuerPath }

func (f *fakeServer) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func (f *fakeServer) countPrefix(p string) int {
	n := 0
	for _, r := range f.paths() {
		if strings.HasPrefix(r, p) {
			n++
		}
	}
	return n
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	switch {
	case r.URL.Path == "/mcp":
		f.serveMCP(w, r)
	case f.prmPath != "" && r.URL.Path == f.prmPath:
		res := f.srv.URL + "/mcp"
		if f.prmPath == "/.well-known/oauth-protected-resource" {
			res = f.srv.URL
		}
		if f.prmResource != "" {
			res = f.prmResource
		}
		writeJSON(w, 200, map[string]any{"resource": res, "authorization_servers": []string{f.issuer()}, "scopes_supported": f.scopesSupported})
	case r.URL.Path == f.metaPath:
		m := map[string]any{
			"issuer":                                f.issuer(),
			"authorization_endpoint":                f.issuer() + "/authorize",
			"token_endpoint":                        f.issuer() + "/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
			"token_endpoint_auth_methods_supported": f.authMethods,
		}
		if !f.noPKCEField {
			m["code_challenge_methods_supported"] = f.pkceMethods
		}
		if !f.noRegister {
			m["registration_endpoint"] = f.issuer() + "/register"
		}
		if f.cimd {
			m["client_id_metadata_document_supported"] = true
		}
		if f.asScopes != nil {
			m["scopes_supported"] = f.asScopes
		}
		writeJSON(w, 200, m)
	case r.URL.Path == f.issuerPath+"/register" && r.Method == http.MethodPost:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.registers = append(f.registers, body)
		f.mu.Unlock()
		writeJSON(w, 201, map[string]any{"client_id": "dcr-client", "client_secret": "dcr-secret-XYZ", "token_endpoint_auth_method": "client_secret_post"})
	case r.URL.Path == f.issuerPath+"/authorize" && f.authorizeWith != nil:
		f.mu.Lock()
		f.authQuery = append(f.authQuery, r.URL.Query())
		f.mu.Unlock()
		f.authorizeWith(w, r)
	case r.URL.Path == f.issuerPath+"/authorize":
		q := r.URL.Query()
		f.mu.Lock()
		f.authQuery = append(f.authQuery, q)
		f.mu.Unlock()
		to, _ := url.Parse(q.Get("redirect_uri"))
		back := to.Query()
		back.Set("code", "code-SECRET-"+q.Get("scope"))
		back.Set("state", q.Get("state"))
		to.RawQuery = back.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	case r.URL.Path == f.issuerPath+"/token" && r.Method == http.MethodPost:
		f.serveToken(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeServer) serveToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokenForm = append(f.tokenForm, r.PostForm)
	f.tokenAuth = append(f.tokenAuth, r.Header.Get("Authorization"))
	if f.wantBasicAuth != "" {
		id, secret, ok := r.BasicAuth()
		if !ok || id+":"+secret != f.wantBasicAuth {
			writeJSON(w, 401, map[string]any{"error": "invalid_client"})
			return
		}
	}
	var scopes []string
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		scopes = strings.Fields(strings.TrimPrefix(r.PostForm.Get("code"), "code-SECRET-"))
		if f.grantOnly != nil {
			scopes = slices.DeleteFunc(scopes, func(s string) bool { return !slices.Contains(f.grantOnly, s) })
		}
	case "refresh_token":
		scopes = f.needScope
	case "client_credentials":
		scopes = strings.Fields(r.PostForm.Get("scope"))
	}
	f.n++
	tok := fmt.Sprintf("access-SECRET-%d", f.n)
	f.tokens[tok] = scopes
	resp := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": f.expiresIn, "scope": strings.Join(scopes, " ")}
	if f.giveRefresh {
		resp["refresh_token"] = fmt.Sprintf("refresh-SECRET-%d", f.n)
	}
	writeJSON(w, 200, resp)
}

func (f *fakeServer) serveMCP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	challenge := func(status int, errCode, scope string) {
		parts := []string{}
		if errCode != "" {
			parts = append(parts, fmt.Sprintf("error=%q", errCode))
		}
		if scope != "" {
			parts = append(parts, fmt.Sprintf("scope=%q", scope))
		}
		if f.prmInHeader && f.prmPath != "" {
			parts = append(parts, fmt.Sprintf("resource_metadata=%q", f.srv.URL+f.prmPath))
		}
		h := "Bearer"
		if len(parts) > 0 {
			h += " " + strings.Join(parts, ", ")
		}
		f.lastChal = h
		w.Header().Set("WWW-Authenticate", h)
		w.WriteHeader(status)
	}
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	scopes, ok := f.tokens[tok]
	if !ok || f.refuseTokens {
		challenge(401, "invalid_token", f.headerScope)
		return
	}
	if f.alwaysForbid {
		challenge(403, "insufficient_scope", strings.Join(f.needScope, " "))
		return
	}
	for _, s := range f.needScope {
		if !slices.Contains(scopes, s) {
			code := "insufficient_scope"
			if f.forbidNoCode {
				code = ""
			}
			challenge(403, code, strings.Join(f.needScope, " "))
			return
		}
	}
	writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// events collects every TransportEvent a flow reports.
type events struct {
	mu  sync.Mutex
	evs []mcp.TransportEvent
}

func (e *events) note(ev mcp.TransportEvent) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, ev := range e.evs {
		fmt.Fprintf(&b, "%s | %s", ev.Kind, ev.Summary)
		for _, f := range ev.Fields {
			fmt.Fprintf(&b, " %s=%s", f.Key, f.Value)
		}
		if ev.Err != nil {
			fmt.Fprintf(&b, " err=%v", ev.Err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// call does what an HTTP transport does for one request: Authorize, send,
// and on 401/403 Challenge and retry (at most three challenges). It
// returns the final status and the Challenge error, if any.
func call(t *testing.T, a *Authorizer, target string, ev *events) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(`{}`))
		if err := a.Authorize(ctx, req); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", target, err)
		}
		_ = resp.Body.Close()
		if (resp.StatusCode != 401 && resp.StatusCode != 403) || attempt >= 3 {
			return resp.StatusCode, nil
		}
		retry, err := a.Challenge(ctx, resp, ev.note)
		if err != nil {
			return resp.StatusCode, err
		}
		if !retry {
			return resp.StatusCode, nil
		}
	}
}

func newAuthorizer(t *testing.T, f *fakeServer, configure func(c *Config)) *Authorizer {
	t.Helper()
	cfg := Config{ServerURL: f.mcpURL(), Browser: &HeadlessBrowser{}}
	if configure != nil {
		configure(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
