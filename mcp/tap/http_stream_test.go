package tap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// requestEnd ends every request body the test sends.
const requestEnd = `"last":true}}`

// idOf finds the test's request id ("id":0000000042) in b.
func idOf(b []byte) (int64, bool) {
	i := bytes.Index(b, []byte(`"id":`))
	if i < 0 || len(b) < i+5+10 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(b[i+5:i+15]), 10, 64)
	return id, err == nil
}

// slowRequestWriter is the tap's connection to the server, as the test
// sees it: after writing the end of a request it returns only once the
// client has the first event of that request's answer (firstSeen), as a
// loaded machine may let the writer run again only then. The tap must
// not need its request writer to finish before it answers.
type slowRequestWriter struct {
	net.Conn
	firstSeen func(id int64) <-chan struct{}
}

func (c slowRequestWriter) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if id, ok := idOf(p); ok && err == nil && bytes.HasSuffix(p, []byte(requestEnd)) {
		select {
		case <-c.firstSeen(id):
		case <-time.After(5 * time.Second):
		}
	}
	return n, err
}

// slowRequestWriters makes the tap's connections to servers (the default
// transport's) slowRequestWriters for the test's length.
func slowRequestWriters(t *testing.T, firstSeen func(id int64) <-chan struct{}) {
	tr := http.DefaultTransport.(*http.Transport)
	dial := tr.DialContext
	tr.CloseIdleConnections()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return slowRequestWriter{Conn: c, firstSeen: firstSeen}, nil
	}
	t.Cleanup(func() { tr.CloseIdleConnections(); tr.DialContext = dial })
}

// streamingUpstream answers every POST as a Streamable HTTP server that
// streams its answers does: an event stream with a progress notification,
// then, once the client has that notification (firstSeen), the response
// and the stream's end.
func streamingUpstream(t *testing.T, firstSeen func(id int64) <-chan struct{}) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, ok := idOf(body)
		if !ok {
			http.Error(w, "no id", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":1}}\n\n", id)
		w.(http.Flusher).Flush()
		select {
		case <-firstSeen(id):
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
			return
		}
		_, _ = fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"read\":%d}}\n\n", id, len(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHTTPTapForwardsEveryStreamedResponseToItsEnd sends 3,000 requests,
// several at a time as a client with parallel tool calls does, through
// the HTTP tap to a server that streams each answer as SSE while it still
// reads the request: every stream must reach the client whole. The tap
// once passed the client's request body on to the server straight from
// the client's connection, which net/http closes as soon as the answer
// starts: the last read of it then failed and closed the connection to
// the server under the answer.
func TestHTTPTapForwardsEveryStreamedResponseToItsEnd(t *testing.T) {
	privateDirs(t)
	var seenMu sync.Mutex
	seen := map[int64]chan struct{}{}
	firstSeen := func(id int64) chan struct{} {
		seenMu.Lock()
		defer seenMu.Unlock()
		c, ok := seen[id]
		if !ok {
			c = make(chan struct{})
			seen[id] = c
		}
		return c
	}
	upstream := streamingUpstream(t, func(id int64) <-chan struct{} { return firstSeen(id) })
	slowRequestWriters(t, func(id int64) <-chan struct{} { return firstSeen(id) })
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "stream", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
			Ready: func(u string) { ready <- u }})
	}()
	local := <-ready
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	const total, workers = 3000, 8
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: 20 * time.Second}
	defer client.CloseIdleConnections()
	var next atomic.Int64
	var mu sync.Mutex
	var cut []string
	fail := func(format string, args ...any) {
		mu.Lock()
		cut = append(cut, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				n := next.Add(1)
				if n > total {
					return
				}
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%010d,"method":"tools/call","params":{"name":"slow",`+requestEnd, n)
				req, _ := http.NewRequest(http.MethodPost, local, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					close(firstSeen(n))
					fail("request %d: %v", n, err)
					continue
				}
				br := bufio.NewReader(resp.Body)
				var first []byte
				for !bytes.HasSuffix(first, []byte("\n\n")) {
					line, err := br.ReadBytes('\n')
					first = append(first, line...)
					if err != nil {
						break
					}
				}
				close(firstSeen(n))
				rest, err := io.ReadAll(br)
				_ = resp.Body.Close()
				want := fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"read\":%d}}\n\n", n, len(body))
				if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(first), "notifications/progress") || string(rest) != "event: message\n"+want {
					fail("request %d: status %d, the stream's end %q, error %v", n, resp.StatusCode, rest, err)
				}
			}
		})
	}
	wg.Wait()
	if len(cut) > 0 {
		t.Errorf("%d of %d streamed responses were cut; the first: %s", len(cut), total, cut[0])
	}
}

// TestHTTPTapRecordsAnAnswerCutBeforeItsEnd: when the server's stream
// breaks off, the record says so; the client's stream ends with an error,
// not as if it were whole.
func TestHTTPTapRecordsAnAnswerCutBeforeItsEnd(t *testing.T) {
	dir := privateDirs(t)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close() // the stream breaks off, its chunked end never sent
		}
	}))
	defer upstream.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunHTTP(ctx, HTTPOptions{Name: "cut", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
			Ready: func(u string) { ready <- u }})
	}()
	local := <-ready
	resp, err := http.Post(local, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err == nil {
		t.Errorf("the client read %q to a clean end; want an error for the cut stream", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	b, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("was cut before its end")) {
		t.Errorf("the record does not say the answer was cut:\n%s", b)
	}
}
