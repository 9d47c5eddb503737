package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

func transportEventsOf(evs []mcp.Event) []mcp.TransportEvent {
	var out []mcp.TransportEvent
	for _, ev := range evs {
		if te, ok := ev.(mcp.TransportEvent); ok {
			out = append(out, te)
		}
	}
	return out
}

func TestHTTPSessionExpired(t *testing.T) {
	t.Run("404", func(t *testing.T) { testHTTPSessionExpired(t, false) })
	// A server restarted under server-everything or the Python SDK answers
	// a session it does not know with 400; the header said ready while
	// every request failed.
	t.Run("400 no valid session", func(t *testing.T) { testHTTPSessionExpired(t, true) })
}

func testHTTPSessionExpired(t *testing.T, with400 bool) {
	script := &scriptedHTTPServer{expiredWith400: with400}
	srv := httptest.NewServer(script)
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second})
	if _, err := c.Call(context.Background(), "tools/list", nil); err != nil {
		t.Fatalf("tools/list before expiry: %v", err)
	}
	script.expire()
	_, err := c.Call(context.Background(), "tools/list", nil)
	if !errors.Is(err, mcp.ErrSessionExpired) {
		t.Fatalf("tools/list after expiry: err = %v, want ErrSessionExpired", err)
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection did not end after the session expired")
	}
	if !errors.Is(c.Err(), mcp.ErrSessionExpired) {
		t.Errorf("connection ended with %v, want ErrSessionExpired", c.Err())
	}
	if with400 && strings.Contains(c.Err().Error(), "404") {
		t.Errorf("a 400 is reported as a 404: %v", c.Err())
	}
	_ = c.Close()
	var reported bool
	for _, te := range transportEventsOf(col.wait(t)) {
		if errors.Is(te.Err, mcp.ErrSessionExpired) && strings.Contains(te.Summary, "session expired") {
			reported = true
		}
	}
	if !reported {
		t.Error("no transport event reported the expired session")
	}
	script.mu.Lock()
	defer script.mu.Unlock()
	if script.sessionsSeen[len(script.sessionsSeen)-1] != scriptedSession {
		t.Errorf("the last request carried session %q", script.sessionsSeen[len(script.sessionsSeen)-1])
	}
	if script.deleted {
		t.Error("Close sent DELETE for a session the server had already forgotten")
	}
}

func TestHTTPResumesBrokenStream(t *testing.T) {
	script := &scriptedHTTPServer{dropCallStream: true, retryMS: 50}
	srv := httptest.NewServer(script)
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second})
	resp, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "wait"})
	if err != nil || !strings.Contains(string(resp.Result), "resumed") {
		t.Fatalf("tools/call: %v %s", err, resultOf(resp))
	}
	script.mu.Lock()
	wait, last := script.resumeAt.Sub(script.streamClosed), script.lastEventID
	script.mu.Unlock()
	if last != "ev-1" {
		t.Errorf("resumed with Last-Event-ID %q, want ev-1", last)
	}
	// The server's retry is 50 ms: not sooner, and not much later.
	if wait < 50*time.Millisecond || wait > 500*time.Millisecond {
		t.Errorf("reconnected %s after the stream closed, want about 50ms", wait)
	}
	_ = c.Close()
	var priming, reconnect, comment bool
	for _, te := range transportEventsOf(col.wait(t)) {
		switch {
		case te.Kind == "sse" && strings.Contains(te.Summary, "priming event") && strings.Contains(te.Summary, "retry 50ms"):
			priming = true
		case te.Kind == "sse" && strings.Contains(te.Summary, `keep-alive "stream opened"`):
			comment = true
		case te.Kind == "reconnect" && strings.Contains(te.Summary, "reconnecting in 50ms with Last-Event-ID ev-1"):
			reconnect = true
		}
	}
	if !priming || !reconnect || !comment {
		t.Errorf("timeline: priming event %v, comment %v, reconnect %v; want all", priming, comment, reconnect)
	}
	script.mu.Lock()
	defer script.mu.Unlock()
	if !script.deleted {
		t.Error("Close did not DELETE the session")
	}
}

