package tap

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/watch"
)

const (
	tapToolsV1 = `[{"name":"echo","x-answer":"one","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}},{"name":"hang","inputSchema":{"type":"object"}}]`
	tapToolsV2 = `[{"name":"echo","x-answer":"two","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}},{"name":"hang","inputSchema":{"type":"object"}},` +
		`{"name":"reverse","inputSchema":{"type":"object"}}]`
)

// tapClient is a client on the tap's stdio: it writes lines and reads
// every message the tap passes on.
type tapClient struct {
	t    *testing.T
	in   io.WriteCloser
	msgs chan map[string]json.RawMessage
}

func (c *tapClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("the tap closed the client's stdin: %v", err)
	}
}

// next reads messages until ok says one is awaited; what came before is
// returned with it.
func (c *tapClient) next(what string, ok func(map[string]json.RawMessage) bool) (map[string]json.RawMessage, []map[string]json.RawMessage) {
	c.t.Helper()
	var before []map[string]json.RawMessage
	timeout := time.After(20 * time.Second)
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				c.t.Fatalf("the tap closed the client's stdout before %s", what)
			}
			if ok(m) {
				return m, before
			}
			before = append(before, m)
		case <-timeout:
			c.t.Fatalf("no %s within 20 s", what)
		}
	}
}

func hasID(id string) func(map[string]json.RawMessage) bool {
	return func(m map[string]json.RawMessage) bool { return string(m["id"]) == id }
}

