package cli

// The hidden conformance-client command is what the official MCP
// conformance suite (@modelcontextprotocol/conformance 0.1.16) drives: the
// suite starts a mock server, runs this command with the server URL as the
// last argument, sets MCP_CONFORMANCE_SCENARIO (and, for some scenarios,
// MCP_CONFORMANCE_CONTEXT as JSON), and judges what arrives on the wire.
//
// It is not a second client: it builds the same mcp.Client over the same
// mcp.HTTPTransport, with the same mcp/auth Authorizer and the same
// mcp/policy elicitation answers the user-facing commands use, so passing
// the suite says something about the product. Only the authorization step
// is headless (the mock authorization servers approve at once).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/auth"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/spf13/cobra"
)

// conformanceCIMDURL is the Client ID Metadata Document URL the suite's
// auth/basic-cimd scenario expects (a fixed constant in the suite).
const conformanceCIMDURL = "https://conformance-test.local/client-metadata.json"

// conformanceBudget keeps a run well inside the suite's 30 s timeout.
const conformanceBudget = 25 * time.Second

func newConformanceClientCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "conformance-client SERVER_URL",
		Short:  "Headless client driven by the MCP conformance suite (MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_CONTEXT)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), conformanceBudget)
			defer cancel()
			sc := conformanceScenario{
				Name:      os.Getenv("MCP_CONFORMANCE_SCENARIO"),
				ServerURL: args[len(args)-1], // the suite appends the URL last
			}
			if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
				if err := json.Unmarshal([]byte(raw), &sc.Context); err != nil {
					return withCode(exitUsage, fmt.Errorf("MCP_CONFORMANCE_CONTEXT is not a JSON object: %w", err))
				}
			}
			return runConformanceScenario(ctx, sc, cmd.ErrOrStderr())
		},
	}
}

// conformanceScenario is one run requested by the suite.
type conformanceScenario struct {
	Name      string
	ServerURL string
	Context   conformanceContext
}

// conformanceContext is MCP_CONFORMANCE_CONTEXT: credentials the suite
// hands over for pre-registration and the extension scenarios.
type conformanceContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

// authConfig maps the scenario's context onto the Authorizer's options,
// as a user would with flags: pre-registered credentials, a signing key,
// the grant.
func (sc conformanceScenario) authConfig() (auth.Config, error) {
	cfg := auth.Config{
		ServerURL:         sc.ServerURL,
		ClientID:          sc.Context.ClientID,
		ClientSecret:      sc.Context.ClientSecret,
		ClientMetadataURL: conformanceCIMDURL,
		ClientName:        "mcpscope conformance client",
		Browser:           &auth.HeadlessBrowser{},
		Store:             auth.NewMemoryStore(),
	}
	switch {
	case sc.Context.IdPIDToken != "":
		cfg.Grant = auth.GrantEnterpriseIDJAG
		cfg.Enterprise = &auth.EnterpriseGrant{
			IdPTokenEndpoint: sc.Context.IdPTokenEndpoint,
			IdPClientID:      sc.Context.IdPClientID,
			IDToken:          sc.Context.IdPIDToken,
		}
	case sc.Context.PrivateKeyPEM != "":
		key, alg, err := auth.ParsePrivateKeyPEM([]byte(sc.Context.PrivateKeyPEM))
		if err != nil {
			return cfg, fmt.Errorf("the scenario's private key: %w", err)
		}
		if sc.Context.SigningAlgorithm != "" {
			alg = sc.Context.SigningAlgorithm
		}
		cfg.Grant, cfg.SigningKey, cfg.SigningAlg = auth.GrantClientCredentials, key, alg
	case strings.HasPrefix(sc.Name, "auth/client-credentials"):
		cfg.Grant = auth.GrantClientCredentials
	}
	return cfg, nil
}

// toolFor is the tool each scenario expects to be called, with arguments.
func (sc conformanceScenario) toolFor() (name string, args map[string]any) {
	switch {
	case sc.Name == "initialize":
		return "", nil
	case sc.Name == "tools_call":
		return "add_numbers", map[string]any{"a": 2, "b": 3}
	case sc.Name == "elicitation-sep1034-client-defaults":
		return "test_client_elicitation_defaults", map[string]any{}
	case sc.Name == "sse-retry":
		return "test_reconnection", map[string]any{}
	case strings.HasPrefix(sc.Name, "auth/"):
		return "test-tool", map[string]any{}
	}
	return "", nil
}