// tokenAuthorizer stands in for the OAuth flow: it has no token until the
// server challenges, then "obtains" one.
type tokenAuthorizer struct {
	mu         sync.Mutex
	token      string
	challenges int
}

func (a *tokenAuthorizer) Authorize(_ context.Context, req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	return nil
}

func (a *tokenAuthorizer) Challenge(_ context.Context, resp *http.Response, note func(mcp.TransportEvent)) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.challenges++
	if !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata") {
		return false, errors.New("no resource_metadata in the challenge")
	}
	note(mcp.TransportEvent{Kind: "oauth", Summary: "token obtained"})
	a.token = "s3cret-token"
	return true, nil
}

func TestHTTPUnauthorizedThenToken(t *testing.T) {
	script := &scriptedHTTPServer{token: "s3cret-token"}
	srv := httptest.NewServer(script)
	defer srv.Close()
	auth := &tokenAuthorizer{}
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL, Authorizer: auth}, mcp.Options{Timeout: 5 * time.Second})
	if _, err := c.Call(context.Background(), "tools/list", nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	_ = c.Close()
	auth.mu.Lock()
	if auth.challenges != 1 {
		t.Errorf("Challenge called %d times, want 1", auth.challenges)
	}
	auth.mu.Unlock()
	var saw401, sawOAuth, sawRedacted bool
	for _, te := range transportEventsOf(col.wait(t)) {
		text := te.Summary
		for _, f := range te.Fields {
			text += " " + f.Key + "=" + f.Value
			if f.Key == "Authorization" && f.Value == "Bearer [redacted]" {
				sawRedacted = true
			}
		}
		if te.Err != nil {
			text += " " + te.Err.Error()
		}
		if strings.Contains(text, "s3cret-token") {
			t.Errorf("a transport event shows the token: %s", text)
		}
		saw401 = saw401 || strings.Contains(te.Summary, "→ 401")
		sawOAuth = sawOAuth || te.Kind == "oauth"
	}
	if !saw401 || !sawOAuth || !sawRedacted {
		t.Errorf("timeline: 401 %v, oauth step %v, redacted Authorization %v; want all", saw401, sawOAuth, sawRedacted)
	}
}

func TestHTTPUnauthorizedWithoutAuthorizer(t *testing.T) {
	srv := httptest.NewServer(&scriptedHTTPServer{token: "s3cret-token"})
	defer srv.Close()
	c := mcp.NewClient(&mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second})
	col := collect(c)
	_, err := c.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "WWW-Authenticate: Bearer") || !strings.Contains(err.Error(), "--bearer") {
		t.Errorf("Connect error = %v; want one naming the 401, the WWW-Authenticate header and --bearer", err)
	}
	_ = c.Close()
	col.wait(t)
}

func TestHTTPStaticAuthorizationIsRedacted(t *testing.T) {
	script := &scriptedHTTPServer{token: "s3cret-token"}
	srv := httptest.NewServer(script)
	defer srv.Close()
	hdr := http.Header{"Authorization": {"Bearer s3cret-token"}}
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL, Header: hdr}, mcp.Options{Timeout: 5 * time.Second})
	_ = c.Close()
	evs := transportEventsOf(col.wait(t))
	if len(evs) == 0 {
		t.Fatal("no transport events")
	}
	for _, te := range evs {
		for _, f := range te.Fields {
			if strings.Contains(f.Value, "s3cret") {
				t.Errorf("field %s shows the token: %s", f.Key, f.Value)
			}
		}
	}
}

