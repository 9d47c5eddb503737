package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/auth"
)

// The suite's context decides the grant, as flags would for a user.
func TestConformanceAuthConfig(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	for _, c := range []struct {
		name  string
		ctx   conformanceContext
		grant auth.Grant
	}{
		{"auth/metadata-default", conformanceContext{}, auth.GrantAuthorizationCode},
		{"auth/pre-registration", conformanceContext{ClientID: "id", ClientSecret: "s"}, auth.GrantAuthorizationCode},
		{"auth/client-credentials-basic", conformanceContext{ClientID: "id", ClientSecret: "s"}, auth.GrantClientCredentials},
		{"auth/client-credentials-jwt", conformanceContext{ClientID: "id", PrivateKeyPEM: keyPEM, SigningAlgorithm: "ES256"}, auth.GrantClientCredentials},
		{"auth/cross-app-access-complete-flow", conformanceContext{ClientID: "id", ClientSecret: "s", IdPIDToken: "jwt", IdPTokenEndpoint: "http://127.0.0.1:1/token"}, auth.GrantEnterpriseIDJAG},
	} {
		sc := conformanceScenario{Name: c.name, ServerURL: "http://127.0.0.1:1/mcp", Context: c.ctx}
		cfg, err := sc.authConfig()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cfg.Grant != c.grant || cfg.ClientID != c.ctx.ClientID || cfg.ClientMetadataURL != conformanceCIMDURL {
			t.Errorf("%s: grant %v client %q cimd %q", c.name, cfg.Grant, cfg.ClientID, cfg.ClientMetadataURL)
		}
		if _, err := auth.New(cfg); err != nil {
			t.Errorf("%s: auth.New: %v", c.name, err)
		}
	}
}

func TestConformanceToolPerScenario(t *testing.T) {
	for scenario, want := range map[string]string{
		"initialize":                          "",
		"tools_call":                          "add_numbers",
		"elicitation-sep1034-client-defaults": "test_client_elicitation_defaults",
		"sse-retry":                           "test_reconnection",
		"auth/scope-step-up":                  "test-tool",
	} {
		if got, _ := (conformanceScenario{Name: scenario}).toolFor(); got != want {
			t.Errorf("%s: tool %q, want %q", scenario, got, want)
		}
	}
}

// The command is registered but hidden from the main help.
func TestConformanceClientHidden(t *testing.T) {
	cmd, _, err := newRootCommand().Find([]string{"conformance-client"})
	if err != nil || cmd.Name() != "conformance-client" || !cmd.Hidden {
		t.Fatalf("conformance-client: %v hidden=%v", err, cmd != nil && cmd.Hidden)
	}
}
