package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The policy flags answer the demo server's MRTR and legacy requests
// headless, in both eras.
func TestCallPolicyFlagsOnDemo(t *testing.T) {
	if _, err := os.Executable(); err != nil {
		t.Skip(err)
	}
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era+"/roots", func(t *testing.T) {
			out, err, code := runCLI(t, "call", "--era", era, "--root", "/tmp", "--root", "file:///srv/data",
				"--method", "tools/call", "--tool-name", "list_roots", "--", os.Args[0], "demo-server")
			if code != exitOK {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
			if !strings.Contains(out, "file:///tmp") || !strings.Contains(out, "file:///srv/data") {
				t.Fatalf("roots not returned: %s", out)
			}
		})
		t.Run(era+"/sampling", func(t *testing.T) {
			out, err, code := runCLI(t, "call", "--era", era, "--sampling", "reply=forty-two",
				"--method", "tools/call", "--tool-name", "ask_model", "--tool-arg", "prompt=meaning?", "--tool-arg", "max_tokens=10", "--", os.Args[0], "demo-server")
			if code != exitOK || !strings.Contains(out, "forty-two") {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
		})
		t.Run(era+"/elicitation decline", func(t *testing.T) {
			out, err, code := runCLI(t, "call", "--era", era, "--elicitation", "decline",
				"--method", "tools/call", "--tool-name", "ask_user", "--tool-arg", "message=name?", "--", os.Args[0], "demo-server")
			if code != exitOK || !strings.Contains(out, `decline`) {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
		})
	}
	t.Run("no policy gives the neutral answer and names the flag", func(t *testing.T) {
		// mcpscope declares roots, so it answers: no roots, said on
		// stderr with the flag that would offer some.
		out, err, code := runCLI(t, "call", "--era", "modern", "--method", "tools/call", "--tool-name", "list_roots", "--", os.Args[0], "demo-server")
		if code != exitOK || !strings.Contains(out, "roots/list: answered with no roots (use --root PATH") {
			t.Fatalf("exit %d (%v); no neutral answer named on stderr:\n%s", code, err, out)
		}
	})
	t.Run("bad values are usage errors", func(t *testing.T) {
		for _, args := range [][]string{{"--elicitation", "maybe"}, {"--sampling", "yes"}} {
			_, _, code := runCLI(t, append([]string{"call", "--method", "ping"}, args...)...)
			if code != exitUsage {
				t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
			}
		}
	})
}

// Against server-everything (Node): the three tools that ask the client
// complete headless, and --record keeps the progress notifications.
func TestInteropServerEverythingPolicies(t *testing.T) {
	se := serverEverything(t)
	for _, c := range []struct {
		tool, want string
		args       []string
	}{
		{"trigger-elicitation-request", `\"action\": \"accept\"`, []string{"--elicitation", "accept-defaults"}},
		{"trigger-sampling-request", "from the human", []string{"--sampling", "reply=from the human", "--tool-arg", "prompt=hi"}},
		{"get-roots-list", "file:///tmp", []string{"--root", "/tmp"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			args := append([]string{"call", "--method", "tools/call", "--tool-name", c.tool}, c.args...)
			out, err, code := runCLI(t, append(args, "--", "node", se)...)
			if code != exitOK || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d: %v\n%s", code, err, out)
			}
		})
	}
	t.Run("record keeps progress", func(t *testing.T) {
		rec := filepath.Join(t.TempDir(), "s.jsonl")
		_, err, code := runCLI(t, "call", "--record", rec, "--method", "tools/call", "--tool-name", "trigger-long-running-operation",
			"--tool-arg", "duration=1", "--tool-arg", "steps=3", "--", "node", se)
		if code != exitOK {
			t.Fatalf("exit %d: %v", code, err)
		}
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "notifications/progress"); n < 3 {
			t.Fatalf("%d progress notifications recorded, want 3", n)
		}
	})
}
