package cli

// The doctor's precision corpus: real servers nobody on the project wrote,
// from three SDKs, over stdio and HTTP. The exact findings of `check
// --call-tools` on each are pinned in testdata/corpus/*.golden, and every
// error-level finding there must be justified in testdata/corpus/README.md
// by the MUST it breaks, so a new false positive fails CI.
//
// .ci/run installs the servers (.ci/corpus.sh) and sets MCPSCOPE_CORPUS;
// without it these tests skip, with it they fail when a server is missing.
// Re-pin after a reviewed change with:
//
//	MCPSCOPE_CORPUS=$PWD/.ci/corpus go test -run TestCorpus -update-corpus ./cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/corpus/*.golden from the servers' current findings")

// corpusServer is one real server and how to reach it.
type corpusServer struct {
	name      string // golden file name
	sdk       string // TypeScript SDK, go-sdk, mcp-go
	transport string // stdio, streamable, sse
	// cmd is the command line, relative to the corpus directory for
	// bin/ and node_modules/; {port} is replaced by a free port.
	cmd []string
	env []string
	// url is the HTTP endpoint ({port} replaced); empty for stdio.
	url string
	// flags are extra check flags (e.g. --transport sse).
	flags []string
}

func corpusServers() []corpusServer {
	npm := func(pkg string) string { return "node_modules/@modelcontextprotocol/" + pkg + "/dist/index.js" }
	return []corpusServer{
		// TypeScript SDK (npm, pinned in .ci/run).
		{name: "ts-everything-stdio", sdk: "TypeScript SDK", transport: "stdio", cmd: []string{"node", npm("server-everything"), "stdio"}},
		{name: "ts-everything-streamable", sdk: "TypeScript SDK", transport: "streamable", cmd: []string{"node", npm("server-everything"), "streamableHttp"}, env: []string{"PORT={port}"}, url: "http://127.0.0.1:{port}/mcp"},
		{name: "ts-everything-sse", sdk: "TypeScript SDK", transport: "sse", cmd: []string{"node", npm("server-everything"), "sse"}, env: []string{"PORT={port}"}, url: "http://127.0.0.1:{port}/sse", flags: []string{"--transport", "sse"}},
		{name: "ts-everything-streamable-auto", sdk: "TypeScript SDK", transport: "streamable", cmd: []string{"node", npm("server-everything"), "streamableHttp"}, env: []string{"PORT={port}"}, url: "http://127.0.0.1:{port}/mcp", flags: []string{"--era", "auto"}},
		{name: "ts-filesystem-stdio", sdk: "TypeScript SDK", transport: "stdio", cmd: []string{"node", npm("server-filesystem"), "{tmp}"}},
		{name: "ts-memory-stdio", sdk: "TypeScript SDK", transport: "stdio", cmd: []string{"node", npm("server-memory")}, env: []string{"MEMORY_FILE_PATH={tmp}/memory.jsonl"}},
		{name: "ts-sequential-thinking-stdio", sdk: "TypeScript SDK", transport: "stdio", cmd: []string{"node", npm("server-sequential-thinking")}},
		// go-sdk v1.8.0 examples (built from the module cache).
		{name: "gosdk-everything-stdio", sdk: "go-sdk", transport: "stdio", cmd: []string{"bin/gosdk-everything"}},
		{name: "gosdk-everything-streamable", sdk: "go-sdk", transport: "streamable", cmd: []string{"bin/gosdk-everything", "-http", "127.0.0.1:{port}"}, url: "http://127.0.0.1:{port}"},
		{name: "gosdk-everything-streamable-auto", sdk: "go-sdk", transport: "streamable", cmd: []string{"bin/gosdk-everything", "-http", "127.0.0.1:{port}"}, url: "http://127.0.0.1:{port}", flags: []string{"--era", "auto"}},
		{name: "gosdk-hello-stdio", sdk: "go-sdk", transport: "stdio", cmd: []string{"bin/gosdk-hello"}},
		{name: "gosdk-memory-stdio", sdk: "go-sdk", transport: "stdio", cmd: []string{"bin/gosdk-memory"}},
		{name: "gosdk-sequentialthinking-streamable", sdk: "go-sdk", transport: "streamable", cmd: []string{"bin/gosdk-sequentialthinking", "-http", "127.0.0.1:{port}"}, url: "http://127.0.0.1:{port}"},
		{name: "gosdk-sse-greeter", sdk: "go-sdk", transport: "sse", cmd: []string{"bin/gosdk-sse", "-host", "127.0.0.1", "-port", "{port}"}, url: "http://127.0.0.1:{port}/greeter1", flags: []string{"--transport", "sse"}},
		// mcp-go v1.2.1 examples (from the Go module proxy).
		{name: "mcpgo-everything-stdio", sdk: "mcp-go", transport: "stdio", cmd: []string{"bin/mcpgo-everything"}},
		{name: "mcpgo-typed-tools-stdio", sdk: "mcp-go", transport: "stdio", cmd: []string{"bin/mcpgo-typed_tools"}},
		{name: "mcpgo-structured-stdio", sdk: "mcp-go", transport: "stdio", cmd: []string{"bin/mcpgo-structured_input_and_output"}},
		{name: "mcpgo-conformance-streamable", sdk: "mcp-go", transport: "streamable", cmd: []string{"bin/mcpgo-conformance"}, env: []string{"CONFORMANCE_ADDR=127.0.0.1:{port}"}, url: "http://127.0.0.1:{port}/mcp"},
	}
}

