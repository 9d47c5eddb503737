package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseChallenge(t *testing.T) {
	c, ok := ParseChallenge([]string{`Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="needs \"b\""`})
	if !ok {
		t.Fatal("no Bearer challenge found")
	}
	want := Challenge{ResourceMetadata: "https://h/.well-known/oauth-protected-resource/mcp", Scope: "a b", Error: "insufficient_scope", ErrorDescription: `needs "b"`}
	if c != want {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
	if c, ok := ParseChallenge([]string{"Bearer"}); !ok || c != (Challenge{}) {
		t.Fatalf("bare Bearer: %+v %v", c, ok)
	}
	if _, ok := ParseChallenge([]string{`Basic realm="x"`}); ok {
		t.Fatal("Basic-only header read as Bearer")
	}
	if c, _ := ParseChallenge([]string{`bearer scope=read`}); c.Scope != "read" {
		t.Fatalf("token-valued param: %+v", c)
	}
}

func TestWellKnownOrder(t *testing.T) {
	prm, _ := ProtectedResourceMetadataURLs("https://h.example/api/mcp")
	if want := []string{"https://h.example/.well-known/oauth-protected-resource/api/mcp", "https://h.example/.well-known/oauth-protected-resource"}; !reflect.DeepEqual(prm, want) {
		t.Fatalf("PRM order %v", prm)
	}
	as, _ := ServerMetadataURLs("https://as.example/tenant1")
	if want := []string{
		"https://as.example/.well-known/oauth-authorization-server/tenant1",
		"https://as.example/.well-known/openid-configuration/tenant1",
		"https://as.example/tenant1/.well-known/openid-configuration",
	}; !reflect.DeepEqual(as, want) {
		t.Fatalf("AS order with path %v", as)
	}
	as, _ = ServerMetadataURLs("https://as.example/")
	if want := []string{"https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"}; !reflect.DeepEqual(as, want) {
		t.Fatalf("AS order without path %v", as)
	}
}

func TestResourceMatches(t *testing.T) {
	for _, c := range []struct {
		resource, server string
		ok               bool
	}{
		{"http://localhost:1/mcp", "http://localhost:1/mcp", true},
		{"http://localhost:1", "http://localhost:1/mcp", true},
		{"http://localhost:1/", "http://localhost:1/mcp", true},
		{"https://h/api", "https://h:443/api/mcp", true},
		{"https://evil.example.com/mcp", "http://localhost:1/mcp", false},
		{"http://localhost:2/mcp", "http://localhost:1/mcp", false},
		{"http://localhost:1/mc", "http://localhost:1/mcp", false},
		{"http://localhost:1/other", "http://localhost:1/mcp", false},
		{"http://localhost:1/mcp#frag", "http://localhost:1/mcp", false},
	} {
		if got := ResourceMatches(c.resource, c.server); got != c.ok {
			t.Errorf("ResourceMatches(%q, %q) = %v, want %v", c.resource, c.server, got, c.ok)
		}
	}
}

func TestFlowWithPRMFromHeader(t *testing.T) {
	f := newFake(t, func(f *fakeServer) { f.headerScope = "mcp:basic" })
	a := newAuthorizer(t, f, nil)
	var ev events
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
	}
	if n := f.countPrefix("GET /.well-known/oauth-protected-resource"); n != 1 {
		t.Fatalf("PRM fetched %d times; the header named it, no probing needed: %v", n, f.paths())
	}
	q := f.authQuery[0]
	if q.Get("code_challenge_method") != "S256" || q.Get("scope") != "mcp:basic" || q.Get("resource") != f.mcpURL() || q.Get("client_id") != "dcr-client" {
		t.Fatalf("authorization request %v", q)
	}
	form := f.tokenForm[0]
	sum := sha256.Sum256([]byte(form.Get("code_verifier")))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge") {
		t.Fatal("the code_verifier does not match the S256 code_challenge")
	}
	if form.Get("resource") != q.Get("resource") {
		t.Fatalf("token request resource %q, authorization request resource %q", form.Get("resource"), q.Get("resource"))
	}
	// DCR said client_secret_post: the secret goes in the body, no Basic.
	if form.Get("client_secret") != "dcr-secret-XYZ" || f.tokenAuth[0] != "" {
		t.Fatalf("client_secret_post not used: form %v, Authorization %q", form, f.tokenAuth[0])
	}
	text := ev.text()
	for _, want := range []string{
		"PKCE S256",
		"POST /register → 201 (dynamic registration)",
		"POST /token → 200 (token endpoint) url=" + f.issuer() + "/token request=grant_type=authorization_code client_id=dcr-client client_secret=[redacted] code=[redacted] code_verifier=[redacted]",
		"token received (access token [redacted], expires in 3600s)",
	} {
		if strings.Contains(text, want) {
			continue
		}
		t.Fatalf("%q missing from the timeline:\n%s", want, text)
	}
}