func isMethod(method string) func(map[string]json.RawMessage) bool {
	return func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"`+method+`"` }
}

// reloadingTap runs a tap with hot reload over the fake server whose
// tools are the file tools, and a client on its stdio.
func reloadingTap(t *testing.T, tools string, r *ReloadOptions) (*tapClient, func() *Outcome) {
	t.Helper()
	return reloadingTapOf(t, []string{"env", mcptest.EnvVar + "=tools-file", mcptest.ToolsFileVar + "=" + tools, os.Args[0]}, r)
}

// reloadingTapOf is reloadingTap with the server's command line.
func reloadingTapOf(t *testing.T, argv []string, r *ReloadOptions) (*tapClient, func() *Outcome) {
	t.Helper()
	privateDirs(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan *Outcome, 1)
	go func() {
		out, err := RunStdio(context.Background(), StdioOptions{Name: "reload", Command: argv[0], Args: argv[1:], Stdin: inR, Stdout: outW,
			Stderr: io.Discard, Grace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond, Reload: r})
		if err != nil {
			t.Error(err)
		}
		_ = outW.Close()
		done <- out
	}()
	c := &tapClient{t: t, in: inW, msgs: make(chan map[string]json.RawMessage, 64)}
	go func() {
		defer close(c.msgs)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.msgs <- m
			}
		}
	}()
	var out *Outcome
	var once sync.Once
	wait := func() *Outcome {
		once.Do(func() {
			_ = inW.Close()
			select {
			case out = <-done:
			case <-time.After(10 * time.Second):
				t.Error("the tap did not end when the client closed stdin")
			}
		})
		return out
	}
	t.Cleanup(func() { wait() })
	return c, wait
}

func toolNames(t *testing.T, m map[string]json.RawMessage) []string {
	t.Helper()
	var r struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(m["result"], &r); err != nil {
		t.Fatalf("not a tools/list answer: %s", m["result"])
	}
	var out []string
	for _, tl := range r.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// The client keeps its connection while the server is replaced: its call
// in flight gets the tap's error, it is told the tools changed, it lists
// them again and sees the new one, and it never gets a second initialize
// answer; the record marks what the tap wrote and has the restart and its
// surface diff.
func TestReloadingTapKeepsTheClientConnected(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(tools, []byte(tapToolsV1), 0o644); err != nil {
		t.Fatal(err)
	}
	c, wait := reloadingTap(t, tools, &ReloadOptions{Watch: watch.Options{Paths: []string{tools}}})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`)
	c.next("the initialize answer", hasID("1"))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m, _ := c.next("the tools", hasID("2"))
	if got := strings.Join(toolNames(t, m), ","); got != "echo,hang" {
		t.Fatalf("tools %s", got)
	}
	c.send(`{"jsonrpc":"2.0","id":"in-flight","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	time.Sleep(100 * time.Millisecond) // the call reaches the server before the save

	if err := os.WriteFile(tools, []byte(tapToolsV2), 0o644); err != nil {
		t.Fatal(err)
	}
	failed, _ := c.next("the in-flight call's error", hasID(`"in-flight"`))
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(failed["error"], &e); err != nil || e.Code != RestartErrorCode || !strings.Contains(e.Message, "restarted") {
		t.Fatalf("the call in flight got %s", failed["error"])
	}
	_, before := c.next("notifications/tools/list_changed", isMethod(mcp.NotifyToolsListChanged))
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	m, between := c.next("the new tools", hasID("3"))
	if got := strings.Join(toolNames(t, m), ","); got != "echo,hang,reverse" {
		t.Fatalf("tools after the restart %s", got)
	}
	for _, x := range append(before, between...) {
		if _, ok := x["result"]; ok {
			t.Errorf("the client got an answer it did not ask for (a replayed initialize's?): %v", x)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	m, _ = c.next("a call to the new server", hasID("4"))
	if !strings.Contains(string(m["result"]), `"two"`) {
		t.Errorf("the new server did not answer: %s", m["result"])
	}

	wait()
	entries := recordOf(t)
	var byTap, restart, surface, init int
	for _, en := range entries {
		switch {
		case en.Type == "frame" && en.ByTap:
			byTap++
			if en.Method == mcp.MethodInitialize {
				init++
			}
		case en.Type == "transport" && en.TransportKind == mcp.TransportRestart:
			restart++
		case en.Type == "transport" && en.TransportKind == mcp.TransportSurface:
			surface++
			if !strings.Contains(en.Summary, "new tool reverse") {
				t.Errorf("surface row %q", en.Summary)
			}
		}
	}
	// The doctor judges the new server's list as a new session's, not as a
	// list that changed unannounced.
	lint := doctor.New(doctor.Options{})
	for _, ev := range recordEvents(t) {
		for _, d := range lint.Observe(ev) {
			if d.Rule == "lists/changed-without-notification" {
				t.Errorf("the doctor: %s", d.Message)
			}
		}
	}
	// The replayed initialize and its answer, initialized, the lists both
	// ways, the error and the list_changed at least.
	if byTap < 8 || restart != 1 || surface != 1 || init != 1 {
		t.Errorf("the record: %d frames by the tap (%d initialize), %d restart rows, %d surface rows", byTap, init, restart, surface)
	}
}

// recordFile opens the one session file the tap wrote.
func recordFile(t *testing.T) *os.File {
	t.Helper()
	dir := filepath.Join(os.Getenv("HOME"), ".local", "state", "mcpscope", "taps")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file in %s, have %v", dir, files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// recordOf is the one session file the tap wrote, line by line.
func recordOf(t *testing.T) []record.Entry {
	t.Helper()
	entries, err := record.Read(recordFile(t))
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// recordEvents are the events of the one session file the tap wrote.
func recordEvents(t *testing.T) []mcp.Event {
	t.Helper()
	rf, err := record.ReadEvents(recordFile(t), true)
	if err != nil {
		t.Fatal(err)
	}
	return rf.Events
}

// A failed build keeps the running server: the client's next request is
// answered by it.
func TestReloadingTapKeepsTheServerWhenTheBuildFails(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(tools, []byte(tapToolsV1), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := reloadingTap(t, tools, &ReloadOptions{Watch: watch.Options{Paths: []string{tools}}, Dir: dir, Build: "echo broken >&2; exit 1"})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`)
	c.next("the initialize answer", hasID("1"))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err := os.WriteFile(tools, []byte(tapToolsV2), 0o644); err != nil {
		t.Fatal(err)
	}
	// The build's failure is recorded before the old server is asked again.
	deadline := time.Now().Add(20 * time.Second)
	for !recordHas(t, mcp.TransportBuild) {
		if time.Now().After(deadline) {
			t.Fatal("the failed build is not in the record")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	m, _ := c.next("the old server's answer", hasID("2"))
	if !strings.Contains(string(m["result"]), `"one"`) {
		t.Fatalf("after a failed build the call got %v", m)
	}
}

// recordHas reports whether the tap's record (flushed so far) has a
// transport row of kind.
func recordHas(t *testing.T, kind string) bool {
	dir := filepath.Join(os.Getenv("HOME"), ".local", "state", "mcpscope", "taps")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), `"transportKind":"`+kind+`"`) {
			return true
		}
	}
	return false
}

