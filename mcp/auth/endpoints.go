package auth

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
)

// ErrInsecureEndpoint is wrapped when an authorization server's endpoint
// is not https (loopback excepted) or, for the authorization endpoint, not
// a web URL at all: mcpscope refuses to send a person, a client secret, a
// code or a code verifier there.
var ErrInsecureEndpoint = errors.New("OAuth endpoint refused")

// checkEndpoints holds the metadata's endpoints to the rules of OAuth 2.1
// (§1.5) and the MCP authorization spec: every endpoint is https, except
// on a loopback host; the authorization endpoint is also something a
// browser may be sent to (http or https, see package openurl). An endpoint
// on an origin other than the issuer's is allowed but shown, since the
// metadata alone decides where credentials go.
func checkEndpoints(d *discovery, note noteFunc) error {
	m := d.meta
	if m.AuthorizationEndpoint != "" {
		if _, err := openurl.Check(m.AuthorizationEndpoint); err != nil {
			err = fmt.Errorf("%w: the authorization_endpoint %w", ErrInsecureEndpoint, err)
			note.fail("authorization endpoint refused", err, field("authorization_endpoint", m.AuthorizationEndpoint))
			return err
		}
	}
	issuer, _ := url.Parse(d.issuer)
	for _, e := range []struct{ name, value string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"registration_endpoint", m.RegistrationEndpoint},
	} {
		if e.value == "" {
			continue
		}
		u, err := url.Parse(e.value)
		if err != nil || u.Host == "" {
			err := fmt.Errorf("%w: the %s %q is not an absolute URL", ErrInsecureEndpoint, e.name, e.value)
			note.fail(e.name+" refused", err)
			return err
		}
		if !secureOrLoopback(u) {
			err := fmt.Errorf("%w: the %s %s is not https (plain http is allowed only on a loopback host); mcpscope will not send credentials there",
				ErrInsecureEndpoint, e.name, e.value)
			note.fail(e.name+" is not https: refused", err, field(e.name, e.value))
			return err
		}
		if issuer != nil && issuer.Host != "" && origin(u) != origin(issuer) {
			note.step("notice: the "+e.name+" is on another origin than the issuer",
				field(e.name, e.value), field("issuer", d.issuer))
		}
	}
	return nil
}

// secureOrLoopback: https anywhere, http only to a loopback host.
func secureOrLoopback(u *url.URL) bool {
	switch strings.ToLower(u.Scheme) {
	case "https":
		return true
	case "http":
		return isLoopback(u.Hostname())
	}
	return false
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme) + "://" + hostPort(u) }
