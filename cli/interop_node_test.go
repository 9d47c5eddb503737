package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Interop against servers nobody here wrote. These need Node and the npm
// packages that .ci/run installs; it sets MCPSCOPE_NODE_TESTS=1 and
// MCPSCOPE_SERVER_EVERYTHING to server-everything's dist/index.js. With the
// variable set and the server missing, the tests fail rather than skip.

func serverEverything(t *testing.T) string {
	t.Helper()
	path := os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
	if os.Getenv("MCPSCOPE_NODE_TESTS") == "" {
		t.Skip("set MCPSCOPE_NODE_TESTS=1 and MCPSCOPE_SERVER_EVERYTHING (see .ci/run) to run interop against server-everything")
	}
	if path == "" {
		t.Fatal("MCPSCOPE_NODE_TESTS is set but MCPSCOPE_SERVER_EVERYTHING is not")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("server-everything not installed: %v", err)
	}
	return path
}

func TestInteropServerEverything(t *testing.T) {
	se := serverEverything(t)
	t.Run("tools/list", func(t *testing.T) {
		out, err, code := runCLI(t, "call", "--method", "tools/list", "--", "node", se)
		if code != exitOK {
			t.Fatalf("exit %d: %v", code, err)
		}
		var res struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		joined := "," + strings.Join(names, ",") + ","
		for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation"} {
			if !strings.Contains(joined, ","+want+",") {
				t.Errorf("tool %q missing from %v", want, names)
			}
		}
	})
	t.Run("tools/call echo", func(t *testing.T) {
		out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello from mcpscope", "--", "node", se)
		if code != exitOK {
			t.Fatalf("exit %d: %v", code, err)
		}
		if !strings.Contains(out, "hello from mcpscope") {
			t.Errorf("echo did not echo: %s", out)
		}
	})
	t.Run("modern era falls back under auto", func(t *testing.T) {
		_, err, code := runCLI(t, "call", "--era", "auto", "--method", "tools/list", "--", "node", se)
		if code != exitOK {
			t.Fatalf("exit %d: %v", code, err)
		}
	})
}
