package auth

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// failure is the *Failure in err, or the test fails.
func failure(t *testing.T, err error, class error, ev *events) *Failure {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) || !errors.Is(err, class) {
		t.Fatalf("err %v, want a *Failure of %q\n%s", err, class, ev.text())
	}
	if f.Cause == "" || f.Fix == "" {
		t.Fatalf("a failure without its cause or fix: %+v", f)
	}
	return f
}

// The server needs scope "read"; the authorization server grants
// offline_access and not read. Asking again gets the same, so mcpscope
// says so after one sign-in, whether the server's 403 carries
// error="insufficient_scope" or, as the go-sdk's RequireBearerToken
// (v1.8.0) sends it, only the scope.
func TestScopeNotGrantedIsNamed(t *testing.T) {
	for _, noCode := range []bool{false, true} {
		t.Run(map[bool]string{false: "insufficient_scope", true: "scope without error code"}[noCode], func(t *testing.T) {
			f := newFake(t, func(f *fakeServer) {
				f.headerScope = "read"
				f.needScope = []string{"read"}
				f.asScopes = []string{"openid", "offline_access"}
				f.grantOnly = []string{"offline_access"}
				f.giveRefresh = true
				f.forbidNoCode = noCode
			})
			a := newAuthorizer(t, f, nil)
			var ev events
			status, err := call(t, a, f.mcpURL(), &ev)
			fl := failure(t, err, ErrScopeNotGranted, &ev)
			if status != 403 || !strings.Contains(fl.Cause, `scope "read"`) || !strings.Contains(fl.Cause, `asked for "read offline_access" and was granted "offline_access"`) {
				t.Fatalf("status %d, cause %q", status, fl.Cause)
			}
			if !strings.Contains(fl.Fix, "Allow client dcr-client the scope read") {
				t.Fatalf("fix %q", fl.Fix)
			}
			if n := len(f.authQuery); n != 1 {
				t.Fatalf("%d authorizations; the second would ask for the same scope again", n)
			}
			if !strings.Contains(ev.text(), "token received") || !strings.Contains(ev.text(), "scope=offline_access asked=read offline_access") {
				t.Fatalf("the token row does not show the scope granted against the scope asked:\n%s", ev.text())
			}
		})
	}
}

// A server that refuses the token it was just issued (it cannot validate
// it: another audience, introspection with other credentials) gets no
// second sign-in: mcpscope says the token was refused right after it.
func TestTokenRefusedRightAfterSignIn(t *testing.T) {
	for _, refresh := range []bool{false, true} {
		t.Run(map[bool]string{false: "no refresh token", true: "refresh tried first"}[refresh], func(t *testing.T) {
			f := newFake(t, func(f *fakeServer) {
				f.refuseTokens = true
				f.giveRefresh = refresh
			})
			a := newAuthorizer(t, f, nil)
			var ev events
			status, err := call(t, a, f.mcpURL(), &ev)
			fl := failure(t, err, ErrTokenRefused, &ev)
			if status != 401 || !strings.Contains(fl.Cause, "The server refused the access token") || !strings.Contains(fl.Cause, "for client dcr-client (401 Unauthorized: invalid_token)") {
				t.Fatalf("status %d, cause %q", status, fl.Cause)
			}
			if refresh != strings.Contains(fl.Cause, "refreshed from the one") {
				t.Fatalf("cause %q: refresh %v", fl.Cause, refresh)
			}
			if !strings.Contains(fl.Fix, "resource "+f.mcpURL()) {
				t.Fatalf("fix %q", fl.Fix)
			}
			if n := len(f.authQuery); n != 1 {
				t.Fatalf("%d authorizations; signing in again gets the same refusal", n)
			}
			if have, _, _ := a.Token(); have {
				t.Fatal("the refused token is kept")
			}
		})
	}
}

// loopback is a LoopbackBrowser that opens nothing and prints to out.
func loopback(out *bytes.Buffer, wait time.Duration) *LoopbackBrowser {
	return &LoopbackBrowser{Out: out, Wait: wait}
}

// An authorization server that does not accept the redirect URI answers
// the authorization request 400 and never redirects: the browser would
// never come back. mcpscope finds it out before sending anyone there.
func TestAuthorizationRefusedBeforeSignIn(t *testing.T) {
	const said = "The requested redirect_uri is missing in the client configuration."
	f := newFake(t, func(f *fakeServer) {
		f.authorizeWith = func(w http.ResponseWriter, r *http.Request) { http.Error(w, said, http.StatusBadRequest) }
	})
	var out bytes.Buffer
	const wait = 5 * time.Second
	b := loopback(&out, wait)
	a := newAuthorizer(t, f, func(c *Config) { c.Browser = b })
	var ev events
	start := time.Now()
	_, err := call(t, a, f.mcpURL(), &ev)
	fl := failure(t, err, ErrAuthorizationRefused, &ev)
	if time.Since(start) >= wait {
		t.Fatalf("waited for the browser (%s) for a request refused at once", time.Since(start))
	}
	if !strings.Contains(fl.Cause, "before anyone signed in (400 Bad Request)") || !strings.Contains(fl.Cause, said) {
		t.Fatalf("cause %q", fl.Cause)
	}
	if !strings.Contains(fl.Fix, "redirect URI http://127.0.0.1:") || !strings.Contains(fl.Fix, "--oauth-callback") {
		t.Fatalf("fix %q", fl.Fix)
	}
	if out.Len() != 0 {
		t.Fatalf("the person was sent to the refused request:\n%s", out.String())
	}
}