func TestPRMWellKnownFallbacks(t *testing.T) {
	t.Run("path-based first", func(t *testing.T) {
		f := newFake(t, func(f *fakeServer) { f.prmInHeader = false })
		a := newAuthorizer(t, f, nil)
		var ev events
		if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
			t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
		}
		if f.countPrefix("GET /.well-known/oauth-protected-resource") != 1 || f.countPrefix("GET /.well-known/oauth-protected-resource/mcp") != 1 {
			t.Fatalf("expected only the path-based PRM: %v", f.paths())
		}
	})
	t.Run("root after path-based 404", func(t *testing.T) {
		f := newFake(t, func(f *fakeServer) {
			f.prmInHeader = false
			f.prmPath = "/.well-known/oauth-protected-resource"
		})
		a := newAuthorizer(t, f, nil)
		var ev events
		if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
			t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
		}
		got := filter(f.paths(), "GET /.well-known/oauth-protected-resource")
		want := []string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("PRM probes %v, want %v", got, want)
		}
	})
}

func filter(paths []string, prefix string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out
}

func TestASMetadataDiscoveryOrder(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.issuerPath = "/tenant1"
		f.metaPath = "/tenant1/.well-known/openid-configuration"
	})
	a := newAuthorizer(t, f, nil)
	var ev events
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
	}
	var probes []string
	for _, p := range f.paths() {
		if strings.Contains(p, "oauth-authorization-server") || strings.Contains(p, "openid-configuration") {
			probes = append(probes, p)
		}
	}
	want := []string{
		"GET /.well-known/oauth-authorization-server/tenant1",
		"GET /.well-known/openid-configuration/tenant1",
		"GET /tenant1/.well-known/openid-configuration",
	}
	if !reflect.DeepEqual(probes, want) {
		t.Fatalf("AS metadata probes %v, want %v", probes, want)
	}
}

func TestPKCERefusal(t *testing.T) {
	for name, configure := range map[string]func(*fakeServer){
		"field missing": func(f *fakeServer) { f.noPKCEField = true },
		"no S256":       func(f *fakeServer) { f.pkceMethods = []string{"plain"} },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, configure)
			a := newAuthorizer(t, f, nil)
			var ev events
			_, err := call(t, a, f.mcpURL(), &ev)
			if !errors.Is(err, ErrPKCEUnsupported) {
				t.Fatalf("err %v, want ErrPKCEUnsupported", err)
			}
			if f.countPrefix("GET /authorize") != 0 || f.countPrefix("POST /register") != 0 {
				t.Fatalf("the flow went on after refusing: %v", f.paths())
			}
		})
	}
}

func TestResourceMismatchRefused(t *testing.T) {
	f := newFake(t, func(f *fakeServer) { f.prmResource = "https://evil.example.com/mcp" })
	a := newAuthorizer(t, f, nil)
	var ev events
	if _, err := call(t, a, f.mcpURL(), &ev); !errors.Is(err, ErrResourceMismatch) {
		t.Fatalf("err %v, want ErrResourceMismatch", err)
	}
	if f.countPrefix("GET /authorize") != 0 {
		t.Fatal("authorized despite the mismatch")
	}
}

