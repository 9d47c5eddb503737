package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// TestMain lets the test binary stand in for mcpscope's own subprocesses:
// the demo server (spawned as "<self> demo-server") and the fake server.
func TestMain(m *testing.M) {
	mcptest.MaybeRunServer() // when re-executed as the fake or the demo server
	if n, ok := os.LookupEnv(floodVar); ok {
		os.Exit(floodServer(n)) // cmd_tap_rss_test.go
	}
	if os.Getenv(asCLIVar) == "1" {
		os.Exit(Main("")) // the tests that send signals run mcpscope as a process
	}
	code := m.Run()
	stopAcceptance()
	os.Exit(code)
}

// runCLI runs mcpscope in-process and returns stdout, the error and the
// exit code main would use.
func runCLI(t *testing.T, args ...string) (string, error, int) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err, exitCode(err)
}

// fakeArgs runs this test binary as the fake server with the given behaviours.
func fakeArgs(behaviours string) []string {
	return []string{"-e", mcptest.EnvVar + "=" + behaviours, "--", os.Args[0]}
}

func TestCallToolsListOnDemo(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			out, err, code := runCLI(t, "call", "--era", era, "--method", "tools/list")
			if code != exitOK {
				t.Fatalf("exit %d: %v", code, err)
			}
			var res struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, out)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			if !strings.Contains(strings.Join(names, ","), "add") {
				t.Errorf("tools = %v", names)
			}
		})
	}
}

func TestCallToolArgsAreTyped(t *testing.T) {
	out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1.5", "--tool-arg", "b=2")
	if code != exitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	if !strings.Contains(out, `"sum": 3.5`) {
		t.Errorf("result = %s", out)
	}
	_, err, code = runCLI(t, "call", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=abc", "--tool-arg", "b=2")
	if code != exitUsage || !strings.Contains(err.Error(), "a number") {
		t.Errorf("exit %d, err %v; want 2 and a type error", code, err)
	}
	_, err, code = runCLI(t, "call", "--method", "tools/call", "--tool-name", "nope", "--tool-arg", "a=1")
	if code != exitUsage || !strings.Contains(err.Error(), "no tool named") {
		t.Errorf("exit %d, err %v", code, err)
	}
}

func TestCallExitCodes(t *testing.T) {
	t.Run("server error", func(t *testing.T) {
		out, err, code := runCLI(t, append([]string{"call", "--method", "no/such"}, fakeArgs("")...)...)
		if code != exitServerError {
			t.Errorf("exit %d (%v), want 1", code, err)
		}
		if !strings.Contains(out, `"code": -32601`) {
			t.Errorf("stdout lacks the error object: %s", out)
		}
	})
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"call"},
			{"call", "--method", "tools/call"},
			{"call", "--method", "tools/list", "--era", "future"},
			{"call", "--method", "tools/list", "stray"},
			{"call", "--no-such-flag"},
		} {
			if _, err, code := runCLI(t, args...); code != exitUsage {
				t.Errorf("%v: exit %d (%v), want 2", args, code, err)
			}
		}
	})
	t.Run("crash mid call", func(t *testing.T) {
		start := time.Now()
		_, err, code := runCLI(t, append([]string{"call", "--method", "tools/call", "--tool-name", "echo", "--no-validate"}, fakeArgs("crash-on-call")...)...)
		if code != exitConnection {
			t.Fatalf("exit %d (%v), want 3", code, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %v", d)
		}
		msg := err.Error()
		if !strings.Contains(msg, "status 7") || !strings.Contains(msg, "panic: something broke") {
			t.Errorf("message lacks exit status or stderr: %s", msg)
		}
	})
	t.Run("timeout sends cancelled", func(t *testing.T) {
		rec := filepath.Join(t.TempDir(), "s.jsonl")
		_, err, code := runCLI(t, append([]string{"call", "--method", "tools/call", "--tool-name", "echo", "--no-validate", "--timeout", "1500ms", "--record", rec}, fakeArgs("hang-on-call")...)...)
		if code != exitTimeout {
			t.Fatalf("exit %d (%v), want 4", code, err)
		}
		f, err := os.Open(rec)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }() // read-only
		entries, err := record.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		var cancelled, timeout bool
		for _, e := range entries {
			cancelled = cancelled || (e.Type == "frame" && e.Dir == "out" && e.Method == "notifications/cancelled")
			// The tools/call timed out (not the handshake, which a loaded
			// machine could slow past a short --timeout).
			timeout = timeout || (e.Type == "local_error" && e.ErrorKind == "timeout" && e.Method == "tools/call")
		}
		if !cancelled || !timeout {
			t.Errorf("record: cancelled frame %v, local timeout %v", cancelled, timeout)
		}
	})
	t.Run("unsupported version", func(t *testing.T) {
		_, err, code := runCLI(t, append([]string{"call", "--method", "tools/list"}, fakeArgs("bad-version")...)...)
		if code != exitConnection {
			t.Fatalf("exit %d (%v), want 3", code, err)
		}
		if !strings.Contains(err.Error(), "1999-01-01") || !strings.Contains(err.Error(), "2025-11-25") {
			t.Errorf("message does not name both versions: %v", err)
		}
	})
	t.Run("command not found", func(t *testing.T) {
		_, err, code := runCLI(t, "call", "--method", "tools/list", "--", "mcpscope-no-such-server")
		if code != exitConnection || !strings.Contains(err.Error(), "command not found") {
			t.Errorf("exit %d, err %v", code, err)
		}
		// The connection doctor adds the cause and a fix in plain words.
		if !strings.Contains(err.Error(), "cause: ") || !strings.Contains(err.Error(), "fix: ") {
			t.Errorf("no cause and fix: %v", err)
		}
	})
}

// A malformed page of a paginated list fails the call with the reason; it
// is never printed as a shorter list.
func TestCallMalformedPageIsReported(t *testing.T) {
	sc := mcptest.Script{Capabilities: json.RawMessage(`{"resources":{}}`), On: map[string][][]string{
		"resources/list": {
			{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":[{"uri":"demo://one","name":"one"}],"nextCursor":"p2"}}`},
			{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":{"uri":"demo://two"}}}`},
		},
	}}
	out, err, code := runCLI(t, append([]string{"call", "--method", "resources/list"}, scriptArgs(sc)...)...)
	if code == exitOK || err == nil || !strings.Contains(err.Error(), `"resources" is not an array`) || !strings.Contains(err.Error(), "page 2") {
		t.Fatalf("exit %d, err %v; want a failure naming page 2 and the reason", code, err)
	}
	if strings.Contains(out, "demo://one") {
		t.Errorf("the pages before the malformed one were printed as if they were the list:\n%s", out)
	}
}

// A tools/call with --tool-arg values lists the tools once: the same list
// types the values and validates the arguments (listing twice doubled
// the call's cost on a big list).
func TestCallToolsCallListsToolsOnce(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1.5", "--tool-arg", "b=2", "--record", rec)
	if code != exitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	if !strings.Contains(out, `"sum": 3.5`) {
		t.Errorf("result = %s", out)
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read-only
	entries, err := record.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	lists, calls := 0, 0
	for _, e := range entries {
		if e.Type == "frame" && e.Dir == "out" {
			switch e.Method {
			case "tools/list":
				lists++
			case "tools/call":
				calls++
			}
		}
	}
	if lists != 1 || calls != 1 {
		t.Errorf("sent tools/list %d times and tools/call %d times; want once each", lists, calls)
	}
}
