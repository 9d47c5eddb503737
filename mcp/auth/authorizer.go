package auth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Errors a caller may want to tell apart; each is wrapped with the details.
var (
	// ErrPKCEUnsupported: the authorization server does not advertise S256
	// in code_challenge_methods_supported, so the flow is refused.
	ErrPKCEUnsupported = errors.New("the authorization server does not support PKCE S256")
	// ErrResourceMismatch: the protected resource metadata names another
	// resource than the server being connected to.
	ErrResourceMismatch = errors.New("the protected resource metadata is for another resource")
	// ErrStepUpLimit: the server kept asking for scope after three
	// authorizations for the same scopes.
	ErrStepUpLimit = errors.New("too many authorization attempts for the same scopes")
	// ErrNoRegistration: no way to obtain a client id.
	ErrNoRegistration = errors.New("no client registration is possible")
)

// Grant selects the OAuth grant used to obtain tokens.
type Grant uint8

const (
	// GrantAuthorizationCode is the interactive flow with PKCE (the default).
	GrantAuthorizationCode Grant = iota
	// GrantClientCredentials is machine-to-machine (SEP-1046): the client
	// authenticates with its secret or a signed JWT; nobody is asked.
	GrantClientCredentials
	// GrantEnterpriseIDJAG exchanges an identity provider's ID token for an
	// ID-JAG (RFC 8693) and presents it to the authorization server as a
	// JWT bearer grant (RFC 7523), as in SEP-990.
	GrantEnterpriseIDJAG
)

// EnterpriseGrant is what the ID-JAG flow needs from the identity provider.
type EnterpriseGrant struct {
	IdPTokenEndpoint string
	IdPClientID      string
	IDToken          string // secret: never reported
}

// Config configures an [Authorizer]. Only ServerURL is required.
type Config struct {
	// ServerURL is the MCP endpoint the tokens are for.
	ServerURL string
	// ProtocolVersion is sent as MCP-Protocol-Version on discovery
	// requests; mcp.LatestLegacyVersion when empty.
	ProtocolVersion string

	// ClientID and ClientSecret are a pre-registered client (the secret
	// may be empty for a public client). They take priority over every
	// other registration method.
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is an https URL serving this client's Client ID
	// Metadata Document; used as the client_id when the authorization
	// server advertises client_id_metadata_document_supported.
	ClientMetadataURL string
	// ClientName is sent in dynamic registration; "mcpscope" when empty.
	ClientName string
	// SigningKey, when set, authenticates the client with private_key_jwt
	// (SigningAlg "ES256" or "RS256"; derived from the key when empty).
	SigningKey crypto.Signer
	SigningAlg string

	// Grant picks the flow; GrantAuthorizationCode when zero.
	Grant      Grant
	Enterprise *EnterpriseGrant // for GrantEnterpriseIDJAG

	// Browser runs the person's part of the authorization code flow; a
	// LoopbackBrowser printing to stderr when nil.
	Browser Browser
	// Store keeps tokens; a MemoryStore when nil.
	Store Store
	// HTTPClient makes every request to the authorization and resource
	// servers; one with a 30 s timeout when nil.
	HTTPClient *http.Client
	// MaxAttempts caps authorizations for one scope set within ten
	// minutes (step-up loops); 3 when zero.
	MaxAttempts int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Authorizer implements mcp.Authorizer with OAuth 2.1. It is safe for
// concurrent use; flows are run one at a time.
type Authorizer struct {
	cfg Config

	mu     sync.Mutex // guards the fields below
	record *Record    // the current token, nil before the first flow
	loaded bool       // the store was consulted

	flowMu   sync.Mutex // one flow at a time
	last     *lastGrant // the last token issued; nil before or once refused
	disc     *discovery
	attempts map[string][]time.Time // scope set → authorization times
	asked    []string               // scopes requested by the last flow
	// refreshedAt is when the last refresh succeeded: a token refused right
	// after a refresh is not refreshed again, so a server refusing every
	// token meets the capped full flow instead of an endless refresh loop.
	refreshedAt time.Time
}

// discovery is what the metadata steps found.
type discovery struct {
	resourceMetadataURL string
	prm                 *oauthex.ProtectedResourceMetadata // nil: the server publishes none (2025-03-26 style)
	issuer              string
	meta                *oauthex.AuthServerMeta
	defaultEndpoints    bool   // meta is the 2025-03-26 fallback, not published metadata
	resource            string // the RFC 8707 resource indicator; "" without PRM
}

// New makes an Authorizer. The stored token for ServerURL, if any, is used
// from the first request on.
func New(cfg Config) (*Authorizer, error) {
	u, err := url.Parse(cfg.ServerURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OAuth needs an http or https server URL, not %q", cfg.ServerURL)
	}
	if cfg.Grant == GrantEnterpriseIDJAG && cfg.Enterprise == nil {
		return nil, errors.New("the enterprise (ID-JAG) grant needs the identity provider's token endpoint and ID token")
	}
	if cfg.Grant == GrantClientCredentials && cfg.ClientID == "" {
		return nil, errors.New("the client credentials grant needs a client id")
	}
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore()
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "mcpscope"
	}
	return &Authorizer{cfg: cfg, attempts: map[string][]time.Time{}}, nil
}

