package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/tap"
	toml "github.com/pelletier/go-toml/v2"
)

// The real clients, from npm, through the tap against server-everything:
// Claude Code (stdio, and Streamable HTTP through tap --listen), Gemini CLI
// and Codex; and the view tests, which run those three, opencode and
// Copilot CLI against a fake model API on loopback through `tap --model`,
// with their test server behind `tap --name wx`, and join the captures.
// MCPSCOPE_CLIENT_TESTS=1 runs them (.ci/run does, about 90 s),
// with MCPSCOPE_CLIENTS naming the directory of their commands (.ci/run
// installs them into .ci/clients); then a missing client,
// server-everything, unshare, ip or strace fails the test.
//
// Nothing may leave the machine: the whole run happens in a network
// namespace of its own with only loopback (unshare -n), every client's
// API points at a closed loopback port with telemetry and update checks
// off, and each client runs under strace, which must show no connection
// tried to any other address (a DNS lookup included).
const clientsInsideVar = "MCPSCOPE_CLIENTS_INSIDE"

func TestRealClients(t *testing.T) {
	if os.Getenv("MCPSCOPE_CLIENT_TESTS") == "" {
		t.Skip("MCPSCOPE_CLIENT_TESTS is not set (.ci/run sets it)")
	}
	bin := os.Getenv("MCPSCOPE_CLIENTS")
	if bin == "" {
		t.Fatal("MCPSCOPE_CLIENT_TESTS is set but MCPSCOPE_CLIENTS does not name the clients' directory")
	}
	for _, c := range []string{"claude", "gemini", "codex", "opencode", "copilot"} {
		if _, err := os.Stat(filepath.Join(bin, c)); err != nil {
			t.Fatalf("MCPSCOPE_CLIENTS=%s: %v", bin, err)
		}
	}
	if os.Getenv("MCPSCOPE_SERVER_EVERYTHING") == "" {
		t.Fatal("MCPSCOPE_CLIENT_TESTS is set but MCPSCOPE_SERVER_EVERYTHING is not")
	}
	for _, tool := range []string{"unshare", "ip", "strace", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the real-client tests need %s: %v", tool, err)
		}
	}
	mcpscope, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	// This test binary again, inside a namespace where only loopback exists.
	cmd := exec.Command("unshare", "-n", "--", "sh", "-c", `ip link set lo up && exec "$@"`, "sh",
		os.Args[0], "-test.run=^TestRealClientsInside$", "-test.v", "-test.count=1", "-test.timeout=15m")
	cmd.Env = append(os.Environ(), clientsInsideVar+"=1", "MCPSCOPE_BINARY="+mcpscope)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("the real clients took %s:\n%s", time.Since(start).Round(100*time.Millisecond), out)
	if err != nil {
		t.Fatalf("the real-client tests failed: %v", err)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestRealClientsInside")) {
		t.Fatal("the real-client tests did not run")
	}
}

// clientRun is one client's throwaway world: a HOME, a project directory
// and the environment the client starts with.
type clientRun struct {
	t        *testing.T
	home     string
	project  string
	env      []string
	mcpscope string
	se       string // server-everything's index.js
	memory   string // the "other" server a client adds itself
}

func newClientRun(t *testing.T, extraEnv ...string) *clientRun {
	t.Helper()
	// Short: a tap's socket path must fit in about 100 bytes.
	home, err := os.MkdirTemp("", "mcps-client-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	node, _ := exec.LookPath("node")
	se := os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
	r := &clientRun{t: t, home: home, project: project, mcpscope: os.Getenv("MCPSCOPE_BINARY"), se: se,
		memory: filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(se))), "server-memory", "dist", "index.js")}
	// A clean environment, as a desktop session would give the client
	// (and no XDG_* at all: the tap must be found all the same).
	r.env = append([]string{"HOME=" + home, "USER=user", "SHELL=/bin/sh", "TERM=dumb", "LANG=C.UTF-8",
		"PATH=" + os.Getenv("MCPSCOPE_CLIENTS") + ":" + filepath.Dir(node) + ":/usr/bin:/bin"}, extraEnv...)
	return r
}

// run runs a client command in the project directory under strace and
// fails the test if it tried to reach anything but this machine.
func (r *clientRun) run(timeout time.Duration, name string, args ...string) (string, error) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd, trace := r.traced(ctx, name, args...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r.t.Logf("%s %s: %s", name, strings.Join(args, " "), time.Since(start).Round(10*time.Millisecond))
	r.checkTrace(trace)
	return string(out), err
}

