package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// offeredAppsCapability reads, from a recording, whether each request
// mcpscope sent offered the MCP Apps extension: initialize's capabilities
// in the legacy era, every request's _meta client capabilities in the
// modern one. It fails when no request carried capabilities at all.
func offeredAppsCapability(t *testing.T, path string) (offered, without int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read-only
	entries, err := record.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type != "frame" || e.Dir != "out" || e.Raw == nil || e.Kind != "request" {
			continue
		}
		var msg struct {
			Params struct {
				Capabilities json.RawMessage            `json:"capabilities"`
				Meta         map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(*e.Raw), &msg); err != nil {
			t.Fatalf("frame %s: %v", *e.Raw, err)
		}
		caps := msg.Params.Capabilities
		if caps == nil {
			caps = msg.Params.Meta[mcp.MetaClientCapabilities]
		}
		if caps == nil {
			continue
		}
		if c, ok := apps.CapabilityOf(caps); ok && c.SupportsMCPApps() {
			offered++
		} else {
			without++
		}
	}
	if offered+without == 0 {
		t.Fatalf("no request in %s carried client capabilities", path)
	}
	return offered, without
}

// mcpscope offers MCP Apps in both eras, and --no-apps takes it out.
func TestClientOffersMCPAppsUnlessNoApps(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		for _, noApps := range []bool{false, true} {
			name := era
			if noApps {
				name += "/no-apps"
			}
			t.Run(name, func(t *testing.T) {
				rec := filepath.Join(t.TempDir(), "s.jsonl")
				args := []string{"call", "--era", era, "--method", "tools/list", "--record", rec}
				if noApps {
					args = append(args, "--no-apps")
				}
				if _, err, code := runCLI(t, args...); code != exitOK {
					t.Fatalf("exit %d: %v", code, err)
				}
				offered, without := offeredAppsCapability(t, rec)
				if noApps && offered > 0 {
					t.Errorf("--no-apps: %d requests still offered MCP Apps", offered)
				}
				if !noApps && without > 0 {
					t.Errorf("%d requests did not offer MCP Apps", without)
				}
			})
		}
	}
}