// corpusDir is where .ci/corpus.sh installed the servers.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCPSCOPE_CORPUS")
	if dir == "" {
		t.Skip("set MCPSCOPE_CORPUS (see .ci/run and .ci/corpus.sh) to run the real-server corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "bin")); err != nil {
		t.Fatalf("MCPSCOPE_CORPUS is set but the corpus is not installed: %v", err)
	}
	return dir
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// startHTTPServer runs an HTTP corpus server and waits until it listens.
func startHTTPServer(t *testing.T, cmd []string, env []string, port string) {
	t.Helper()
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Env = append(os.Environ(), env...)
	stderr := &strings.Builder{}
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd, err)
	}
	t.Cleanup(func() {
		_ = c.Process.Kill()
		_ = c.Wait()
	})
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%v did not listen on %s within 15 s; stderr:\n%s", cmd, port, stderr.String())
}

// corpusFindings runs check --call-tools on one server and returns its
// pinned form: the exit code, then one line per finding, sorted.
func corpusFindings(t *testing.T, dir string, s corpusServer) string {
	tmp := t.TempDir()
	port := freePort(t)
	fill := func(v string) string {
		v = strings.ReplaceAll(v, "{port}", port)
		return strings.ReplaceAll(v, "{tmp}", tmp)
	}
	var cmd, env []string
	for _, a := range s.cmd {
		a = fill(a)
		if strings.HasPrefix(a, "bin/") || strings.HasPrefix(a, "node_modules/") {
			a = filepath.Join(dir, a)
		}
		cmd = append(cmd, a)
	}
	for _, e := range s.env {
		env = append(env, fill(e))
	}
	args := []string{"check", "--format", "json", "--call-tools", "--relist-delay", "100ms", "--call-timeout", "5s", "--timeout", "10s"}
	args = append(args, s.flags...)
	if s.url != "" {
		startHTTPServer(t, cmd, env, port)
		args = append(args, fill(s.url))
	} else {
		for _, e := range env {
			args = append(args, "-e", e)
		}
		args = append(append(args, "--"), cmd...)
	}
	out, _, _, code := runCLISplit(args...)
	var rep struct {
		Connected   bool   `json:"connected"`
		Cause       string `json:"cause"`
		Diagnostics []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"diagnostics"`
	}
	// The JSON report is followed by the exit line on the same writer.
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&rep); err != nil {
		t.Fatalf("check output is not a JSON report (%v):\n%s", err, out)
	}
	if !rep.Connected {
		t.Fatalf("check did not connect (exit %d): %s\n%s", code, rep.Cause, out)
	}
	var lines []string
	for _, d := range rep.Diagnostics {
		// The test's own directory goes first: it lies under $TMPDIR,
		// which is not /tmp everywhere (macOS, or a CI that sets it).
		msg := strings.ReplaceAll(d.Message, tmp, "/tmp/corpus")
		lines = append(lines, d.Severity+" "+d.Rule+": "+unstable.ReplaceAllString(msg, "…"))
	}
	sort.Strings(lines)
	return fmt.Sprintf("exit %d\n%s", code, strings.Join(append(lines, ""), "\n"))
}

// unstable matches what changes from run to run in a finding's message:
// ports, temporary directories, times and dates (a file's ctime as
// JavaScript's Date prints it: "Tue Dec 01 2026").
var unstable = regexp.MustCompile(`Its last stderr lines: .*|127\.0\.0\.1:\d+|/tmp/[^\s"']+|\d+(\.\d+)?(ms|s)\b|\d\d:\d\d:\d\d|(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d\d \d{4}`)

// matchGolden compares findings with a golden. A golden line starting with
// "? " is a finding that depends on a race in the server (a notification
// its SDK writes from another goroutine, after the result): it may be
// absent, but nothing else may differ.
func matchGolden(got, want string) bool {
	gotLines := strings.Split(got, "\n")
	var required []string
	optional := map[string]bool{}
	for _, w := range strings.Split(want, "\n") {
		if rest, ok := strings.CutPrefix(w, "? "); ok {
			optional[rest] = true
			continue
		}
		required = append(required, w)
	}
	var kept []string
	for _, g := range gotLines {
		if !optional[g] {
			kept = append(kept, g)
		}
	}
	// The exit code may change with an optional error line.
	if len(kept) > 0 && len(required) > 0 && strings.HasPrefix(kept[0], "exit ") && strings.HasPrefix(required[0], "exit ") && hasOptionalError(optional) {
		kept, required = kept[1:], required[1:]
	}
	return strings.Join(kept, "\n") == strings.Join(required, "\n")
}

func hasOptionalError(optional map[string]bool) bool {
	for l := range optional {
		if strings.HasPrefix(l, "error ") {
			return true
		}
	}
	return false
}

func readGolden(name string) string {
	b, _ := os.ReadFile(filepath.Join("..", "testdata", "corpus", name+".golden"))
	return string(b)
}

func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, s := range corpusServers() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			got := corpusFindings(t, dir, s)
			golden := filepath.Join("..", "testdata", "corpus", s.name+".golden")
			if *updateCorpus && !strings.Contains(readGolden(s.name), "\n? ") {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden for %s (run with -update-corpus and review): %v", s.name, err)
			}
			if !matchGolden(got, string(want)) {
				t.Errorf("%s (%s, %s): findings changed.\n--- want\n%s--- got\n%s", s.name, s.sdk, s.transport, want, got)
			}
		})
	}
}

