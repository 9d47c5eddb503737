//go:build unix

package tap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// A signal the tap receives reaches the server (SIGUSR1 has no Windows
// counterpart, hence its own file).
func TestStdioTapForwardsSignals(t *testing.T) {
	privateDirs(t)
	sigs := make(chan os.Signal, 1)
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	var stderr syncBuffer
	done := make(chan *Outcome, 1)
	go func() {
		out, _ := RunStdio(context.Background(), StdioOptions{Command: "sh", Args: []string{"-c", `trap 'echo got USR1 >&2; exit 5' USR1; echo ready >&2; while :; do sleep 0.02; done`},
			Stdin: inR, Stdout: io.Discard, Stderr: &stderr, Signals: sigs})
		done <- out
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stderr.String(), "ready") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	sigs <- syscall.SIGUSR1
	select {
	case out := <-done:
		if out.Code != 5 || !strings.Contains(stderr.String(), "got USR1") {
			t.Fatalf("code %d stderr %q", out.Code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the forwarded signal did not end the server")
	}
}

// A client that closes its server with a signal (Gemini CLI and Codex send
// SIGTERM) ends the session: the record says the client sent it, the
// session is closed, not failed, and the doctor blames nobody for it.
func TestStdioTapRecordsTheClientsSignalAsTheClientsShutdown(t *testing.T) {
	privateDirs(t)
	sigs := make(chan os.Signal, 1)
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	var stderr syncBuffer
	done := make(chan *Outcome, 1)
	go func() {
		out, _ := RunStdio(context.Background(), StdioOptions{Name: "sigterm", Command: "sh", Args: []string{"-c", `echo ready >&2; while :; do sleep 0.02; done`},
			Stdin: inR, Stdout: io.Discard, Stderr: &stderr, Signals: sigs})
		done <- out
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stderr.String(), "ready") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// A frame, so that the viewer's doctor runs (it starts with the
	// conversation's first frame).
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	sigs <- syscall.SIGTERM
	var out *Outcome
	select {
	case out = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the forwarded SIGTERM did not end the server")
	}
	if out.Signal != syscall.SIGTERM {
		t.Fatalf("the server ended with %+v; the test needs it killed by the signal", out)
	}

	entries := readRecord(t, out.File)
	var exit, state *record.Entry
	tapRow := false
	for i, e := range entries {
		switch e.Type {
		case "exit":
			exit = &entries[i]
		case "state":
			state = &entries[i]
		case "transport":
			if strings.Contains(e.Summary, "got SIGTERM") {
				tapRow = exit == nil
			}
		}
	}
	if exit == nil || exit.ClientSignal != "SIGTERM" || exit.Signal != "SIGTERM" {
		t.Fatalf("exit entry %+v: want signal and clientSignal SIGTERM", exit)
	}
	if !tapRow {
		t.Error("no row before the exit says the tap got SIGTERM and passed it on")
	}
	if state == nil || state.State != "closed" || !strings.Contains(state.Detail, "which its client sent") {
		t.Errorf("last state %+v: want closed, saying the client sent the signal", state)
	}

	src := NewSource(Listed{Info: Info{File: out.File}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	frames := 0
	defer func() {
		if frames == 0 {
			t.Error("the viewer saw no frame: its doctor did not run")
		}
	}()
	for ev := range src.Events() {
		if _, ok := ev.(mcp.FrameEvent); ok {
			frames++
		}
		if d, ok := ev.(mcp.DiagnosticEvent); ok && strings.HasPrefix(d.Diagnostic.Rule, "stdio/") {
			t.Errorf("the doctor blamed the server for the client's shutdown: %s: %s", d.Diagnostic.Rule, d.Diagnostic.Message)
		}
	}
	_ = src.Close()
}

// Copilot CLI sends the tap SIGTERM and SIGKILL at once: the row saying
// the client sent the signal is in the capture before the signal reaches
// the server (before anything the recorder has queued), and a capture
// that ends there is read as the client's end, not a failure.
func TestStdioTapWritesTheClientsSignalBeforePassingItOn(t *testing.T) {
	privateDirs(t)
	dir := t.TempDir()
	onDisk := make(chan bool, 4)
	passOn := func(cmd *exec.Cmd, sig os.Signal) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		b := []byte{}
		if len(files) == 1 {
			b, _ = os.ReadFile(files[0])
		}
		said := bytes.Contains(b, []byte(`"transportKind":"`+record.TransportClientSignal+`"`))
		signalGroup(cmd, sig)
		onDisk <- said
	}
	sigs := make(chan os.Signal, 1)
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	var stderr syncBuffer
	done := make(chan *Outcome, 1)
	go func() {
		out, _ := RunStdio(context.Background(), StdioOptions{Name: "killed", Command: "sh", Args: []string{"-c", `echo ready >&2; while :; do sleep 0.02; done`},
			Stdin: inR, Stdout: io.Discard, Stderr: &stderr, Signals: sigs, Recording: Recording{Dir: dir, NoHub: true}, passOn: passOn})
		done <- out
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stderr.String(), "ready") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	sigs <- syscall.SIGTERM
	var out *Outcome
	select {
	case out = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the forwarded SIGTERM did not end the server")
	}
	if said := <-onDisk; !said {
		t.Fatal("when the signal was passed on, the capture did not say the client sent it")
	}
	// The tap killed right then: its capture is cut after that row.
	b, err := os.ReadFile(out.File)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(record.TransportClientSignal))
	cut := b[:at+bytes.IndexByte(b[at:], '\n')+1]
	if err := os.WriteFile(out.File, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	src := NewSource(Listed{Info: Info{File: out.File}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var last *mcp.StateEvent
	for ev := range src.Events() {
		if st, ok := ev.(mcp.StateEvent); ok {
			last = &st
		}
	}
	_ = src.Close()
	if last == nil || last.State != mcp.StateClosed || !strings.Contains(last.Detail, "its client ended the conversation (SIGTERM)") {
		t.Errorf("the cut capture ends in %+v; want closed by the client", last)
	}
}

// opencode and Copilot CLI close the server's stdin, then find the server
// under the tap (pgrep -P) and SIGTERM it themselves: the capture says
// the server went as it was asked to, and the viewer's doctor blames it
// for nothing.
func TestStdioTapServerSIGTERMedByTheClientAfterStdinClosed(t *testing.T) {
	privateDirs(t)
	inR, inW := io.Pipe()
	var stderr syncBuffer
	done := make(chan *Outcome, 1)
	go func() {
		// A server that ignores its stdin closing, as server-everything
		// with a timer does.
		out, _ := RunStdio(context.Background(), StdioOptions{Name: "killed-by-client", Command: "sh", Args: []string{"-c", `echo "pid $$" >&2; cat >/dev/null; echo "stdin closed" >&2; while :; do sleep 0.02; done`},
			Stdin: inR, Stdout: io.Discard, Stderr: &stderr, Grace: 20 * time.Second})
		done <- out
	}()
	pid := 0
	deadline := time.Now().Add(5 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		_, _ = fmt.Sscanf(stderr.String(), "pid %d", &pid)
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatalf("the server did not start: %q", stderr.String())
	}
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	_ = inW.Close()
	// The tap holds off its own SIGTERM for Grace: the client's comes
	// first, straight to the server, once its stdin is closed.
	for !strings.Contains(stderr.String(), "stdin closed") && time.Now().Before(deadline.Add(5*time.Second)) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var out *Outcome
	select {
	case out = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server outlived the client's SIGTERM")
	}
	var exit *record.Entry
	for _, e := range readRecord(t, out.File) {
		if e.Type == "exit" {
			e := e
			exit = &e
		}
	}
	if exit == nil || exit.Signal != "SIGTERM" || !exit.Expected || exit.Forced != "" {
		t.Fatalf("exit entry %+v: want killed by SIGTERM after stdin closed, not forced by the tap", exit)
	}
	src := NewSource(Listed{Info: Info{File: out.File}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for ev := range src.Events() {
		if d, ok := ev.(mcp.DiagnosticEvent); ok && strings.HasPrefix(d.Diagnostic.Rule, "stdio/") {
			t.Errorf("the doctor blamed the server for the client's shutdown: %s: %s", d.Diagnostic.Rule, d.Diagnostic.Message)
		}
	}
	_ = src.Close()
}
