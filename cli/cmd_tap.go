package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/child"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/watch"
	"github.com/spf13/cobra"
)

// tapOptions are the flags of `mcpscope tap`.
type tapOptions struct {
	name          string
	recordSecrets bool
	noHub         bool
	listen        string // --listen: an HTTP tap on this address
	listenPublic  bool
	allowOrigins  []string
	token         string     // --token: what the HTTP tap's clients must send ("generate": one made up)
	model         string     // --model: a model tap of this provider's API
	upstream      string     // --upstream: the model API's URL
	watch         watchFlags // --watch, --build, --watch-ignore (stdio taps)
	otel          otelFlags  // --otlp, --otlp-content
}

func newTapCommand() *cobra.Command {
	var o tapOptions
	cmd := &cobra.Command{
		Use:   "tap [--name NAME] -- CMD [ARGS...] | tap --listen 127.0.0.1:PORT URL | tap --model PROVIDER",
		Short: "Sit between a real client and a server and record what they say",
		Long: `tap is what a client's config runs instead of the server's command. It starts the
server and copies the client's stdin to it and its stdout back, byte for byte;
nothing else is ever written to stdout. The server's stderr passes through,
signals are forwarded, and the tap exits with the server's status.

Every tapped conversation is recorded in ~/.local/state/mcpscope/taps/ (a
session file, environment values redacted; the place depends on HOME alone, as
clients pass their servers different environments), and each live tap opens a
socket only you can open, so that ` + "`mcpscope taps`" + ` can show it live. A viewer
that is slow, absent or killed changes nothing for the client.

With --listen ADDR URL, the tap is a reverse proxy for a remote server: point the
client at http://ADDR/ instead of URL. Streamable HTTP (POST answers in JSON or
SSE, flushed event by event; the GET stream; Mcp-Session-Id, Last-Event-ID) and
the legacy HTTP+SSE transport pass through, as do OAuth and every header;
Authorization values are redacted in what is recorded. WebSocket messages are
recorded as frames, both ways (inflated when permessage-deflate was agreed). A
legacy server's absolute endpoint URL (its SSE endpoint event) is rewritten to
the tap's address so the client's messages come through it; the record says so.

The HTTP tap is a local server and guards like one: a request whose Origin is
not the tap's own (a web page, of any site or local port), or whose Host is not
the tap's address (a name rebound to 127.0.0.1), is refused with 403 and a line
in the record; a client that sends no Origin passes. --allow-origin ORIGIN lets
an origin through. With --token T (or --token generate, which makes one up and
prints it) every request must carry T, in the header Mcpscope-Tap-Token or as
?mcpscope_tap_token=T in the URL the client is given; others get 401 (the OAuth
metadata under /.well-known/ excepted). The tap takes the token off before it
forwards and records. A --listen address other machines can reach needs
--listen-public.

With --watch PATH (and --build CMD), a stdio tap restarts the server when a file
under PATH changes while the client stays connected: the client's handshake and
subscriptions are replayed to the new server, its requests in flight are
answered with error -32000, and it is sent list_changed for each list that
changed. An HTTP tap runs no server: after --build (which replaces it) it opens
the client's session again upstream and maps the client's Mcp-Session-Id to the
new one (see the README, "Hot reload").

With --model PROVIDER (anthropic, openai or gemini) the tap sits between a
client and its model API instead: point the client's base-URL setting
(ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL; the tap prints
the line) at it, and every request goes to the same path under --upstream (the
provider's real API by default), its bytes unchanged both ways, a streamed
answer flushed as it comes. Each request is recorded as one line: the tools the
client gave the model (as the client renamed, cut or rewrote them), the tool
calls the model made, the tool results passed back and the tokens the API
counted; API keys are redacted. The guard is the HTTP tap's. See
docs/model-tap.md.`,
		Example: `  # in claude_desktop_config.json: "command": "mcpscope",
  #   "args": ["tap", "--name", "weather", "--", "node", "build/index.js"]
  mcpscope tap --name weather -- node build/index.js
  mcpscope tap --name weather --watch src --build 'npm run build' -- node build/index.js
  mcpscope tap --name remote --listen 127.0.0.1:8808 https://example.com/mcp
  mcpscope tap --listen 127.0.0.1:8808 --token generate https://example.com/mcp
  mcpscope tap --model anthropic --listen 127.0.0.1:8809
  #   then: ANTHROPIC_BASE_URL=http://127.0.0.1:8809 claude
  mcpscope taps                      # watch it`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.watch.check(); err != nil {
				return withCode(exitUsage, err)
			}
			if o.model != "" {
				if len(args) != 0 || o.token != "" || o.listenPublic || o.watch.on() {
					return withCode(exitUsage, errors.New("tap --model PROVIDER takes --listen, --upstream, --name and --allow-origin only: mcpscope tap --model anthropic --listen 127.0.0.1:8809"))
				}
				return runModelTap(cmd, o)
			}
			if o.upstream != "" {
				return withCode(exitUsage, errors.New("tap: --upstream is the model API's URL: use it with --model PROVIDER"))
			}
			if o.token != "" && o.listen == "" {
				return withCode(exitUsage, errors.New("tap: --token guards an HTTP tap: use it with --listen ADDR URL"))
			}
			if o.listen != "" {
				if len(args) != 1 {
					return withCode(exitUsage, fmt.Errorf("tap --listen ADDR takes the server's URL: mcpscope tap --listen 127.0.0.1:8808 https://example.com/mcp"))
				}
				return runHTTPTap(cmd, o, args[0])
			}
			if len(args) == 0 {
				return withCode(exitUsage, errors.New("tap: give the server's command after --, as in mcpscope tap --name NAME -- CMD [ARGS]"))
			}
			runStdioTap(o, args)
			return nil
		},
	}
	cmd.AddCommand(newTapInstallCommands()...)
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "name the tap in mcpscope taps (e.g. the server's name in the client's config)")
	f.BoolVar(&o.recordSecrets, "record-secrets", false, "record environment values and the command's secret arguments (--api-key X) as they are instead of redacting them (credentials a client sends are redacted whatever this says)")
	f.BoolVar(&o.noHub, "no-live", false, "record only: open no socket for a live viewer")
	f.StringVar(&o.listen, "listen", "", "tap a remote server: listen on ADDR (e.g. 127.0.0.1:8808) and proxy to the URL given as the argument")
	f.BoolVar(&o.listenPublic, "listen-public", false, "allow a --listen address other machines can reach (e.g. 0.0.0.0:8808); a warning says so")
	f.StringVar(&o.model, "model", "", "tap a client's model API instead of a server: anthropic, openai or gemini (see docs/model-tap.md)")
	f.StringVar(&o.upstream, "upstream", "", "with --model: the model API's URL (default: the provider's, e.g. https://api.anthropic.com)")
	o.watch.register(f)
	o.otel.register(f, false)
	f.StringArrayVar(&o.allowOrigins, "allow-origin", nil, "let requests from this web origin (scheme://host[:port]) through the HTTP tap besides the tap's own (repeatable)")
	f.StringVar(&o.token, "token", "", "the HTTP tap takes only requests that carry this token (header "+tap.TokenHeader+" or ?"+tap.TokenParam+"= in the URL); \"generate\" makes one up and prints it")
	return cmd
}

