package tap

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Byte identity with real clients: server-everything driven by the
// official TypeScript SDK client and by the go-sdk client, once directly
// and once through the tap. Each client's record of what it sent and got
// must hash the same both ways, the session file must hold every message
// the client got, and a viewer attached while the conversation runs must
// see every frame in order. .ci/run sets MCPSCOPE_NODE_TESTS=1 and
// MCPSCOPE_SERVER_EVERYTHING; with the first set, anything missing fails.

func serverEverything(t *testing.T) (node, script, nodeModules string) {
	t.Helper()
	if os.Getenv("MCPSCOPE_NODE_TESTS") == "" {
		t.Skip("set MCPSCOPE_NODE_TESTS=1 and MCPSCOPE_SERVER_EVERYTHING (see .ci/run)")
	}
	script = os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("MCPSCOPE_SERVER_EVERYTHING: %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	// .../node_modules/@modelcontextprotocol/server-everything/dist/index.js
	nodeModules = filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(script))))
	if _, err := os.Stat(filepath.Join(nodeModules, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the TypeScript SDK is not installed next to server-everything: %v", err)
	}
	return node, script, nodeModules
}

// tapArgv is the command line that runs the server behind a tap. The SDK
// clients give it their short list of environment variables (HOME, PATH
// and a few more, no XDG_*), and the viewer in this test, whose XDG_*
// point elsewhere (privateDirs), must still find it.
func tapArgv(node, script string) []string {
	return []string{"env", asTapEnv + "=1", os.Args[0], node, script}
}

// watcher attaches a viewer to the first live tap that appears and
// collects its frames until the tap ends.
type watcher struct {
	mu     sync.Mutex
	frames []*mcp.Frame
	done   chan struct{}
}

func watchFirstTap(t *testing.T) *watcher {
	w := &watcher{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			taps, _ := List()
			for _, l := range taps {
				if !l.Live {
					continue
				}
				src := NewSource(l)
				ch := src.Events()
				if err := src.Start(context.Background()); err != nil {
					return
				}
				for ev := range ch {
					if fe, ok := ev.(mcp.FrameEvent); ok {
						w.mu.Lock()
						w.frames = append(w.frames, fe.Frame)
						w.mu.Unlock()
					}
				}
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return w
}

// recordedFrames reads the one session file in dir.
func recordedFrames(t *testing.T, dir string) []record.Entry {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file in %s, have %v", dir, files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	entries, err := record.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []record.Entry
	for _, e := range entries {
		if e.Type == "frame" {
			out = append(out, e)
		}
	}
	return out
}

func hash(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:8]) }

// checkTapped compares a direct run with a tapped one and the viewer's
// frames with the session file's.
func checkTapped(t *testing.T, direct, tapped []byte, dir string, w *watcher) {
	t.Helper()
	if len(direct) == 0 || !bytes.Equal(direct, tapped) {
		t.Fatalf("the client saw other messages through the tap (%s direct, %s tapped):\n%s\n---\n%s", hash(direct), hash(tapped), direct, tapped)
	}
	select {
	case <-w.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the viewer's stream did not end with the tap")
	}
	recorded := recordedFrames(t, dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.frames) != len(recorded) {
		t.Fatalf("the viewer saw %d frames, the session file holds %d", len(w.frames), len(recorded))
	}
	answers := 0
	for i, e := range recorded {
		raw, _ := e.RawBytes()
		if f := w.frames[i]; f.Seq != e.Seq || !bytes.Equal(f.Raw, raw) {
			t.Fatalf("viewer frame %d is #%d %q; the file has #%d %q", i, f.Seq, f.Raw, e.Seq, raw)
		}
		if e.Dir == "in" && (e.Kind == "response" || e.Kind == "error") {
			answers++
		}
	}
	// Every answer the client logged (initialize aside) is in the file.
	logged := 0
	for _, line := range strings.Split(string(direct), "\n") {
		if strings.HasPrefix(line, "< ") || (strings.HasPrefix(line, "read: ") && !strings.Contains(line, `"method":`)) {
			logged++
		}
	}
	if logged == 0 || answers < logged {
		t.Logf("client log:\n%s", direct)
		t.Errorf("the session file holds %d answers; the client got %d", answers, logged)
	}
}