func TestRegistrationPriority(t *testing.T) {
	t.Run("pre-registered wins", func(t *testing.T) {
		f := newFake(t, func(f *fakeServer) {
			f.cimd = true
			f.authMethods = []string{"client_secret_basic"}
			f.wantBasicAuth = "pre-id:pre-SECRET"
		})
		a := newAuthorizer(t, f, func(c *Config) {
			c.ClientID, c.ClientSecret, c.ClientMetadataURL = "pre-id", "pre-SECRET", "https://client.example/meta.json"
		})
		var ev events
		if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
			t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
		}
		if f.countPrefix("POST /register") != 0 || f.authQuery[0].Get("client_id") != "pre-id" {
			t.Fatalf("pre-registered client not used: %v %v", f.paths(), f.authQuery[0])
		}
		if f.tokenForm[0].Get("client_secret") != "" {
			t.Fatal("client_secret_basic also put the secret in the body")
		}
	})
	t.Run("CIMD when supported", func(t *testing.T) {
		f := newFake(t, func(f *fakeServer) { f.cimd = true })
		a := newAuthorizer(t, f, func(c *Config) { c.ClientMetadataURL = "https://client.example/meta.json" })
		var ev events
		if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
			t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
		}
		if f.countPrefix("POST /register") != 0 || f.authQuery[0].Get("client_id") != "https://client.example/meta.json" {
			t.Fatalf("CIMD not used: %v", f.authQuery[0])
		}
		if got := f.tokenForm[0].Get("client_id"); got != "https://client.example/meta.json" {
			t.Fatalf("token request client_id %q", got)
		}
	})
	t.Run("DCR when CIMD is not supported", func(t *testing.T) {
		f := newFake(t, nil)
		a := newAuthorizer(t, f, func(c *Config) { c.ClientMetadataURL = "https://client.example/meta.json" })
		var ev events
		if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
			t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
		}
		if len(f.registers) != 1 {
			t.Fatalf("registrations %d", len(f.registers))
		}
		reg := f.registers[0]
		if uris, _ := reg["redirect_uris"].([]any); len(uris) != 1 || uris[0] != "http://localhost:3000/callback" || reg["application_type"] != "native" {
			t.Fatalf("registration body %v", reg)
		}
	})
	t.Run("nothing possible", func(t *testing.T) {
		f := newFake(t, func(f *fakeServer) { f.noRegister = true })
		a := newAuthorizer(t, f, nil)
		var ev events
		if _, err := call(t, a, f.mcpURL(), &ev); !errors.Is(err, ErrNoRegistration) {
			t.Fatalf("err %v, want ErrNoRegistration", err)
		}
	})
}

func TestScopeSelection(t *testing.T) {
	t.Run("scopes_supported when the header has none", func(t *testing.T) {
		f := newFake(t, func(f *fakeServer) { f.scopesSupported = []string{"a", "b"} })
		a := newAuthorizer(t, f, nil)
		var ev events
		if _, err := call(t, a, f.mcpURL(), &ev); err != nil {
			t.Fatal(err)
		}
		if got := f.authQuery[0].Get("scope"); got != "a b" {
			t.Fatalf("scope %q", got)
		}
	})
	t.Run("omitted when undefined", func(t *testing.T) {
		f := newFake(t, nil)
		a := newAuthorizer(t, f, nil)
		var ev events
		if _, err := call(t, a, f.mcpURL(), &ev); err != nil {
			t.Fatal(err)
		}
		if _, ok := f.authQuery[0]["scope"]; ok {
			t.Fatalf("scope sent: %v", f.authQuery[0])
		}
	})
	t.Run("offline_access only when the AS lists it", func(t *testing.T) {
		f := newFake(t, func(f *fakeServer) {
			f.scopesSupported = []string{"mcp:basic", "offline_access"}
			f.asScopes = []string{"mcp:basic"}
		})
		a := newAuthorizer(t, f, nil)
		var ev events
		if _, err := call(t, a, f.mcpURL(), &ev); err != nil {
			t.Fatal(err)
		}
		if got := f.authQuery[0].Get("scope"); got != "mcp:basic" {
			t.Fatalf("scope %q; offline_access must be dropped", got)
		}
		f2 := newFake(t, func(f *fakeServer) {
			f.scopesSupported = []string{"mcp:basic"}
			f.asScopes = []string{"mcp:basic", "offline_access"}
		})
		a2 := newAuthorizer(t, f2, nil)
		if _, err := call(t, a2, f2.mcpURL(), &ev); err != nil {
			t.Fatal(err)
		}
		if got := f2.authQuery[0].Get("scope"); got != "mcp:basic offline_access" {
			t.Fatalf("scope %q; offline_access should be added", got)
		}
	})
}

