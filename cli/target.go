package cli

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/child"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// connectFlags are the flags every command that connects to a server shares.
type connectFlags struct {
	env             []string
	cwd             string
	timeout         time.Duration
	era             string
	protocolVersion string
	logLevel        string
	maxLineMiB      int
	noApps          bool

	// --config FILE [--server NAME]; pick chooses when the file has several
	// servers and no --server (set by the TUI only).
	configPath string
	serverName string
	pick       serverPicker

	// tui is set by the interactive command: the terminal belongs to the UI,
	// which asks through confirmOpen before an authorization URL is opened.
	tui         bool
	confirmOpen *openConfirmer

	// For URL targets (HTTP and WebSocket).
	oauth     oauthFlags
	transport string
	headers   []string
	bearer    string
	bearerEnv string
	caFile    string
	insecure  bool
}

func (f *connectFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.env, "env", "e", nil, "set an environment variable for the server (KEY=VALUE, repeatable)")
	fs.StringVar(&f.cwd, "cwd", "", "working directory for the server")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "per-request timeout")
	fs.StringVar(&f.era, "era", "legacy", "protocol era: legacy (initialize), modern (2026-07-28, server/discover) or auto (probe)")
	fs.StringVar(&f.protocolVersion, "protocol-version", "", "protocol version to offer (default: the era's latest)")
	fs.IntVar(&f.maxLineMiB, "max-line-mib", 256, "for a command target: the longest stdout line (one message) read whole, in MiB; a longer one is cut and says so")
	fs.BoolVar(&f.noApps, "no-apps", false, "do not offer MCP Apps (extensions[\"io.modelcontextprotocol/ui\"]) in the client capabilities, to see what a client that cannot render views gets")
	fs.StringVar(&f.configPath, "config", "", "read the server from a config file: Claude Desktop / Cursor / Claude Code (mcpServers) or VS Code (servers)")
	fs.StringVar(&f.serverName, "server", "", "with --config: the server to run (default: the only one, or a picker in the TUI)")
	fs.StringVar(&f.transport, "transport", "auto", "for a URL target: auto (from the URL; Streamable HTTP falls back to HTTP+SSE), streamable, sse or ws")
	fs.StringArrayVar(&f.headers, "header", nil, "for a URL target: send this HTTP header on every request (\"Name: value\", repeatable)")
	fs.StringVar(&f.bearer, "bearer", "", "for a URL target: send \"Authorization: Bearer TOKEN\" (shown redacted everywhere)")
	fs.StringVar(&f.bearerEnv, "bearer-env", "", "for a URL target: like --bearer, with the token read from this environment variable")
	f.oauth.register(fs)
	fs.StringVar(&f.caFile, "ca", "", "for a URL target: also trust the CA certificates in this PEM file")
	fs.BoolVar(&f.insecure, "insecure", false, "for a URL target: do NOT verify the server's TLS certificate (dangerous; for local testing only)")
}

// maxLineMiBLimit bounds --max-line-mib: one message is held whole in
// memory, several times over once shown.
const maxLineMiBLimit = 4096

// maxLine is --max-line-mib in bytes.
func (f *connectFlags) maxLine() int { return f.maxLineMiB << 20 }

// target describes the server to connect to.
type target struct {
	transport   mcp.Transport
	description string // for the header and error messages: shown through shown()
	demo        bool   // the built-in demo server
}

// shown is the description as it is shown (a header, a report, an error,
// a log): without the secrets of its URL (?api_key=) or command
// (--api-key X). A session file gets the description itself, which the
// recorder redacts unless --record-secrets.
func (t *target) shown() string { return redact.Command(t.description) }

// target builds the transport from the arguments after "--" (or, with none,
// mcpscope's own demo server, spawned as a subprocess so it is debugged over
// a real stdio pipe like any other server).
func (f *connectFlags) target(cmd *cobra.Command, args []string) (*target, error) {
	return f.targetAt(cmd, args, cmd.ArgsLenAtDash())
}

// preparing has the guard that ends a stdio server with mcpscope start
// now, while the command sets up the rest, not on the way to the server.
func preparing(t *target, err error) (*target, error) {
	if err == nil {
		if _, ok := t.transport.(*mcp.StdioTransport); ok {
			child.Prepare()
		}
	}
	return t, err
}

