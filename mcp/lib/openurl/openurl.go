// Package openurl is the one place mcpscope hands a URL to the system's
// opener (xdg-open, or open on macOS). A server under debug chooses these
// URLs (OAuth authorization endpoints, URL elicitations), so the rule is
// the same everywhere: only http and https URLs with a host are ever
// opened, and only after the person has seen the URL and agreed — the
// callers ask; this package refuses everything else whatever they say.
// An opener handed file://, javascript:, smb:// or vscode:// runs a local
// handler, which is the class of flaw behind CVE-2025-6514.
package openurl

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// ErrNotWeb is wrapped by Check's error for a URL that is not http(s).
var ErrNotWeb = errors.New("only http and https URLs are opened")

// Check parses raw and accepts it only when its scheme is http or https
// and it names a host. The error quotes the URL through termsafe.
func Check(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a URL: %v", ErrNotWeb, termsafe.String(raw), err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		scheme := u.Scheme
		if scheme == "" {
			scheme = "(none)"
		}
		return nil, fmt.Errorf("%w: refusing %s (scheme %s)", ErrNotWeb, termsafe.String(raw), termsafe.String(scheme))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: refusing %s (no host)", ErrNotWeb, termsafe.String(raw))
	}
	return u, nil
}

// Host is what a confirmation shows first: the host (and port) the URL
// sends the person to, neutralised for the terminal; "" when raw is not a
// URL mcpscope would open.
func Host(raw string) string {
	u, err := Check(raw)
	if err != nil {
		return ""
	}
	return termsafe.String(u.Host)
}

// Opener finds the system's URL opener: xdg-open, or open on macOS. It is
// a variable so that tests can record what would have been opened.
var Opener = func() (string, error) {
	for _, name := range []string{"xdg-open", "open"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no browser opener here (xdg-open or open not found); open the URL yourself")
}

// Start is how the opener is run (a variable for tests).
var Start = func(opener, raw string) error { return exec.Command(opener, raw).Start() }

// Open checks raw and hands it to the system's opener. The caller must
// already have the person's consent. It returns the opener's path.
func Open(raw string) (string, error) {
	if _, err := Check(raw); err != nil {
		return "", err
	}
	opener, err := Opener()
	if err != nil {
		return "", err
	}
	if err := Start(opener, raw); err != nil {
		return "", fmt.Errorf("%s: %w", opener, err)
	}
	return opener, nil
}