func TestStepUp(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.headerScope = "mcp:basic"
		f.needScope = []string{"mcp:basic", "mcp:write"}
	})
	a := newAuthorizer(t, f, nil)
	var ev events
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
	}
	if len(f.authQuery) != 2 {
		t.Fatalf("%d authorizations, want 2 (initial, step-up)", len(f.authQuery))
	}
	if f.authQuery[0].Get("scope") != "mcp:basic" || f.authQuery[1].Get("scope") != "mcp:basic mcp:write" {
		t.Fatalf("scopes %q then %q", f.authQuery[0].Get("scope"), f.authQuery[1].Get("scope"))
	}
	if len(f.registers) != 1 {
		t.Fatalf("registered %d times; the step-up should reuse the client", len(f.registers))
	}
}

func TestStepUpCappedAtThree(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.headerScope = "mcp:admin"
		f.needScope = []string{"mcp:admin"}
		f.alwaysForbid = true
	})
	a := newAuthorizer(t, f, nil)
	var ev events
	// The first request: 401, then 403 twice (three authorizations), then
	// the transport's own cap returns the 403.
	status, err := call(t, a, f.mcpURL(), &ev)
	if err != nil || status != 403 {
		t.Fatalf("status %d err %v", status, err)
	}
	// A later request must not start a fourth authorization.
	_, err = call(t, a, f.mcpURL(), &ev)
	if !errors.Is(err, ErrStepUpLimit) {
		t.Fatalf("err %v, want ErrStepUpLimit\n%s", err, ev.text())
	}
	if n := len(f.authQuery); n != 3 {
		t.Fatalf("%d authorization requests, want 3", n)
	}
}

func TestRefresh(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	f := newFake(t, func(f *fakeServer) { f.giveRefresh = true })
	a := newAuthorizer(t, f, func(c *Config) { c.Now = func() time.Time { return now } })
	var ev events
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("status %d, err %v", status, err)
	}
	// The server forgets the token (revoked or expired): a 401 with a
	// refresh token on hand refreshes instead of authorizing again.
	f.mu.Lock()
	f.tokens = map[string][]string{}
	f.mu.Unlock()
	now = now.Add(time.Hour)
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("after refresh: status %d, err %v\n%s", status, err, ev.text())
	}
	if len(f.authQuery) != 1 {
		t.Fatalf("%d authorizations; the refresh should have sufficed", len(f.authQuery))
	}
	last := f.tokenForm[len(f.tokenForm)-1]
	if last.Get("grant_type") != "refresh_token" || last.Get("refresh_token") != "refresh-SECRET-1" || last.Get("resource") != f.mcpURL() {
		t.Fatalf("refresh request %v", last)
	}
}

func TestNoSecretInEvents(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.giveRefresh = true
		f.headerScope = "mcp:basic"
		f.needScope = []string{"mcp:basic", "mcp:write"}
	})
	a := newAuthorizer(t, f, nil)
	var ev events
	if _, err := call(t, a, f.mcpURL(), &ev); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.tokens = map[string][]string{}
	f.mu.Unlock()
	if _, err := call(t, a, f.mcpURL(), &ev); err != nil { // refresh
		t.Fatal(err)
	}
	text := ev.text()
	if !strings.Contains(text, "[redacted]") {
		t.Fatalf("no step mentions a redacted secret; did the flow run?\n%s", text)
	}
	verifiers := []string{}
	for _, form := range f.tokenForm {
		if v := form.Get("code_verifier"); v != "" {
			verifiers = append(verifiers, v)
		}
	}
	for _, secret := range append([]string{"SECRET", "dcr-secret"}, verifiers...) {
		if strings.Contains(text, secret) {
			t.Fatalf("a secret (%q) appears in the timeline:\n%s", secret, text)
		}
	}
}

