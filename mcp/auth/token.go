package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Token endpoint client authentication methods (RFC 7591 §2).
const (
	AuthMethodBasic         = "client_secret_basic"
	AuthMethodPost          = "client_secret_post"
	AuthMethodNone          = "none"
	AuthMethodPrivateKeyJWT = "private_key_jwt"
)

// client is a registered client and how it authenticates at the token
// endpoint.
type client struct {
	id, secret string
	authMethod string
	how        string // "pre-registered", "client ID metadata document", "dynamic registration"
}

// authStyle is how x/oauth2 sends the client's credentials: HTTP Basic
// for client_secret_basic, the body for the others. Never auto-detected:
// that retries a refused request the other way, sending it twice.
func (cl client) authStyle() oauth2.AuthStyle {
	if cl.authMethod == AuthMethodBasic {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// librarySecret is the secret x/oauth2 may send (it sends any it is
// given): only the two client_secret methods send one.
func (cl client) librarySecret() string {
	if cl.authMethod == AuthMethodBasic || cl.authMethod == AuthMethodPost {
		return cl.secret
	}
	return ""
}

// issued is a token endpoint's answer, the client that obtained it and
// what was asked for.
type issued struct {
	tok         *oauth2.Token
	cl          client
	redirectURI string
	asked       []string
	refreshed   bool // by a refresh token, not a full grant
}

// grantedScope is the scope the answer names; "" when it names none
// (RFC 6749 §5.1: then it is the scope requested).
func (is *issued) grantedScope() (scope string, named bool) {
	s, ok := is.tok.Extra("scope").(string)
	return s, ok
}

// authorizationCode runs the interactive flow: registration, the
// authorization request through the Browser, and the code exchange, with
// x/oauth2 building the request, the PKCE S256 pair and the exchange.
func (a *Authorizer) authorizationCode(ctx context.Context, d *discovery, scopes []string, note noteFunc) (*issued, error) {
	m := d.meta
	if !d.defaultEndpoints {
		// Metadata was published: it must promise S256 (§3.5, 2025-11-25).
		if !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
			what := "lists " + strings.Join(m.CodeChallengeMethodsSupported, ", ")
			if len(m.CodeChallengeMethodsSupported) == 0 {
				what = "has no code_challenge_methods_supported"
			}
			err := fmt.Errorf("%w: its metadata %s, and MCP clients must refuse to authorize without PKCE S256", ErrPKCEUnsupported, what)
			note.fail("PKCE S256 not supported: refusing", err, field("issuer", d.issuer))
			return nil, err
		}
	}
	if m.AuthorizationEndpoint == "" {
		err := fmt.Errorf("the authorization server %s has no authorization_endpoint", d.issuer)
		note.fail("no authorization endpoint", err)
		return nil, err
	}
	browser := a.cfg.Browser
	if browser == nil {
		browser = &LoopbackBrowser{}
	}
	redirectURI, err := browser.RedirectURI(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot prepare the redirect for the authorization: %w", err)
	}
	cl, err := a.register(ctx, d, redirectURI, scopes, note)
	if err != nil {
		return nil, err
	}

	conf := &oauth2.Config{
		ClientID:     cl.id,
		ClientSecret: cl.librarySecret(),
		Endpoint:     oauth2.Endpoint{AuthURL: m.AuthorizationEndpoint, TokenURL: m.TokenEndpoint, AuthStyle: cl.authStyle()},
		RedirectURL:  redirectURI,
		Scopes:       scopes,
	}
	verifier := oauth2.GenerateVerifier()
	challenge := oauth2.S256ChallengeFromVerifier(verifier)
	note.step("PKCE S256", field("code_challenge", challenge), field("code_verifier", redacted))
	state := rand.Text()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if d.resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", d.resource))
	}
	authURL := conf.AuthCodeURL(state, opts...)
	note.step("authorization request", field("endpoint", m.AuthorizationEndpoint), field("client_id", cl.id),
		field("redirect_uri", redirectURI), field("scope", strings.Join(scopes, " ")), field("state", state),
		field("code_challenge", challenge), field("code_challenge_method", "S256"), field("resource", d.resource))

	seen := ""
	if _, person := browser.(*LoopbackBrowser); person {
		// A person is about to be sent there: not to a page that only
		// says the request is refused.
		if seen, err = a.preflight(ctx, authURL, redirectURI, cl, scopes, note); err != nil {
			return nil, err
		}
	}
	cb, err := browser.Visit(ctx, authURL, note)
	if err != nil {
		if errors.Is(err, errNoRedirect) {
			return nil, noCallback(err, redirectURI, cl.id, seen)
		}
		return nil, fmt.Errorf("the authorization did not complete: %w", err)
	}
	if m.AuthorizationResponseIssParameterSupported || cb.Get("iss") != "" {
		if iss := cb.Get("iss"); iss != m.Issuer {
			err := fmt.Errorf("the authorization response's issuer %q is not the authorization server's %q (RFC 9207); ignoring the response", iss, m.Issuer)
			note.fail("authorization response from the wrong issuer", err)
			return nil, err
		}
	}
	if cb.Get("state") != state {
		err := errors.New("the authorization response's state does not match the request's; ignoring it (possible CSRF)")
		note.fail("state mismatch", err)
		return nil, err
	}
	if e := cb.Get("error"); e != "" {
		err := refusedAuthorization("after the sign-in", e, cb.Get("error_description"), cl.id, scopes)
		note.fail("authorization refused", err, field("error", e), field("error_description", cb.Get("error_description")))
		return nil, err
	}
	code := cb.Get("code")
	if code == "" {
		err := errors.New("the authorization response carries no code")
		note.fail("no authorization code", err)
		return nil, err
	}
	note.step("authorization code received", field("code", redacted), field("state", "matches"))

	opts = []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier)}
	if d.resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", d.resource))
	}
	assertion, err := a.assertionParams(d, cl)
	if err != nil {
		return nil, err
	}
	for k := range assertion {
		opts = append(opts, oauth2.SetAuthURLParam(k, assertion.Get(k)))
	}
	tok, err := conf.Exchange(a.libraryContext(ctx, "token endpoint", note), code, opts...)
	if err != nil {
		return nil, tokenError(m.TokenEndpoint, "authorization_code", err, note)
	}
	is := &issued{tok: tok, cl: cl, redirectURI: redirectURI, asked: scopes}
	a.noteIssued(is, note)
	return is, nil
}