// httpClient is the client every OAuth request goes through, ours and
// the libraries' (oauth2.HTTPClient): the configured one (or a 30 s
// default) over the recorder, so each exchange is a row on the timeline,
// with a redirect policy of its own: the metadata, registration and token
// requests carry client secrets, codes and verifiers, so a redirect is
// followed only within the same origin, never from https to http.
func (a *Authorizer) httpClient(note noteFunc) *http.Client {
	c := http.Client{Timeout: 30 * time.Second}
	if a.cfg.HTTPClient != nil {
		c = *a.cfg.HTTPClient
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = recorder{base: base, note: note}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		err := sameOriginRedirects(req, via)
		if err != nil {
			note.fail("redirect not followed", err, field("from", via[len(via)-1].URL.Redacted()), field("to", req.URL.Redacted()))
		}
		return err
	}
	return &c
}

func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("more than 10 redirects")
	}
	if origin(req.URL) != origin(via[0].URL) {
		return fmt.Errorf("%w: a redirect from %s to another origin (%s) is not followed with OAuth credentials", ErrInsecureEndpoint, origin(via[0].URL), origin(req.URL))
	}
	return nil
}

func (a *Authorizer) protocolVersion() string {
	if a.cfg.ProtocolVersion != "" {
		return a.cfg.ProtocolVersion
	}
	return mcp.LatestLegacyVersion
}

// Authorize sets the bearer token, if there is one, on a request to the MCP
// server. It never runs a flow: the server's 401 starts one.
func (a *Authorizer) Authorize(ctx context.Context, req *http.Request) error {
	rec := a.current(ctx)
	if rec != nil && rec.AccessToken != "" {
		req.Header.Set("Authorization", "Bearer "+rec.AccessToken)
	}
	return nil
}

// current returns the token in use, loading it from the store once.
func (a *Authorizer) current(ctx context.Context) *Record {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.loaded {
		a.loaded = true
		if rec, err := a.cfg.Store.Find(ctx, a.cfg.ServerURL); err == nil && rec != nil {
			a.record = rec
		}
	}
	return a.record
}

func (a *Authorizer) setRecord(rec *Record) {
	a.mu.Lock()
	a.record = rec
	a.loaded = true
	a.mu.Unlock()
}

// Token returns the current access token's metadata (never the token
// itself): whether there is one, its scope and expiry.
func (a *Authorizer) Token() (have bool, scope string, expiry time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.record == nil || a.record.AccessToken == "" {
		return false, "", time.Time{}
	}
	return true, a.record.Scope, a.record.Expiry
}

// Clear forgets the token for the server, in memory and in the store (the
// user's "clear OAuth state"); the next 401 starts a fresh flow.
func (a *Authorizer) Clear(ctx context.Context) error {
	a.flowMu.Lock()
	defer a.flowMu.Unlock()
	a.setRecord(nil)
	a.disc, a.asked, a.refreshedAt, a.last = nil, nil, time.Time{}, nil
	clear(a.attempts)
	if err := a.cfg.Store.Delete(ctx, a.cfg.ServerURL); err != nil {
		return fmt.Errorf("forgetting the stored token: %w", err)
	}
	return nil
}