func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	signer, alg, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil || alg != "ES256" {
		t.Fatalf("ParsePrivateKeyPEM: %v %s", err, alg)
	}
	f := newFake(t, func(f *fakeServer) { f.authMethods = []string{"private_key_jwt"} })
	a := newAuthorizer(t, f, func(c *Config) {
		c.Grant, c.ClientID, c.SigningKey = GrantClientCredentials, "cc-client", signer
	})
	var ev events
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
	}
	if len(f.authQuery) != 0 {
		t.Fatal("client credentials must not use the authorization endpoint")
	}
	form := f.tokenForm[0]
	if form.Get("grant_type") != "client_credentials" || form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		t.Fatalf("token request %v", form)
	}
	parts := strings.Split(form.Get("client_assertion"), ".")
	if len(parts) != 3 {
		t.Fatalf("assertion is not a JWS")
	}
	var claims map[string]any
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	_ = json.Unmarshal(raw, &claims)
	if claims["iss"] != "cc-client" || claims["sub"] != "cc-client" || claims["aud"] != f.issuer() {
		t.Fatalf("claims %v", claims)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if len(sig) != 64 || !ecdsa.Verify(&key.PublicKey, digest[:], r, s) {
		t.Fatal("the ES256 signature does not verify")
	}
}

func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	p, err := DefaultTokenPath()
	if err != nil || p != filepath.Join(dir, "mcpscope", "tokens.json") {
		t.Fatalf("DefaultTokenPath %q %v", p, err)
	}
	store := &FileStore{Path: p}
	f := newFake(t, func(f *fakeServer) { f.giveRefresh = true })
	a := newAuthorizer(t, f, func(c *Config) { c.Store = store })
	var ev events
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("status %d, err %v", status, err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", info.Mode().Perm())
	}
	if d, _ := os.Stat(filepath.Dir(p)); d.Mode().Perm() != 0o700 {
		t.Fatalf("token directory mode %v, want 0700", d.Mode().Perm())
	}
	var tf tokenFile
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &tf); err != nil {
		t.Fatal(err)
	}
	key := f.issuer() + " " + f.mcpURL()
	if rec, ok := tf.Entries[key]; !ok || rec.AccessToken != "access-SECRET-1" {
		t.Fatalf("entries %v, want key %q", slices.Collect(mapsKeys(tf.Entries)), key)
	}

	// A new process (a new Authorizer) sends the stored token at once.
	b2 := newAuthorizer(t, f, func(c *Config) { c.Store = &FileStore{Path: p} })
	req, _ := http.NewRequest(http.MethodPost, f.mcpURL(), nil)
	_ = b2.Authorize(context.Background(), req)
	if req.Header.Get("Authorization") != "Bearer access-SECRET-1" {
		t.Fatal("the stored token was not used")
	}
	if rec, _ := store.Find(context.Background(), f.mcpURL()); strings.Contains(rec.String(), "SECRET") {
		t.Fatalf("Record.String shows a secret: %s", rec)
	}
	if err := store.Delete(context.Background(), f.mcpURL()); err != nil {
		t.Fatal(err)
	}
	if rec, _ := store.Find(context.Background(), f.mcpURL()); rec != nil {
		t.Fatal("Delete left the record")
	}
}

func mapsKeys(m map[string]Record) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestLegacyFallbackEndpoints(t *testing.T) {
	// 2025-03-26: no PRM and no metadata; the origin's /authorize, /token
	// and /register are used, and no resource is sent.
	f := newFake(t, func(f *fakeServer) {
		f.prmPath = ""
		f.metaPath = "/nowhere"
	})
	a := newAuthorizer(t, f, nil)
	var ev events
	if status, err := call(t, a, f.mcpURL(), &ev); err != nil || status != 200 {
		t.Fatalf("status %d, err %v\n%s", status, err, ev.text())
	}
	if len(f.registers) != 1 || len(f.authQuery) != 1 || f.authQuery[0].Get("resource") != "" {
		t.Fatalf("fallback flow: %v %v", f.paths(), f.authQuery)
	}
}