// An authorization server that answers the request with an OAuth error
// redirect is refused the same way, with its error.
func TestAuthorizationErrorRedirectBeforeSignIn(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.authorizeWith = func(w http.ResponseWriter, r *http.Request) {
			to, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
			to.RawQuery = url.Values{"error": {"invalid_scope"}, "error_description": {"unknown scope mcp:basic"}, "state": {r.URL.Query().Get("state")}}.Encode()
			http.Redirect(w, r, to.String(), http.StatusFound)
		}
		f.headerScope = "mcp:basic"
	})
	var out bytes.Buffer
	a := newAuthorizer(t, f, func(c *Config) { c.Browser = loopback(&out, 5*time.Second) })
	var ev events
	_, err := call(t, a, f.mcpURL(), &ev)
	fl := failure(t, err, ErrAuthorizationRefused, &ev)
	if !strings.Contains(fl.Cause, `invalid_scope ("unknown scope mcp:basic")`) || !strings.Contains(fl.Fix, "does not accept scope mcp:basic") {
		t.Fatalf("cause %q, fix %q", fl.Cause, fl.Fix)
	}
	if out.Len() != 0 {
		t.Fatalf("the person was sent to the refused request:\n%s", out.String())
	}
}

// A sign-in page that never sends the browser back: mcpscope says the
// callback never came, and where it waited.
func TestCallbackNeverCame(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.authorizeWith = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><head><title>Sign in to Example</title></head><body>...</body></html>"))
		}
	})
	var out bytes.Buffer
	a := newAuthorizer(t, f, func(c *Config) { c.Browser = loopback(&out, 300*time.Millisecond) })
	var ev events
	_, err := call(t, a, f.mcpURL(), &ev)
	fl := failure(t, err, ErrNoCallback, &ev)
	if !strings.Contains(fl.Cause, "The browser never came back to http://127.0.0.1:") || !strings.Contains(fl.Cause, "within 300ms") ||
		!strings.Contains(fl.Cause, `answers 200 OK: "Sign in to Example"`) {
		t.Fatalf("cause %q", fl.Cause)
	}
	if !strings.Contains(out.String(), "Authorize mcpscope in your browser") {
		t.Fatalf("the person was not sent to sign in:\n%s", out.String())
	}
}

// The redirect came back carrying the authorization server's error.
func TestCallbackCarriesError(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.authorizeWith = func(w http.ResponseWriter, r *http.Request) {
			to, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
			to.RawQuery = url.Values{"error": {"access_denied"}, "state": {r.URL.Query().Get("state")}}.Encode()
			http.Redirect(w, r, to.String(), http.StatusFound)
		}
	})
	a := newAuthorizer(t, f, nil) // headless: the redirect is the callback
	var ev events
	_, err := call(t, a, f.mcpURL(), &ev)
	fl := failure(t, err, ErrAuthorizationRefused, &ev)
	if !strings.Contains(fl.Cause, "refused the authorization after the sign-in: access_denied") || !strings.Contains(fl.Fix, "declined") {
		t.Fatalf("cause %q, fix %q", fl.Cause, fl.Fix)
	}
}

// A redirect URI given with the host name localhost keeps it: an
// authorization server compares the redirect URI it registered as text.
func TestLoopbackRedirectKeepsLocalhost(t *testing.T) {
	b := &LoopbackBrowser{Addr: "localhost:0", Path: "/auth/callback"}
	u, err := b.RedirectURI(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.ln.Close() }()
	if !strings.HasPrefix(u, "http://localhost:") || !strings.HasSuffix(u, "/auth/callback") {
		t.Fatalf("redirect URI %q", u)
	}
}

// An authorization server that approves without a person answers the
// check before the browser with a code: it is not used, and it is shown
// nowhere, neither in the timeline nor in the failure.
func TestPreflightCodeIsNotShown(t *testing.T) {
	f := newFake(t, nil) // its /authorize redirects at once with code-SECRET-…
	var out bytes.Buffer
	a := newAuthorizer(t, f, func(c *Config) { c.Browser = loopback(&out, 300*time.Millisecond) })
	var ev events
	_, err := call(t, a, f.mcpURL(), &ev)
	fl := failure(t, err, ErrNoCallback, &ev)
	if !strings.Contains(fl.Cause, "302 Found to http://127.0.0.1:") || !strings.Contains(fl.Cause, "code=[redacted]") {
		t.Fatalf("cause %q", fl.Cause)
	}
	if strings.Contains(fl.Cause, "SECRET") || strings.Contains(ev.text(), "SECRET") {
		t.Fatalf("the code is shown:\n%s\n%s", fl.Cause, ev.text())
	}
}