// TestCorpusErrorsAreJustified: every error-level rule in a golden has a
// row in testdata/corpus/README.md quoting the MUST it breaks.
func TestCorpusErrorsAreJustified(t *testing.T) {
	table, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	goldens, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "*.golden"))
	if len(goldens) < 12 {
		t.Fatalf("the corpus pins %d servers; it must pin at least 12", len(goldens))
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/-]+)` \\| ([^|]+) \\| (.*(MUST|schema).*) \\|$")
	justified := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(table), -1) {
		justified[m[1]] = true
	}
	for _, g := range goldens {
		b, _ := os.ReadFile(g)
		for _, line := range strings.Split(string(b), "\n") {
			rule, ok := strings.CutPrefix(strings.TrimPrefix(line, "? "), "error ")
			if !ok {
				continue
			}
			rule, _, _ = strings.Cut(rule, ":")
			if !justified[rule] {
				t.Errorf("%s: error %s has no row in testdata/corpus/README.md quoting the MUST it breaks", filepath.Base(g), rule)
			}
		}
	}
}

// runCLISplit runs mcpscope in-process with stdout and stderr apart (the
// reports are on stdout; notes such as the neutral answers on stderr).
func runCLISplit(args ...string) (stdout, stderr string, err error, code int) {
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err, exitCode(err)
}
