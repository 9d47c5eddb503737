package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// Browser is the person's part of the authorization code flow: it says
// where the authorization server must redirect, sends the person to the
// authorization URL, and returns the redirect's query parameters (code,
// state, iss, or error).
type Browser interface {
	RedirectURI(ctx context.Context) (string, error)
	Visit(ctx context.Context, authURL string, note func(ev mcp.TransportEvent)) (url.Values, error)
}

// LoopbackBrowser listens on a loopback address for the redirect (RFC 8252
// §7.3), prints the authorization URL and waits. It opens a browser (with
// package openurl: http and https only) only with the person's consent:
// when Confirm says yes after showing the URL, or when Open says the user
// asked for it on the command line. The server chose that URL.
type LoopbackBrowser struct {
	// Addr is the listening address; "127.0.0.1:0" (any free port) when
	// empty. A fixed port helps with clients registered in advance.
	Addr string
	// Path is the callback path; "/oauth/callback" when empty.
	Path string
	// Out receives the printed URL; os.Stderr when nil. A full-screen UI
	// sets io.Discard: the URL is also in the "oauth" event.
	Out io.Writer
	// Open opens the printed URL without asking (the command line's
	// --open-browser: the user agreed in advance).
	Open bool
	// Confirm, when set, shows the URL to the person and reports whether
	// they agree to open it (the TUI's confirmation). Declining is not an
	// error: the URL stays printed and the flow keeps waiting.
	Confirm func(ctx context.Context, authURL string) (bool, error)
	// Wait bounds how long the person has; 5 minutes when zero.
	Wait time.Duration

	mu sync.Mutex
	ln net.Listener
}

func (b *LoopbackBrowser) path() string {
	if b.Path == "" {
		return "/oauth/callback"
	}
	return b.Path
}

// RedirectURI starts listening (once) and returns the callback URL.
func (b *LoopbackBrowser) RedirectURI(ctx context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ln == nil {
		addr := b.Addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", addr)
		if err != nil {
			return "", fmt.Errorf("cannot listen on %s for the OAuth callback: %w", addr, err)
		}
		b.ln = ln
	}
	return b.redirectTo(b.ln), nil
}

// redirectTo is the callback URL on ln, under the host name the user gave
// ("localhost" stays a name: an authorization server compares the
// redirect URI it registered as a string).
func (b *LoopbackBrowser) redirectTo(ln net.Listener) string {
	host := ln.Addr().String()
	if name, _, err := net.SplitHostPort(b.Addr); err == nil && strings.EqualFold(name, "localhost") {
		if _, port, err := net.SplitHostPort(host); err == nil {
			host = net.JoinHostPort(name, port)
		}
	}
	return "http://" + host + b.path()
}

