package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// A sign-in that fails during initialize is named as what it is: the
// handshake's headline and the request's row said the connection ended
// ("the connection ended during initialize", CONNECTION LOST) while the
// cause below it was right.
func TestSignInFailureIsNotALostConnection(t *testing.T) {
	f := newFake(t, func(f *fakeServer) {
		f.headerScope = "read"
		f.needScope = []string{"read"}
		f.asScopes = []string{"openid", "offline_access"}
		f.grantOnly = []string{"offline_access"}
	})
	a := newAuthorizer(t, f, nil)
	c := mcp.NewClient(&mcp.HTTPTransport{URL: f.mcpURL(), Authorizer: a}, mcp.Options{})
	var kinds []mcp.LocalErrorKind
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range c.Events() {
			if le, ok := ev.(mcp.LocalErrorEvent); ok {
				kinds = append(kinds, le.Err.Kind)
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Connect(ctx)
	_ = c.Close()
	<-done

	var hs *mcp.HandshakeError
	if !errors.As(err, &hs) || hs.Reason != "the sign-in failed during initialize" {
		t.Fatalf("Connect: %v; want the handshake to say the sign-in failed", err)
	}
	var le *mcp.LocalError
	if !errors.As(err, &le) || le.Kind != mcp.SignInFailed {
		t.Fatalf("the request ended as %v, want %v", le, mcp.SignInFailed)
	}
	if !errors.Is(err, ErrScopeNotGranted) {
		t.Errorf("the cause is lost: %v", err)
	}
	if len(kinds) != 1 || kinds[0] != mcp.SignInFailed {
		t.Errorf("the timeline's local errors: %v, want one %v", kinds, mcp.SignInFailed)
	}
	if strings.Contains(err.Error(), "connection lost") || strings.Contains(err.Error(), "connection ended") {
		t.Errorf("the error still says the connection was lost: %v", err)
	}
}