// runConformanceScenario connects, lists tools, calls the scenario's tool
// and closes. Every event is logged to log (the suite keeps it as the
// client's stderr), secrets redacted as everywhere else.
func runConformanceScenario(ctx context.Context, sc conformanceScenario, log io.Writer) error {
	cfg, err := sc.authConfig()
	if err != nil {
		return withCode(exitUsage, err)
	}
	authorizer, err := auth.New(cfg)
	if err != nil {
		return withCode(exitUsage, err)
	}
	client := mcp.NewClient(&mcp.HTTPTransport{URL: sc.ServerURL, Authorizer: authorizer}, mcp.Options{
		ProtocolVersion: mcp.LatestLegacyVersion,
		Timeout:         20 * time.Second,
		Capabilities:    json.RawMessage(`{"elicitation":{"form":{}}}`),
		Handler:         &policy.Answers{Elicitation: policy.ElicitAcceptDefaults},
	})
	var logged sync.WaitGroup
	logged.Go(func() { logConformanceEvents(client.Events(), log) })
	defer logged.Wait()
	defer shutdown(client) // the scenario's verdict is already decided

	_, _ = fmt.Fprintf(log, "scenario %q against %s\n", sc.Name, sc.ServerURL)
	if _, err := client.Connect(ctx); err != nil {
		return withCode(exitConnection, fmt.Errorf("connect: %w", err))
	}
	tools, _, err := client.ListAll(ctx, mcp.MethodToolsList)
	if err != nil {
		return withCode(conformanceExitCode(err), fmt.Errorf("tools/list: %w", err))
	}
	name, args := sc.toolFor()
	if name == "" {
		return nil
	}
	if !hasTool(tools, name) {
		_, _ = fmt.Fprintf(log, "note: the server did not list %q; calling it anyway\n", name)
	}
	resp, err := client.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": name, "arguments": args})
	if err != nil {
		return withCode(conformanceExitCode(err), fmt.Errorf("tools/call %s: %w", name, err))
	}
	if mcp.IsToolError(resp.Result) {
		return withCode(exitServerError, fmt.Errorf("tools/call %s: the tool reported an error: %s", name, resp.Result))
	}
	return nil
}

func conformanceExitCode(err error) int {
	var rpc *mcp.RPCError
	var local *mcp.LocalError
	switch {
	case errors.As(err, &rpc):
		return exitServerError
	case errors.As(err, &local) && local.Kind == mcp.Timeout:
		return exitTimeout
	}
	return exitConnection
}

func hasTool(items []json.RawMessage, name string) bool {
	for _, t := range mcp.ParseTools(items) {
		if t.Name == name {
			return true
		}
	}
	return false
}

// logConformanceEvents writes frames and transport events as lines until
// the client's event stream ends.
func logConformanceEvents(events <-chan mcp.Event, w io.Writer) {
	start := time.Now()
	for ev := range events {
		at := ev.At().Sub(start).Round(time.Millisecond)
		switch e := ev.(type) {
		case mcp.FrameEvent:
			arrow := "→"
			if e.Frame.Dir == mcp.Inbound {
				arrow = "←"
			}
			_, _ = fmt.Fprintf(w, "%8s %s %s\n", at, arrow, e.Frame.Raw)
		case mcp.TransportEvent:
			var b strings.Builder
			fmt.Fprintf(&b, "%8s [%s] %s", at, e.Kind, e.Summary)
			for _, f := range e.Fields {
				fmt.Fprintf(&b, " %s=%s", f.Key, f.Value)
			}
			if e.Err != nil {
				fmt.Fprintf(&b, " error: %v", e.Err)
			}
			_, _ = fmt.Fprintln(w, b.String())
		case mcp.StateEvent:
			_, _ = fmt.Fprintf(w, "%8s [state] %s: %s\n", at, e.State, e.Detail)
		case mcp.LocalErrorEvent:
			_, _ = fmt.Fprintf(w, "%8s [local] %v\n", at, e.Err)
		}
	}
}