// Challenge handles the MCP server's 401 or 403: refresh, a full flow, or
// a step-up to more scope. It returns retry=true when there is a new token
// to try. A 403 that is not about scope is left to the caller. A refusal
// that another sign-in would not cure (a scope the authorization server
// did not grant when asked, a token refused right after it was issued)
// is a *Failure, not another sign-in.
func (a *Authorizer) Challenge(ctx context.Context, resp *http.Response, notify func(mcp.TransportEvent)) (bool, error) {
	note := noteFunc(notify)
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return false, nil
	}
	ch, hasBearer := ParseChallenge(resp.Header.Values("WWW-Authenticate"))
	fields := []mcp.Field{field("status", resp.Status)}
	if hasBearer {
		fields = append(fields, field("resource_metadata", ch.ResourceMetadata), field("scope", ch.Scope),
			field("error", ch.Error), field("error_description", ch.ErrorDescription))
	} else {
		fields = append(fields, field("WWW-Authenticate", "(no Bearer challenge)"))
	}
	if resp.StatusCode == http.StatusForbidden && ch.Error != "insufficient_scope" {
		if !hasBearer || ch.Error != "" || ch.Scope == "" {
			note.step(fmt.Sprintf("%d without insufficient_scope: not an authorization matter", resp.StatusCode), fields...)
			return false, nil
		}
		// The go-sdk's RequireBearerToken (v1.8.0) answers a token that
		// lacks a scope so: 403, the scope, and no error code.
		note.step(fmt.Sprintf(`403 names scope %q but no error="insufficient_scope": read as insufficient scope`, ch.Scope), fields...)
	}
	// The flow, a person's sign-in included, is not the server's time.
	defer mcp.HoldTimeout(ctx)()

	a.flowMu.Lock()
	defer a.flowMu.Unlock()

	// Another request may have obtained a new token while this one waited.
	sent := sentToken(resp)
	if cur := a.current(ctx); cur != nil && cur.AccessToken != "" && sent != cur.AccessToken {
		note.step("a newer token is available; retrying with it", fields...)
		return true, nil
	}
	if f := a.refusal(ctx, resp, sent, ch); f != nil {
		note.fail("not signing in again: "+f.Err.Error(), f, fields...)
		if errors.Is(f, ErrTokenRefused) {
			// Useless now; a reconnect signs in afresh.
			a.setRecord(nil)
			a.last = nil
			_ = a.cfg.Store.Delete(ctx, a.cfg.ServerURL)
		}
		return false, f
	}

	if resp.StatusCode == http.StatusUnauthorized {
		note.step("401: authorization required", fields...)
		if ok := a.tryRefresh(ctx, ch, note); ok {
			return true, nil
		}
		if err := a.flow(ctx, ch, false, note); err != nil {
			return false, err
		}
		return true, nil
	}
	note.step("403 insufficient_scope: stepping up", fields...)
	if err := a.flow(ctx, ch, true, note); err != nil {
		return false, err
	}
	return true, nil
}

// freshToken is how long a token counts as just issued: refused within
// it, right after the sign-in, it is not worth another sign-in.
const freshToken = time.Minute

// lastGrant is the token the last grant issued and what was asked for it.
type lastGrant struct {
	token     string
	signedIn  time.Time // when the full grant (a sign-in) behind it was
	refreshed bool      // it came from a refresh of that grant
	asked     []string
	granted   []string // when named
	named     bool     // the token endpoint named the scope it granted
	client    string
	issuer    string
	res       string
}