// runStdioTap runs the tap and ends the process the way the server ended:
// with its status, or killed by the same signal. It never returns.
func runStdioTap(o tapOptions, args []string) {
	child.Prepare() // the guard's shell starts while the tap sets up
	tap.Lean()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, tap.ForwardedSignals...)
	// Signals are the server's to act on: the tap forwards them and keeps
	// copying until the server ends, so the command's context (cancelled
	// on Ctrl+C) does not bound it.
	tel, err := o.otel.startTap(tapServerName(o.name, "", args), "stdio", "")
	if err != nil {
		_, _ = fmt.Fprintln(os.Stderr, "mcpscope tap: "+termsafe.Block(err.Error()))
		os.Exit(exitUsage)
	}
	so := tap.StdioOptions{
		Name: o.name, Command: args[0], Args: args[1:], Signals: sigs,
		Recording: tap.Recording{KeepSecrets: o.recordSecrets, NoHub: o.noHub, OnEvent: tel.onEvent()},
	}
	if o.watch.on() {
		so.Reload = &tap.ReloadOptions{Watch: watch.Options{Paths: o.watch.paths, Ignore: o.watch.ignore}, Build: o.watch.build}
	}
	out, err := tap.RunStdio(context.Background(), so)
	// The recorder has stopped: every frame was seen.
	tel.finish(os.Stderr)
	if err != nil {
		_, _ = fmt.Fprintln(os.Stderr, "mcpscope tap: "+termsafe.Block(err.Error()))
		os.Exit(exitUsage)
	}
	signal.Stop(sigs)
	if out.Signal != nil {
		tap.Reraise(out.Signal)
		os.Exit(tap.SignalCode(out.Signal))
	}
	os.Exit(out.Code)
}

