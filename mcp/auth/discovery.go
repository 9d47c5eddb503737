package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Challenge is the parsed Bearer challenge of a WWW-Authenticate header.
type Challenge struct {
	ResourceMetadata string // resource_metadata: where the PRM document is
	Scope            string // scope the server wants, space separated
	Error            string // e.g. invalid_token, insufficient_scope
	ErrorDescription string
}

// ParseChallenge reads the Bearer challenge from WWW-Authenticate values.
// ok is false when no Bearer challenge is present.
func ParseChallenge(values []string) (c Challenge, ok bool) {
	for _, v := range values {
		for _, ch := range splitChallenges(v) {
			if !strings.EqualFold(ch.scheme, "bearer") {
				continue
			}
			c = Challenge{
				ResourceMetadata: ch.params["resource_metadata"],
				Scope:            ch.params["scope"],
				Error:            ch.params["error"],
				ErrorDescription: ch.params["error_description"],
			}
			return c, true
		}
	}
	return Challenge{}, false
}

type rawChallenge struct {
	scheme string
	params map[string]string
}

// splitChallenges parses one WWW-Authenticate value (RFC 9110 §11.6.1):
// scheme followed by comma-separated auth-params, several challenges per
// value allowed.
func splitChallenges(s string) []rawChallenge {
	var out []rawChallenge
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
	}
	readToken := func() string {
		start := i
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != ',' && s[i] != '=' {
			i++
		}
		return s[start:i]
	}
	for {
		skipSpace()
		if i >= len(s) {
			return out
		}
		cur := rawChallenge{scheme: readToken(), params: map[string]string{}}
		if cur.scheme == "" { // a stray '='
			i++
			continue
		}
		for {
			skipSpace()
			if i >= len(s) {
				break
			}
			save := i
			key := readToken()
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j >= len(s) || s[j] != '=' {
				// The next challenge's scheme (or token68 junk): rewind.
				i = save
				break
			}
			i = j + 1
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			var val strings.Builder
			if i < len(s) && s[i] == '"' {
				i++
				for i < len(s) && s[i] != '"' {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					val.WriteByte(s[i])
					i++
				}
				i++ // closing quote
			} else {
				start := i
				for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
					i++
				}
				val.WriteString(s[start:i])
			}
			if key != "" {
				cur.params[strings.ToLower(key)] = val.String()
			}
			if i == save { // no progress: bail out rather than loop
				i++
			}
		}
		out = append(out, cur)
	}
}

// ProtectedResourceMetadataURLs are the well-known PRM locations for an MCP
// endpoint, in the order the 2025-11-25 specification probes them: the
// path-based location first, then the root.
func ProtectedResourceMetadataURLs(serverURL string) ([]string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("the server URL %q is not a URL: %w", serverURL, err)
	}
	origin := u.Scheme + "://" + u.Host
	const wk = "/.well-known/oauth-protected-resource"
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{origin + wk}, nil
	}
	return []string{origin + wk + p, origin + wk}, nil
}

// ServerMetadataURLs are the metadata locations for an authorization server
// issuer, in the specification's order: RFC 8414 path insertion, OpenID
// Connect path insertion, then OpenID Connect path appending (issuers with a
// path); RFC 8414 then OpenID Connect (issuers without one).
func ServerMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("the authorization server %q is not an absolute URL", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}, nil
}

// ResourceMatches reports whether a PRM document's resource may be used
// for serverURL: same scheme and host, and the server's path equal to or
// below the resource's path. A PRM naming another resource could be an
// attempt to obtain a token for a different server, so the flow stops.
func ResourceMatches(resource, serverURL string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(serverURL)
	if err1 != nil || err2 != nil || r.Scheme == "" || r.Host == "" || r.Fragment != "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(hostPort(r), hostPort(s)) {
		return false
	}
	rp := strings.TrimSuffix(r.Path, "/")
	sp := strings.TrimSuffix(s.Path, "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return u.Hostname() + ":" + port
}

// maxMetadataBytes bounds every document read from an authorization or
// resource server.
const maxMetadataBytes = 1 << 20

// getJSON GETs a metadata document through the recording client (which
// shows the exchange). found is false for a non-200 answer, which the
// caller treats as "try the next location".
func (a *Authorizer) getJSON(ctx context.Context, what, target string, into any, note noteFunc) (found bool, err error) {
	req, err := http.NewRequestWithContext(withPurpose(ctx, what, true), http.MethodGet, target, nil)
	if err != nil {
		return false, fmt.Errorf("cannot build the request for %s: %w", target, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", a.protocolVersion())
	resp, err := a.httpClient(note).Do(req)
	if err != nil {
		return false, fmt.Errorf("fetching the %s from %s: %w", what, target, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if resp.StatusCode != http.StatusOK {
		return false, nil
	}
	if err := json.Unmarshal(body, into); err != nil {
		e := fmt.Errorf("the %s at %s is not valid JSON: %w", what, target, err)
		note.fail(fmt.Sprintf("GET %s → 200 but not JSON", pathOf(target)), e, field("url", target))
		return false, e
	}
	return true, nil
}

func pathOf(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Path == "" {
		return target
	}
	return u.Path
}

func compact(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
