package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// slowSignIn is an Authorizer whose flow takes longer than the request
// timeout, as a person signing in in a browser does, and says so by
// holding the request's clock; then it has a token, or fails with err.
type slowSignIn struct {
	tokenAuthorizer
	took time.Duration
	err  error
}

func (a *slowSignIn) Challenge(ctx context.Context, resp *http.Response, note func(mcp.TransportEvent)) (bool, error) {
	defer mcp.HoldTimeout(ctx)()
	select {
	case <-time.After(a.took):
	case <-ctx.Done():
		return false, ctx.Err()
	}
	if a.err != nil {
		return false, a.err
	}
	return a.tokenAuthorizer.Challenge(ctx, resp, note)
}

// The time a person takes to sign in is not the server's: initialize
// waits for the sign-in, then has its whole timeout for the answer.
func TestSignInHoldsTheRequestTimeout(t *testing.T) {
	srv := httptest.NewServer(&scriptedHTTPServer{token: "s3cret-token"})
	defer srv.Close()
	const timeout = time.Second
	auth := &slowSignIn{took: 5 * timeout / 2}
	c := mcp.NewClient(&mcp.HTTPTransport{URL: srv.URL, Authorizer: auth}, mcp.Options{Timeout: timeout})
	col := collect(c)
	start := time.Now()
	_, err := c.Connect(context.Background())
	took := time.Since(start)
	_ = c.Close()
	col.wait(t)
	if err != nil {
		t.Fatalf("a sign-in of %s failed initialize, whose timeout is %s: %v", auth.took, timeout, err)
	}
	if took < auth.took {
		t.Fatalf("connected in %s, before the sign-in (%s) ended", took, auth.took)
	}
}

// Outside a request's write HoldTimeout does nothing, and its release may
// be called more than once.
func TestHoldTimeoutWithoutARequest(t *testing.T) {
	release := mcp.HoldTimeout(context.Background())
	release()
	release()
}

// A sign-in that fails after the write stopped waiting ends the request at
// once with its reason, not at the request's timeout as "no answer".
func TestLateSignInFailureEndsTheRequest(t *testing.T) {
	srv := httptest.NewServer(&scriptedHTTPServer{token: "s3cret-token"})
	defer srv.Close()
	auth := &slowSignIn{took: 3 * time.Second, err: errors.New("the sign-in failed: nobody came back")} // past the 2 s the write waits for headers
	c := mcp.NewClient(&mcp.HTTPTransport{URL: srv.URL, Authorizer: auth}, mcp.Options{Timeout: 30 * time.Second})
	col := collect(c)
	start := time.Now()
	_, err := c.Connect(context.Background())
	took := time.Since(start)
	_ = c.Close()
	col.wait(t)
	if err == nil || !strings.Contains(err.Error(), "nobody came back") || took > 15*time.Second {
		t.Fatalf("after %s: %v; want the sign-in's failure, well before the 30 s timeout", took, err)
	}
}
