package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// Finding 3: a server that redirects to another origin gets neither the
// bearer token nor the user's headers forwarded, and the redirect is a row
// in the timeline.
func TestRedirectToAnotherOriginDropsCredentials(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		catcher := mcptest.StartHostile(t, &mcptest.Hostile{}, false)
		h := mcptest.StartHostile(t, &mcptest.Hostile{RedirectTo: catcher.URL(), RedirectStatus: status}, false)
		hdr := http.Header{"Authorization": {"Bearer SECRET-TOKEN"}, "X-Api-Key": {"SECRET-KEY"}}
		c, col := connect(t, &mcp.HTTPTransport{URL: h.URL(), Header: hdr, NoSSEFallback: true}, mcp.Options{Timeout: 5 * time.Second})
		_ = c.Close()
		reached := false
		for _, r := range catcher.Requests() {
			reached = true
			if r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" {
				t.Errorf("%d: the other origin received Authorization %q, X-Api-Key %q", status, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
			}
		}
		if !reached {
			t.Errorf("%d: the redirect was not followed at all", status)
		}
		var row bool
		for _, te := range transportEventsOf(col.wait(t)) {
			if strings.HasPrefix(te.Summary, "redirect ") && strings.Contains(te.Summary, "another origin") {
				row = true
			}
			if strings.Contains(te.Summary+fieldsText(te), "SECRET") {
				t.Errorf("%d: a secret in the timeline: %s %s", status, te.Summary, fieldsText(te))
			}
		}
		if !row {
			t.Errorf("%d: no timeline row for the redirect", status)
		}
	}
}

// Finding 3: https → http is never followed, so the token does not
// travel in clear.
func TestRedirectDowngradeIsRefused(t *testing.T) {
	catcher := mcptest.StartHostile(t, &mcptest.Hostile{}, false)
	h := mcptest.StartHostile(t, &mcptest.Hostile{RedirectTo: catcher.URL()}, true)
	hdr := http.Header{"Authorization": {"Bearer SECRET-TOKEN"}}
	c := mcp.NewClient(&mcp.HTTPTransport{URL: h.URL(), Header: hdr, HTTPClient: h.Srv.Client(), NoSSEFallback: true}, mcp.Options{Timeout: 5 * time.Second})
	col := collect(c)
	_, err := c.Connect(context.Background())
	_ = c.Close()
	if err == nil || !strings.Contains(err.Error(), "downgrade") {
		t.Fatalf("Connect: err = %v, want a refused downgrade", err)
	}
	if n := len(catcher.Requests()); n != 0 {
		t.Fatalf("the plain-http catcher received %d request(s)", n)
	}
	var row bool
	for _, te := range transportEventsOf(col.wait(t)) {
		if strings.HasPrefix(te.Summary, "redirect refused") {
			row = true
		}
	}
	if !row {
		t.Error("no timeline row for the refused redirect")
	}
}

func fieldsText(te mcp.TransportEvent) string {
	var b strings.Builder
	for _, f := range te.Fields {
		b.WriteString(f.Key + "=" + f.Value + " ")
	}
	return b.String()
}

// Finding 4, end to end: a server that pads its SSE answer with a
// megabyte of comment keep-alives gets one timeline row that counts them,
// not a field per comment, and the answer still arrives.
func TestHostileSSECommentFlood(t *testing.T) {
	const lines = 1 << 18
	h := mcptest.StartHostile(t, &mcptest.Hostile{SSE: true, SSEPrefix: func(w http.ResponseWriter) {
		_, _ = w.Write([]byte(strings.Repeat(": k\n", lines)))
	}}, false)
	c, col := connect(t, &mcp.HTTPTransport{URL: h.URL(), NoSSEFallback: true}, mcp.Options{Timeout: 10 * time.Second})
	if _, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo"}); err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	_ = c.Close()
	var counted bool
	for _, te := range transportEventsOf(col.wait(t)) {
		if len(te.Fields) > 40 {
			t.Fatalf("a timeline row with %d fields: %s", len(te.Fields), te.Summary)
		}
		if strings.Contains(te.Summary, "262144 comment lines") {
			counted = true
		}
	}
	if !counted {
		t.Error("no timeline row counts the comments")
	}
}