func TestTypeScriptClientThroughTapIsByteIdentical(t *testing.T) {
	node, script, modules := serverEverything(t)
	dir := privateDirs(t)
	client := filepath.Join("testdata", "tsclient.cjs")
	run := func(argv ...string) []byte {
		cmd := exec.Command(node, append([]string{client}, argv...)...)
		cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, stderr.String())
		}
		return out
	}
	direct := run(node, script)
	w := watchFirstTap(t)
	tapped := run(tapArgv(node, script)...)
	checkTapped(t, direct, tapped, dir, w)
}

func TestGoSDKClientThroughTapIsByteIdentical(t *testing.T) {
	node, script, _ := serverEverything(t)
	dir := privateDirs(t)
	run := func(argv ...string) []byte {
		var log bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		client := sdk.NewClient(&sdk.Implementation{Name: "tap-test-go-client", Version: "1.0.0"}, nil)
		tr := &sdk.LoggingTransport{Transport: &sdk.CommandTransport{Command: exec.Command(argv[0], argv[1:]...), TerminateDuration: time.Second}, Writer: &log}
		cs, err := client.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "through the tap: hé ☃"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListPrompts(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListResources(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
		_ = cs.Close()
		return conversation(log.String())
	}
	direct := run("node", script)
	w := watchFirstTap(t)
	tapped := run(tapArgv(node, script)...)
	checkTapped(t, direct, tapped, dir, w)
}

// startEverythingHTTP runs server-everything's Streamable HTTP transport on
// a free port and returns its endpoint.
func startEverythingHTTP(t *testing.T, node, script string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("server-everything did not start its HTTP transport")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}

// startHTTPTap runs an HTTP tap in front of url; stop ends it.
func startHTTPTap(t *testing.T, url string) (local string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "everything-http", Listen: "127.0.0.1:0", Target: url, Ready: func(u string) { ready <- u }})
	}()
	local = <-ready
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return local, stop
}

