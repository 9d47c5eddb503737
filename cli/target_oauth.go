package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/auth"
	"github.com/spf13/pflag"
)

// oauthFlags configure the OAuth 2.1 flow run when a remote server answers
// 401 (mcp-protocol.md §3.5). Tokens are kept in a 0600 file under the
// user's state directory and never printed.
type oauthFlags struct {
	clientID          string
	clientSecretEnv   string
	clientMetadataURL string
	callback          string
	noOAuth           bool
	openBrowser       bool
}

func (o *oauthFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.clientID, "client-id", "", "for a URL target: a pre-registered OAuth client id (default: a Client ID Metadata Document or dynamic registration)")
	fs.StringVar(&o.clientSecretEnv, "client-secret-env", "", "for a URL target: read the OAuth client secret from this environment variable")
	fs.StringVar(&o.clientMetadataURL, "client-metadata-url", "", "for a URL target: the https URL of this client's Client ID Metadata Document")
	fs.StringVar(&o.callback, "oauth-callback", "", "for a URL target: where the OAuth redirect comes back: a loopback HOST:PORT, or the whole redirect URI a pre-registered client has (http://localhost:8765/callback) (default 127.0.0.1 on a free port, /oauth/callback)")
	fs.BoolVar(&o.noOAuth, "no-oauth", false, "for a URL target: do not run OAuth on 401; report it instead")
	fs.BoolVar(&o.openBrowser, "open-browser", false, "for a URL target, headless: open the OAuth authorization URL (http/https only) in a browser instead of only printing it; the TUI asks each time")
}

// oauthFlagNames are the flags that only make sense for a URL target.
var oauthFlagNames = []string{"client-id", "client-secret-env", "client-metadata-url", "oauth-callback", "no-oauth", "open-browser"}

// openConfirmer is how the TUI asks the person before a URL is opened. The
// authorizer is built with the target, before the UI exists, so runTUI
// installs the question once it does (set) and removes it when the UI
// ends; until then, and after, nothing is opened.
type openConfirmer struct {
	mu  sync.Mutex
	ask func(ctx context.Context, url string) (bool, error)
}

func (c *openConfirmer) set(ask func(ctx context.Context, url string) (bool, error)) {
	c.mu.Lock()
	c.ask = ask
	c.mu.Unlock()
}

// confirm asks; no question installed (or no confirmer) means no.
func (c *openConfirmer) confirm(ctx context.Context, u string) (bool, error) {
	if c == nil {
		return false, nil
	}
	c.mu.Lock()
	ask := c.ask
	c.mu.Unlock()
	if ask == nil {
		return false, nil
	}
	return ask(ctx, u)
}

// authorizer builds the OAuth authorizer for a URL target, or nil when the
// user gave credentials of their own (--bearer, an Authorization header) or
// --no-oauth. In the TUI the authorization URL goes only to the timeline
// (the terminal belongs to the UI) and is opened only when the person
// agrees in a confirmation that shows its host; headless it is printed on
// stderr and opened only with --open-browser. Never anything but http(s).
func (f *connectFlags) authorizer(serverURL string, header http.Header, client *http.Client, stderr io.Writer) (mcp.Authorizer, error) {
	if f.oauth.noOAuth || header.Get("Authorization") != "" {
		return nil, nil
	}
	secret := ""
	if f.oauth.clientSecretEnv != "" {
		secret = os.Getenv(f.oauth.clientSecretEnv)
		if secret == "" {
			return nil, fmt.Errorf("--client-secret-env %s: the environment variable is unset or empty", f.oauth.clientSecretEnv)
		}
	}
	tokens, err := auth.DefaultTokenPath()
	if err != nil {
		return nil, fmt.Errorf("OAuth: where to keep tokens: %w", err)
	}
	addr, path, err := callbackAddr(f.oauth.callback)
	if err != nil {
		return nil, err
	}
	browser := &auth.LoopbackBrowser{Addr: addr, Path: path, Out: stderr, Open: f.oauth.openBrowser}
	if f.tui {
		browser.Out, browser.Open, browser.Confirm = io.Discard, false, f.confirmOpen.confirm
	}
	// A WebSocket server's OAuth resource is its http(s) origin and path.
	for ws, web := range map[string]string{"ws://": "http://", "wss://": "https://"} {
		if strings.HasPrefix(serverURL, ws) {
			serverURL = web + strings.TrimPrefix(serverURL, ws)
		}
	}
	a, err := auth.New(auth.Config{
		ServerURL:         serverURL,
		ProtocolVersion:   f.protocolVersion,
		ClientID:          f.oauth.clientID,
		ClientSecret:      secret,
		ClientMetadataURL: f.oauth.clientMetadataURL,
		Browser:           browser,
		Store:             &auth.FileStore{Path: tokens},
		HTTPClient:        client,
	})
	if err != nil {
		return nil, fmt.Errorf("OAuth: %w", err)
	}
	return a, nil
}

// callbackAddr reads --oauth-callback: a listening address, or a loopback
// http redirect URI whose host, port and path mcpscope then listens on (a
// client registered in advance has its redirect URI fixed).
func callbackAddr(v string) (addr, path string, err error) {
	if !strings.Contains(v, "://") {
		return v, "", nil
	}
	u, err := url.Parse(v)
	bad := func(why string) error {
		return fmt.Errorf("--oauth-callback %q: %s; give HOST:PORT or a loopback redirect URI such as http://127.0.0.1:8765/callback", v, why)
	}
	switch {
	case err != nil:
		return "", "", bad("not a URL")
	case u.Scheme != "http":
		return "", "", bad("mcpscope listens for the redirect on plain http")
	case u.RawQuery != "" || u.Fragment != "":
		return "", "", bad("a redirect URI with a query or fragment")
	case !isLoopbackHost(u.Hostname()):
		return "", "", bad("not a loopback host (localhost, 127.0.0.1, [::1])")
	}
	port := u.Port()
	if port == "" {
		port = "0" // any free port: loopback redirects may vary it (RFC 8252 §7.3)
	}
	return net.JoinHostPort(u.Hostname(), port), u.EscapedPath(), nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
