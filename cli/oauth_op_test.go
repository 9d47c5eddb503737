package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// A real OpenID provider and a real protected MCP server, signed in to by
// a real browser: the zitadel/oidc v3 example OP (installed by
// .ci/oauth.sh) and the go-sdk's examples/auth/server, which introspects
// every token at the OP and requires scope "read", which the OP never
// grants. mcpscope must sign in and then say what went wrong in each way
// it goes wrong. .ci/run sets MCPSCOPE_OAUTH_TESTS to .ci/oauth; with it
// set and the OP, Chromium or the go command missing, the test fails.
//
//	.ci/oauth.sh && MCPSCOPE_OAUTH_TESTS=$PWD/.ci/oauth go test -run TestOAuthWithARealProvider ./cli

// The example OP's user and the password it is created with.
const (
	opUser     = "test-user@localhost"
	opPassword = "verysecure"
)

func TestOAuthWithARealProvider(t *testing.T) {
	dir := os.Getenv("MCPSCOPE_OAUTH_TESTS")
	if dir == "" {
		t.Skip("set MCPSCOPE_OAUTH_TESTS to .ci/oauth (see .ci/run and .ci/oauth.sh) to sign in at a real OpenID provider")
	}
	op := filepath.Join(dir, "bin", "zitadel-op")
	if _, err := os.Stat(op); err != nil {
		t.Fatalf("MCPSCOPE_OAUTH_TESTS is set but the OpenID provider is not installed (run .ci/oauth.sh): %v", err)
	}
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Fatal("MCPSCOPE_OAUTH_TESTS is set but chromium is not installed")
	}
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}

	opPort, rsPort, cbPort := freePort(t), freePort(t), freePort(t)
	issuer := "http://localhost:" + opPort + "/"
	callback := "http://127.0.0.1:" + cbPort + "/oauth/callback"
	// The OP registers clients "native" (public) and "web" (secret
	// "secret") with the redirect URIs in REDIRECT_URI.
	startProcess(t, []string{op}, []string{"PORT=" + opPort, "REDIRECT_URI=" + callback}, issuer+".well-known/openid-configuration")
	// The example server's authorization server, introspection endpoint
	// and introspecting client are variables set at link time.
	rs := filepath.Join(t.TempDir(), "auth-server")
	ldflags := strings.Join([]string{
		"-X main.authorizationServer=" + issuer,
		"-X main.introspectionEndpoint=" + issuer + "oauth/introspect",
		"-X main.clientID=web", "-X main.clientSecret=secret",
	}, " ")
	if out, err := exec.Command("go", "build", "-ldflags="+ldflags, "-o", rs, "github.com/modelcontextprotocol/go-sdk/examples/auth/server").CombinedOutput(); err != nil {
		t.Fatalf("building the go-sdk's examples/auth/server: %v\n%s", err, out)
	}
	serverURL := "http://localhost:" + rsPort + "/mcp"
	startProcess(t, []string{rs, "-port", rsPort}, nil, "http://localhost:"+rsPort+"/.well-known/oauth-protected-resource")

	run := func(t *testing.T, signIn bool, args ...string) (stderr string, code int, record string) {
		t.Helper()
		home := t.TempDir()
		record = filepath.Join(home, "session.jsonl")
		cmd := exec.Command(bin, append([]string{"call", serverURL, "--method", "tools/list", "--record", record, "--timeout", "20s"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home, "WEB_SECRET=secret")
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() }) // a failed sign-in leaves it waiting
		var mu sync.Mutex
		var text strings.Builder
		authURL := make(chan string, 1)
		read := make(chan struct{})
		go func() {
			defer close(read)
			sc := bufio.NewScanner(pipe)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				line := sc.Text()
				mu.Lock()
				text.WriteString(line + "\n")
				mu.Unlock()
				if u := strings.TrimSpace(line); strings.HasPrefix(u, issuer+"auth?") {
					select {
					case authURL <- u:
					default:
					}
				}
			}
		}()
		if signIn {
			select {
			case u := <-authURL:
				// The browser stays until mcpscope has the redirect.
				defer signInWithChromium(t, chromium, u)()
			case <-read:
			case <-time.After(60 * time.Second):
				t.Error("mcpscope printed no authorization URL in 60 s")
			}
		}
		done := make(chan error, 1)
		go func() { <-read; done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(90 * time.Second):
			_ = cmd.Process.Kill()
			err = <-done
		}
		code = 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		mu.Lock()
		defer mu.Unlock()
		return text.String(), code, record
	}

	t.Run("the OP does not grant the scope the server requires", func(t *testing.T) {
		stderr, code, record := run(t, true, "--client-id", "web", "--client-secret-env", "WEB_SECRET", "--oauth-callback", "127.0.0.1:"+cbPort)
		for _, want := range []string{
			`cause: The server requires scope "read", which the authorization server ` + issuer + ` did not grant: mcpscope asked for "read offline_access" and was granted "offline_access" (403 Forbidden).`,
			"fix:   Signing in again would ask for the same and get the same. Allow client web the scope read",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if code != exitConnection {
			t.Errorf("exit code %d, want %d", code, exitConnection)
		}
		// Every step of the flow, the libraries' requests included, is a
		// row of the recorded session, with no secret in it.
		rows := recordedOAuthRows(t, record)
		for _, want := range []string{
			"GET /.well-known/oauth-protected-resource → 200 (protected resource metadata)",
			"GET /.well-known/openid-configuration → 200 (authorization server metadata)",
			"GET /auth → 302 (authorization endpoint, before the browser: redirected)",
			"redirect received on the loopback listener",
			"POST /oauth/token → 200 (token endpoint) url=" + issuer + "oauth/token",
			"request=grant_type=authorization_code code=[redacted] code_verifier=[redacted] redirect_uri=" + callback + " resource=" + serverURL,
			"client_auth=client_secret_basic (client_id web, secret [redacted])",
			"token received (access token [redacted], expires in",
			"scope=offline_access asked=read offline_access client_id=web",
		} {
			if !strings.Contains(rows, want) {
				t.Errorf("the recorded timeline lacks %q:\n%s", want, rows)
			}
		}
		// The secret is "secret": never a value, nor in a Basic header.
		if raw, _ := os.ReadFile(record); strings.Contains(string(raw), `"secret"`) || strings.Contains(string(raw), "d2ViOnNlY3JldA") {
			t.Errorf("the client secret is in the session file")
		}
	})

	t.Run("the server refuses the token right after sign-in", func(t *testing.T) {
		// The server introspects as client web; a token issued to the
		// public client native is not web's to introspect: inactive.
		stderr, code, _ := run(t, true, "--client-id", "native", "--oauth-callback", "127.0.0.1:"+cbPort)
		for _, want := range []string{
			"cause: The server refused the access token refreshed from the one that " + issuer + " issued",
			"for client native (401 Unauthorized: invalid token).",
			`It was granted scope "offline_access" of "read offline_access" asked for: not "read".`,
			"fix:   Signing in again would get the same answer.",
			"the token was requested for resource " + serverURL,
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if n := strings.Count(stderr, "Authorize mcpscope in your browser"); n != 1 || code != exitConnection {
			t.Errorf("%d sign-ins, exit code %d; want one, and %d", n, code, exitConnection)
		}
	})

	t.Run("the OP does not accept the redirect URI", func(t *testing.T) {
		// Client web's redirect URI must match to the port.
		other := freePort(t)
		stderr, code, _ := run(t, false, "--client-id", "web", "--client-secret-env", "WEB_SECRET", "--oauth-callback", "127.0.0.1:"+other)
		for _, want := range []string{
			`cause: The authorization server refused the authorization request before anyone signed in (400 Bad Request): "The requested redirect_uri is missing in the client configuration.`,
			"fix:   Most often it does not accept the redirect URI http://127.0.0.1:" + other + "/oauth/callback for client web",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if strings.Contains(stderr, "Authorize mcpscope in your browser") || code != exitConnection {
			t.Errorf("exit code %d; the person was sent to a refused request:\n%s", code, stderr)
		}
	})
}

// startProcess runs a server until the test ends and waits until ready
// answers 200.
func startProcess(t *testing.T, argv, env []string, ready string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	logf := filepath.Join(t.TempDir(), filepath.Base(argv[0])+".log")
	out, err := os.Create(logf)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = out.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf)
			t.Logf("%s's output:\n%s", filepath.Base(argv[0]), tail(string(b), 40))
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(ready)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not ready at %s after 30 s: %v", argv[0], ready, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// recordedOAuthRows are the session file's oauth rows, one a line:
// summary, then key=value fields.
func recordedOAuthRows(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		var ev struct {
			Kind    string `json:"transportKind"`
			Summary string `json:"summary"`
			Fields  []struct{ Key, Value string }
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Kind != "oauth" {
			continue
		}
		b.WriteString(ev.Summary)
		for _, f := range ev.Fields {
			fmt.Fprintf(&b, " %s=%s", f.Key, f.Value)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// signInWithChromium opens authURL in a headless Chromium, driven over the
// DevTools protocol, and submits the OP's login form as its example user;
// the OP then redirects the browser to mcpscope. stop ends the browser.
func signInWithChromium(t *testing.T, chromium, authURL string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-default-browser-check", "--disable-extensions", "--disable-default-apps",
		// Nothing but this machine: every other host name fails to resolve.
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "about:blank")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	var b *cdp
	stop = func() {
		if b != nil {
			b.close()
		}
		cancel()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	fail := func(format string, args ...any) {
		t.Helper()
		stop()
		t.Fatalf("the scripted browser: "+format+"\nchromium's stderr:\n%s", append(args, tail(stderr.String(), 20))...)
	}
	// Chromium writes its DevTools port and path into the profile.
	var endpoint string
	for endpoint == "" {
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) == 2 {
				endpoint = "ws://127.0.0.1:" + lines[0] + lines[1]
				break
			}
		}
		if ctx.Err() != nil {
			fail("no DevToolsActivePort in its profile")
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, err := dialCDP(ctx, endpoint)
	if err != nil {
		fail("%v", err)
	}
	var target struct{ TargetID string }
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": authURL}, &target); err != nil {
		fail("Target.createTarget: %v", err)
	}
	var attached struct{ SessionID string }
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		fail("Target.attachToTarget: %v", err)
	}
	eval := func(expr string) (string, error) {
		var r struct {
			Result struct {
				Value any `json:"value"`
			} `json:"result"`
		}
		err := b.call(ctx, attached.SessionID, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
		return fmt.Sprint(r.Result.Value), err
	}
	// The OP redirects to its login page; a page still loading (or
	// navigating away) has nothing to evaluate in yet.
	waitFor := func(what, expr string) {
		t.Helper()
		last := ""
		for {
			v, err := eval(expr)
			if err == nil && v == "true" {
				return
			}
			if here, err := eval("location.href"); err == nil {
				last = here
			}
			if ctx.Err() != nil {
				fail("%s: still at %s", what, last)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("the login form", `document.querySelector('form input[name=username]') !== null && document.readyState === 'complete'`)
	submit := fmt.Sprintf(`(() => { const f = document.querySelector('form'); f.username.value = %q; f.password.value = %q; f.submit(); return true })()`, opUser, opPassword)
	if _, err := eval(submit); err != nil {
		fail("submitting the login form: %v", err)
	}
	return stop
}

// cdp is the Chrome DevTools protocol over the browser's websocket, as
// much of it as signing in needs: one call at a time, events skipped.
type cdp struct {
	c    *websocket.Conn
	next int
}

func dialCDP(ctx context.Context, endpoint string) (*cdp, error) {
	c, resp, err := websocket.Dial(ctx, endpoint, nil)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close() // the upgrade's answer; the socket is c
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	c.SetReadLimit(16 << 20)
	return &cdp{c: c}, nil
}

func (b *cdp) close() { _ = b.c.Close(websocket.StatusNormalClosure, "") }

func (b *cdp) call(ctx context.Context, session, method string, params, result any) error {
	b.next++
	msg := map[string]any{"id": b.next, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	if err := wsjson.Write(ctx, b.c, msg); err != nil {
		return err
	}
	for {
		var r struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := wsjson.Read(ctx, b.c, &r); err != nil {
			return err
		}
		switch {
		case r.ID != b.next:
			continue // an event, or a late answer
		case r.Error != nil:
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		case result == nil:
			return nil
		}
		return json.Unmarshal(r.Result, result)
	}
}
