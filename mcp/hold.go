package mcp

import (
	"context"
	"sync"
	"sync/atomic"
)

// A request's timeout measures the server: how long it takes to answer.
// What a transport waits on before the request can even reach the server,
// and that is nobody's fault (a person signing in through OAuth, which has
// bounds of its own), holds that clock.

type clockKey struct{}

// requestClock is one request's timeout as its transport sees it.
type requestClock struct {
	held    atomic.Int32
	changed chan struct{} // capacity 1: read held again
}

func newRequestClock() *requestClock { return &requestClock{changed: make(chan struct{}, 1)} }

func (c *requestClock) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// HoldTimeout stops the timeout of the request whose write ctx belongs to,
// until release is called; the whole timeout then starts again. An
// Authorizer calls it while it runs a flow: the time a person takes to
// sign in is not the server's. Outside a request's write it does nothing.
func HoldTimeout(ctx context.Context) (release func()) {
	c, _ := ctx.Value(clockKey{}).(*requestClock)
	if c == nil {
		return func() {}
	}
	c.held.Add(1)
	c.poke()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.held.Add(-1)
			c.poke()
		})
	}
}

// carryClock gives base the clock of the request whose write from is: a
// Streamable HTTP POST runs under its connection's context, not the
// write's, and its Authorizer must still find the request's clock.
func carryClock(base, from context.Context) context.Context {
	if c, ok := from.Value(clockKey{}).(*requestClock); ok {
		return context.WithValue(base, clockKey{}, c)
	}
	return base
}