// refusal explains a 401 or 403 that another sign-in would not cure: the
// server wants a scope that was asked for and not granted, or it refuses
// the token a sign-in issued moments ago. nil otherwise.
func (a *Authorizer) refusal(ctx context.Context, resp *http.Response, sent string, ch Challenge) *Failure {
	g := a.last
	if g == nil || sent == "" || sent != g.token {
		return nil
	}
	if miss := missingScopes(strings.Fields(ch.Scope), g.asked, g.granted); resp.StatusCode == http.StatusForbidden && g.named && len(miss) > 0 {
		return &Failure{
			Cause: fmt.Sprintf("The server requires scope %s, which the authorization server %s did not grant: mcpscope asked for %q and was granted %q (%d %s).",
				quoted(miss), g.issuer, strings.Join(g.asked, " "), strings.Join(g.granted, " "), resp.StatusCode, http.StatusText(resp.StatusCode)),
			Fix: fmt.Sprintf("Signing in again would ask for the same and get the same. Allow client %s the scope %s at the authorization server, or have the server require scopes the authorization server grants.",
				g.client, strings.Join(miss, " ")),
			Err: fmt.Errorf("%w: %s", ErrScopeNotGranted, strings.Join(miss, " ")),
		}
	}
	moved := ch.ResourceMetadata != "" && a.disc != nil && ch.ResourceMetadata != a.disc.resourceMetadataURL
	age := a.cfg.Now().Sub(g.signedIn)
	if resp.StatusCode != http.StatusUnauthorized || age >= freshToken || moved {
		return nil
	}
	if rec := a.current(ctx); !g.refreshed && rec != nil && rec.RefreshToken != "" {
		return nil // a refresh, which needs nobody, is tried first
	}
	said := strings.TrimSpace(ch.Error + " " + ch.ErrorDescription)
	if said == "" && resp.Body != nil {
		// The answer's body may say why (the go-sdk's: "invalid token").
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		said = pageMessage(resp.Header, body)
	}
	if said != "" {
		said = ": " + said
	}
	which := "the access token"
	if g.refreshed {
		which = "the access token refreshed from the one"
	}
	cause := fmt.Sprintf("The server refused %s that %s issued %s ago for client %s (%s%s).",
		which, g.issuer, age.Round(time.Millisecond), g.client, resp.Status, said)
	if miss := missingScopes(g.asked, g.asked, g.granted); g.named && len(miss) > 0 {
		cause += fmt.Sprintf(" It was granted scope %q of %q asked for: not %s.", strings.Join(g.granted, " "), strings.Join(g.asked, " "), quoted(miss))
	}
	resource := ""
	if g.res != "" {
		resource = fmt.Sprintf("; the token was requested for resource %s", g.res)
	}
	return &Failure{
		Cause: cause,
		Fix: fmt.Sprintf("Signing in again would get the same answer. Find out why the server rejects tokens from %s: how it validates them (introspection and the credentials it uses, the audience or issuer it expects%s) and what its log says.",
			g.issuer, resource),
		Err: ErrTokenRefused,
	}
}

func sentToken(resp *http.Response) string {
	if resp.Request == nil {
		return ""
	}
	h := resp.Request.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return h[7:]
	}
	return ""
}

// tryRefresh uses the refresh token, if any, after a 401 on an expired or
// revoked access token.
func (a *Authorizer) tryRefresh(ctx context.Context, ch Challenge, note noteFunc) bool {
	rec := a.current(ctx)
	if rec == nil || rec.RefreshToken == "" {
		return false
	}
	if !a.refreshedAt.IsZero() && a.cfg.Now().Sub(a.refreshedAt) < 30*time.Second {
		note.step("the token refreshed moments ago was refused: not refreshing again")
		return false
	}
	if ch.ResourceMetadata != "" && a.disc != nil && ch.ResourceMetadata != a.disc.resourceMetadataURL {
		return false // the server moved its metadata: start over
	}
	d := a.disc
	if d == nil {
		var err error
		if d, err = a.discover(ctx, ch, note); err != nil {
			return false
		}
		a.disc = d
	}
	tok, err := a.refresh(ctx, d, rec, note)
	if err != nil {
		return false // reported; a full flow follows
	}
	a.save(ctx, d, tok, note)
	a.refreshedAt = a.cfg.Now()
	return true
}

// flow runs discovery (cached) and the configured grant.
func (a *Authorizer) flow(ctx context.Context, ch Challenge, stepUp bool, note noteFunc) error {
	d := a.disc
	if d == nil || (ch.ResourceMetadata != "" && ch.ResourceMetadata != d.resourceMetadataURL) {
		var err error
		if d, err = a.discover(ctx, ch, note); err != nil {
			return err
		}
		a.disc = d
	}

	scopes := a.selectScopes(d, ch, stepUp, note)
	key := strings.Join(sortedCopy(scopes), " ")
	now := a.cfg.Now()
	recent := slices.DeleteFunc(a.attempts[key], func(t time.Time) bool { return now.Sub(t) > 10*time.Minute })
	if len(recent) >= a.cfg.MaxAttempts {
		err := fmt.Errorf("%w: already authorized %d times for scope %q and the server still refuses; stopping so this does not loop",
			ErrStepUpLimit, len(recent), key)
		note.fail("step-up limit reached", err, field("attempts", fmt.Sprint(len(recent))))
		return err
	}
	a.attempts[key] = append(recent, now)
	a.asked = scopes
	note.step(fmt.Sprintf("authorization attempt %d of %d for this scope", len(recent)+1, a.cfg.MaxAttempts), field("scope", orNone(key)))

	var tok *issued
	var err error
	switch a.cfg.Grant {
	case GrantClientCredentials:
		tok, err = a.clientCredentials(ctx, d, scopes, note)
	case GrantEnterpriseIDJAG:
		tok, err = a.enterprise(ctx, d, scopes, note)
	default:
		tok, err = a.authorizationCode(ctx, d, scopes, note)
	}
	if err != nil {
		return err
	}
	a.save(ctx, d, tok, note)
	return nil
}