// runHTTPTap proxies until Ctrl+C.
func runHTTPTap(cmd *cobra.Command, o tapOptions, target string) error {
	tap.Lean()
	stderr := cmd.ErrOrStderr()
	var reload *tap.ReloadOptions
	if o.watch.on() {
		reload = &tap.ReloadOptions{Watch: watch.Options{Paths: o.watch.paths, Ignore: o.watch.ignore}, Build: o.watch.build}
	}
	token := o.token
	if token == "generate" {
		token = rand.Text()
	}
	tel, err := o.otel.startTap(tapServerName(o.name, target, nil), "http", target)
	if err != nil {
		return err
	}
	// After RunHTTP has returned: its recorders have stopped.
	defer tel.finish(stderr)
	err = tap.RunHTTP(cmd.Context(), tap.HTTPOptions{
		Name: o.name, Listen: o.listen, Target: target, Public: o.listenPublic, AllowOrigins: o.allowOrigins, Token: token, Reload: reload,
		Recording: tap.Recording{KeepSecrets: o.recordSecrets, NoHub: o.noHub, OnEvent: tel.onEvent(),
			Warn: func(s string) { _, _ = fmt.Fprintln(stderr, "mcpscope tap: "+s) }},
		Ready: func(local string) {
			if token == "" {
				_, _ = fmt.Fprintf(stderr, "mcpscope tap: point the client at %s (it reaches %s through the tap); Ctrl+C stops\n", local, termsafe.String(target))
				return
			}
			_, _ = fmt.Fprintf(stderr, "mcpscope tap: point the client at %s?%s=%s, or at %s with the header \"%s: %s\" (it reaches %s through the tap); Ctrl+C stops\n",
				local, tap.TokenParam, url.QueryEscape(token), local, tap.TokenHeader, termsafe.String(token), termsafe.String(target))
		},
	})
	if err != nil {
		return withCode(exitUsage, err)
	}
	return nil
}

// runModelTap proxies a client's model API until Ctrl+C.
func runModelTap(cmd *cobra.Command, o tapOptions) error {
	p, ok := tap.FindProvider(o.model)
	if !ok {
		var names []string
		for _, p := range tap.Providers {
			names = append(names, p.Name)
		}
		return withCode(exitUsage, fmt.Errorf("tap --model %q: the providers are %s", o.model, strings.Join(names, ", ")))
	}
	stderr := cmd.ErrOrStderr()
	upstream := o.upstream
	if upstream == "" {
		upstream = p.Upstream
	}
	err := tap.RunModel(cmd.Context(), tap.ModelOptions{
		Name: o.name, Provider: p, Listen: o.listen, Upstream: o.upstream, AllowOrigins: o.allowOrigins,
		Recording: tap.Recording{KeepSecrets: o.recordSecrets, NoHub: true,
			Warn: func(s string) { _, _ = fmt.Fprintln(stderr, "mcpscope tap: "+termsafe.String(s)) }},
		Ready: func(base string) {
			_, _ = fmt.Fprintf(stderr, "mcpscope tap: start the client with %s=%s (it reaches %s through the tap); Ctrl+C stops\n",
				p.BaseURLVar, base, termsafe.String(redact.URLs(upstream)))
		},
	})
	if err != nil {
		return withCode(exitUsage, err)
	}
	return nil
}
