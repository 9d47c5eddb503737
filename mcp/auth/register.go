package auth

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// register obtains a client id in the specification's order of priority:
// pre-registered, Client ID Metadata Document, dynamic registration. A
// client registered dynamically is reused for the same issuer while the
// process lives (its credentials are also kept with the token).
func (a *Authorizer) register(ctx context.Context, d *discovery, redirectURI string, scopes []string, note noteFunc) (client, error) {
	m := d.meta
	if a.cfg.ClientID != "" {
		cl := client{id: a.cfg.ClientID, secret: a.cfg.ClientSecret, how: "pre-registered"}
		cl.authMethod = a.chooseAuthMethod(m, cl.secret)
		note.step("client: pre-registered", field("client_id", cl.id), field("auth_method", cl.authMethod),
			field("client_secret", ifSet(cl.secret)))
		return cl, nil
	}
	if m.ClientIDMetadataDocumentSupported && a.cfg.ClientMetadataURL != "" {
		cl := client{id: a.cfg.ClientMetadataURL, authMethod: AuthMethodNone, how: "client ID metadata document"}
		note.step("client: Client ID Metadata Document (the server supports it)", field("client_id", cl.id))
		return cl, nil
	}
	if rec := a.current(ctx); rec != nil && rec.Issuer == d.issuer && rec.ClientID != "" && rec.RedirectURI == redirectURI {
		cl := client{id: rec.ClientID, secret: rec.ClientSecret, authMethod: rec.AuthMethod, how: "registered earlier"}
		note.step("client: registered earlier with this authorization server", field("client_id", cl.id), field("auth_method", cl.authMethod))
		return cl, nil
	}
	if m.RegistrationEndpoint == "" {
		why := "it has no registration_endpoint"
		if m.ClientIDMetadataDocumentSupported {
			why = "it supports Client ID Metadata Documents but no --client-metadata-url was given, and it has no registration_endpoint"
		}
		err := fmt.Errorf("%w with %s: %s; pass a pre-registered --client-id (and --client-secret)", ErrNoRegistration, d.issuer, why)
		note.fail("no way to register a client", err)
		return client{}, err
	}

	method := AuthMethodNone
	if sup := m.TokenEndpointAuthMethodsSupported; len(sup) > 0 && !slices.Contains(sup, AuthMethodNone) {
		switch {
		case slices.Contains(sup, AuthMethodBasic):
			method = AuthMethodBasic
		case slices.Contains(sup, AuthMethodPost):
			method = AuthMethodPost
		}
	}
	appType := "web"
	if u, err := url.Parse(redirectURI); err == nil && isLoopback(u.Hostname()) {
		appType = "native"
	}
	meta := &oauthex.ClientRegistrationMetadata{
		ClientName:              a.cfg.ClientName,
		RedirectURIs:            []string{redirectURI},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: method,
		ApplicationType:         appType,
		Scope:                   strings.Join(scopes, " "),
	}
	reg, err := oauthex.RegisterClient(a.libraryContext(ctx, "dynamic registration", note), m.RegistrationEndpoint, meta, a.httpClient(note))
	if err != nil {
		// The recorder showed the exchange and its answer.
		err = fmt.Errorf("dynamic client registration at %s failed: %w", m.RegistrationEndpoint, err)
		note.fail("dynamic registration refused", err)
		return client{}, err
	}
	cl := client{id: reg.ClientID, secret: reg.ClientSecret, authMethod: reg.TokenEndpointAuthMethod, how: "dynamic registration"}
	if cl.authMethod == "" {
		cl.authMethod = a.chooseAuthMethod(m, cl.secret)
	}
	note.step("client: dynamic registration", field("client_id", cl.id), field("client_secret", ifSet(cl.secret)),
		field("token_endpoint_auth_method", cl.authMethod))
	return cl, nil
}

func ifSet(secret string) string {
	if secret == "" {
		return ""
	}
	return redacted
}