// discover finds the protected resource metadata and the authorization
// server's metadata (§3.5).
func (a *Authorizer) discover(ctx context.Context, ch Challenge, note noteFunc) (*discovery, error) {
	d := &discovery{}
	var candidates []string
	if ch.ResourceMetadata != "" {
		candidates = []string{ch.ResourceMetadata}
		note.step("protected resource metadata from WWW-Authenticate", field("url", ch.ResourceMetadata))
	} else {
		urls, err := ProtectedResourceMetadataURLs(a.cfg.ServerURL)
		if err != nil {
			return nil, err
		}
		candidates = urls
		note.step("no resource_metadata in WWW-Authenticate: probing the well-known locations")
	}
	for _, u := range candidates {
		var prm oauthex.ProtectedResourceMetadata
		found, err := a.getJSON(ctx, "protected resource metadata", u, &prm, note)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if found {
			d.prm, d.resourceMetadataURL = &prm, u
			break
		}
	}

	if d.prm != nil {
		if len(d.prm.AuthorizationServers) == 0 {
			err := fmt.Errorf("the protected resource metadata at %s lists no authorization_servers, so there is nowhere to authorize", d.resourceMetadataURL)
			note.fail("PRM lists no authorization server", err)
			return nil, err
		}
		if d.prm.Resource != "" {
			if !ResourceMatches(d.prm.Resource, a.cfg.ServerURL) {
				err := fmt.Errorf("%w: it names %q but the server is %q; refusing to authorize so a token for one server is not sent to another",
					ErrResourceMismatch, d.prm.Resource, a.cfg.ServerURL)
				note.fail("PRM resource does not match the server URL", err, field("resource", d.prm.Resource), field("server", a.cfg.ServerURL))
				return nil, err
			}
			d.resource = d.prm.Resource
		} else {
			d.resource = a.cfg.ServerURL
		}
		d.issuer = d.prm.AuthorizationServers[0]
		note.step("authorization server chosen", field("issuer", d.issuer), field("resource", d.resource))
	} else {
		u, _ := url.Parse(a.cfg.ServerURL)
		d.issuer = u.Scheme + "://" + u.Host
		note.step("no protected resource metadata: treating the server's origin as the authorization server (2025-03-26 behaviour)",
			field("issuer", d.issuer))
	}

	urls, err := ServerMetadataURLs(d.issuer)
	if err != nil {
		return nil, err
	}
	for _, u := range urls {
		var meta oauthex.AuthServerMeta
		found, err := a.getJSON(ctx, "authorization server metadata", u, &meta, note)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if found {
			d.meta = &meta
			break
		}
	}
	if d.meta == nil {
		if d.prm != nil {
			err := fmt.Errorf("the authorization server %s publishes no metadata at any of %s", d.issuer, strings.Join(urls, ", "))
			note.fail("no authorization server metadata", err)
			return nil, err
		}
		d.defaultEndpoints = true
		d.meta = &oauthex.AuthServerMeta{
			Issuer:                d.issuer,
			AuthorizationEndpoint: d.issuer + "/authorize",
			TokenEndpoint:         d.issuer + "/token",
			RegistrationEndpoint:  d.issuer + "/register",
		}
		note.step("no authorization server metadata: using the 2025-03-26 default endpoints",
			field("authorization_endpoint", d.meta.AuthorizationEndpoint), field("token_endpoint", d.meta.TokenEndpoint),
			field("registration_endpoint", d.meta.RegistrationEndpoint))
		return d, checkEndpoints(d, note)
	}
	if d.meta.Issuer != "" && strings.TrimSuffix(d.meta.Issuer, "/") != strings.TrimSuffix(d.issuer, "/") {
		note.step("warning: the metadata's issuer differs from the issuer it was fetched for (accepted for 2025-03-26 compatibility; the 2026-07-28 rules reject it)",
			field("expected", d.issuer), field("issuer", d.meta.Issuer))
	}
	if d.meta.TokenEndpoint == "" {
		err := fmt.Errorf("the authorization server metadata for %s has no token_endpoint", d.issuer)
		note.fail("metadata without token_endpoint", err)
		return nil, err
	}
	return d, checkEndpoints(d, note)
}

