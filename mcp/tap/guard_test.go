package tap

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// startGuardedTap runs an HTTP tap in front of a server that counts what
// reaches it.
func startGuardedTap(t *testing.T, o HTTPOptions) (local string, reached *atomic.Int64, warnings func() []string, stop func() []string) {
	t.Helper()
	dir := privateDirs(t)
	reached = &atomic.Int64{}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	t.Cleanup(upstream.Close)
	var mu sync.Mutex
	var warned []string
	o.Target = upstream.URL + "/mcp"
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	o.Warn = func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "guarded", Listen: o.Listen, Target: o.Target, AllowOrigins: o.AllowOrigins, Public: o.Public, Token: o.Token,
			Recording: o.Recording, Ready: func(u string) { ready <- u }})
	}()
	select {
	case local = <-ready:
	case err := <-done:
		t.Fatalf("the tap did not start: %v", err)
	}
	warnings = func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), warned...) }
	stop = func() []string {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("session files %v", files)
		}
		var rows []string
		for _, e := range readRecord(t, files[0]) {
			if e.Type == "transport" && e.TransportKind == "tap" {
				rows = append(rows, e.Summary)
			}
		}
		return rows
	}
	return local, reached, warnings, stop
}

func post(t *testing.T, u string, hdr map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// A web page's request (another Origin, a local port's included) and a
// rebound name (another Host) are refused at the tap and never reach the
// server; clients that send no Origin, the tap's own origin, and the
// origins the user allows, pass.
func TestHTTPTapRefusesOtherOriginsAndHosts(t *testing.T) {
	local, reached, warnings, stop := startGuardedTap(t, HTTPOptions{AllowOrigins: []string{"https://app.example.com"}})
	port := strings.TrimSuffix(local[strings.LastIndex(local, ":")+1:], "/")
	for _, c := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"another origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"another host", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"another host on the port", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
		{"the null origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"loopback, another port", map[string]string{"Host": "127.0.0.1:1"}, http.StatusForbidden},
		{"a plain client", nil, http.StatusOK},
		{"localhost", map[string]string{"Host": "localhost:" + port}, http.StatusOK},
		{"a page of another local port (any local program)", map[string]string{"Origin": "http://localhost:6274"}, http.StatusForbidden},
		{"this machine on another port", map[string]string{"Origin": "http://127.0.0.1:" + port + "1"}, http.StatusForbidden},
		{"the tap's own origin", map[string]string{"Origin": "http://127.0.0.1:" + port}, http.StatusOK},
		{"the tap's own origin by name", map[string]string{"Host": "localhost:" + port, "Origin": "http://localhost:" + port}, http.StatusOK},
		{"an allowed origin", map[string]string{"Origin": "https://app.example.com"}, http.StatusOK},
	} {
		before := reached.Load()
		if got := post(t, local, c.hdr); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
		if passed := reached.Load() > before; passed != (c.want == http.StatusOK) {
			t.Errorf("%s: reached the server: %v", c.name, passed)
		}
	}
	rows := stop()
	refused := 0
	for _, r := range rows {
		if strings.HasPrefix(r, "refused POST /") {
			refused++
		}
	}
	if refused != 7 {
		t.Errorf("%d refusals in the record, want 7: %q", refused, rows)
	}
	if w := warnings(); len(w) == 0 || !strings.Contains(strings.Join(w, "\n"), "evil.example") {
		t.Errorf("nothing said on stderr about the refusals: %q", w)
	}
}

// Listening where other machines can reach the tap needs saying so.
func TestHTTPTapNeedsListenPublicBeyondLoopback(t *testing.T) {
	privateDirs(t)
	err := RunHTTP(context.Background(), HTTPOptions{Listen: "0.0.0.0:0", Target: "http://127.0.0.1:9/mcp"})
	if err == nil || !strings.Contains(err.Error(), "--listen-public") {
		t.Fatalf("--listen 0.0.0.0 without --listen-public: %v", err)
	}
	local, _, warnings, stop := startGuardedTap(t, HTTPOptions{Listen: "0.0.0.0:0", Public: true})
	u, _ := url.Parse(local)
	// Any name of this machine is taken then: it is open on purpose.
	if got := post(t, "http://127.0.0.1:"+u.Port()+"/", map[string]string{"Host": "mybox.lan:" + u.Port()}); got != http.StatusOK {
		t.Errorf("a public tap refused its machine's name: %d", got)
	}
	if got := post(t, "http://127.0.0.1:"+u.Port()+"/", map[string]string{"Origin": "http://evil.example"}); got != http.StatusForbidden {
		t.Errorf("a public tap let another origin through: %d", got)
	}
	stop()
	if w := warnings(); len(w) == 0 || !strings.Contains(w[0], "other machines can reach") {
		t.Errorf("no warning for a public tap: %q", w)
	}
}

// With --token, a request passes only with the token (header or URL
// parameter), which the tap takes off before it forwards and records;
// the OAuth metadata stays readable without it.
func TestHTTPTapToken(t *testing.T) {
	const token = "TAP-TOKEN-7f3a"
	var mu sync.Mutex
	var seen []string // what reached the server: the URL and the header
	dir := privateDirs(t)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.String()+" "+r.Header.Get(TokenHeader))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	t.Cleanup(upstream.Close)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "tokened", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp?tenant=a", Token: token,
			Ready: func(u string) { ready <- u }})
	}()
	local := <-ready
	get := func(u string) int {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		name string
		code func() int
		want int
	}{
		{"no token", func() int { return post(t, local, nil) }, http.StatusUnauthorized},
		{"a wrong token", func() int { return post(t, local, map[string]string{TokenHeader: "nope"}) }, http.StatusUnauthorized},
		{"the token in the header", func() int { return post(t, local, map[string]string{TokenHeader: token}) }, http.StatusOK},
		{"the token in the URL", func() int { return post(t, local+"?"+TokenParam+"="+token, nil) }, http.StatusOK},
		{"the token and a parameter", func() int { return post(t, local+"x?page=2&"+TokenParam+"="+token, nil) }, http.StatusOK},
		{"the OAuth metadata", func() int { return get(local + ".well-known/oauth-protected-resource") }, http.StatusOK},
		{"another GET", func() int { return get(local) }, http.StatusUnauthorized},
	} {
		if got := c.code(); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"/mcp?tenant=a ", "/mcp?tenant=a ", "/x?page=2 ", "/.well-known/oauth-protected-resource "}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("the server got %q, want %q (the token taken off)", seen, want)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), token) {
			t.Errorf("the capture holds the tap's token")
		}
	}
}
