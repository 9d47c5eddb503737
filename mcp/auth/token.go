package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Token endpoint client authentication methods (RFC 7591 §2).
const (
	AuthMethodBasic         = "client_secret_basic"
	AuthMethodPost          = "client_secret_post"
	AuthMethodNone          = "none"
	AuthMethodPrivateKeyJWT = "private_key_jwt"
)

// tokenResponse is a token endpoint's answer plus the client that got it.
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int64  `json:"expires_in"`
	RefreshToken    string `json:"refresh_token"`
	Scope           string `json:"scope"`
	IssuedTokenType string `json:"issued_token_type"`

	clientID, clientSecret, authMethod, redirectURI string
}

// client is a registered client and how it authenticates at the token
// endpoint.
type client struct {
	id, secret string
	authMethod string
	how        string // "pre-registered", "client ID metadata document", "dynamic registration"
}

// newPKCE returns a verifier (43 characters of base64url entropy) and its
// S256 challenge (RFC 7636).
func newPKCE() (verifier, challenge string) {
	verifier = randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// authorizationCode runs the interactive flow: registration, the
// authorization request through the Browser, and the code exchange.
func (a *Authorizer) authorizationCode(ctx context.Context, d *discovery, scopes []string, note noteFunc) (*tokenResponse, error) {
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

	verifier, challenge := newPKCE()
	note.step("PKCE S256", field("code_challenge", challenge), field("code_verifier", redacted))
	state := randomString(16)
	q := url.Values{}
	q.Set("response_type", "code")
	q.Set("client_id", cl.id)
	q.Set("redirect_uri", redirectURI)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		q.Set("resource", d.resource)
	}
	authURL, err := withQuery(m.AuthorizationEndpoint, q)
	if err != nil {
		return nil, fmt.Errorf("the authorization endpoint %q is not a URL: %w", m.AuthorizationEndpoint, err)
	}
	note.step("authorization request", field("endpoint", m.AuthorizationEndpoint), field("client_id", cl.id),
		field("redirect_uri", redirectURI), field("scope", q.Get("scope")), field("state", state),
		field("code_challenge", challenge), field("code_challenge_method", "S256"), field("resource", d.resource))

	cb, err := browser.Visit(ctx, authURL, note)
	if err != nil {
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
		err := fmt.Errorf("the authorization server refused: %s %s", e, cb.Get("error_description"))
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

	form := url.Values{}
	form.Set("grant_type", "authorization_code")
	form.Set("code", code)
	form.Set("redirect_uri", redirectURI)
	form.Set("code_verifier", verifier)
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	tok, err := a.tokenRequest(ctx, d, cl, form, note)
	if tok != nil {
		tok.redirectURI = redirectURI
	}
	return tok, err
}

func withQuery(endpoint string, q url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	merged := u.Query()
	for k, vs := range q {
		merged[k] = vs
	}
	u.RawQuery = merged.Encode()
	return u.String(), nil
}

// refresh trades the refresh token for a new access token.
func (a *Authorizer) refresh(ctx context.Context, d *discovery, rec *Record, note noteFunc) (*tokenResponse, error) {
	note.step("refreshing the access token", field("refresh_token", redacted))
	form := url.Values{}
	form.Set("grant_type", "refresh_token")
	form.Set("refresh_token", rec.RefreshToken)
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	cl := client{id: rec.ClientID, secret: rec.ClientSecret, authMethod: rec.AuthMethod}
	if cl.id == "" {
		cl.id, cl.secret = a.cfg.ClientID, a.cfg.ClientSecret
	}
	if cl.authMethod == "" {
		cl.authMethod = a.chooseAuthMethod(d.meta, cl.secret)
	}
	return a.tokenRequest(ctx, d, cl, form, note)
}

// clientCredentials runs the client credentials grant (SEP-1046).
func (a *Authorizer) clientCredentials(ctx context.Context, d *discovery, scopes []string, note noteFunc) (*tokenResponse, error) {
	cl := client{id: a.cfg.ClientID, secret: a.cfg.ClientSecret, how: "pre-registered"}
	cl.authMethod = a.chooseAuthMethod(d.meta, cl.secret)
	note.step("client credentials grant", field("client_id", cl.id), field("auth_method", cl.authMethod))
	form := url.Values{}
	form.Set("grant_type", "client_credentials")
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	return a.tokenRequest(ctx, d, cl, form, note)
}

// Grant type and token type URNs of the enterprise flow.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
)

