package tap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
)

// absoluteEndpoint makes a legacy HTTP+SSE server name its message
// endpoint with an absolute URL (some servers do), by rewriting the
// relative one the demo sends.
type absoluteEndpoint struct {
	http.ResponseWriter
	base string
	done bool
}

func (a *absoluteEndpoint) Write(b []byte) (int, error) {
	if !a.done && bytes.Contains(b, []byte("event: endpoint")) {
		a.done = true
		i := bytes.Index(b, []byte("data: ")) + len("data: ")
		rel := b[i:]
		if !bytes.HasPrefix(rel, []byte("/")) {
			rel = append([]byte("/sse"), rel...) // "?sessionid=..." is relative to /sse
		}
		nb := append(append(append([]byte(nil), b[:i]...), a.base...), rel...)
		if _, err := a.ResponseWriter.Write(nb); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return a.ResponseWriter.Write(b)
}

func (a *absoluteEndpoint) Flush() { a.ResponseWriter.(http.Flusher).Flush() }

// A legacy HTTP+SSE server's absolute endpoint URL is rewritten to the
// tap's address, so the client's messages go through the tap (and are
// recorded) instead of past it; the record says what was changed.
func TestHTTPTapRewritesAnAbsoluteSSEEndpoint(t *testing.T) {
	dir := privateDirs(t)
	handler := demo.HTTPHandler()
	var upstream *httptest.Server
	upstream = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &absoluteEndpoint{ResponseWriter: w, base: upstream.URL}
		}
		handler.ServeHTTP(w, r)
	}))
	defer upstream.Close()
	local, stop := runHTTPTapFor(t, dir, upstream.URL+"/sse")

	var endpoint string
	c := mcp.NewClient(&mcp.SSETransport{URL: local, Header: http.Header{"Authorization": {"Bearer secret-token-123"}}},
		mcp.Options{Era: mcp.EraLegacy, OnEvent: func(ev mcp.Event) {
			if te, ok := ev.(mcp.TransportEvent); ok && strings.HasPrefix(te.Summary, "SSE endpoint event") {
				endpoint = te.Summary
			}
		}})
	go func() {
		for range c.Events() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, mcp.MethodToolsList, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	tapHost := strings.TrimSuffix(strings.TrimPrefix(local, "http://"), "/")
	if !strings.Contains(endpoint, "http://"+tapHost+"/sse?") {
		t.Errorf("the client was told %q; want the tap's address %s", endpoint, tapHost)
	}

	entries := stop()
	var methods []string
	rewritten, serverSaid := false, false
	for _, e := range entries {
		switch {
		case e.Type == "frame" && e.Dir == "out":
			methods = append(methods, e.Method)
		case e.Type == "frame" && strings.Contains(e.Stream, "HTTP+SSE") && e.Kind == "invalid":
			t.Errorf("the endpoint event was recorded as a frame: %+v", e)
		case e.Type == "transport" && strings.HasPrefix(e.Summary, "the tap rewrote the endpoint event"):
			f := fmt.Sprint(e.Fields)
			rewritten = strings.Contains(f, upstream.URL+"/sse?") && strings.Contains(f, "http://"+tapHost+"/sse?")
		case e.Type == "transport" && strings.HasPrefix(e.Summary, "SSE endpoint event: POST to "+upstream.URL):
			serverSaid = true
		}
	}
	if got := strings.Join(methods, " "); !strings.HasPrefix(got, "initialize notifications/initialized") || !strings.Contains(got, "tools/list") {
		t.Errorf("the tap recorded the client's messages %q: they went past it", got)
	}
	if !rewritten || !serverSaid {
		t.Errorf("the record should show the server's endpoint event (%v) and say the tap rewrote it, from and to (%v)", serverSaid, rewritten)
	}
}

// The rewriter changes only the first endpoint event's data; everything
// else, however it is cut into reads, reaches the client byte for byte.
func TestEndpointRewriterChangesOnlyTheEndpoint(t *testing.T) {
	target, _ := url.Parse("https://api.example.com/sse")
	in := ": hello\r\n\r\nid: 1\r\nevent: endpoint\r\ndata: https://api.example.com/messages?session=1\r\n\r\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n" +
		"event: endpoint\ndata: https://api.example.com/other\n\n"
	want := strings.Replace(in, "https://api.example.com/messages?session=1", "http://127.0.0.1:8808/messages?session=1", 1)
	for _, size := range []int{1, 2, 7, 64, 4096} {
		r := &endpointRewriter{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(in))),
			rewrite: func(d string) (string, bool) { return tapEndpoint(target, "127.0.0.1:8808", d) }}
		if size > 1 {
			r.ReadCloser = io.NopCloser(strings.NewReader(in))
		}
		var got []byte
		buf := make([]byte, size)
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		if string(got) != want {
			t.Errorf("reads of %d: got\n%q\nwant\n%q", size, got, want)
		}
	}
	// Another host, a relative URL or the root are left alone.
	for _, d := range []string{"https://elsewhere.example.com/messages", "/messages?session=1", "https://api.example.com/"} {
		if v, ok := tapEndpoint(target, "127.0.0.1:8808", d); ok {
			t.Errorf("%s was rewritten to %s", d, v)
		}
	}
}
