package tap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"sync"
	"time"
)

// upstreamTransport carries the HTTP tap's requests to the server. A
// plain-http server (a local one, the usual case of a tap) is reached
// over kept-alive connections on the request's own goroutine: the request
// is written and its answer read where the proxy waits for them, with no
// hand-off to a connection's reader and writer goroutines as
// http.Transport makes. Those hand-offs wake threads, which costs more
// than the rest of the tap's work on a request. https, a proxy from the
// environment and protocol upgrades go through http.Transport.
type upstreamTransport struct {
	std    *http.Transport
	dialer net.Dialer

	mu   sync.Mutex
	idle []*upstreamConn // the most recently used last
}

// upstreamConn is one kept-alive connection to the server.
type upstreamConn struct {
	conn      net.Conn
	addr      string
	br        *bufio.Reader
	bw        *bufio.Writer
	idleSince time.Time
	// headLeft is how much more an answer's head may read (-1: no
	// bound, the body is being read).
	headLeft int64
}

// errHeadTooLarge ends an answer whose head is over maxUpstreamHead.
var errHeadTooLarge = errors.New("tap: the server's answer has a head (status line and headers) over 10 MiB")

// Read reads the connection for br, bounding an answer's head.
func (pc *upstreamConn) Read(p []byte) (int, error) {
	if pc.headLeft == 0 {
		return 0, errHeadTooLarge
	}
	if pc.headLeft > 0 && int64(len(p)) > pc.headLeft {
		p = p[:pc.headLeft]
	}
	n, err := pc.conn.Read(p)
	if pc.headLeft > 0 {
		pc.headLeft -= int64(n)
	}
	return n, err
}

const (
	// maxIdleUpstream bounds the connections kept open for the client's
	// next requests: as many as a client's parallel calls.
	maxIdleUpstream = 64
	// upstreamIdleTimeout is how long an unused connection is kept, as
	// http.DefaultTransport keeps one.
	upstreamIdleTimeout = 90 * time.Second
	// max1xx bounds the informational answers passed on before the real
	// one (a server that sends them without end).
	max1xx = 20
	// maxUpstreamHead bounds an answer's head (its 1xx answers' too), as
	// http.Transport's default does: a server that sends headers without
	// end gets a 502, not the tap's memory.
	maxUpstreamHead = 10 << 20
	// smallBody is the largest request body written in one piece with
	// its head.
	smallBody = 64 << 10
)

// headWithBody is the connection's buffer under a type Request.Write does
// not flush between the head and the body.
type headWithBody struct{ *bufio.Writer }

