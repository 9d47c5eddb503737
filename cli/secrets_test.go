package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/tap"
)

// oauthSecrets are the recognisable credentials of the OAuth flow that
// TestOAuthThroughHTTPTapLeavesNoSecret sends through the tap.
var oauthSecrets = []string{
	"CODE-SECRET-1", "VERIFIER-SECRET-2", "CLIENT-SECRET-3", "ACCESS-SECRET-4", "REFRESH-SECRET-5", "IDTOKEN-SECRET-6",
	"ASSERTION-SECRET-7", "REGISTRATION-SECRET-8", "COOKIE-SECRET-9", "APIKEY-SECRET-10",
}

// fakeOAuthServer is an authorization server and an MCP server on one
// host, answering as real ones do: a registration with a client secret,
// an authorization redirect with a code and a cookie, token answers with
// access, refresh and ID tokens, and MCP behind a bearer token. It keeps
// the bodies it received.
func fakeOAuthServer(t *testing.T) (srv *httptest.Server, got func() [][]byte) {
	var mu sync.Mutex
	var bodies [][]byte
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		switch r.URL.Path {
		case "/register":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"client_id":"app","client_secret":"CLIENT-SECRET-3","registration_access_token":"REGISTRATION-SECRET-8","token_endpoint_auth_method":"client_secret_post"}`)
		case "/authorize":
			http.SetCookie(w, &http.Cookie{Name: "as_session", Value: "COOKIE-SECRET-9", Path: "/"})
			http.Redirect(w, r, "http://127.0.0.1:1/cb?code=CODE-SECRET-1&state="+r.URL.Query().Get("state"), http.StatusFound)
		case "/token":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token":"ACCESS-SECRET-4","token_type":"Bearer","expires_in":3600,"refresh_token":"REFRESH-SECRET-5","id_token":"IDTOKEN-SECRET-6","scope":"mcp"}`)
		case "/mcp":
			if r.Header.Get("Authorization") != "Bearer ACCESS-SECRET-4" {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+"http://"+r.Host+`/.well-known/oauth-protected-resource"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"oauth-fake","version":"1"}}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() [][]byte { mu.Lock(); defer mu.Unlock(); return bodies }
}

// Secrets: an OAuth flow through the HTTP tap (registration, the
// authorization redirect, the code exchange, a refresh, MCP with the
// token) is recorded, and exported to HTML, Markdown and HAR, without
// one of its credentials, while the client and the server get every byte
// as it was sent.
func TestOAuthThroughHTTPTapLeavesNoSecret(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "redacted", true: "record-secrets"}[keep], func(t *testing.T) {
			upstream, received := fakeOAuthServer(t)
			dir := filepath.Join(t.TempDir(), "taps")
			ctx, cancel := context.WithCancel(context.Background())
			ready := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				done <- tap.RunHTTP(ctx, tap.HTTPOptions{Name: "oauth", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
					Ready: func(u string) { ready <- u }, Recording: tap.Recording{Dir: dir, NoHub: true, KeepSecrets: keep}})
			}()
			local := strings.TrimSuffix(<-ready, "/")
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			send := func(method, path, contentType, body string, header ...string) (int, string, http.Header) {
				t.Helper()
				req, err := http.NewRequest(method, local+path, strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if contentType != "" {
					req.Header.Set("Content-Type", contentType)
				}
				for i := 0; i+1 < len(header); i += 2 {
					req.Header.Set(header[i], header[i+1])
				}
				resp, err := noFollow.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = resp.Body.Close() }()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b), resp.Header
			}
			const form = "application/x-www-form-urlencoded"
			codeExchange := "grant_type=authorization_code&code=CODE-SECRET-1&code_verifier=VERIFIER-SECRET-2&client_id=app&client_secret=CLIENT-SECRET-3&redirect_uri=" + url.QueryEscape("http://127.0.0.1:1/cb")
			refresh := "grant_type=refresh_token&refresh_token=REFRESH-SECRET-5&client_id=app&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=ASSERTION-SECRET-7"
			initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

			if code, _, _ := send("POST", "/mcp", "application/json", initialize); code != http.StatusUnauthorized {
				t.Fatalf("unauthenticated MCP request: %d", code)
			}
			if code, body, _ := send("POST", "/register", "application/json", `{"redirect_uris":["http://127.0.0.1:1/cb"],"client_name":"c"}`); code != http.StatusCreated || !strings.Contains(body, "CLIENT-SECRET-3") {
				t.Fatalf("registration: %d %s", code, body)
			}
			if code, _, h := send("GET", "/authorize?response_type=code&client_id=app&code_challenge=abc&code_challenge_method=S256&state=st1", "", "",
				"Cookie", "as_session=COOKIE-SECRET-9"); code != http.StatusFound || !strings.Contains(h.Get("Location"), "CODE-SECRET-1") {
				t.Fatalf("authorization: %d %v", code, h)
			}
			tokenAnswer := `{"access_token":"ACCESS-SECRET-4","token_type":"Bearer","expires_in":3600,"refresh_token":"REFRESH-SECRET-5","id_token":"IDTOKEN-SECRET-6","scope":"mcp"}`
			if code, body, _ := send("POST", "/token", form, codeExchange, "Authorization", "Basic "+"QVBJS0VZLVNFQ1JFVC0xMA=="); code != 200 || body != tokenAnswer {
				t.Fatalf("the client got a changed token answer: %d %s", code, body)
			}
			if code, body, _ := send("POST", "/token", form, refresh); code != 200 || body != tokenAnswer {
				t.Fatalf("refresh: %d %s", code, body)
			}
			if code, body, _ := send("POST", "/mcp", "application/json", initialize, "Authorization", "Bearer ACCESS-SECRET-4", "X-Api-Key", "APIKEY-SECRET-10"); code != 200 || !strings.Contains(body, "oauth-fake") {
				t.Fatalf("MCP with the token: %d %s", code, body)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// The server got each body byte for byte.
			var sawExchange, sawRefresh bool
			for _, b := range received() {
				sawExchange = sawExchange || string(b) == codeExchange
				sawRefresh = sawRefresh || string(b) == refresh
			}
			if !sawExchange || !sawRefresh {
				t.Errorf("the server did not get the token requests as sent: %q", received())
			}

			files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("captures %v", files)
			}
			capture, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"code=[redacted]", `\"access_token\":\"[redacted]\"`, "the tap redacted secrets in the body above", `"Value":"Bearer [redacted]"`,
				`"Value":"as_session=[redacted]; Path=/"`, `{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\"`} {
				if !bytes.Contains(capture, []byte(want)) {
					t.Errorf("the capture lacks %s", want)
				}
			}
			// With --record-secrets the redirect's code stays in the
			// capture's timeline (the user asked for it); the client's
			// credentials in bodies and headers never do.
			for _, s := range oauthSecrets {
				if bytes.Contains(capture, []byte(s)) && !(keep && s == "CODE-SECRET-1") {
					t.Errorf("the capture holds %s", s)
				}
			}
			for _, format := range []string{"html", "md", "har"} {
				out := filepath.Join(t.TempDir(), "export."+format)
				if text, err, code := runCLI(t, "export", files[0], "--format", format, "-o", out); code != exitOK {
					t.Fatalf("export %s: %d %v\n%s", format, code, err, text)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range oauthSecrets {
					if bytes.Contains(b, []byte(s)) {
						t.Errorf("the %s export holds %s", format, s)
					}
				}
				if format == "html" && !bytes.Contains(b, []byte("oauth-fake")) {
					t.Errorf("the html export lost the MCP answer")
				}
			}
		})
	}
}