// preflight GETs the authorization URL once, as the browser is about to,
// without cookies and without following its answer. An authorization
// server that refuses the request outright (a redirect URI or client id it
// does not know: RFC 6749 §4.1.2.1 forbids redirecting then) answers 400,
// or redirects with an error: the person is not sent to that page and the
// failure names what it said. Any other answer (a sign-in page, a
// redirect to one) is the browser's; it is returned to explain a callback
// that never comes.
func (a *Authorizer) preflight(ctx context.Context, authURL, redirectURI string, cl client, scopes []string, note noteFunc) (seen string, err error) {
	hc := a.httpClient(note)
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(withPurpose(ctx, "authorization endpoint, before the browser", false), http.MethodGet, authURL, nil)
	if err != nil {
		return "", nil // the browser will say what is wrong with it
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", nil // the recorder showed it; the browser may still get there
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if loc, lerr := resp.Location(); lerr == nil {
		if q := loc.Query(); q.Get("error") != "" {
			f := refusedAuthorization("before anyone signed in", q.Get("error"), q.Get("error_description"), cl.id, scopes)
			note.fail("authorization refused before the sign-in", f, field("error", q.Get("error")), field("error_description", q.Get("error_description")))
			return "", f
		}
		return fmt.Sprintf("%s to %s", resp.Status, redactQuery(loc.String())), nil
	}
	said := pageMessage(resp.Header, body)
	if resp.StatusCode == http.StatusBadRequest {
		cause := fmt.Sprintf("The authorization server refused the authorization request before anyone signed in (%s)", resp.Status)
		if said != "" {
			cause += fmt.Sprintf(": %q", said)
		}
		f := &Failure{
			Cause: cause + ".",
			Fix: fmt.Sprintf("Most often it does not accept the redirect URI %s for client %s: register that redirect URI for the client there, or pass --oauth-callback with a loopback redirect URI it has registered (mcpscope listens there). Check the client id too.",
				redirectURI, cl.id),
			Err: fmt.Errorf("%w: %s %s", ErrAuthorizationRefused, resp.Status, said),
		}
		note.fail("authorization refused before the sign-in", f, field("redirect_uri", redirectURI), field("client_id", cl.id))
		return "", f
	}
	if said != "" {
		return fmt.Sprintf("%s: %q", resp.Status, said), nil
	}
	return resp.Status, nil
}

// refusedAuthorization is an OAuth error response, from the redirect or
// the preflight, in words.
func refusedAuthorization(when, code, desc, clientID string, scopes []string) *Failure {
	cause := fmt.Sprintf("The authorization server refused the authorization %s: %s", when, code)
	if desc != "" {
		cause += fmt.Sprintf(" (%q)", desc)
	}
	return &Failure{
		Cause: cause + ".",
		Fix:   authorizationErrorFix(code, clientID, scopes),
		Err:   fmt.Errorf("%w: %s %s", ErrAuthorizationRefused, code, desc),
	}
}

// noCallback explains a sign-in whose redirect never came back.
func noCallback(err error, redirectURI, clientID, seen string) *Failure {
	cause := fmt.Sprintf("The browser never came back to %s (%v): nobody finished signing in, or the authorization server did not send the browser back.", redirectURI, err)
	if seen != "" {
		cause += " The authorization URL answers " + seen + "."
	}
	return &Failure{
		Cause: cause,
		Fix: fmt.Sprintf("Open the authorization URL (in the timeline) and sign in. If the page shows an error, the authorization server may not accept the redirect URI %s for client %s: register it there, or pass --oauth-callback with a loopback redirect URI it has registered.",
			redirectURI, clientID),
		Err: fmt.Errorf("%w: %w", ErrNoCallback, err),
	}
}

// libraryContext is ctx for a library's request: it carries the
// recording client (oauth2.HTTPClient) and names the step.
func (a *Authorizer) libraryContext(ctx context.Context, what string, note noteFunc) context.Context {
	return context.WithValue(withPurpose(ctx, what, false), oauth2.HTTPClient, a.httpClient(note))
}

// tokenRequest sends a token request of any grant with x/oauth2.
// clientcredentials.Config is the library's one token request that takes
// any parameters (its EndpointParams may set grant_type); oauth2.Config's
// refresh (TokenSource) cannot send the RFC 8707 resource the MCP
// specification requires on every token request, nor an assertion.
func (a *Authorizer) tokenRequest(ctx context.Context, d *discovery, what string, cl client, params url.Values, note noteFunc) (*oauth2.Token, error) {
	extra, err := a.assertionParams(d, cl)
	if err != nil {
		return nil, err
	}
	for k, v := range extra {
		params[k] = v
	}
	endpoint := d.meta.TokenEndpoint
	cc := clientcredentials.Config{
		ClientID:       cl.id,
		ClientSecret:   cl.librarySecret(),
		TokenURL:       endpoint,
		EndpointParams: params,
		AuthStyle:      cl.authStyle(),
	}
	tok, err := cc.Token(a.libraryContext(ctx, what, note))
	if err != nil {
		return nil, tokenError(endpoint, params.Get("grant_type"), err, note)
	}
	return tok, nil
}

// tokenError says why a token request failed. The recorder already showed
// the exchange; an answer the library refused (200 without a token) is
// shown here.
func tokenError(endpoint, grant string, err error, note noteFunc) error {
	var re *oauth2.RetrieveError
	var ue *url.Error
	switch {
	case errors.As(err, &re):
		if re.Response != nil && re.Response.StatusCode < 300 {
			note.fail(fmt.Sprintf("token endpoint → %d with an error (%s)", re.Response.StatusCode, orNone(re.ErrorCode)), err, field("url", endpoint))
		}
		status := ""
		if re.Response != nil {
			status = re.Response.Status
		}
		return fmt.Errorf("the token endpoint %s answered the %s request with %s: %s %s: %w", endpoint, grant, status, re.ErrorCode, re.ErrorDescription, err)
	case errors.As(err, &ue):
		return fmt.Errorf("the token endpoint %s did not answer: %w", endpoint, err)
	}
	note.fail("token endpoint answer refused", err, field("url", endpoint))
	return fmt.Errorf("the token endpoint %s: %w", endpoint, err)
}

// noteIssued shows a new token without its secrets, and the scope granted
// against the scope asked for.
func (a *Authorizer) noteIssued(is *issued, note noteFunc) {
	summary := "access token " + redacted
	switch {
	case is.tok.ExpiresIn > 0:
		summary += fmt.Sprintf(", expires in %ds", is.tok.ExpiresIn)
	case !is.tok.Expiry.IsZero():
		summary += fmt.Sprintf(", expires in %ds", int64(time.Until(is.tok.Expiry).Round(time.Second)/time.Second))
	}
	if is.tok.RefreshToken != "" {
		summary += ", refresh token " + redacted
	}
	granted, named := is.grantedScope()
	if !named {
		granted = "(not named: the scope asked for)"
	}
	note.step("token received ("+summary+")", field("token_type", is.tok.TokenType), field("scope", granted),
		field("asked", strings.Join(is.asked, " ")), field("client_id", is.cl.id))
}

// refresh trades the refresh token for a new access token.
func (a *Authorizer) refresh(ctx context.Context, d *discovery, rec *Record, note noteFunc) (*issued, error) {
	note.step("refreshing the access token", field("refresh_token", redacted))
	params := grantParams(d, nil, "grant_type", "refresh_token", "refresh_token", rec.RefreshToken)
	cl := client{id: rec.ClientID, secret: rec.ClientSecret, authMethod: rec.AuthMethod}
	if cl.id == "" {
		cl.id, cl.secret = a.cfg.ClientID, a.cfg.ClientSecret
	}
	if cl.authMethod == "" {
		cl.authMethod = a.chooseAuthMethod(d.meta, cl.secret)
	}
	asked := strings.Fields(rec.Scope) // a stored token's: what was granted
	if a.last != nil && a.last.token == rec.AccessToken {
		asked = a.last.asked
	}
	is, err := a.issue(ctx, d, cl, params, asked, note)
	if is != nil {
		is.refreshed = true
	}
	return is, err
}

// clientCredentials runs the client credentials grant (SEP-1046).
func (a *Authorizer) clientCredentials(ctx context.Context, d *discovery, scopes []string, note noteFunc) (*issued, error) {
	cl := client{id: a.cfg.ClientID, secret: a.cfg.ClientSecret, how: "pre-registered"}
	cl.authMethod = a.chooseAuthMethod(d.meta, cl.secret)
	note.step("client credentials grant", field("client_id", cl.id), field("auth_method", cl.authMethod))
	return a.issue(ctx, d, cl, grantParams(d, scopes, "grant_type", "client_credentials"), scopes, note)
}

// grantParams is a token request's parameters: pairs, then the scope and
// the RFC 8707 resource when there are.
func grantParams(d *discovery, scopes []string, pairs ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Set(pairs[i], pairs[i+1])
	}
	if len(scopes) > 0 {
		v.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		v.Set("resource", d.resource)
	}
	return v
}