func newUpstreamTransport() *upstreamTransport {
	std := http.DefaultTransport.(*http.Transport).Clone()
	// What the server sends passes as it is: the transport asks for no
	// compression of its own and undoes none.
	std.DisableCompression = true
	std.MaxIdleConnsPerHost = maxIdleUpstream
	return &upstreamTransport{std: std, dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
}

// CloseIdleConnections closes the connections kept for later requests.
func (t *upstreamTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, pc := range idle {
		_ = pc.conn.Close()
	}
	t.std.CloseIdleConnections()
}

func (t *upstreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !canPeek || req.URL.Scheme != "http" || isUpgrade(req) {
		return t.std.RoundTrip(req)
	}
	if t.std.Proxy != nil {
		if p, err := t.std.Proxy(req); err != nil || p != nil {
			return t.std.RoundTrip(req)
		}
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	ctx := req.Context()
	pc, err := t.get(ctx, addr)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	// A client that goes away ends the exchange with the server too, as
	// http.Transport does: the connection is closed under the read.
	stop := context.AfterFunc(ctx, func() { _ = pc.conn.Close() })
	fail := func(err error) (*http.Response, error) {
		stop()
		_ = pc.conn.Close()
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, err
	}
	// Request.Write flushes the head on its own before a body it does not
	// know to be in memory (ReverseProxy's wrapper hides the tap's
	// in-memory copy): a packet, and a wake-up of the server, more. A
	// small body goes with its head; a large one streams after it.
	var w io.Writer = pc.bw
	if req.ContentLength >= 0 && req.ContentLength <= smallBody {
		w = headWithBody{pc.bw}
	}
	if err := req.Write(w); err != nil {
		return fail(err)
	}
	if err := pc.bw.Flush(); err != nil {
		return fail(err)
	}
	trace := httptrace.ContextClientTrace(ctx)
	pc.headLeft = maxUpstreamHead
	for n := 0; ; n++ {
		resp, err := http.ReadResponse(pc.br, req)
		if err != nil {
			return fail(err)
		}
		if resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			// 100 Continue, 103 Early Hints: passed on (the proxy's
			// trace), then the answer itself follows.
			if n >= max1xx {
				return fail(errors.New("tap: the server sent too many informational (1xx) answers"))
			}
			if trace != nil && trace.Got1xxResponse != nil {
				if err := trace.Got1xxResponse(resp.StatusCode, textproto.MIMEHeader(resp.Header)); err != nil {
					return fail(err)
				}
			}
			continue
		}
		pc.headLeft = -1
		resp.Body = &upstreamBody{ReadCloser: resp.Body, t: t, pc: pc, stop: stop, reuse: !resp.Close && !req.Close}
		return resp, nil
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// get returns a kept connection to addr that is still open, or a new one.
func (t *upstreamTransport) get(ctx context.Context, addr string) (*upstreamConn, error) {
	now := time.Now()
	for {
		t.mu.Lock()
		var pc *upstreamConn
		for i := len(t.idle) - 1; i >= 0; i-- {
			if t.idle[i].addr == addr {
				pc = t.idle[i]
				t.idle = append(t.idle[:i], t.idle[i+1:]...)
				break
			}
		}
		t.mu.Unlock()
		if pc == nil {
			break
		}
		// The server may have closed a connection while it waited (its
		// keep-alive timeout): one it closed, or one with bytes nobody
		// asked for, is not used.
		if now.Sub(pc.idleSince) < upstreamIdleTimeout && pc.br.Buffered() == 0 && connStillOpen(pc.conn) {
			return pc, nil
		}
		_ = pc.conn.Close()
	}
	c, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	pc := &upstreamConn{conn: c, addr: addr, bw: bufio.NewWriterSize(c, 16<<10), headLeft: -1}
	pc.br = bufio.NewReaderSize(pc, 32<<10)
	return pc, nil
}

// put keeps a connection whose exchange ended cleanly for the next one.
func (t *upstreamTransport) put(pc *upstreamConn) {
	pc.idleSince = time.Now()
	t.mu.Lock()
	var drop []*upstreamConn
	// The oldest go first: past the bound or past the timeout.
	for len(t.idle) > 0 && (len(t.idle) >= maxIdleUpstream || pc.idleSince.Sub(t.idle[0].idleSince) >= upstreamIdleTimeout) {
		drop = append(drop, t.idle[0])
		t.idle = t.idle[1:]
	}
	t.idle = append(t.idle, pc)
	t.mu.Unlock()
	for _, old := range drop {
		_ = old.conn.Close()
	}
}

// upstreamBody is an answer's body on a kept-alive connection: read to
// its end, the connection serves the next request; closed before, or
// failed, the connection is closed.
type upstreamBody struct {
	io.ReadCloser
	t     *upstreamTransport
	pc    *upstreamConn
	stop  func() bool
	reuse bool
	once  sync.Once
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.end(err == io.EOF)
	}
	return n, err
}

func (b *upstreamBody) Close() error {
	b.end(false)
	return b.ReadCloser.Close()
}

// end releases the connection once: kept when the body was read to its
// end and neither side asked to close, closed otherwise.
func (b *upstreamBody) end(atEOF bool) {
	b.once.Do(func() {
		// stop is false when the client already went away and the
		// connection is closed or closing.
		if b.stop() && atEOF && b.reuse {
			b.t.put(b.pc)
			return
		}
		_ = b.pc.conn.Close()
	})
}