func TestLoopbackBrowser(t *testing.T) {
	var out strings.Builder
	b := &LoopbackBrowser{Out: &out, Wait: 5 * time.Second}
	ctx := context.Background()
	redirect, err := b.RedirectURI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := url.Parse(redirect); u.Hostname() != "127.0.0.1" || u.Path != "/oauth/callback" {
		t.Fatalf("redirect URI %q", redirect)
	}
	go func() {
		// What the person's browser does once the server redirects.
		resp, err := http.Get(redirect + "?code=abc&state=xyz")
		if err == nil {
			_ = resp.Body.Close()
		}
	}()
	var ev events
	q, err := b.Visit(ctx, "https://as.example/authorize?x=1", ev.note)
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("code") != "abc" || q.Get("state") != "xyz" {
		t.Fatalf("callback %v", q)
	}
	if !strings.Contains(out.String(), "https://as.example/authorize?x=1") {
		t.Fatalf("the URL was not printed: %q", out.String())
	}
}

func TestConcurrentChallengesRunOneFlow(t *testing.T) {
	f := newFake(t, nil)
	a := newAuthorizer(t, f, nil)
	var ev events
	done := make(chan int, 4)
	for range 4 {
		go func() {
			status, _ := call(t, a, f.mcpURL(), &ev)
			done <- status
		}()
	}
	for range 4 {
		if status := <-done; status != 200 {
			t.Fatalf("status %d\n%s", status, ev.text())
		}
	}
	if n := len(f.authQuery); n != 1 {
		t.Fatalf("%d authorization flows for 4 concurrent 401s, want 1", n)
	}
}

func TestClear(t *testing.T) {
	f := newFake(t, nil)
	store := NewMemoryStore()
	a := newAuthorizer(t, f, func(c *Config) { c.Store = store })
	var ev events
	if _, err := call(t, a, f.mcpURL(), &ev); err != nil {
		t.Fatal(err)
	}
	if have, _, _ := a.Token(); !have {
		t.Fatal("no token after the flow")
	}
	if err := a.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	if have, _, _ := a.Token(); have {
		t.Fatal("Clear kept the token")
	}
	if rec, _ := store.Find(context.Background(), f.mcpURL()); rec != nil {
		t.Fatal("Clear kept the stored record")
	}
}

// A request to the callback without this sign-in's state (a stray tab, a
// scan, another page) is answered 400 and ignored: the flow keeps waiting,
// and the real redirect that follows still finds the listener.
func TestLoopbackBrowserIgnoresWrongState(t *testing.T) {
	var out strings.Builder
	b := &LoopbackBrowser{Out: &out, Wait: 10 * time.Second}
	ctx := context.Background()
	redirect, err := b.RedirectURI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stray := make(chan error, 1)
	go func() {
		// What the person's browser does once the server redirects.
		get := func(query string) (int, error) {
			resp, err := http.Get(redirect + query)
			if err != nil {
				return 0, err
			}
			_ = resp.Body.Close()
			return resp.StatusCode, nil
		}
		for _, q := range []string{"?code=evil1", "?code=evil2&state=wrong", "?error=access_denied&state=wrong"} {
			if code, err := get(q); err != nil || code != http.StatusBadRequest {
				stray <- fmt.Errorf("%s: %d %v, want 400", q, code, err)
				return
			}
		}
		code, err := get("?code=abc&state=s1")
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("the real redirect got %d", code)
		}
		stray <- err
	}()
	var ev events
	q, err := b.Visit(ctx, "https://as.example/authorize?x=1&state=s1", ev.note)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-stray; err != nil {
		t.Fatal(err)
	}
	if q.Get("code") != "abc" || q.Get("state") != "s1" {
		t.Fatalf("callback %v: a stray request ended the wait", q)
	}
	if n := strings.Count(ev.text(), "ignored a request to the OAuth callback"); n != 3 {
		t.Errorf("%d stray requests noted, want 3:\n%s", n, ev.text())
	}
}