// Secrets: a server's command line names its secrets (--api-key X,
// --token=X, GITHUB_TOKEN=X); the session file and its exports keep the
// flags and lose the values.
func TestArgvSecretsLeaveNoTrace(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "argv.jsonl")
	argv := append(fakeArgs(""), "--api-key", "ARGV-SECRET-1", "--token=ARGV-SECRET-2", "GITHUB_TOKEN=ARGV-SECRET-3", "--url", "https://h/x?api_key=ARGV-SECRET-4")
	if out, err, code := runCLI(t, append([]string{"call", "--method", "ping", "--record", rec}, argv...)...); code != exitOK {
		t.Fatalf("call: %d %v\n%s", code, err, out)
	}
	secrets := []string{"ARGV-SECRET-1", "ARGV-SECRET-2", "ARGV-SECRET-3", "ARGV-SECRET-4"}
	check := func(what string, b []byte, wants ...string) {
		t.Helper()
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %s", what, s)
			}
		}
		for _, w := range wants {
			if !bytes.Contains(b, []byte(w)) {
				t.Errorf("%s lacks %s", what, w)
			}
		}
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	check("the session file", b, `"--api-key","[redacted]","--token=[redacted]","GITHUB_TOKEN=[redacted]"`)
	for _, format := range []string{"html", "md", "har"} {
		out := filepath.Join(t.TempDir(), "export."+format)
		if text, err, code := runCLI(t, "export", rec, "--format", format, "-o", out); code != exitOK {
			t.Fatalf("export %s: %d %v\n%s", format, code, err, text)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		check("the "+format+" export", b)
	}
}

