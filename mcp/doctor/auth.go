package doctor

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// The authorization rules read the steps package mcp/auth reports as
// TransportEvents of kind "oauth": their summaries (e.g. "GET /.well-known/
// oauth-protected-resource → 200 (protected resource metadata)", "no
// protected resource metadata: …", "403 insufficient_scope: stepping up")
// and fields (url, document, scope, resource, issuer, expected).
func (l *Linter) oauthStep(e mcp.TransportEvent) {
	s := e.Summary
	switch {
	case strings.HasPrefix(s, "no protected resource metadata"):
		l.authNoPRM = "Authorization is required, but the server offers no protected resource metadata: none named in WWW-Authenticate and none at the well-known URIs."
	case strings.HasSuffix(s, "(protected resource metadata)"):
		doc, _ := field(e, "document")
		var prm struct {
			AuthorizationServers []string `json:"authorization_servers"`
		}
		if json.Unmarshal([]byte(doc), &prm) == nil && len(prm.AuthorizationServers) == 0 {
			u, _ := field(e, "url")
			l.reportOnce("prm-as:"+u, "auth/prm-no-authorization-servers", fmt.Sprintf("The protected resource metadata at %s lists no authorization_servers.", u))
		}
	case strings.HasPrefix(s, "PRM resource does not match"):
		res, _ := field(e, "resource")
		srv, _ := field(e, "server")
		l.reportOnce("prm-res:"+res, "auth/prm-resource-mismatch", fmt.Sprintf("The protected resource metadata names resource %q, which does not match the server URL %q.", res, srv))
	case strings.HasSuffix(s, "(authorization server metadata)"):
		doc, _ := field(e, "document")
		var meta struct {
			Methods []string `json:"code_challenge_methods_supported"`
		}
		if json.Unmarshal([]byte(doc), &meta) != nil {
			return
		}
		u, _ := field(e, "url")
		switch {
		case meta.Methods == nil:
			l.reportOnce("pkce:"+u, "auth/no-pkce-s256", fmt.Sprintf("The authorization server metadata at %s has no code_challenge_methods_supported.", u))
		case !slices.Contains(meta.Methods, "S256"):
			l.reportOnce("pkce:"+u, "auth/no-pkce-s256", fmt.Sprintf("The authorization server metadata at %s supports PKCE methods %s but not S256.", u, quoteList(meta.Methods)))
		}
	case strings.Contains(s, "metadata's issuer differs"):
		if l.modern || l.discoverSent {
			want, _ := field(e, "expected")
			got, _ := field(e, "issuer")
			l.reportOnce("issuer:"+got, "auth/issuer-mismatch", fmt.Sprintf("The authorization server metadata names issuer %q but was fetched for %q.", got, want))
		}
	case strings.HasPrefix(s, "403 insufficient_scope"):
		if sc, _ := field(e, "scope"); sc == "" {
			l.report("auth/insufficient-scope-without-scope", "The server answered 403 insufficient_scope without naming the scope it needs.")
		}
	}
}

// flushAuth reports a missing protected resource metadata once the
// version says it was required (2025-06-18 and later); when the connection
// failed before a version was agreed, the offered one decides.
func (l *Linter) flushAuth(failed bool) {
	if l.authNoPRM == "" {
		return
	}
	v := l.version
	if v == "" && !l.modern {
		if !failed {
			return
		}
		v = l.offeredVersion
	}
	msg := l.authNoPRM
	l.authNoPRM = ""
	if l.modern || l.discoverSent || v >= mcp.Version20250618 {
		l.report("auth/no-resource-metadata", msg)
	}
}
