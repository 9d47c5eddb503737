package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// Finding 2: `check --call-tools` on a tool whose schema asks for a
// 99999999999-character string reports the tool as untestable and does
// not call it (it used to die: runtime: out of memory); the other tools
// are still called.
func TestCheckCallToolsRefusesOversizedSchemas(t *testing.T) {
	h := mcptest.StartHostile(t, &mcptest.Hostile{Tools: `[
		{"name":"huge","inputSchema":{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":99999999999}}}},
		{"name":"many","inputSchema":{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":200000000}}}},
		{"name":"fine","inputSchema":{"type":"object"}}]`}, false)
	out, _, _ := runCLI(t, "check", "--call-tools", "--no-oauth", h.URL())
	for _, want := range []string{"call huge → not called, untestable", "minLength 99999999999 is over the cap", "call many → not called, untestable", "call fine {} → ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	var calls []string
	for _, r := range h.Requests() {
		if strings.Contains(r.Body, `"tools/call"`) {
			calls = append(calls, r.Body)
		}
	}
	if len(calls) != 1 || !strings.Contains(calls[0], `"fine"`) {
		t.Fatalf("tools/call sent: %q", calls)
	}
}

// Finding 7: query-string secrets stay out of the debug log.
func TestDebugLogRedactsQuerySecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "debug.log")
	logger, closeLog, err := openDebugLog(path)
	if err != nil {
		t.Fatal(err)
	}
	logger.Info("connecting to https://h/mcp?api_key=SECRET1", "target", "https://h/mcp?token=SECRET2", "err", errors.New("GET /x?password=SECRET3 failed"))
	closeLog()
	b, _ := os.ReadFile(path)
	for _, s := range []string{"SECRET1", "SECRET2", "SECRET3"} {
		if strings.Contains(string(b), s) {
			t.Errorf("%s in the log:\n%s", s, b)
		}
	}
	if !strings.Contains(string(b), "api_key=[redacted]") {
		t.Errorf("nothing logged:\n%s", b)
	}
}

// Finding 7, end to end: `call --record` against a URL with ?api_key=
// writes no secret to the session file.
func TestCallRecordRedactsQuerySecrets(t *testing.T) {
	h := mcptest.StartHostile(t, &mcptest.Hostile{}, false)
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	out, err, code := runCLI(t, "call", "--no-oauth", "--record", rec, "--method", "tools/list", h.URL()+"?api_key=SECRET-KEY&page=1")
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	b, _ := os.ReadFile(rec)
	if strings.Contains(string(b), "SECRET-KEY") || !strings.Contains(string(b), "api_key=[redacted]") {
		t.Fatalf("the recording:\n%s", b)
	}
}

// Finding 5: `call` writing to a terminal escapes DEL, C1, bidi and
// zero-width characters as \u sequences and stays valid JSON with the same
// data; to a pipe it writes the bytes as they are.
func TestCallEscapesLyingCharactersOnATerminal(t *testing.T) {
	text := "ok\x7f\u009b[2J\u202eevil\u200b"
	res, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": text}}})
	h := mcptest.StartHostile(t, &mcptest.Hostile{Result: string(res)}, false)
	for _, tty := range []bool{true, false} {
		out, err, code := runCLIOn(t, tty, "call", "--no-oauth", "--method", "tools/call", "--tool-name", "echo", h.URL())
		if code != exitOK {
			t.Fatalf("exit %d: %v\n%s", code, err, out)
		}
		raw := false
		for _, r := range []string{"\x7f", "\u009b", "\u202e", "\u200b"} {
			raw = raw || strings.Contains(out, r)
		}
		if raw == tty {
			t.Errorf("terminal=%v: raw characters present=%v:\n%q", tty, raw, out)
		}
		var back struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal([]byte(out), &back); err != nil || len(back.Content) != 1 || back.Content[0].Text != text {
			t.Errorf("terminal=%v: the data changed (%v): %q", tty, err, out)
		}
	}
}

// ttyBuffer is stdout that says it is a terminal, or not.
type ttyBuffer struct {
	bytes.Buffer
	tty bool
}

func (b *ttyBuffer) IsTerminal() bool { return b.tty }

// runCLIOn is runCLI with stdout that is (tty) or is not a terminal.
func runCLIOn(t *testing.T, tty bool, args ...string) (string, error, int) {
	t.Helper()
	root := newRootCommand()
	out := &ttyBuffer{tty: tty}
	root.SetOut(out)
	root.SetErr(out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err, exitCode(err)
}