// tap --listen --token generate makes up a token, prints the URL that
// carries it, and takes only requests that do.
func TestTapTokenGenerate(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // where taps record
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer upstream.Close()
	root := newRootCommand()
	var out lockedBuffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"tap", "--no-live", "--listen", "127.0.0.1:0", "--token", "generate", upstream.URL + "/mcp"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	var printed string
	for deadline := time.Now().Add(10 * time.Second); printed == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, rest, ok := strings.Cut(out.String(), "point the client at "); ok {
			printed, _, _ = strings.Cut(rest, ",")
		}
	}
	u, err := url.Parse(printed)
	if err != nil || u.Query().Get(tap.TokenParam) == "" {
		t.Fatalf("no URL with a token printed: %q (%v)", out.String(), err)
	}
	token := u.Query().Get(tap.TokenParam)
	if len(token) < 20 || !strings.Contains(out.String(), tap.TokenHeader+": "+token) {
		t.Errorf("the token %q or its header is not printed: %q", token, out.String())
	}
	ping := func(to string) int {
		t.Helper()
		resp, err := http.Post(to, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if code := ping(printed); code != http.StatusOK {
		t.Errorf("the printed URL: %d", code)
	}
	bare := *u
	bare.RawQuery = ""
	if code := ping(bare.String()); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", code)
	}
}

// taps --list (and the picker) show a live tap's command and URL, which
// its live file keeps as the client gave them, without their secrets.
func TestTapDetailRedactsSecrets(t *testing.T) {
	for _, l := range []tap.Listed{
		{Info: tap.Info{Command: []string{"node", "srv.js", "--api-key", "LIST-SECRET"}}},
		{Info: tap.Info{URL: "https://h.example/mcp?api_key=LIST-SECRET"}},
	} {
		d := tapDetail(l)
		if strings.Contains(d, "LIST-SECRET") || !strings.Contains(d, "[redacted]") {
			t.Errorf("tapDetail = %q", d)
		}
	}
}

// A URL target's secret parameter is shown nowhere (the check report,
// its errors) and recorded redacted, unless --record-secrets, which
// keeps it for replay.
func TestURLTargetSecretShownRedacted(t *testing.T) {
	upstream := httptest.NewServer(demo.HTTPHandler())
	defer upstream.Close()
	target := upstream.URL + "/mcp?api_key=URL-SECRET-1"
	out, err, code := runCLI(t, "check", "--format", "json", target)
	if code == exitUsage || strings.Contains(out, "URL-SECRET-1") || !strings.Contains(out, "api_key=[redacted]") {
		t.Errorf("check (%d %v) shows the secret, or not the target:\n%s", code, err, out)
	}
	for _, keep := range []bool{false, true} {
		rec := filepath.Join(t.TempDir(), "url.jsonl")
		args := []string{"call", "--method", "ping", "--record", rec}
		if keep {
			args = append(args, "--record-secrets")
		}
		if out, err, code := runCLI(t, append(args, target)...); code != exitOK {
			t.Fatalf("call: %d %v\n%s", code, err, out)
		}
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := bytes.Cut(b, []byte("\n"))
		if bytes.Contains(head, []byte("URL-SECRET-1")) != keep {
			t.Errorf("record-secrets=%v: the header is %s", keep, head)
		}
	}
}