// selectScopes applies the specification's order: the challenge's scope,
// else the PRM's scopes_supported, else none. A step-up asks for the union
// of what was asked before and what the challenge wants. offline_access is
// asked for only when the authorization server lists it.
func (a *Authorizer) selectScopes(d *discovery, ch Challenge, stepUp bool, note noteFunc) []string {
	var scopes []string
	source := "none (scope omitted)"
	switch {
	case ch.Scope != "":
		scopes, source = strings.Fields(ch.Scope), "WWW-Authenticate scope"
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		scopes, source = slices.Clone(d.prm.ScopesSupported), "PRM scopes_supported"
	}
	if stepUp {
		for _, s := range a.asked {
			if !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
		source += " + previously requested"
	}
	if d.meta != nil && a.cfg.Grant == GrantAuthorizationCode {
		asListsOffline := slices.Contains(d.meta.ScopesSupported, "offline_access")
		refreshable := len(d.meta.GrantTypesSupported) == 0 || slices.Contains(d.meta.GrantTypesSupported, "refresh_token")
		switch {
		case asListsOffline && refreshable && len(scopes) > 0 && !slices.Contains(scopes, "offline_access"):
			scopes = append(scopes, "offline_access")
			source += " + offline_access (the authorization server lists it)"
		case !asListsOffline && len(d.meta.ScopesSupported) > 0 && slices.Contains(scopes, "offline_access"):
			scopes = slices.DeleteFunc(scopes, func(s string) bool { return s == "offline_access" })
			source += " − offline_access (the authorization server does not list it)"
		}
	}
	note.step("scope selected", field("scope", orNone(strings.Join(scopes, " "))), field("from", source))
	return scopes
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// save keeps a fresh token as the current one and in the store.
func (a *Authorizer) save(ctx context.Context, d *discovery, is *issued, note noteFunc) {
	scope, _ := is.grantedScope()
	rec := &Record{
		Issuer:       d.issuer,
		Resource:     d.resource,
		ServerURL:    a.cfg.ServerURL,
		AccessToken:  is.tok.AccessToken,
		RefreshToken: is.tok.RefreshToken,
		TokenType:    is.tok.TokenType,
		Scope:        scope,
		Expiry:       is.tok.Expiry,
		ClientID:     is.cl.id,
		ClientSecret: is.cl.secret,
		AuthMethod:   is.cl.authMethod,
		RedirectURI:  is.redirectURI,
	}
	if old := a.current(ctx); old != nil && old.Issuer == rec.Issuer {
		if rec.RefreshToken == "" {
			rec.RefreshToken = old.RefreshToken // a refresh answer may omit it
		}
		if rec.RedirectURI == "" {
			rec.RedirectURI = old.RedirectURI
		}
	}
	if rec.Scope == "" {
		rec.Scope = strings.Join(is.asked, " ")
	}
	a.setRecord(rec)
	granted, named := is.grantedScope()
	signedIn := a.cfg.Now()
	if is.refreshed && a.last != nil {
		signedIn = a.last.signedIn
	} else if is.refreshed {
		signedIn = time.Time{} // a stored token's sign-in: long ago
	}
	a.last = &lastGrant{token: rec.AccessToken, signedIn: signedIn, refreshed: is.refreshed, asked: is.asked,
		granted: strings.Fields(granted), named: named, client: is.cl.id, issuer: d.issuer, res: d.resource}
	if err := a.cfg.Store.Save(ctx, rec); err != nil {
		note.fail("could not store the token (it is used for this session only)", err)
	}
}
