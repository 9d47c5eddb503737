package tap

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// startTap runs the HTTP tap in front of target until the test ends and
// returns its local URL.
func startTap(t *testing.T, target string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "upstream", Listen: "127.0.0.1:0", Target: target,
			Ready: func(u string) { ready <- u }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return <-ready
}

// countingServer is an upstream that answers every POST with a small JSON
// body and counts the connections it was opened; closed, when set, hears
// of each one closed.
func countingServer(t *testing.T, closed chan<- struct{}) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch {
		case s == http.StateNew:
			opened.Add(1)
		case s == http.StateClosed && closed != nil:
			closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &opened
}

func postJSON(t *testing.T, c *http.Client, url string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Error(err)
		return
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || string(b) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("status %d, body %q, error %v", resp.StatusCode, b, err)
	}
}

// A client's parallel requests keep their connections to the server: the
// tap opens about as many as the client has requests in flight, not one
// for most requests (http.DefaultTransport keeps two a host).
func TestHTTPTapKeepsUpstreamConnectionsAlive(t *testing.T) {
	privateDirs(t)
	srv, opened := countingServer(t, nil)
	local := startTap(t, srv.URL+"/mcp")
	const workers, each = 8, 40
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				postJSON(t, client, local)
			}
		})
	}
	wg.Wait()
	if n := opened.Load(); n > 2*workers {
		t.Errorf("the tap opened %d connections to the server for %d requests, %d at a time", n, workers*each, workers)
	}
}

// A kept connection the server closed while it was idle (its keep-alive
// timeout) is not used for the next request: that request reaches the
// server on a new connection and its answer reaches the client.
func TestHTTPTapDoesNotUseAnUpstreamConnectionTheServerClosed(t *testing.T) {
	privateDirs(t)
	closed := make(chan struct{}, 16)
	srv, opened := countingServer(t, closed)
	local := startTap(t, srv.URL+"/mcp")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for i := range 3 {
		postJSON(t, client, local)
		// The server ends its idle connections (as one does after its
		// keep-alive timeout), without a word to the tap.
		srv.CloseClientConnections()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatal("the server never closed its connection")
		}
		if n := opened.Load(); n != int64(i+1) {
			t.Fatalf("round %d: %d connections opened", i, n)
		}
	}
	postJSON(t, client, local)
}

// The server sees the client's request as the client sent it: the tap
// asks for no compression of its own (http.Transport adds
// "Accept-Encoding: gzip" and undoes it, so a server's gzip never
// reached the client as it sent it).
func TestHTTPTapAddsNoAcceptEncoding(t *testing.T) {
	privateDirs(t)
	got := make(chan []string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Values("Accept-Encoding")
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	local := startTap(t, srv.URL+"/mcp")
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	postJSON(t, client, local)
	if ae := <-got; len(ae) != 0 {
		t.Errorf("the server got Accept-Encoding %q; the client sent none", ae)
	}
}

// An informational answer (103 Early Hints) is passed on before the
// answer itself.
func TestHTTPTapPassesInformationalAnswersOn(t *testing.T) {
	privateDirs(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	local := startTap(t, srv.URL+"/mcp")
	var hints []int
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		if h.Get("Link") != "" {
			hints = append(hints, code)
		}
		return nil
	}}
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodPost, local,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("status %d, body %q", resp.StatusCode, b)
	}
	if len(hints) != 1 || hints[0] != http.StatusEarlyHints {
		t.Errorf("the client got informational answers %v, want [103]", hints)
	}
}

// A client that goes away in the middle of a streamed answer ends the
// server's side of it too: the connection to the server is closed, not
// kept with half an answer in it.
func TestHTTPTapEndsTheServersStreamWhenTheClientGoesAway(t *testing.T) {
	privateDirs(t)
	gone, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(gone)
		case <-release: // the test failed: the handler ends for the server to close
		}
	}))
	defer srv.Close()
	defer close(release)
	local := startTap(t, srv.URL+"/mcp")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, local, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	_ = resp.Body.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's stream went on after the client went away")
	}
}

// A server whose answer's head never ends gets the client a 502 once the
// head is over 10 MiB (as http.Transport bounds it), not a tap that reads
// and keeps it without end.
func TestHTTPTapBoundsTheHeadOfAnAnswer(t *testing.T) {
	privateDirs(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	release := make(chan struct{})
	defer close(release)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				buf := make([]byte, 4096)
				_, _ = c.Read(buf)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n")
				line := "X-Endless: " + strings.Repeat("a", 64<<10) + "\r\n"
				for range (12 << 20) / len(line) {
					if _, err := io.WriteString(c, line); err != nil {
						return
					}
				}
				<-release // and then nothing: the head is not over
			}()
		}
	}()
	local := startTap(t, "http://"+ln.Addr().String()+"/mcp")
	client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Post(local, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
}