func (r *clientRun) traced(ctx context.Context, name string, args ...string) (*exec.Cmd, string) {
	trace := filepath.Join(r.home, fmt.Sprintf("strace-%d", time.Now().UnixNano()))
	argv := append([]string{"-f", "-qq", "--seccomp-bpf", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-o", trace,
		filepath.Join(os.Getenv("MCPSCOPE_CLIENTS"), name)}, args...)
	cmd := exec.CommandContext(ctx, "strace", argv...)
	cmd.Dir, cmd.Env = r.project, r.env
	cmd.WaitDelay = 5 * time.Second
	return cmd, trace
}

var traceAddr = regexp.MustCompile(`inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"`)

// checkTrace fails on every address other than loopback that the traced
// processes tried to connect or send to.
func (r *clientRun) checkTrace(trace string) {
	r.t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil {
		r.t.Errorf("no strace log: %v", err)
		return
	}
	seen := map[string]bool{}
	for _, m := range traceAddr.FindAllSubmatch(b, -1) {
		a := string(m[1]) + string(m[2])
		ip := net.ParseIP(a)
		if ip == nil || !(ip.IsLoopback() || ip.IsUnspecified()) {
			seen[a] = true
		}
	}
	for a := range seen {
		r.t.Errorf("a client tried to reach %s, outside this machine", a)
	}
}