// targetAt is target for commands whose own arguments come first (diff
// FILE -- CMD, replay FILE URL): args are the target's alone and dash is
// where "--" was in them (-1 for none).
func (f *connectFlags) targetAt(cmd *cobra.Command, args []string, dash int) (*target, error) {
	return preparing(f.resolveTarget(cmd, args, dash))
}

// resolveTarget is targetAt's work.
func (f *connectFlags) resolveTarget(cmd *cobra.Command, args []string, dash int) (*target, error) {
	for _, kv := range f.env {
		if !strings.Contains(kv, "=") || strings.HasPrefix(kv, "=") {
			return nil, fmt.Errorf("-e %q: expected KEY=VALUE", kv)
		}
	}
	if _, ok := mcp.ParseEra(f.era); !ok {
		return nil, fmt.Errorf("--era %q: expected legacy, modern or auto", f.era)
	}
	if v := f.protocolVersion; v != "" && !mcp.IsLegacyVersion(v) && !mcp.IsModernVersion(v) {
		return nil, fmt.Errorf("--protocol-version %q: mcpscope speaks %s and %s", v,
			strings.Join(mcp.LegacyVersions, ", "), strings.Join(mcp.ModernVersions, ", "))
	}
	if f.maxLineMiB < 1 || f.maxLineMiB > maxLineMiBLimit {
		return nil, fmt.Errorf("--max-line-mib %d: expected 1 to %d", f.maxLineMiB, maxLineMiBLimit)
	}
	if f.configPath != "" {
		return f.configTarget(cmd, args)
	}
	if f.serverName != "" {
		return nil, errors.New("--server needs --config FILE")
	}
	if dash < 0 && len(args) == 1 && isURLTarget(args[0]) {
		return f.urlTarget(cmd, args[0])
	}
	if err := f.checkNoURLFlags(cmd); err != nil {
		return nil, err
	}
	if dash > 0 {
		return nil, fmt.Errorf("unexpected argument %q before --; put the server command after --", args[0])
	} else if dash < 0 && len(args) > 0 {
		return nil, fmt.Errorf("unexpected argument %q; give a server URL (https://host/mcp) or put the server command after --, e.g. mcpscope -- %s", args[0], strings.Join(args, " "))
	}
	if len(args) == 0 {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("cannot find mcpscope's own binary to run the demo server: %w", err)
		}
		return &target{
			transport:   &mcp.StdioTransport{Command: self, Args: []string{"demo-server"}, Env: f.env, Dir: f.cwd, MaxLine: f.maxLine()},
			description: "built-in demo server",
			demo:        true,
		}, nil
	}
	return &target{
		transport:   &mcp.StdioTransport{Command: args[0], Args: args[1:], Env: f.env, Dir: f.cwd, MaxLine: f.maxLine()},
		description: strings.Join(args, " "),
	}, nil
}

// clientOptions turns the flags into client options.
func (f *connectFlags) clientOptions() mcp.Options {
	era, _ := mcp.ParseEra(f.era)
	opts := mcp.Options{
		Era:             era,
		ProtocolVersion: f.protocolVersion,
		Timeout:         f.timeout,
		LogLevel:        f.logLevel,
	}
	if f.noApps {
		opts.Capabilities = mcp.ClientCapabilitiesWithoutApps()
	}
	return opts
}

// urlSchemes are the schemes that make a bare argument a server URL.
var urlSchemes = []string{"http://", "https://", "ws://", "wss://"}

// isURLTarget reports whether a bare argument names a remote server.
func isURLTarget(arg string) bool {
	lower := strings.ToLower(arg)
	for _, s := range urlSchemes {
		if strings.HasPrefix(lower, s) {
			return true
		}
	}
	return false
}

// urlFlags are the flags that only make sense for a URL target.
var urlFlags = append([]string{"transport", "header", "bearer", "bearer-env", "ca", "insecure"}, oauthFlagNames...)

