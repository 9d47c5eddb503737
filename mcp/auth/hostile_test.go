package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// recordingBrowser is a Browser that only records where it was sent.
type recordingBrowser struct {
	mu      sync.Mutex
	visited []string
}

func (b *recordingBrowser) RedirectURI(context.Context) (string, error) {
	return "http://127.0.0.1:1/cb", nil
}

func (b *recordingBrowser) Visit(_ context.Context, u string, _ func(mcp.TransportEvent)) (url.Values, error) {
	b.mu.Lock()
	b.visited = append(b.visited, u)
	b.mu.Unlock()
	return nil, errors.New("recording only")
}

func hostileFlow(t *testing.T, h *mcptest.Hostile, b Browser) (error, *events) {
	t.Helper()
	a, err := New(Config{ServerURL: h.URL(), Browser: b, HTTPClient: h.Srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	var ev events
	_, err = call(t, a, h.URL(), &ev)
	return err, &ev
}

// Finding 1: a server's authorization_endpoint of file:, javascript:,
// smb: or vscode: must never reach the person's browser.
func TestHostileAuthorizationEndpointSchemeIsRefused(t *testing.T) {
	for _, ep := range []string{"file:///etc/passwd", "javascript:alert(document.cookie)", "smb://evil.example/share", "vscode://evil.ext/run"} {
		h := mcptest.StartHostile(t, &mcptest.Hostile{AuthorizationEndpoint: ep}, false)
		b := &recordingBrowser{}
		err, ev := hostileFlow(t, h, b)
		if len(b.visited) != 0 {
			t.Errorf("%s: the browser was sent to %q", ep, b.visited)
		}
		if !errors.Is(err, ErrInsecureEndpoint) {
			t.Errorf("%s: err = %v, want ErrInsecureEndpoint\n%s", ep, err, ev.text())
		}
	}
}

// Finding 8: the token and registration endpoints over plain http to a
// host that is not loopback are refused before anything is POSTed.
func TestHostilePlainHTTPEndpointsAreRefused(t *testing.T) {
	for _, c := range []struct{ authz, token, reg string }{
		{authz: "http://as.evil.example/authorize"},
		{authz: "https://as.example/authorize", token: "http://as.evil.example/token"},
		{authz: "https://as.example/authorize", reg: "http://as.evil.example/register"},
	} {
		h := mcptest.StartHostile(t, &mcptest.Hostile{AuthorizationEndpoint: c.authz, TokenEndpoint: c.token, RegistrationEndpoint: c.reg}, false)
		b := &recordingBrowser{}
		err, ev := hostileFlow(t, h, b)
		if !errors.Is(err, ErrInsecureEndpoint) || !strings.Contains(err.Error(), "not https") {
			t.Errorf("%+v: err = %v\n%s", c, err, ev.text())
		}
		if len(b.visited) != 0 {
			t.Errorf("%+v: the browser was sent to %q", c, b.visited)
		}
		for _, r := range h.Requests() {
			if r.Path == "/register" || r.Path == "/token" {
				t.Errorf("%+v: %s %s reached", c, r.Method, r.Path)
			}
		}
	}
}

// An endpoint on another origin than the issuer is allowed (https) but
// shown in the flow's events.
func TestCrossOriginEndpointIsShown(t *testing.T) {
	h := mcptest.StartHostile(t, &mcptest.Hostile{AuthorizationEndpoint: "https://elsewhere.example/authorize"}, false)
	b := &recordingBrowser{}
	_, ev := hostileFlow(t, h, b)
	if !strings.Contains(ev.text(), "another origin") || !strings.Contains(ev.text(), "elsewhere.example") {
		t.Fatalf("no cross-origin notice:\n%s", ev.text())
	}
	if len(b.visited) != 1 {
		t.Fatalf("an https endpoint on another origin should still be offered: %q", b.visited)
	}
}

// The loopback browser opens nothing without consent, and nothing that is
// not http(s) even with it.
func TestLoopbackBrowserOpensOnlyWithConsent(t *testing.T) {
	var started []string
	oldO, oldS := openurl.Opener, openurl.Start
	t.Cleanup(func() { openurl.Opener, openurl.Start = oldO, oldS })
	openurl.Opener = func() (string, error) { return "/bin/fake-open", nil }
	openurl.Start = func(_, raw string) error { started = append(started, raw); return nil }

	visit := func(b *LoopbackBrowser, authURL string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		var out strings.Builder
		b.Out = &out
		_, err := b.Visit(ctx, authURL, nil)
		return err
	}
	const good = "https://as.example/authorize?x=1"
	_ = visit(&LoopbackBrowser{}, good)
	if len(started) != 0 {
		t.Fatalf("opened without consent: %q", started)
	}
	var asked []string
	_ = visit(&LoopbackBrowser{Confirm: func(_ context.Context, u string) (bool, error) { asked = append(asked, u); return false, nil }}, good)
	if len(asked) != 1 || len(started) != 0 {
		t.Fatalf("declined: asked %q, opened %q", asked, started)
	}
	_ = visit(&LoopbackBrowser{Confirm: func(context.Context, string) (bool, error) { return true, nil }}, good)
	if len(started) != 1 || started[0] != good {
		t.Fatalf("agreed: opened %q", started)
	}
	err := visit(&LoopbackBrowser{Open: true}, "file:///etc/passwd")
	if !errors.Is(err, openurl.ErrNotWeb) || len(started) != 1 {
		t.Fatalf("file: URL with --open-browser: err %v, opened %q", err, started)
	}
}

// The OAuth requests (secrets, codes, verifiers in their bodies) follow a
// redirect only within their origin.
func TestOAuthRequestsDoNotFollowRedirectsAway(t *testing.T) {
	catcher := mcptest.StartHostile(t, &mcptest.Hostile{}, false)
	srv := mcptest.StartHostile(t, &mcptest.Hostile{RedirectTo: catcher.URL()}, false)
	a, _ := New(Config{ServerURL: srv.URL()})
	req, _ := http.NewRequest(http.MethodPost, srv.URL(), strings.NewReader(`client_secret=S`))
	resp, err := a.httpClient(nil).Do(req)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("followed to another origin: %s", resp.Status)
	}
	if !errors.Is(err, ErrInsecureEndpoint) || len(catcher.Requests()) != 0 {
		t.Fatalf("err %v, catcher saw %d", err, len(catcher.Requests()))
	}
}
