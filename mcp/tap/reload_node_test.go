package tap

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// A long-lived real client behind tap --watch (the TypeScript SDK's
// Client, testdata/reload_client.cjs): the server's tools file changes
// while a call is in flight. The call gets the tap's error, not a hang;
// the client gets notifications/tools/list_changed, lists again and sees
// the new tool, the new server answers, it never gets a second initialize
// answer, and its connection is never closed. MCPSCOPE_NODE_TESTS=1 (as
// .ci/run sets it) runs it.
func TestTypeScriptClientStaysConnectedThroughAReload(t *testing.T) {
	node, _, modules := serverEverything(t)
	privateDirs(t)
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	next := filepath.Join(dir, "next.json")
	if err := os.WriteFile(tools, []byte(tapToolsV1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(next, []byte(tapToolsV2), 0o644); err != nil {
		t.Fatal(err)
	}
	server := []string{"env", mcptest.EnvVar + "=tools-file", mcptest.ToolsFileVar + "=" + tools, os.Args[0]}
	cmd := exec.Command(node, append([]string{filepath.Join("testdata", "reload_client.cjs"), tools, next, os.Args[0]}, server...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, reloadTapEnv+"="+tools)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client: %v\n%s\n%s", err, out, stderr.String())
	}
	want := strings.Join([]string{
		"tools echo,hang",
		"in-flight call: error " + strconv.Itoa(RestartErrorCode),
		"list_changed",
		"tools echo,hang,reverse",
		"echo two",
		"initialize answers 1",
		"closed false",
	}, "\n")
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("the client saw:\n%s\nwant:\n%s\n(stderr: %s)", got, want, stderr.String())
	}
	t.Logf("the tap said on stderr:\n%s", stderr.String())
}