// issue makes a token request at the authorization server and shows what
// it issued.
func (a *Authorizer) issue(ctx context.Context, d *discovery, cl client, params url.Values, asked []string, note noteFunc) (*issued, error) {
	tok, err := a.tokenRequest(ctx, d, "token endpoint", cl, params, note)
	if err != nil {
		return nil, err
	}
	is := &issued{tok: tok, cl: cl, asked: asked}
	a.noteIssued(is, note)
	return is, nil
}

// grantJWTBearer is the RFC 7523 JWT bearer grant, which presents the
// ID-JAG.
const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// enterprise exchanges the identity provider's ID token for an ID-JAG
// (RFC 8693) and presents it to the authorization server (RFC 7523).
func (a *Authorizer) enterprise(ctx context.Context, d *discovery, scopes []string, note noteFunc) (*issued, error) {
	e := a.cfg.Enterprise
	audience := d.issuer
	if d.meta != nil && d.meta.Issuer != "" {
		audience = d.meta.Issuer
	}
	exchange := grantParams(d, scopes, "grant_type", oauthex.GrantTypeTokenExchange, "requested_token_type", oauthex.TokenTypeIDJAG,
		"audience", audience, "subject_token", e.IDToken, "subject_token_type", oauthex.TokenTypeIDToken)
	exchange.Set("resource", d.resource) // required, even empty
	note.step("token exchange at the identity provider (ID token → ID-JAG)", field("endpoint", e.IdPTokenEndpoint),
		field("audience", audience), field("resource", d.resource), field("subject_token", redacted))
	idp := &discovery{issuer: e.IdPTokenEndpoint, meta: &oauthex.AuthServerMeta{TokenEndpoint: e.IdPTokenEndpoint}}
	jag, err := a.tokenRequest(ctx, idp, "identity provider's token endpoint", client{id: e.IdPClientID, authMethod: AuthMethodNone}, exchange, note)
	if err != nil {
		return nil, err
	}
	note.step("ID-JAG received ("+redacted+")", field("issued_token_type", fmt.Sprint(jag.Extra("issued_token_type"))))
	cl := client{id: a.cfg.ClientID, secret: a.cfg.ClientSecret, how: "pre-registered"}
	cl.authMethod = a.chooseAuthMethod(d.meta, cl.secret)
	note.step("JWT bearer grant with the ID-JAG", field("assertion", redacted), field("auth_method", cl.authMethod))
	return a.issue(ctx, d, cl, grantParams(d, scopes, "grant_type", grantJWTBearer, "assertion", jag.AccessToken), scopes, note)
}