// mcpscope runs the real binary with the client's environment plus env.
func (r *clientRun) mcpscopeRun(env []string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command(r.mcpscope, args...)
	cmd.Dir, cmd.Env = r.project, append(append([]string(nil), r.env...), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("mcpscope %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// elsewhere is a viewer's environment that points XDG_* elsewhere than
// the tap's (which had none).
func (r *clientRun) elsewhere() []string {
	return []string{"XDG_RUNTIME_DIR=" + filepath.Join(r.home, "viewer-run"), "XDG_STATE_HOME=" + filepath.Join(r.home, "viewer-state")}
}

// capture finds the tap's capture of the named server with `mcpscope taps
// --list` run with XDG_* set elsewhere, and returns it as the viewer lists
// it (state "ended" or "LIVE ").
func (r *clientRun) listed(name, state string) bool {
	out := r.mcpscopeRun(r.elsewhere(), "taps", "--list")
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(state) + `\s+` + regexp.QuoteMeta(name) + `\s`).MatchString(out)
}

// doctor runs the viewer's doctor over the capture of the named server and
// fails on every error or warning.
func (r *clientRun) doctor(name string) {
	r.t.Helper()
	for _, kv := range append(r.elsewhere(), "HOME="+r.home) {
		k, v, _ := strings.Cut(kv, "=")
		r.t.Setenv(k, v)
	}
	taps, err := tap.List()
	if err != nil {
		r.t.Fatal(err)
	}
	var found *tap.Listed
	for i := range taps {
		if taps[i].Name == name && !taps[i].Live {
			found = &taps[i]
			break
		}
	}
	if found == nil {
		r.t.Fatalf("no ended capture of %s among %+v", name, taps)
	}
	src := tap.NewSource(*found)
	if err := src.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	frames := 0
	for ev := range src.Events() {
		switch e := ev.(type) {
		case mcp.FrameEvent:
			frames++
		case mcp.DiagnosticEvent:
			if e.Diagnostic.Severity >= mcp.SeverityWarning {
				r.t.Errorf("the doctor on the capture: %s %s: %s", e.Diagnostic.Severity, e.Diagnostic.Rule, e.Diagnostic.Message)
			}
		}
	}
	_ = src.Close()
	if frames < 4 {
		r.t.Errorf("the capture of %s holds %d frames", name, frames)
	}
	r.t.Logf("%s: %s, %d frames, doctor run", name, filepath.Base(found.File), frames)
}

// untapped checks a server entry reads CMD ARGS again after uninstall.
func untapped(t *testing.T, what string, command string, args []string, want ...string) {
	t.Helper()
	got := append([]string{command}, args...)
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("%s after tap uninstall: %q, want %q", what, got, want)
	}
}

type jsonServer struct {
	Command string   `json:"command" toml:"command"`
	Args    []string `json:"args" toml:"args"`
}

func readJSONServers(t *testing.T, path string) map[string]jsonServer {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]jsonServer `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cfg.MCPServers
}

func TestRealClientsInside(t *testing.T) {
	if os.Getenv(clientsInsideVar) == "" {
		t.Skip("run by TestRealClients, inside a network namespace of its own")
	}
	t.Run("claude-code stdio", testClaudeStdio)
	t.Run("claude-code http", testClaudeHTTP)
	t.Run("gemini-cli", testGemini)
	t.Run("gemini-cli view", testGeminiView)
	t.Run("claude-code view", testClaudeView)
	t.Run("codex", testCodex)
	t.Run("codex view", testCodexView)
	t.Run("opencode view", testOpenCodeView)
	t.Run("copilot view", testCopilotView)
}

// Claude Code's switches for a run that tries no outside host.
var claudeEnv = []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
	"DISABLE_ERROR_REPORTING=1", "ANTHROPIC_BASE_URL=http://127.0.0.1:9"}

func testClaudeStdio(t *testing.T) {
	r := newClientRun(t, claudeEnv...)
	cfg := filepath.Join(r.home, ".claude.json")
	if out, err := r.run(time.Minute, "claude", "mcp", "add", "-s", "user", "everything", "--", "node", r.se, "stdio"); err != nil {
		t.Fatalf("claude mcp add: %v\n%s", err, out)
	}
	r.mcpscopeRun(nil, "tap", "install", "--config", cfg, "--server", "everything")
	out, err := r.run(2*time.Minute, "claude", "mcp", "list")
	if err != nil || !regexp.MustCompile(`(?m)^everything: .*tap --name everything -- node .* - ✔ Connected$`).MatchString(out) {
		t.Fatalf("claude mcp list (%v) does not report the tapped server connected:\n%s", err, out)
	}
	if !r.listed("everything", "ended") {
		t.Error("taps --list, with XDG_* elsewhere, does not list the capture")
	}
	r.doctor("everything")

	if out, err := r.run(time.Minute, "claude", "mcp", "add", "-s", "user", "other", "--", "node", r.memory); err != nil {
		t.Fatalf("claude mcp add other: %v\n%s", err, out)
	}
	r.mcpscopeRun(nil, "tap", "uninstall", "--config", cfg, "--server", "everything")
	servers := readJSONServers(t, cfg)
	untapped(t, "everything", servers["everything"].Command, servers["everything"].Args, "node", r.se, "stdio")
	untapped(t, "other", servers["other"].Command, servers["other"].Args, "node", r.memory)
}

func waitListening(t *testing.T, addr string, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s does not listen on %s", what, addr)
}

// startBackground starts a long-running helper (a server, an HTTP tap)
// and stops it when the test ends.
func startBackground(t *testing.T, r *clientRun, stop os.Signal, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = r.project, r.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(stop)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s:\n%s", filepath.Base(name), out.String())
		}
	})
	return cmd
}

func testClaudeHTTP(t *testing.T) {
	r := newClientRun(t, claudeEnv...)
	sePort, tapPort := freePort(t), freePort(t)
	node, _ := exec.LookPath("node")
	r.env = append(r.env, "PORT="+sePort)
	startBackground(t, r, syscall.SIGTERM, node, r.se, "streamableHttp")
	waitListening(t, "127.0.0.1:"+sePort, "server-everything")
	tapCmd := startBackground(t, r, syscall.SIGTERM, r.mcpscope, "tap", "--name", "everything-http", "--listen", "127.0.0.1:"+tapPort, "http://127.0.0.1:"+sePort+"/mcp")
	waitListening(t, "127.0.0.1:"+tapPort, "the HTTP tap")
	if out, err := r.run(time.Minute, "claude", "mcp", "add", "-s", "user", "--transport", "http", "everything-http", "http://127.0.0.1:"+tapPort+"/mcp"); err != nil {
		t.Fatalf("claude mcp add: %v\n%s", err, out)
	}
	out, err := r.run(2*time.Minute, "claude", "mcp", "list")
	if err != nil || !regexp.MustCompile(`(?m)^everything-http: http://127\.0\.0\.1:\d+/mcp \(HTTP\) - ✔ Connected$`).MatchString(out) {
		t.Fatalf("claude mcp list (%v) does not report the server connected through the tap:\n%s", err, out)
	}
	if !r.listed("everything-http", "LIVE ") {
		t.Error("taps --list, with XDG_* elsewhere, does not list the running HTTP tap as live")
	}
	_ = tapCmd.Process.Signal(syscall.SIGTERM)
	_ = tapCmd.Wait()
	if !r.listed("everything-http", "ended") {
		t.Error("taps --list does not list the HTTP tap's capture as ended once it stopped")
	}
	r.doctor("everything-http")
}