// checkNoURLFlags refuses URL-only flags on a stdio target rather than
// ignoring them silently.
func (f *connectFlags) checkNoURLFlags(cmd *cobra.Command) error {
	for _, name := range urlFlags {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			return fmt.Errorf("--%s applies to a server URL (e.g. mcpscope --%s ... https://host/mcp), not to a stdio server", name, name)
		}
	}
	return nil
}

// urlTarget builds the transport for a server URL: Streamable HTTP (with
// the HTTP+SSE fallback) for http(s), WebSocket for ws(s), unless
// --transport says otherwise.
func (f *connectFlags) urlTarget(cmd *cobra.Command, raw string) (*target, error) {
	for _, name := range []string{"env", "cwd"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			return nil, fmt.Errorf("--%s applies to a stdio server, not to a server URL", name)
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%q is not a usable server URL (expected e.g. https://host/mcp)", raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	web := u.Scheme == "http" || u.Scheme == "https"
	kind := f.transport
	switch kind {
	case "auto":
		kind = "streamable-auto"
		if !web {
			kind = "ws"
		}
	case "streamable", "sse":
		if !web {
			return nil, fmt.Errorf("--transport %s needs an http:// or https:// URL, not %s://", kind, u.Scheme)
		}
	case "ws":
		if web { // the same server, reached by WebSocket
			u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
		}
	default:
		return nil, fmt.Errorf("--transport %q: expected auto, streamable, sse or ws", f.transport)
	}
	header, err := f.httpHeader()
	if err != nil {
		return nil, err
	}
	client, err := f.httpClient()
	if err != nil {
		return nil, err
	}
	secure := u.Scheme == "https" || u.Scheme == "wss"
	desc := u.Redacted()
	if f.insecure && secure {
		_, _ = fmt.Fprintln(cmd.ErrOrStderr(), "mcpscope: WARNING: --insecure: the server's TLS certificate is NOT verified."+
			" Anyone on the network path can read and change this session, credentials included. Use --ca FILE to trust a private CA instead.")
		desc += " [TLS NOT VERIFIED]"
	}
	authz, err := f.authorizer(u.String(), header, client, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	t := &target{description: desc}
	switch kind {
	case "streamable-auto", "streamable":
		t.transport = &mcp.HTTPTransport{URL: u.String(), Header: header, HTTPClient: client, Authorizer: authz, NoSSEFallback: kind == "streamable"}
	case "sse":
		t.transport = &mcp.SSETransport{URL: u.String(), Header: header, HTTPClient: client, Authorizer: authz}
		t.description += " (HTTP+SSE)"
	case "ws":
		t.transport = &mcp.WebSocketTransport{URL: u.String(), Header: header, HTTPClient: client, Authorizer: authz}
	}
	return t, nil
}

// httpHeader gathers --header and --bearer into the headers sent on every
// request.
func (f *connectFlags) httpHeader() (http.Header, error) {
	header := http.Header{}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("--header %q: expected \"Name: value\"", h)
		}
		header.Add(name, strings.TrimSpace(value))
	}
	token := f.bearer
	if f.bearerEnv != "" {
		if f.bearer != "" {
			return nil, fmt.Errorf("give --bearer or --bearer-env, not both")
		}
		token = os.Getenv(f.bearerEnv)
		if token == "" {
			return nil, fmt.Errorf("--bearer-env %s: the environment variable is unset or empty", f.bearerEnv)
		}
	}
	if token != "" {
		if header.Get("Authorization") != "" {
			return nil, fmt.Errorf("--bearer and --header \"Authorization: ...\" both set the Authorization header; give one")
		}
		header.Set("Authorization", "Bearer "+token)
	}
	if len(header) == 0 {
		return nil, nil
	}
	return header, nil
}

// httpClient builds the HTTP client for --ca and --insecure; nil (the
// transport's own) without them.
func (f *connectFlags) httpClient() (*http.Client, error) {
	if f.caFile == "" && !f.insecure {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.caFile != "" {
		pem, err := os.ReadFile(f.caFile)
		if err != nil {
			return nil, fmt.Errorf("--ca: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca %s: no PEM certificate found in the file", f.caFile)
		}
		cfg.RootCAs = pool
	}
	cfg.InsecureSkipVerify = f.insecure //nolint:gosec // the user asked, and was warned
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	return &http.Client{Transport: tr}, nil
}
