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

	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/spf13/cobra"
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

// writeRecordedCommand writes a session file of the demo recording's
// frames whose header names command as its server.
func writeRecordedCommand(t *testing.T, path string, command []string) {
	t.Helper()
	b, err := os.ReadFile(demoRecording)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	var h map[string]any
	if err := json.Unmarshal([]byte(first), &h); err != nil {
		t.Fatal(err)
	}
	h["target"], h["command"], h["cwd"] = strings.Join(command, " "), command, filepath.Dir(path)
	head, _ := json.Marshal(h)
	if err := os.WriteFile(path, append(append(head, '\n'), rest...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A session file never starts anything by itself: replay without a
// server after the file, not on a terminal, starts nothing, exits 2 and
// says which command the file names and how to run it.
func TestReplayStartsNothingAFileNames(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "PWNED")
	file := filepath.Join(dir, "s.jsonl")
	writeRecordedCommand(t, file, []string{"sh", "-c", "echo pwned > " + marker + "\x1b]0;title\x07"})
	out, err, code := runCLI(t, "replay", "--record", filepath.Join(dir, "r.jsonl"), file)
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatal("replay ran the command the session file names")
	}
	if code != exitUsage || err == nil {
		t.Fatalf("exit %d (%v), want %d:\n%s", code, err, exitUsage, out)
	}
	msg := err.Error()
	for _, want := range []string{"sh -c 'echo pwned > " + marker + `\x1b]0;title\x07'`, "mcpscope replay " + file + " -- sh -c", "never starts a server by itself"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	if strings.ContainsAny(msg, "\x1b\x07") {
		t.Errorf("the error quotes the command raw: %q", msg)
	}
	if _, serr := os.Stat(filepath.Join(dir, "r.jsonl")); serr == nil {
		t.Error("a record was written for a replay that never ran")
	}

	// A recorded URL is not reached either.
	h := mcptest.StartHostile(t, &mcptest.Hostile{}, false)
	writeRecordedCommand(t, file, nil)
	b, _ := os.ReadFile(file)
	b = []byte(strings.Replace(string(b), `"target":""`, `"target":"`+h.URL()+`"`, 1))
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err, code = runCLI(t, "replay", "--record", filepath.Join(dir, "r.jsonl"), file)
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), h.URL()) || len(h.Requests()) != 0 {
		t.Fatalf("a recorded URL: exit %d (%v), %d requests reached it", code, err, len(h.Requests()))
	}

	// The built-in demo server is mcpscope's own: replayed without asking.
	if _, err, code := runCLI(t, "replay", "--record", filepath.Join(dir, "demo.jsonl"), demoRecording); code != exitOK {
		t.Fatalf("the demo recording: exit %d (%v)", code, err)
	}
}

// open's r starts a live session on what the person gave after the file,
// a recorded URL or the demo server, never on a command the file names.
func TestOpenStartsNoCommandAFileNames(t *testing.T) {
	cmd := &cobra.Command{}
	var f openFlags
	f.connect.register(cmd.Flags())
	evil := &record.Entry{Type: "session", Target: "sh -c evil", Command: []string{"sh", "-c", "touch PWNED"}}
	if tg, err := openLiveTarget(cmd, &f.connect, nil, evil); !errors.Is(err, errRecordedCommand) || tg != nil {
		t.Errorf("a recorded command: %v, %v", tg, err)
	}
	tg, err := openLiveTarget(cmd, &f.connect, []string{"--", "my-server", "--flag"}, evil)
	if err != nil || tg.description != "my-server --flag" {
		t.Errorf("a command given after --: %+v, %v", tg, err)
	}
	tg, err = openLiveTarget(cmd, &f.connect, nil, &record.Entry{Type: "session", Target: "https://mcp.example/mcp"})
	if err != nil || !strings.Contains(tg.description, "https://mcp.example/mcp") {
		t.Errorf("a recorded URL: %+v, %v", tg, err)
	}
	tg, err = openLiveTarget(cmd, &f.connect, nil, &record.Entry{Type: "session", Target: "built-in demo server", Command: []string{"/elsewhere/mcpscope", "demo-server"}})
	if err != nil || !tg.demo {
		t.Errorf("the demo server: %+v, %v", tg, err)
	}
	for _, args := range [][]string{{"open", demoRecording, "extra"}, {"open", "--", "x"}, {"open", demoRecording, "--"}, {"open", demoRecording, "extra", "--", "x"}, {"open", "--era", "nope", demoRecording, "--", "x"}} {
		// Refused before the UI starts (which, with no terminal here,
		// would fail with an error of its own).
		if _, err, code := runCLI(t, args...); code != exitUsage || err == nil || strings.Contains(err.Error(), "terminal UI") {
			t.Errorf("%q: exit %d (%v)", args, code, err)
		}
	}
}

