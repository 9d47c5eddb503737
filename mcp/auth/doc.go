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
// A debugger's user wants to see why authorization fails, so every step is
// reported as its own mcp.TransportEvent of kind "oauth" — each URL probed
// with its status, the chosen registration method, the authorization URL
// broken into parameters, the token endpoint's answer — with every secret
// (codes, tokens, client secrets, assertions) redacted.
//
// How the person authorizes is a [Browser]: [LoopbackBrowser] prints the URL,
// opens a browser where there is one and waits on a loopback callback;
// [HeadlessBrowser] follows the authorization server's redirect itself,
// which is what the conformance suite's mock servers expect.
//
// Tokens live in a [Store]; [FileStore] keeps them in a mode 0600 JSON file
// under the user's state directory, keyed by issuer and resource.
package auth
