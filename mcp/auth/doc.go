// Package auth is mcpscope's OAuth 2.1 client for MCP servers that require
// authorization (MCP 2025-03-26 to 2025-11-25, mcp-protocol.md §3.5).
//
// [Authorizer] implements mcp.Authorizer: the HTTP transports ask it for
// credentials before every request and hand it every 401 and 403. On a 401
// it discovers the protected resource metadata (RFC 9728) and the
// authorization server metadata (RFC 8414, OpenID Connect discovery),
// registers a client (pre-registered, Client ID Metadata Document, or
// dynamic registration per RFC 7591), runs the authorization code flow with
// PKCE S256 and the RFC 8707 resource indicator, and keeps the token. On a
// 403 insufficient_scope it re-authorizes with the wider scope, three times
// at most for one scope set. It also speaks the client credentials grant
// (client_secret_basic or private_key_jwt) and the enterprise ID-JAG token
// exchange for the conformance extension scenarios.
//
// The protocol work is the libraries': golang.org/x/oauth2 builds the
// authorization request with its PKCE S256 pair and makes every token
// request (the code exchange, refresh, client credentials, the JWT bearer
// grant); the go-sdk's oauthex supplies the metadata types and dynamic
// client registration. What they lack stays here: the discovery order of
// the MCP specification (protected resource metadata, then the
// authorization server's), a lenient WWW-Authenticate parser, the
// endpoint and resource checks, and the step-up rules.
//
// A debugger's user wants to see why authorization fails, so every step is
// reported as its own mcp.TransportEvent of kind "oauth": every HTTP
// exchange, the libraries' included, through a recording
// http.RoundTripper on the one client they all use (oauth2.HTTPClient),
// and the decisions between them (the chosen registration method, the
// scope, the authorization URL broken into parameters), with every secret
// (codes, verifiers, tokens, client secrets, assertions) redacted.
//
// A failure whose cause is known is a [Failure]: what happened in words
// and what would fix it (a scope not granted, a token refused right after
// sign-in, an authorization request the authorization server refused, a
// callback that never came), which the doctor shows as the connection's
// cause and fix.
//
// How the person authorizes is a [Browser]: [LoopbackBrowser] prints the URL,
// opens a browser where there is one and waits on a loopback callback;
// [HeadlessBrowser] follows the authorization server's redirect itself,
// which is what the conformance suite's mock servers expect.
//
// Tokens live in a [Store]; [FileStore] keeps them in a mode 0600 JSON file
// under the user's state directory, keyed by issuer and resource.
package auth
