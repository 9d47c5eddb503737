package tap

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// clientScript is what a client says: the handshake, a list with CRLF, a
// call with a string id, and a line without its newline at the end.
var clientScript = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"claude-ai","version":"0.9"}}}` + "\n",
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\r\n",
	`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"echo","arguments":{"text":"h\u00e9 \u2603"}}}` + "\n",
	`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
}

// privateDirs points the state and runtime directories at the test's own.
func privateDirs(t testing.TB) (state string) {
	t.Helper()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	// The XDG variables point elsewhere: taps record under HOME alone,
	// whatever a client passes them, and the viewer finds them there.
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "elsewhere", "state"))
	// A short runtime directory: a Unix socket's path is limited to about
	// 100 bytes, and the test's temporary directory is long.
	rt, err := os.MkdirTemp("", "tap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	return filepath.Join(home, ".local", "state", "mcpscope", "taps")
}

// converse feeds the script to w one piece at a time, waits until the
// server has written wantLines lines to out (a server may stop answering
// once its stdin ends), then closes w.
func converse(w io.WriteCloser, script []string, out *syncBuffer, wantLines int) {
	deadline := time.Now().Add(20 * time.Second)
	waitFor := func(lines int) {
		for out != nil && strings.Count(out.String(), "\n") < lines && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
	}
	// Each complete request waits for its answer before the next goes
	// out: the demo answers requests concurrently, so two in flight may be
	// answered in either order, direct or tapped alike.
	asked := 0
	for _, s := range script {
		_, _ = io.WriteString(w, s)
		if strings.Contains(s, `"id"`) && strings.HasSuffix(s, "\n") {
			asked++
			waitFor(asked)
		}
	}
	waitFor(wantLines)
	_ = w.Close()
}

// answers counts the script's requests: the lines a server answers.
func answers(script []string) int {
	n := 0
	for _, s := range script {
		if strings.Contains(s, `"id"`) {
			n++
		}
	}
	return n
}

// demoCmd runs the test binary as the demo server.
func demoCmd() (string, []string) { return os.Args[0], []string{"demo-server"} }

// direct runs the server with no tap and returns what it wrote to stdout.
func direct(t *testing.T, script []string, name string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	converse(in, script, &out, answers(script))
	_ = cmd.Wait()
	return []byte(out.String()), cmd.ProcessState.ExitCode()
}

type tapRun struct {
	out    *Outcome
	stdout syncBuffer
	stderr syncBuffer
	frames []*mcp.Frame
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// throughTap runs the server behind a tap and plays the script.
func throughTap(t *testing.T, o StdioOptions, script []string) *tapRun {
	t.Helper()
	inR, inW := io.Pipe()
	r := &tapRun{}
	var mu sync.Mutex
	o.Stdin, o.Stdout, o.Stderr = inR, &r.stdout, &r.stderr
	o.onFrame = func(f *mcp.Frame) { mu.Lock(); r.frames = append(r.frames, f); mu.Unlock() }
	if o.Grace == 0 {
		o.Grace, o.TermGrace = 2*time.Second, time.Second
	}
	go converse(inW, script, &r.stdout, answers(script))
	out, err := RunStdio(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	r.out = out
	return r
}

func TestStdioTapIsByteForByteAndRecordsEveryFrame(t *testing.T) {
	dir := privateDirs(t)
	name, args := demoCmd()
	want, code := direct(t, clientScript, name, args...)
	r := throughTap(t, StdioOptions{Name: "demo", Command: name, Args: args}, clientScript)
	if r.out.Code != code || r.out.StartErr != nil {
		t.Fatalf("outcome %+v, want the direct run's exit code %d", r.out, code)
	}
	if got := []byte(r.stdout.String()); !bytes.Equal(got, want) {
		t.Fatalf("the client got other bytes through the tap:\n tap %x %q\n direct %x %q", sha256.Sum256(got), got, sha256.Sum256(want), want)
	}
	if !strings.Contains(r.stderr.String(), "demo server ready") {
		t.Errorf("the server's stderr did not pass through: %q", r.stderr.String())
	}
	if filepath.Dir(r.out.File) != dir {
		t.Fatalf("session file %q is not in %s", r.out.File, dir)
	}
	fi, err := os.Stat(r.out.File)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("session file: %v %v", fi, err)
	}
	f, _ := os.Open(r.out.File)
	defer func() { _ = f.Close() }()
	entries, err := record.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if v := entries[0].Env["HOME"]; v != record.Redacted {
		t.Errorf("HOME is recorded as %q, not redacted", v)
	}
	// The frames, joined with newlines, are exactly the bytes each way.
	var sent, got bytes.Buffer
	var kinds []string
	var stderr []string
	for _, e := range entries {
		switch e.Type {
		case "frame":
			raw, _ := e.RawBytes()
			b := &got
			if e.Dir == "out" {
				b = &sent
			}
			b.Write(raw)
			b.WriteByte('\n')
			kinds = append(kinds, e.Dir+" "+e.Kind+" "+e.Method)
		case "stderr":
			stderr = append(stderr, e.Line)
		}
	}
	if want := strings.Join(clientScript, "") + "\n"; sent.String() != want {
		t.Errorf("recorded client frames:\n%q\nwant\n%q", sent.String(), want)
	}
	if got.String() != string(want) {
		t.Errorf("recorded server frames differ from what the client got:\n%q\n%q", got.String(), want)
	}
	if len(stderr) == 0 || stderr[0] != "mcpscope demo server ready" {
		t.Errorf("stderr lines recorded: %q", stderr)
	}
	joined := strings.Join(kinds, "\n")
	for _, k := range []string{"out request initialize", "in response ", "out notification notifications/initialized", "in response "} {
		if !strings.Contains(joined, k) {
			t.Errorf("no %q frame among\n%s", k, joined)
		}
	}
	// Correlation: the tools/list answer names its request.
	var listAnswer *mcp.Frame
	for _, f := range r.frames {
		if f.Dir == mcp.Inbound && f.ReplyToMethod == mcp.MethodToolsList {
			listAnswer = f
		}
	}
	if listAnswer == nil || listAnswer.ReplyTo == 0 || listAnswer.Latency <= 0 {
		t.Errorf("the tools/list answer is not correlated: %+v", listAnswer)
	}
	last := r.frames[len(r.frames)-1]
	if last.Dir == mcp.Outbound && last.Method == mcp.MethodPing && !strings.Contains(last.Problem, "no trailing newline") {
		t.Errorf("the last client line lacks the no-newline problem: %+v", last)
	}
	// The hub cleaned up after itself.
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "mcpscope", "*")); len(left) != 0 {
		t.Errorf("the hub left %v behind", left)
	}
}

