package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// terminalActs names the first thing in out that a terminal would act on
// or that would hide or reorder text: a C0 control other than line feed
// and tab (ESC, BEL, CR, ...), DEL, a C1 control, a bidi control, a
// zero-width or invisible character, a line separator, or a byte that is
// not UTF-8. It is empty when there is none. (Written apart from termsafe,
// so that the test does not judge termsafe by itself.)
func terminalActs(out []byte) string {
	for i := 0; i < len(out); {
		c := out[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return fmt.Sprintf("byte %#02x at %d", c, i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("invalid byte %#02x at %d", c, i)
		case r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c,
			r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0x2028, r == 0x2029:
			return fmt.Sprintf("U+%04X at %d", r, i)
		}
		i += size
	}
	return ""
}

// A session file with a hostile server's strings in every field, through
// every command that reads one, to a real pseudo-terminal: no ESC, C1,
// bidi override or DEL reaches it, and each output still shows what was
// there (as escapes). The header names a command that would create a
// marker file: nothing creates it.
func TestHostileSessionFileThroughEveryCommandOnATerminal(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	taps := filepath.Join(home, ".local", "state", "mcpscope", "taps")
	if err := os.MkdirAll(taps, 0o700); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "PWNED")
	file := filepath.Join(dir, "hostile.jsonl")
	writeHostileSession(t, file, marker)
	capture, _ := os.ReadFile(file)
	if err := os.WriteFile(filepath.Join(taps, "20261201-100000-evil.jsonl"), capture, 0o600); err != nil {
		t.Fatal(err)
	}
	demo, err := filepath.Abs(demoRecording)
	if err != nil {
		t.Fatal(err)
	}
	callsFile := filepath.Join(dir, "seeded.calls.json")
	server := []string{"--", os.Args[0], "demo-server"}
	rec := func(name string) []string { return []string{"--record", filepath.Join(dir, name)} }
	env := []string{"HOME=" + home, "XDG_STATE_HOME=", "NO_COLOR=1"}

	type run struct {
		args  []string
		input string // typed on the terminal
		code  int    // the exit code expected
		// seen is what the output must show (the payload as escapes,
		// or what the command says), so an empty output cannot pass.
		seen []string
		// prep runs before the command (a file it reads made from an
		// earlier run's output).
		prep func()
	}
	r := func(args []string, code int, seen ...string) run { return run{args: args, code: code, seen: seen} }
	runs := []run{
		r([]string{"export", file, "--format", "md"}, 0, `\x1b]52;c;`),
		r([]string{"export", file, "--format", "markdown"}, 0, `\u202e`),
		r([]string{"export", file, "--format", "html"}, 0, `&#x001b;]52;c;`),
		r([]string{"export", file, "--format", "har"}, 0),
		r([]string{"diff", demo, file}, 1, `\x1b]0;pwned`),
		r([]string{"diff", "--format", "json", demo, file}, 1, `\u001b]0;pwned`),
		r([]string{"diff", "--format", "markdown", file, demo}, 1, `\x1b[2J`),
		r(append([]string{"diff", file}, server...), 1, `\x1b[2J`),
		// Asked on the terminal whether to start the recorded command,
		// the person says no.
		{args: []string{"replay", file}, input: "n\n", code: exitUsage, seen: []string{"echo pwned >", `\x1b]52;c;`, "Start it now?", "nothing started", "-- sh -c"}},
		r(append(append([]string{"replay", file}, rec("r1.jsonl")...), server...), 1, `\u202e`),
		r(append(append([]string{"replay", "--format", "json", file}, rec("r2.jsonl")...), server...), 1, `\u202e`),
		r(append(append([]string{"replay", "--format", "junit", file}, rec("r3.jsonl")...), server...), 1, `&#x202e;`),
		r([]string{"test", "--from", file, "--calls", callsFile}, 0, "wrote"),
		// The seeded calls name the recorded server, so against the demo
		// they are skipped, the hostile server's name quoted.
		r(append([]string{"test", "--calls", callsFile}, server...), exitUsage, `\x1b]52;c;`, "skipped"),
		// Saved for any server, they run against the demo and fail.
		{args: append([]string{"test", "--calls", callsFile}, server...), code: 1, seen: []string{`\x1b]52;c;`}, prep: func() {
			b, err := os.ReadFile(callsFile)
			if err != nil {
				t.Fatal(err)
			}
			anyServer := regexp.MustCompile(`(?m)^\s*"server": "(?:[^"\\]|\\.)*",?\n`).ReplaceAll(b, nil)
			if bytes.Equal(anyServer, b) {
				t.Fatalf("the seeded calls file names no server:\n%s", b)
			}
			if err := os.WriteFile(callsFile, anyServer, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		r(append([]string{"test", "--format", "json", "--calls", callsFile}, server...), 1, `\u001b]52;c;`),
		r(append([]string{"test", "--format", "junit", "--calls", callsFile}, server...), 1, `\u001b]52;c;`, `&#x202e;`),
		r([]string{"taps", "--list"}, 0, `\x1b]52;c;`),
		r([]string{"open", filepath.Join(dir, "missing"+hostilePayload+".jsonl")}, exitUsage, `\x1b]52;c;`),
	}
	for _, r := range runs {
		if r.prep != nil {
			r.prep()
		}
		out, code := runOnPTY(t, dir, env, r.input, r.args...)
		name := strings.Join(r.args, " ")
		if what := terminalActs(out); what != "" {
			t.Errorf("mcpscope %s: %s reached the terminal:\n%q", name, what, out)
		}
		if code != r.code {
			t.Errorf("mcpscope %s: exit %d, want %d:\n%s", name, code, r.code, out)
		}
		for _, s := range r.seen {
			if !strings.Contains(string(out), s) {
				t.Errorf("mcpscope %s: the output lacks %q:\n%s", name, s, out)
			}
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a command ran the command the session file names")
	}
}

// Written with -o, an export keeps the exact bytes, on a terminal too:
// the file is what the same export writes to a pipe.
func TestExportToAFileKeepsTheBytesOnATerminal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hostile.jsonl")
	writeHostileSession(t, file, filepath.Join(dir, "PWNED"))
	for _, format := range []string{"md", "html", "har"} {
		piped, err, code := runCLIOn(t, false, "export", file, "--format", format)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %v", format, code, err)
		}
		out := filepath.Join(dir, "out."+format)
		shown, code := runOnPTY(t, dir, nil, "", "export", file, "--format", format, "-o", out)
		if code != exitOK || len(shown) != 0 {
			t.Fatalf("%s -o: exit %d, on the terminal: %q", format, code, shown)
		}
		written, _ := os.ReadFile(out)
		if string(written) != piped {
			t.Errorf("%s: the file (%d bytes) is not what a pipe gets (%d bytes)", format, len(written), len(piped))
		}
		if format != "har" && !strings.Contains(string(written), "\u202eevil") {
			t.Errorf("%s: the file lost the server's bytes:\n%.400q", format, written)
		}
	}
}

// On a terminal, replay asks before it starts the command a session file
// names, and a yes starts it (here a command that leaves a marker and is
// no MCP server: the connection fails after it ran).
func TestReplayStartsTheRecordedCommandAfterAYes(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	file := filepath.Join(dir, "s.jsonl")
	writeRecordedCommand(t, file, []string{"sh", "-c", "echo ran > " + marker})
	out, code := runOnPTY(t, dir, nil, "yes\n", "replay", file)
	if !strings.Contains(string(out), "Start it now? [y/N]") || !strings.Contains(string(out), "echo ran >") {
		t.Errorf("the question does not show the command:\n%s", out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("a yes did not start the recorded command (exit %d):\n%s", code, out)
	}
	if code != exitConnection {
		t.Errorf("exit %d, want %d (no MCP server):\n%s", code, exitConnection, out)
	}
}

// The commands that talk to a live server (call, check, diff against a
// URL) on a real pseudo-terminal, against a server whose tool names,
// descriptions and results carry the hostile payload: nothing reaches the
// terminal as a control.
func TestHostileServerThroughLiveCommandsOnATerminal(t *testing.T) {
	tool, _ := json.Marshal([]any{map[string]any{"name": "t" + hostilePayload, "description": hostilePayload,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"p" + hostilePayload: map[string]any{"type": "string"}}}}})
	result, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": hostilePayload}}, "isError": true})
	h := mcptest.StartHostile(t, &mcptest.Hostile{Tools: string(tool), Result: string(result)}, false)
	dir := t.TempDir()
	runs := [][]string{
		{"call", "--no-oauth", "--method", "tools/list", h.URL()},
		{"call", "--no-oauth", "--method", "tools/call", "--tool-name", "t" + hostilePayload, h.URL()},
		{"check", "--no-oauth", h.URL()},
		{"check", "--no-oauth", "--call-tools", "--format", "json", h.URL()},
		{"check", "--no-oauth", "--format", "junit", h.URL()},
		{"diff", demoRecordingAbs(t), h.URL()},
	}
	for _, args := range runs {
		out, code := runOnPTY(t, dir, nil, "", args...)
		if what := terminalActs(out); what != "" {
			t.Errorf("mcpscope %q (exit %d): %s reached the terminal:\n%q", args, code, what, out)
		}
		if !strings.Contains(string(out), "2J") {
			t.Errorf("mcpscope %q (exit %d) does not show the server's strings:\n%s", args, code, out)
		}
	}
}