// The client's active subscription is replayed to the new server (its
// answer, an error from this server, goes to the record only); a new
// server whose handshake is not the one the client was given (another
// protocol version) ends the connection as the server would, and says
// why in the record.
func TestReloadingTapReplaysSubscriptionsAndEndsOnAnotherHandshake(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	behaviours := filepath.Join(dir, "behaviours")
	for path, text := range map[string]string{tools: tapToolsV1, behaviours: "tools-file"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The server's behaviours are read from a file at each start: the
	// second start answers another protocol version.
	argv := []string{"sh", "-c", `exec env ` + mcptest.EnvVar + `="$(cat "$1")" ` + mcptest.ToolsFileVar + `="$2" "$0"`, os.Args[0], behaviours, tools}
	c, wait := reloadingTapOf(t, argv, &ReloadOptions{Watch: watch.Options{Paths: []string{tools}}})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`)
	c.next("the initialize answer", hasID("1"))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///watched.txt"}}`)
	c.next("the subscribe answer", hasID("2"))

	// A restart with the same handshake: the subscription is replayed.
	if err := os.WriteFile(tools, []byte(tapToolsV2), 0o644); err != nil {
		t.Fatal(err)
	}
	c.next("notifications/tools/list_changed", isMethod(mcp.NotifyToolsListChanged))
	// Then one with another protocol version: the connection ends.
	if err := os.WriteFile(behaviours, []byte("tools-file,bad-version"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tools, []byte(tapToolsV1), 0o644); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-c.msgs:
		case <-timeout:
			t.Fatal("the tap kept the connection after an incompatible handshake")
		}
	}
	wait()
	replayed, ended := 0, false
	for _, en := range recordOf(t) {
		if en.Type == "frame" && en.ByTap && en.Method == mcp.MethodResourcesSubscribe && en.Raw != nil && strings.Contains(*en.Raw, "file:///watched.txt") {
			replayed++
		}
		if en.Type == "transport" && strings.Contains(en.Summary, "protocol version 1999-01-01, not 2025-06-18") && strings.Contains(en.Summary, "ending the connection") {
			ended = true
		}
	}
	if replayed != 1 || !ended {
		t.Errorf("the record: %d replayed subscriptions (want 1: the incompatible server gets none), ended %v", replayed, ended)
	}
}

// A request the client sends while the server is being replaced is
// answered at once with the restart's error, not lost on the way between
// the two servers.
func TestReloadingTapAnswersRequestsDuringARestart(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	delay := filepath.Join(dir, "delay")
	for path, text := range map[string]string{tools: tapToolsV1, delay: "0"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The second start takes a second: the client's request comes meanwhile.
	argv := []string{"sh", "-c", `sleep "$(cat "$1")"; exec env ` + mcptest.EnvVar + `=tools-file ` + mcptest.ToolsFileVar + `="$2" "$0"`, os.Args[0], delay, tools}
	c, _ := reloadingTapOf(t, argv, &ReloadOptions{Watch: watch.Options{Paths: []string{tools}}})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`)
	c.next("the initialize answer", hasID("1"))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":"in-flight","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	time.Sleep(100 * time.Millisecond)
	if err := os.WriteFile(delay, []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tools, []byte(tapToolsV2), 0o644); err != nil {
		t.Fatal(err)
	}
	c.next("the in-flight call's error", hasID(`"in-flight"`)) // the old server is gone
	c.send(`{"jsonrpc":"2.0","id":"meanwhile","method":"tools/list"}`)
	m, _ := c.next("the answer to the request sent during the restart", hasID(`"meanwhile"`))
	if !strings.Contains(string(m["error"]), "being restarted") {
		t.Fatalf("a request during the restart got %v", m)
	}
	c.next("notifications/tools/list_changed", isMethod(mcp.NotifyToolsListChanged))
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	m, _ = c.next("the new tools", hasID("5"))
	if got := strings.Join(toolNames(t, m), ","); got != "echo,hang,reverse" {
		t.Fatalf("tools after the restart %s", got)
	}
}

// With --watch too, the client's signal is the row that says how the
// conversation ended (a client-signal row, written at once), and a
// capture cut right after it reads as ended by the client.
func TestReloadingTapRecordsTheClientsSignal(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(tools, []byte(tapToolsV1), 0o644); err != nil {
		t.Fatal(err)
	}
	privateDirs(t)
	inR, inW := io.Pipe()
	defer func() { _ = inW.Close() }()
	sigs := make(chan os.Signal, 1)
	done := make(chan *Outcome, 1)
	go func() {
		out, _ := RunStdio(context.Background(), StdioOptions{Name: "reload", Command: "env",
			Args:  []string{mcptest.EnvVar + "=tools-file", mcptest.ToolsFileVar + "=" + tools, os.Args[0]},
			Stdin: inR, Stdout: io.Discard, Stderr: io.Discard, Grace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond,
			Signals: sigs, Reload: &ReloadOptions{Watch: watch.Options{Paths: []string{tools}}, Dir: dir}})
		done <- out
	}()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	sigs <- syscall.SIGTERM
	var out *Outcome
	select {
	case out = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the tap did not end on its client's SIGTERM")
	}
	if !recordHas(t, record.TransportClientSignal) {
		t.Fatalf("no client-signal row in %s", out.File)
	}
}

// A watched directory removed and made again: the tap says so in the
// record, and a save in the new one restarts the server.
func TestReloadingTapFollowsARecreatedDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "src")
	tools := filepath.Join(dir, "tools.json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tools, []byte(tapToolsV1), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := reloadingTap(t, tools, &ReloadOptions{Watch: watch.Options{Paths: []string{dir}}})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`)
	c.next("the initialize answer", hasID("1"))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !recordHas(t, mcp.TransportWatch) {
		if time.Now().After(deadline) {
			t.Fatal("the removed directory is not in the record")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tools, []byte(tapToolsV2), 0o644); err != nil {
		t.Fatal(err)
	}
	c.next("notifications/tools/list_changed", isMethod(mcp.NotifyToolsListChanged))
}