// Visit prints the URL, opens a browser, and waits for the callback.
func (b *LoopbackBrowser) Visit(ctx context.Context, authURL string, note func(mcp.TransportEvent)) (url.Values, error) {
	if _, err := b.RedirectURI(ctx); err != nil {
		return nil, err
	}
	b.mu.Lock()
	ln := b.ln
	b.ln = nil // the listener is used once; the next flow listens again
	b.mu.Unlock()
	defer func() { _ = ln.Close() }() // used once

	out := b.Out
	if out == nil {
		out = os.Stderr
	}
	// The handler notes a stray request on a goroutine of the server's.
	var noteMu sync.Mutex
	note = lockedNote(&noteMu, note)
	// The redirect that ends the sign-in carries the request's state; any
	// other request to the callback (another page, a scan, a stale tab) is
	// answered and ignored, so that the real redirect still finds the
	// listener.
	want := ""
	if u, err := url.Parse(authURL); err == nil {
		want = u.Query().Get("state")
	}
	if _, err := openurl.Check(authURL); err != nil {
		err = fmt.Errorf("not opening the authorization URL: %w", err)
		noteFunc(note).fail("authorization URL refused", err)
		return nil, err
	}
	safeURL := termsafe.String(authURL)
	_, _ = fmt.Fprintf(out, "\nAuthorize mcpscope in your browser (host %s):\n\n  %s\n\nWaiting for the redirect to %s …\n", openurl.Host(authURL), safeURL, b.redirectTo(ln))
	opened, why := "", "not opened: pass --open-browser to open it, or open it yourself"
	agreed := b.Open
	if !agreed && b.Confirm != nil {
		ok, err := b.Confirm(ctx, authURL)
		if err != nil {
			return nil, fmt.Errorf("asking whether to open the authorization URL: %w", err)
		}
		agreed, why = ok, "not opened: you declined; open it yourself to authorize"
	}
	if agreed {
		if opener, err := openurl.Open(authURL); err == nil {
			opened, why = opener, ""
		} else {
			why = err.Error()
		}
	}
	if why != "" && b.Open {
		_, _ = fmt.Fprintf(out, "(%s)\n", why)
	}
	noteFunc(note).step("waiting for the browser's redirect: open the url to authorize",
		field("url", authURL), field("host", openurl.Host(authURL)), field("listening", ln.Addr().String()),
		field("opened_with", opened), field("not_opened", why))

	wait := b.Wait
	if wait <= 0 {
		wait = 5 * time.Minute
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	got := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != b.path() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if got := r.URL.Query().Get("state"); want != "" && got != want {
			why := "its state does not match this sign-in's"
			if got == "" {
				why = "it carries no state"
			}
			noteFunc(note).step("ignored a request to the OAuth callback ("+why+": not the authorization server's redirect for this sign-in); still waiting",
				field("from", r.RemoteAddr), field("state", got), field("answer", "400 Bad Request"))
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "<!doctype html><title>mcpscope</title><p>This is not the answer to mcpscope's sign-in ("+
				html.EscapeString(why)+"). mcpscope keeps waiting for the authorization server's redirect.</p>")
			return
		}
		if e := r.URL.Query().Get("error"); e != "" {
			_, _ = io.WriteString(w, "<!doctype html><title>mcpscope</title><p>The authorization server refused: "+
				html.EscapeString(e+" "+r.URL.Query().Get("error_description"))+". You can close this window; mcpscope shows the details.</p>")
		} else {
			_, _ = io.WriteString(w, "<!doctype html><title>mcpscope</title><p>Authorization received. You can close this window and return to mcpscope.</p>")
		}
		select {
		case got <- r.URL.Query():
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }() // the answer (or its absence) is already in hand
	select {
	case q := <-got:
		noteFunc(note).step("redirect received on the loopback listener")
		return q, nil
	case <-ctx.Done():
		if parent.Err() != nil {
			return nil, fmt.Errorf("stopped waiting for the redirect on %s: %w", ln.Addr(), parent.Err())
		}
		return nil, fmt.Errorf("%w within %s", errNoRedirect, wait)
	}
}

// lockedNote is note called under mu, from whichever goroutine.
func lockedNote(mu *sync.Mutex, note func(mcp.TransportEvent)) func(mcp.TransportEvent) {
	if note == nil {
		return nil
	}
	return func(ev mcp.TransportEvent) {
		mu.Lock()
		defer mu.Unlock()
		note(ev)
	}
}

// errNoRedirect: the browser's redirect did not come within the wait.
var errNoRedirect = errors.New("no redirect arrived")

// HeadlessBrowser completes the authorization without a person: it GETs
// the authorization URL, does not follow the redirect, and reads the
// parameters from its Location header. It works with authorization servers
// that approve at once, such as the conformance suite's mocks.
type HeadlessBrowser struct {
	// Redirect is the redirect URI to register and send;
	// "http://localhost:3000/callback" when empty. Nothing listens there.
	Redirect string
	// HTTPClient makes the request; a 30 s client when nil. Its redirect
	// policy is overridden.
	HTTPClient *http.Client
}

// RedirectURI returns the configured redirect URI.
func (h *HeadlessBrowser) RedirectURI(context.Context) (string, error) {
	if h.Redirect == "" {
		return "http://localhost:3000/callback", nil
	}
	return h.Redirect, nil
}

// Visit GETs authURL and returns the query of the redirect it answers with.
func (h *HeadlessBrowser) Visit(ctx context.Context, authURL string, note func(mcp.TransportEvent)) (url.Values, error) {
	hc := http.Client{Timeout: 30 * time.Second}
	if h.HTTPClient != nil {
		hc = *h.HTTPClient
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, fmt.Errorf("the authorization URL is not usable: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET of the authorization URL failed: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
		err := fmt.Errorf("the authorization endpoint answered %s without a redirect; headless authorization needs a server that approves at once", resp.Status)
		noteFunc(note).fail(fmt.Sprintf("GET %s → %d (no redirect)", pathOf(authURL), resp.StatusCode), err)
		return nil, err
	}
	u, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("the authorization redirect %q is not a URL: %w", loc, err)
	}
	q := u.Query()
	noteFunc(note).step(fmt.Sprintf("GET %s → %d (redirect read headlessly, not followed)", pathOf(authURL), resp.StatusCode),
		field("redirect_to", u.Scheme+"://"+u.Host+u.Path), field("code", ifSet(q.Get("code"))), field("error", q.Get("error")))
	return q, nil
}