func TestClientsOverStreamableHTTPThroughTapAreByteIdentical(t *testing.T) {
	node, script, modules := serverEverything(t)
	dir := privateDirs(t)
	endpoint := startEverythingHTTP(t, node, script)
	local, stop := startHTTPTap(t, endpoint)
	w := watchFirstTap(t)

	t.Run("typescript-sdk", func(t *testing.T) {
		run := func(url string) []byte {
			cmd := exec.Command(node, filepath.Join("testdata", "tsclient.cjs"), url)
			cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", url, err, stderr.String())
			}
			return out
		}
		direct, tapped := run(endpoint), run(local)
		if len(direct) == 0 || !bytes.Equal(direct, tapped) {
			t.Fatalf("the TypeScript client saw other messages through the tap (%s direct, %s tapped):\n%s\n---\n%s", hash(direct), hash(tapped), direct, tapped)
		}
	})
	t.Run("go-sdk", func(t *testing.T) {
		run := func(url string) []byte {
			var log bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			client := sdk.NewClient(&sdk.Implementation{Name: "tap-test-go-client", Version: "1.0.0"}, nil)
			cs, err := client.Connect(ctx, &sdk.LoggingTransport{Transport: &sdk.StreamableClientTransport{Endpoint: url}, Writer: &log}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "through the tap: hé ☃"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListPrompts(ctx, nil); err != nil {
				t.Fatal(err)
			}
			_ = cs.Close()
			return conversation(log.String())
		}
		direct, tapped := run(endpoint), run(local)
		if len(direct) < 10 || !bytes.Equal(direct, tapped) {
			t.Fatalf("the go-sdk client saw other messages through the tap (%s direct, %s tapped):\n%s\n---\n%s", hash(direct), hash(tapped), direct, tapped)
		}
	})
	// The viewer, attached while both clients ran, saw every frame the
	// tap recorded, in order.
	stop()
	select {
	case <-w.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the viewer's stream did not end with the tap")
	}
	recorded := recordedFrames(t, dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(recorded) < 10 || len(w.frames) != len(recorded) {
		t.Fatalf("the viewer saw %d frames, the session file holds %d", len(w.frames), len(recorded))
	}
	for i, e := range recorded {
		raw, _ := e.RawBytes()
		if f := w.frames[i]; f.Seq != e.Seq || !bytes.Equal(f.Raw, raw) {
			t.Fatalf("viewer frame %d is #%d %q; the file has #%d %q", i, f.Seq, f.Raw, e.Seq, raw)
		}
	}
}

// conversation is what a go-sdk LoggingTransport log says the client sent
// and received, for comparing a direct run with a tapped one. The requests
// the client made and their answers are kept in order. What the server
// starts on its own goes apart, sorted: server-everything sends
// notifications on timers and asks roots/list when it likes, so where those
// fall between the client's exchanges differs from run to run, direct or
// not; the notifications are left out, the server's requests are compared
// as a set.
//
// The client's exchanges are put in id order, each request before its
// answer: the client waits for each answer before its next request, but
// over HTTP the LoggingTransport logs a POST's "write" when the POST
// returns, which can be after the answer it carried was read and logged
// (seen directly, without the tap, once in a dozen runs on a busy machine).
func conversation(log string) []byte {
	var driven, serverSide []string
	for _, line := range strings.Split(log, "\n") {
		read, write := strings.HasPrefix(line, "read: "), strings.HasPrefix(line, "write: ")
		if !read && !write || strings.Contains(line, `"method":"notifications/`) {
			continue
		}
		hasMethod := strings.Contains(line, `"method":`)
		switch {
		case write && !hasMethod:
			// The client's answer to a server request: written or not,
			// depending on whether the client closed first (seen both
			// ways in direct runs). It is what the client sent, not what
			// it received, so leaving it out hides nothing the tap does.
		case read && hasMethod:
			serverSide = append(serverSide, line)
		default:
			driven = append(driven, line)
		}
	}
	sort.SliceStable(driven, func(i, j int) bool {
		ii, ij := logID(driven[i]), logID(driven[j])
		if ii != ij {
			return ii < ij
		}
		return strings.HasPrefix(driven[i], "write: ") && strings.HasPrefix(driven[j], "read: ")
	})
	sort.Strings(serverSide)
	return []byte(strings.Join(driven, "\n") + "\n--- started by the server\n" + strings.Join(serverSide, "\n") + "\n")
}

// logID is the JSON-RPC id of a LoggingTransport line's message (-1 when
// it has none, or it is not a number).
func logID(line string) int64 {
	_, msg, _ := strings.Cut(line, ": ")
	var m struct {
		ID *int64 `json:"id"`
	}
	if json.Unmarshal([]byte(msg), &m) != nil || m.ID == nil {
		return -1
	}
	return *m.ID
}

// A POST's write logged after the answer it carried (the LoggingTransport
// over HTTP) compares equal to the same exchange logged in order.
func TestConversationOrdersTheClientsExchanges(t *testing.T) {
	inOrder := "write: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\"}\nread: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n" +
		"write: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\nread: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"
	swapped := "read: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\nwrite: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\"}\n" +
		"write: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\nread: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"
	if a, b := conversation(inOrder), conversation(swapped); !bytes.Equal(a, b) {
		t.Errorf("the same exchange logged in two orders compares unequal:\n%s\n---\n%s", a, b)
	}
	// The client's answer to the server's roots/list is there or not,
	// depending on whether the client closed first.
	asked := inOrder + "read: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}\n"
	if a, b := conversation(asked), conversation(asked+"write: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"roots\":[]}}\n"); !bytes.Equal(a, b) {
		t.Errorf("a server request answered or not before the close compares unequal:\n%s\n---\n%s", a, b)
	}
	if bytes.Equal(conversation(inOrder), conversation(asked)) {
		t.Error("a server request the client received is not compared")
	}
	other := strings.Replace(inOrder, "tools/list", "prompts/list", 1)
	if bytes.Equal(conversation(inOrder), conversation(other)) {
		t.Error("two different exchanges compare equal")
	}
}