func TestStdioTapExitsWithTheServersStatusAndStderr(t *testing.T) {
	privateDirs(t)
	t.Setenv(mcptest.EnvVar, "exit-at-start")
	r := throughTap(t, StdioOptions{Command: os.Args[0]}, clientScript[:1])
	if r.out.Code != 3 {
		t.Errorf("exit code %d, want the server's 3", r.out.Code)
	}
	if !strings.Contains(r.stderr.String(), "fatal: config file not found") {
		t.Errorf("stderr %q", r.stderr.String())
	}
	if r.stdout.String() != "" {
		t.Errorf("the tap wrote %q to stdout", r.stdout.String())
	}
}

func TestStdioTapServerThatCannotStart(t *testing.T) {
	privateDirs(t)
	r := throughTap(t, StdioOptions{Command: "/no/such/server"}, clientScript[:1])
	if r.out.StartErr == nil || r.out.Code != 127 {
		t.Fatalf("outcome %+v, want a start error and 127", r.out)
	}
	if r.stdout.String() != "" {
		t.Errorf("stdout %q", r.stdout.String())
	}
	if lines := strings.Count(r.stderr.String(), "\n"); lines != 1 || !strings.Contains(r.stderr.String(), "/no/such/server") {
		t.Errorf("want one line on stderr naming the command, got %q", r.stderr.String())
	}
}

// A server that does not end when its stdin closes gets SIGTERM after the
// grace period: the spec's order.
func TestStdioTapShutsDownInSpecOrder(t *testing.T) {
	privateDirs(t)
	start := time.Now()
	r := throughTap(t, StdioOptions{Command: "sh", Args: []string{"-c", "exec sleep 30"}, Grace: 300 * time.Millisecond, TermGrace: 5 * time.Second}, nil)
	if r.out.Signal != syscall.SIGTERM {
		t.Fatalf("the server ended by %v (code %d), want SIGTERM", r.out.Signal, r.out.Code)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 4*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	f, _ := os.Open(r.out.File)
	defer func() { _ = f.Close() }()
	entries, _ := record.Read(f)
	var exit *record.Entry
	for i := range entries {
		if entries[i].Type == "exit" {
			exit = &entries[i]
		}
	}
	if exit == nil || exit.Forced != "SIGTERM" || exit.Signal != "SIGTERM" {
		t.Errorf("exit entry %+v", exit)
	}
}