// enterprise exchanges the identity provider's ID token for an ID-JAG
// (RFC 8693) and presents it to the authorization server (RFC 7523).
func (a *Authorizer) enterprise(ctx context.Context, d *discovery, scopes []string, note noteFunc) (*tokenResponse, error) {
	e := a.cfg.Enterprise
	audience := d.issuer
	if d.meta != nil && d.meta.Issuer != "" {
		audience = d.meta.Issuer
	}
	form := url.Values{}
	form.Set("grant_type", grantTokenExchange)
	form.Set("requested_token_type", tokenTypeIDJAG)
	form.Set("audience", audience)
	form.Set("resource", d.resource)
	form.Set("subject_token", e.IDToken)
	form.Set("subject_token_type", tokenTypeIDToken)
	if e.IdPClientID != "" {
		form.Set("client_id", e.IdPClientID)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	note.step("token exchange at the identity provider (ID token → ID-JAG)", field("endpoint", e.IdPTokenEndpoint),
		field("audience", audience), field("resource", d.resource), field("subject_token", redacted))
	idp := &discovery{issuer: e.IdPTokenEndpoint, meta: &ServerMetadata{TokenEndpoint: e.IdPTokenEndpoint}}
	jag, err := a.tokenRequest(ctx, idp, client{authMethod: AuthMethodNone}, form, note)
	if err != nil {
		return nil, err
	}
	cl := client{id: a.cfg.ClientID, secret: a.cfg.ClientSecret, how: "pre-registered"}
	cl.authMethod = a.chooseAuthMethod(d.meta, cl.secret)
	grant := url.Values{}
	grant.Set("grant_type", grantJWTBearer)
	grant.Set("assertion", jag.AccessToken)
	if len(scopes) > 0 {
		grant.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		grant.Set("resource", d.resource)
	}
	note.step("JWT bearer grant with the ID-JAG", field("assertion", redacted), field("auth_method", cl.authMethod))
	return a.tokenRequest(ctx, d, cl, grant, note)
}

// chooseAuthMethod picks a token endpoint authentication method the
// server supports: private_key_jwt with a signing key, else
// client_secret_basic (RFC 8414's default) or client_secret_post with a
// secret, else none.
func (a *Authorizer) chooseAuthMethod(m *ServerMetadata, secret string) string {
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

// tokenRequest POSTs to the token endpoint with the client's
// authentication and reports the answer without its secrets.
func (a *Authorizer) tokenRequest(ctx context.Context, d *discovery, cl client, form url.Values, note noteFunc) (*tokenResponse, error) {
	endpoint := d.meta.TokenEndpoint
	switch cl.authMethod {
	case AuthMethodPost:
		form.Set("client_id", cl.id)
		form.Set("client_secret", cl.secret)
	case AuthMethodPrivateKeyJWT:
		aud := d.issuer
		if d.meta.Issuer != "" {
			aud = d.meta.Issuer
		}
		assertion, err := signClientAssertion(a.cfg.SigningKey, a.cfg.SigningAlg, cl.id, aud, a.cfg.Now())
		if err != nil {
			return nil, err
		}
		form.Set("client_id", cl.id)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	case AuthMethodNone:
		if cl.id != "" {
			form.Set("client_id", cl.id)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("the token endpoint %q is not usable: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if cl.authMethod == AuthMethodBasic {
		// RFC 6749 §2.3.1: both parts form-urlencoded before base64.
		req.SetBasicAuth(url.QueryEscape(cl.id), url.QueryEscape(cl.secret))
	}
	grant := form.Get("grant_type")
	sent := []string{"grant_type=" + grant}
	if r := form.Get("resource"); r != "" {
		sent = append(sent, "resource="+r)
	}
	if s := form.Get("scope"); s != "" {
		sent = append(sent, "scope="+s)
	}
	resp, err := a.httpClient().Do(req)
	if err != nil {
		note.fail("POST "+pathOf(endpoint)+" (token endpoint) failed", err, field("url", endpoint))
		return nil, fmt.Errorf("the token endpoint %s did not answer: %w", endpoint, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	var tok tokenResponse
	var oauthErr struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	if resp.StatusCode != http.StatusOK {
		_ = json.Unmarshal(body, &oauthErr)
		err := fmt.Errorf("the token endpoint %s answered %s: %s %s", endpoint, resp.Status, oauthErr.Error, oauthErr.ErrorDescription)
		note.fail(fmt.Sprintf("token endpoint → %d (%s)", resp.StatusCode, orNone(oauthErr.Error)), err,
			field("url", endpoint), field("request", strings.Join(sent, " ")), field("client_auth", cl.authMethod),
			field("error", oauthErr.Error), field("error_description", oauthErr.ErrorDescription))
		return nil, err
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		err := fmt.Errorf("the token endpoint %s answered 200 without an access_token", endpoint)
		note.fail("token endpoint → 200 without a token", err, field("url", endpoint))
		return nil, err
	}
	tok.clientID, tok.clientSecret, tok.authMethod = cl.id, cl.secret, cl.authMethod
	what := "access token"
	if grant == grantTokenExchange {
		what = "ID-JAG"
	}
	summary := fmt.Sprintf("token endpoint → %d (%s %s", resp.StatusCode, what, redacted)
	if tok.ExpiresIn > 0 {
		summary += fmt.Sprintf(", expires in %ds", tok.ExpiresIn)
	}
	if tok.RefreshToken != "" {
		summary += ", refresh token " + redacted
	}
	summary += ")"
	note.step(summary, field("url", endpoint), field("request", strings.Join(sent, " ")), field("client_auth", cl.authMethod),
		field("token_type", tok.TokenType), field("scope", tok.Scope))
	return &tok, nil
}