// No command writes over a file it reads, by its path, a symbolic link or
// a hard link: each refuses with a usage error and the input is kept
// byte for byte. (export same.jsonl -o same.jsonl and replay x.jsonl
// --record x.jsonl used to destroy their input.)
func TestNoCommandWritesOverItsInput(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "s.jsonl")
	demo, _ := os.ReadFile(demoRecording)
	callsFile := filepath.Join(dir, "c.calls.json")
	callsText := []byte(`{"calls": [{"name": "ping", "method": "ping"}]}` + "\n")
	config := filepath.Join(dir, "mcp.json")
	configText := []byte(`{"mcpServers": {"demo": {"command": "` + os.Args[0] + `", "args": ["demo-server"]}}}` + "\n")
	restore := func() {
		for _, f := range []struct {
			path string
			b    []byte
		}{{session, demo}, {callsFile, callsText}, {config, configText}} {
			if err := os.WriteFile(f.path, f.b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	restore()
	symlink, hardlink := filepath.Join(dir, "sym.jsonl"), filepath.Join(dir, "hard.jsonl")
	if err := os.Symlink(session, symlink); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(session, hardlink); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"export", session, "-o", session},
		{"export", session, "--format", "md", "-o", symlink},
		{"export", symlink, "--format", "har", "-o", hardlink},
		{"replay", session, "--record", session},
		{"replay", session, "--record", hardlink, "--", os.Args[0], "demo-server"},
		{"replay", "--config", config, "--record", config, session},
		{"test", "--calls", callsFile, "--record", callsFile, "--", os.Args[0], "demo-server"},
		{"test", "--from", session, "--calls", hardlink},
		{"call", "--method", "ping", "--config", config, "--record", config},
		{"check", "--config", config, "--record", config},
		{"open", session, "--log-file", symlink},
		{"--config", config, "--record", config},
		{"--calls", callsFile, "--log-file", callsFile, "--", os.Args[0], "demo-server"},
		{"--record", filepath.Join(dir, "x.jsonl"), "--log-file", filepath.Join(dir, "x.jsonl"), "--", os.Args[0], "demo-server"},
	}
	for _, args := range cases {
		out, err, code := runCLI(t, args...)
		if code != exitUsage || err == nil || !strings.Contains(err.Error(), "never writes over a file it reads") {
			t.Errorf("%q: exit %d (%v), want %d and a refusal:\n%s", args, code, err, exitUsage, out)
		}
		for _, f := range []struct {
			path string
			b    []byte
		}{{session, demo}, {callsFile, callsText}, {config, configText}} {
			if got, _ := os.ReadFile(f.path); !bytes.Equal(got, f.b) {
				t.Errorf("%q changed %s", args, f.path)
			}
		}
		restore()
	}
	// A different file is written as before.
	if _, err, code := runCLI(t, "export", session, "-o", filepath.Join(dir, "out.html")); code != exitOK {
		t.Errorf("export to another file: exit %d (%v)", code, err)
	}
}

// A recording of the built-in demo server replays against mcpscope's own
// demo without asking, and so with nothing the file sets: an environment
// value recorded with --record-secrets (here one that changes the demo's
// add tool; LD_PRELOAD would run anything) is not given to it.
func TestReplayGivesTheDemoNothingTheFileSets(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(demoRecording)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	var h map[string]any
	if err := json.Unmarshal([]byte(first), &h); err != nil {
		t.Fatal(err)
	}
	h["env"] = map[string]string{demo.AddOffsetEnv: "7"}
	head, _ := json.Marshal(h)
	file := filepath.Join(dir, "demo.jsonl")
	if err := os.WriteFile(file, append(append(head, '\n'), rest...), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err, code := runCLI(t, "replay", file); code != exitOK {
		t.Fatalf("exit %d (%v): the file's environment reached the demo server:\n%s", code, err, out)
	}
}