func TestHTTPBrokenStreamWithoutResumption(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(era.String(), func(t *testing.T) {
			script := &scriptedHTTPServer{dropCallStream: true, noEventIDs: true}
			srv := httptest.NewServer(script)
			defer srv.Close()
			c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Era: era, Timeout: 5 * time.Second})
			start := time.Now()
			_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{}}, mcp.WithTimeout(3*time.Second))
			var le *mcp.LocalError
			if !errors.As(err, &le) || le.Kind != mcp.ConnectionLost || !errors.Is(err, mcp.ErrStreamBroken) {
				t.Errorf("tools/call on a dropped stream: %v, want a lost connection caused by the broken stream", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the failure took %v: the request waited for its timeout instead of failing when the stream broke", d)
			}
			_ = c.Close()
			var broken bool
			for _, te := range transportEventsOf(col.wait(t)) {
				if errors.Is(te.Err, mcp.ErrStreamBroken) && strings.Contains(te.Summary, "send the request again") {
					broken = true
				}
			}
			if !broken {
				t.Error("no transport event said the stream broke and the request must be sent again")
			}
			script.mu.Lock()
			defer script.mu.Unlock()
			if script.resumeAt != (time.Time{}) {
				t.Error("the client tried to resume a stream that had no event id")
			}
			if era == mcp.EraModern {
				// The modern era cannot resume: the request is sent again
				// under a new id, twice, before mcpscope gives up.
				want := []string{"2026-07-28 server/discover ", "2026-07-28 tools/call wait", "2026-07-28 tools/call wait", "2026-07-28 tools/call wait"}
				if strings.Join(script.modernHeaders, "|") != strings.Join(want, "|") {
					t.Errorf("modern headers (version, method, name) = %q, want %q", script.modernHeaders, want)
				}
				for _, s := range script.sessionsSeen {
					if s != "" {
						t.Errorf("a modern request carried Mcp-Session-Id %q", s)
					}
				}
			}
		})
	}
}

func TestHTTPModernParamHeaders(t *testing.T) {
	script := &scriptedHTTPServer{}
	srv := httptest.NewServer(script)
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Era: mcp.EraModern, Timeout: 5 * time.Second})
	ctx := context.Background()
	if _, err := c.Call(ctx, "tools/list", nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, args := range []map[string]any{
		{"region": "eu-west", "opts": map[string]any{"n": 3}},
		{"region": "café ", "opts": map[string]any{"n": 1.5}},
		{"region": nil},
	} {
		if _, err := c.Call(ctx, "tools/call", map[string]any{"name": "route", "arguments": args}); err != nil {
			t.Fatalf("tools/call %v: %v", args, err)
		}
	}
	_ = c.Close()
	col.wait(t)
	script.mu.Lock()
	defer script.mu.Unlock()
	want := []string{"Region=eu-west N=3", "Region==?base64?Y2Fmw6kg?= N="}
	if strings.Join(script.paramHeaders, "|") != strings.Join(want, "|") {
		t.Errorf("Mcp-Param headers = %q, want %q (a non-integer number and a null get none)", script.paramHeaders, want)
	}
}

// The standalone GET stream, given up after three failures in a row, is
// reopened once a request is answered again: before, a server unreachable
// for a few seconds never again delivered what it sends outside a request.
func TestHTTPReopensTheGETStreamItGaveUpOn(t *testing.T) {
	script := &scriptedHTTPServer{standaloneGET: true, failGETs: 3}
	srv := httptest.NewServer(script)
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL}, mcp.Options{Timeout: 5 * time.Second})
	defer func() { _ = c.Close() }()
	deadline := time.Now().Add(10 * time.Second)
	for !col.sawTransport("stopped reopening it") {
		if time.Now().After(deadline) {
			t.Fatal("the GET stream was not given up after three failures")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := c.Call(context.Background(), "tools/list", nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for {
		script.mu.Lock()
		opened := script.getsOpened
		script.mu.Unlock()
		if opened == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the GET stream was not reopened after tools/list was answered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !col.sawTransport("reopening the standalone GET stream") {
		t.Error("no transport event said the GET stream was reopened")
	}
}