// chooseAuthMethod picks a token endpoint authentication method the
// server supports: private_key_jwt with a signing key, else
// client_secret_basic (RFC 8414's default) or client_secret_post with a
// secret, else none.
func (a *Authorizer) chooseAuthMethod(m *oauthex.AuthServerMeta, secret string) string {
	var supported []string
	if m != nil {
		supported = m.TokenEndpointAuthMethodsSupported
	}
	ok := func(method string) bool { return slices.Contains(supported, method) }
	switch {
	case a.cfg.SigningKey != nil:
		return AuthMethodPrivateKeyJWT
	case secret != "" && (len(supported) == 0 || ok(AuthMethodBasic)):
		return AuthMethodBasic
	case secret != "" && ok(AuthMethodPost):
		return AuthMethodPost
	case secret != "" && !ok(AuthMethodNone):
		return AuthMethodBasic
	}
	return AuthMethodNone
}

// assertionParams are the private_key_jwt parameters (RFC 7523 §2.2) for
// a client that authenticates so; none for the others.
func (a *Authorizer) assertionParams(d *discovery, cl client) (url.Values, error) {
	if cl.authMethod != AuthMethodPrivateKeyJWT {
		return nil, nil
	}
	aud := d.issuer
	if d.meta != nil && d.meta.Issuer != "" {
		aud = d.meta.Issuer
	}
	assertion, err := signClientAssertion(a.cfg.SigningKey, a.cfg.SigningAlg, cl.id, aud, a.cfg.Now())
	if err != nil {
		return nil, err
	}
	return url.Values{
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {assertion},
	}, nil
}