func testGemini(t *testing.T) {
	r := newClientRun(t, "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9", "GEMINI_TELEMETRY_ENABLED=false", "NO_UPDATE_NOTIFIER=1")
	dir := filepath.Join(r.home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "settings.json")
	// Usage statistics, telemetry and update checks off: nothing leaves.
	settings := `{"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`
	trusted, _ := json.Marshal(map[string]string{r.project: "TRUST_FOLDER"})
	if err := os.WriteFile(cfg, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), trusted, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := r.run(time.Minute, "gemini", "mcp", "add", "-s", "user", "everything", "node", r.se, "stdio"); err != nil {
		t.Fatalf("gemini mcp add: %v\n%s", err, out)
	}
	r.mcpscopeRun(nil, "tap", "install", "--config", cfg, "--server", "everything")
	out, err := r.run(2*time.Minute, "gemini", "mcp", "list")
	if err != nil || !regexp.MustCompile(`(?m)^✓ everything: .*tap --name everything -- node .* \(stdio\) - Connected$`).MatchString(out) {
		t.Fatalf("gemini mcp list (%v) does not report the tapped server connected:\n%s", err, out)
	}
	if !r.listed("everything", "ended") {
		t.Error("taps --list, with XDG_* elsewhere, does not list the capture")
	}
	r.doctor("everything")

	if out, err := r.run(time.Minute, "gemini", "mcp", "add", "-s", "user", "other", "node", r.memory); err != nil {
		t.Fatalf("gemini mcp add other: %v\n%s", err, out)
	}
	r.mcpscopeRun(nil, "tap", "uninstall", "--config", cfg, "--server", "everything")
	servers := readJSONServers(t, cfg)
	untapped(t, "everything", servers["everything"].Command, servers["everything"].Args, "node", r.se, "stdio")
	untapped(t, "other", servers["other"].Command, servers["other"].Args, "node", r.memory)
}

// codexConfig keeps Codex on this machine: its model API on a closed
// loopback port (three retries keep its MCP servers up about 8 s), no
// update check, analytics or feedback, and none of the features that
// fetch plugins, apps or models from outside.
const codexConfig = `model_provider = "local"
check_for_update_on_startup = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
in_app_updates = false
unbounded_connection_retries = false
api_key_model_discovery = false
skill_mcp_dependency_install = false
tool_suggest = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.local]
name = "local"
base_url = "http://127.0.0.1:9/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 3
stream_max_retries = 3
`

func testCodex(t *testing.T) {
	r := newClientRun(t, "OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=http://127.0.0.1:9/v1")
	dir := filepath.Join(r.home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(codexConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := r.run(time.Minute, "codex", "mcp", "add", "everything", "--", "node", r.se, "stdio"); err != nil {
		t.Fatalf("codex mcp add: %v\n%s", err, out)
	}
	r.mcpscopeRun(nil, "tap", "install", "--config", cfg, "--server", "everything")

	// codex exec keeps its MCP servers connected while it retries its
	// model API: the viewer lists the tap live meanwhile, ended after.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd, trace := r.traced(ctx, "codex", "exec", "--skip-git-repo-check", "say hi")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &out, strings.NewReader("")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	live := false
	var exitErr error
poll:
	for {
		select {
		case exitErr = <-exited:
			break poll
		default:
		}
		if !live && r.listed("everything", "LIVE ") {
			live = true
			t.Logf("listed live %s after codex started", time.Since(start).Round(10*time.Millisecond))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("codex exec: %s (%v)", time.Since(start).Round(10*time.Millisecond), exitErr)
	r.checkTrace(trace)
	if !live {
		t.Errorf("taps --list never listed the tap live while codex ran:\n%s", out.String())
	}
	if !r.listed("everything", "ended") {
		t.Error("taps --list does not list the capture as ended once codex ended")
	}
	// Codex's own record of the session names the server's tools: it
	// connected (an MCP server that fails to start is reported and left out).
	rollouts, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	connected := false
	for _, f := range rollouts {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("mcp__everything")) {
			connected = true
		}
	}
	if !connected || strings.Contains(out.String(), "failed to start") {
		t.Errorf("codex does not report the tapped server connected (rollouts %v):\n%s", rollouts, out.String())
	}
	r.doctor("everything")

	if out, err := r.run(time.Minute, "codex", "mcp", "add", "other", "--", "node", r.memory); err != nil {
		t.Fatalf("codex mcp add other: %v\n%s", err, out)
	}
	r.mcpscopeRun(nil, "tap", "uninstall", "--config", cfg, "--server", "everything")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		MCPServers map[string]jsonServer `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(b, &conf); err != nil {
		t.Fatalf("%s: %v\n%s", cfg, err, b)
	}
	untapped(t, "everything", conf.MCPServers["everything"].Command, conf.MCPServers["everything"].Args, "node", r.se, "stdio")
	untapped(t, "other", conf.MCPServers["other"].Command, conf.MCPServers["other"].Args, "node", r.memory)
	if !strings.Contains(string(b), "[model_providers.local]") {
		t.Errorf("the rest of config.toml was lost:\n%s", b)
	}
}
