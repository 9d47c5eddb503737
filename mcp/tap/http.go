package tap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
)

// HTTPOptions configure an HTTP tap: a reverse proxy on a local address in
// front of a remote MCP server, for clients that take a URL.
type HTTPOptions struct {
	Name string
	// Listen is the local address, e.g. 127.0.0.1:8808 (":0" picks a port).
	Listen string
	// Target is the server's MCP endpoint, e.g. https://example.com/mcp.
	Target string
	// Ready, when set, gets the local URL once the tap listens.
	Ready func(localURL string)
	// AllowOrigins are the origins (scheme://host[:port]) whose requests
	// pass besides this machine's own (--allow-origin); their hosts pass
	// as Host too.
	AllowOrigins []string
	// Token, when set, is what every request must carry (TokenHeader, or
	// TokenParam in the URL): others get 401 (--token).
	Token string
	// Public allows a Listen address that is not loopback
	// (--listen-public): other machines can then reach the server
	// through the tap, and any Host is taken.
	Public bool
	// Reload, when set, reconnects upstream after each build when the
	// watched files change (tap --watch; http_reload.go).
	Reload *ReloadOptions
	Recording
}

// maxBody bounds what is recorded of one request or response body (the
// proxy itself passes everything through).
const maxBody = 64 << 20

// RunHTTP proxies until ctx ends. Requests to "/" go to the target's
// endpoint; every other path goes to the same path on the target's host
// (OAuth metadata, the legacy transport's message endpoint). Bodies pass
// through unchanged and SSE is flushed event by event; headers, the
// Authorization header included, are passed on untouched, and
// Authorization values are redacted in what is recorded.
func RunHTTP(ctx context.Context, o HTTPOptions) error {
	target, err := url.Parse(o.Target)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return fmt.Errorf("tap: %q is not an http(s) URL", o.Target)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("tap: --listen %s: %w", o.Listen, err)
	}
	addr, _ := ln.Addr().(*net.TCPAddr)
	if addr == nil || !addr.IP.IsLoopback() {
		if !o.Public {
			_ = ln.Close()
			return fmt.Errorf("tap: --listen %s is not a loopback address: other machines could reach %s through the tap; listen on 127.0.0.1, or add --listen-public to mean it", o.Listen, o.Target)
		}
		if o.Warn != nil {
			o.Warn(fmt.Sprintf("warning: listening on %s, which other machines can reach: whoever reaches it reaches %s through this machine (--listen-public)", ln.Addr(), o.Target))
		}
	}
	g, err := newGuard(addr, o.Public, o.AllowOrigins, o.Token, o.Warn)
	if err != nil {
		_ = ln.Close()
		return err
	}
	local := "http://" + ln.Addr().String() + "/"
	info := &Info{Name: o.Name, Transport: "http", URL: o.Target, Listen: ln.Addr().String()}
	cap := startCapture(info, nil, o.Recording)
	h := &httpTap{target: target, rec: cap.rec, keepSecrets: o.KeepSecrets, guard: g}
	if o.Reload != nil {
		h.reload = newHTTPReload(h, o.Reload)
		stop, err := runHTTPReload(ctx, h.reload)
		if err != nil {
			_ = ln.Close()
			cap.close()
			return err
		}
		defer stop()
	}
	h.proxy = &httputil.ReverseProxy{
		Rewrite:    h.rewrite,
		Transport:  newUpstreamTransport(),
		BufferPool: copyBuffers,
		// An event stream, and a body of unknown length, reach the client
		// write by write whatever this says (ReverseProxy flushes them at
		// once: SSE event by event). A body of known length is passed on
		// whole when it is all there, its head and body in one write,
		// and at least every flushEvery while it comes: flushing at once
		// (-1) made ReverseProxy flush the head alone on a goroutine of
		// its own, a thread's wake-up and a packet more a request.
		FlushInterval:  flushEvery,
		ModifyResponse: h.response,
		ErrorHandler:   h.failed,
		// ReverseProxy logs an answer cut during its copy to the standard
		// logger, i.e. to the terminal or a client's log; teeBody records
		// it in the capture instead.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	if o.Ready != nil {
		o.Ready(local)
	}
	err = serveUntilDone(ctx, srv, ln)
	cap.rec.push(chunk{kind: chunkEvent, ev: mcp.StateEvent{Time: time.Now(), State: mcp.StateClosed, Detail: "the tap stopped"}})
	cap.close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// flushEvery is how often a slow body of known length is flushed.
const flushEvery = 5 * time.Millisecond

// copyBuffers are the proxy's buffers for copying an answer: without
// them it makes a 32 KiB one for each, most of what the tap allocated a
// request, and the garbage collector ran that much more often.
var copyBuffers = &bufferPool{p: sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte  { return *b.p.Get().(*[]byte) }
func (b *bufferPool) Put(p []byte) { b.p.Put(&p) }

type httpTap struct {
	target      *url.URL
	proxy       *httputil.ReverseProxy
	rec         *recorder
	keepSecrets bool
	guard       *guard
	n           atomic.Int64
	reload      *httpReload // nil without --watch
}

type ctxKey struct{}

// exchange is what the tap learned of one request, for naming the stream
// its answer comes on.
type exchange struct {
	n      int64
	path   string
	host   string // the address the client reached the tap at
	method string // the JSON-RPC method of the POSTed message
	id     string
	// conv names the client session the exchange belongs to: "sid:" and
	// its Mcp-Session-Id; "client:" and the clientInfo a stateless
	// client names in every request's _meta; or "" for the tap's current
	// one (a session without an id, a client that names itself nowhere).
	conv string
	// body and header are an initialize's, kept for hot reload to open
	// the session again after a restart (in memory only).
	body   []byte
	header http.Header
}

func (h *httpTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.guard.check(w, r, h.rec) {
		return
	}
	x := &exchange{n: h.n.Add(1), path: pathOf(r.URL), host: r.Host}
	if r.Method == http.MethodPost && r.Body != nil && !isUpgrade(r) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			http.Error(w, "mcpscope tap: reading the request: "+err.Error(), http.StatusBadGateway)
			return
		}
		if len(body) < maxBody {
			// The whole request is in memory: the server gets it from
			// there. net/http closes the client's request body as soon
			// as the answer starts, and the transport reads its request
			// body once more after sending it (for its end), so a body
			// read from the client's connection could fail under a
			// streamed answer, and the transport then closed the
			// connection to the server in the middle of that answer.
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.Header.Del("Transfer-Encoding")
			r.TransferEncoding = nil
		} else {
			// A body over the cap streams on from the client's
			// connection: full duplex keeps net/http from closing it
			// when the answer starts.
			_ = http.NewResponseController(w).EnableFullDuplex()
			rest := r.Body
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), rest), rest}
		}
		var env struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &env)
		x.method, x.id = env.Method, string(env.ID)
		if h.reload != nil && env.Method == mcp.MethodInitialize {
			x.body, x.header = body, r.Header.Clone()
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			x.conv = "sid:" + sid
		} else if c := statelessClient(env.Params.Meta); c != "" {
			x.conv = c
		}
		// A handshake without a session id opens a new client session:
		// one tap --listen serves one client after another.
		fresh := !strings.HasPrefix(x.conv, "sid:") && (env.Method == mcp.MethodInitialize || env.Method == mcp.MethodServerDiscover)
		if len(bytes.TrimSpace(body)) > 0 {
			h.rec.push(chunk{kind: chunkFrame, dir: mcp.Outbound, data: body, at: time.Now(), conv: x.conv, fresh: fresh, redact: true})
		}
	} else if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		x.conv = "sid:" + sid
	}
	h.rec.push(chunk{kind: chunkEvent, conv: x.conv, ev: mcp.TransportEvent{Time: time.Now(), Kind: "http",
		Summary: r.Method + " " + x.path, Fields: h.fields(r.Method, x.path, r.Header)}})
	h.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, x)))
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Connection"), "upgrade") || r.Header.Get("Upgrade") != ""
}

func pathOf(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

func (h *httpTap) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	out.URL.Scheme, out.URL.Host = h.target.Scheme, h.target.Host
	if pr.In.URL.Path == "/" || pr.In.URL.Path == "" {
		out.URL.Path, out.URL.RawPath = h.target.Path, h.target.RawPath
		if pr.In.URL.RawQuery == "" {
			out.URL.RawQuery = h.target.RawQuery
		}
	}
	out.Host = h.target.Host
	if h.reload != nil {
		h.reload.toServer(out.Header)
	}
	// A tap is invisible: no X-Forwarded-* headers are added.
}

// recordedHeaders are the headers that matter to MCP over HTTP, and
// those that carry credentials (recorded to show they were sent, their
// values redacted).
var recordedHeaders = []string{"Content-Type", "Accept", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID",
	"Accept-Encoding", "Content-Encoding", "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "WWW-Authenticate", "Location"}

func (h *httpTap) fields(method, path string, hd http.Header) []mcp.Field {
	out := []mcp.Field{{Key: "method", Value: method}, {Key: "path", Value: h.redactURL(path)}}
	for _, k := range recordedHeaders {
		v := hd.Get(k)
		if v == "" {
			continue
		}
		switch {
		case redact.IsSecretHeader(k):
			// The tap never records a credential, whatever
			// --record-secrets says: it is the client's, not the user's.
			v = redact.Header(k, v)
		case k == "Location":
			v = h.redactURL(v)
		}
		out = append(out, mcp.Field{Key: k, Value: v})
	}
	return out
}

func (h *httpTap) redactURL(s string) string {
	if h.keepSecrets {
		return s
	}
	return redact.URLs(s)
}

func (h *httpTap) response(resp *http.Response) error {
	x, _ := resp.Request.Context().Value(ctxKey{}).(*exchange)
	if x == nil {
		x = &exchange{path: pathOf(resp.Request.URL)}
	}
	ct := resp.Header.Get("Content-Type")
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && x.conv == "" {
		// The server named the session the handshake opened: the client's
		// next requests carry that id.
		h.rec.push(chunk{kind: chunkAlias, alias: "sid:" + sid, at: time.Now(), opened: x.method == mcp.MethodInitialize})
		x.conv = "sid:" + sid
	}
	h.rec.push(chunk{kind: chunkEvent, conv: x.conv, ev: mcp.TransportEvent{Time: time.Now(), Kind: "http",
		Summary: fmt.Sprintf("%s %s → %s %s", resp.Request.Method, x.path, resp.Status[:3], ct),
		Fields:  append(h.fields(resp.Request.Method, x.path, resp.Header), mcp.Field{Key: "status", Value: resp.Status})}})
	if h.reload != nil {
		h.reload.opened(x, resp)
		h.reload.toClient(resp.Header)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// The proxy copies an upgraded connection both ways through the
		// body; a WebSocket's messages are recorded on the way.
		if rwc, ok := resp.Body.(io.ReadWriteCloser); ok && strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") {
			resp.Body = newWSConn(rwc, h.rec, "WebSocket "+x.path, resp)
			h.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "websocket",
				Summary: "WebSocket opened: its messages are recorded as frames", Fields: wsFields(resp.Header)}})
		}
		return nil
	}
	if resp.Body == nil {
		return nil
	}
	var stream string
	switch resp.Request.Method {
	case http.MethodGet:
		stream = "GET " + x.path + " " + mcp.StandaloneStream
	case http.MethodPost:
		stream = "POST " + x.path + " " + x.method + " (id " + x.id + ")"
		if resp.StatusCode/100 != 2 {
			stream = "POST " + x.path + " " + x.method + " (" + resp.Status + ")"
		}
	default:
		return nil
	}
	sse := strings.HasPrefix(strings.ToLower(ct), "text/event-stream")
	tee := &teeBody{ReadCloser: resp.Body, rec: h.rec, stream: stream, conv: x.conv, json: !sse && strings.Contains(strings.ToLower(ct), "json")}
	if sse {
		tee.sse = mcp.NewSSEWatch(stream, resp.Request.Method == http.MethodGet)
	}
	if enc := bodyEncoding(resp.Header); enc != "" && (sse || tee.json) {
		// The client asked for it (Go's and Node's HTTP clients do by
		// default) and gets the bytes as sent; the record gets what the
		// client decodes.
		if !decodable(enc) {
			h.rec.push(chunk{kind: chunkEvent, conv: x.conv, ev: mcp.TransportEvent{Time: time.Now(), Kind: "http",
				Summary: "the answer on " + stream + " came compressed as " + enc + ", which the tap does not decode: the client got it as sent, the record does not hold its frames",
				Fields:  []mcp.Field{{Key: "stream", Value: stream}, {Key: "Content-Encoding", Value: enc}}}})
			tee.sse, tee.json = nil, false
		} else {
			tee.enc = enc
			if sse {
				tee.inflate = newInflater(enc, tee.recordSSE, tee.undecodable)
			}
		}
	}
	resp.Body = tee
	if sse && resp.Request.Method == http.MethodGet {
		// A legacy HTTP+SSE stream names, in its endpoint event, where the
		// client is to POST; an absolute URL there would send the client
		// past the tap.
		resp.Body = &endpointRewriter{ReadCloser: resp.Body, rewrite: func(data string) (string, bool) {
			to, ok := tapEndpoint(h.target, x.host, data)
			if ok {
				h.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "sse",
					Summary: "the tap rewrote the endpoint event's absolute URL to its own address, so that the client's POSTs come through it (only that event's data was changed)",
					Fields:  []mcp.Field{{Key: "stream", Value: stream}, {Key: "sent by the server", Value: h.redactURL(data)}, {Key: "passed to the client", Value: h.redactURL(to)}}}})
			}
			return to, ok
		}}
	}
	return nil
}

// wsFields are the details of a WebSocket's opening that matter.
func wsFields(hd http.Header) []mcp.Field {
	var out []mcp.Field
	for _, k := range []string{"Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions"} {
		if v := hd.Get(k); v != "" {
			out = append(out, mcp.Field{Key: k, Value: v})
		}
	}
	return out
}

func (h *httpTap) failed(w http.ResponseWriter, r *http.Request, err error) {
	h.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "http",
		Summary: r.Method + " " + pathOf(r.URL) + " failed at the tap", Fields: h.fields(r.Method, pathOf(r.URL), r.Header), Err: err}})
	w.WriteHeader(http.StatusBadGateway)
}

// teeBody passes a response body on and hands the recorder a copy: the
// whole body for JSON; an event stream's bytes as they come, which the
// recorder reads, off the copy's path, with mcpscope's own SSE reader.
type teeBody struct {
	io.ReadCloser
	rec    *recorder
	stream string
	conv   string        // the client session (exchange.conv)
	sse    *mcp.SSEWatch // an event stream: the recorder's reader of it
	json   bool
	// enc is the body's Content-Encoding when the tap decodes it for
	// the record; inflate decodes an event stream as it passes.
	enc     string
	inflate *inflater

	mu   sync.Mutex
	buf  []byte // JSON: the body so far (as sent)
	done bool
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 {
		t.feed(p[:n])
	}
	if err != nil {
		if err != io.EOF {
			t.cut(err)
		}
		t.finish()
	}
	return n, err
}

// cut records that an answer ended before its end, so that a stream the
// client got only part of is an event in the record, not a quiet end.
func (t *teeBody) cut(err error) {
	t.mu.Lock()
	done := t.done
	t.mu.Unlock()
	if done {
		return
	}
	t.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "http",
		Summary: "the answer on " + t.stream + " was cut before its end: the client got only what came before",
		Fields:  []mcp.Field{{Key: "stream", Value: t.stream}}, Err: err}})
}

func (t *teeBody) Close() error {
	t.finish()
	return t.ReadCloser.Close()
}

func (t *teeBody) feed(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.done:
	case t.inflate != nil:
		t.inflate.write(b)
	case t.sse != nil:
		t.recordSSE(append([]byte(nil), b...))
	case t.json:
		if len(t.buf)+len(b) <= maxBody {
			t.buf = append(t.buf, b...)
		}
	}
}

func (t *teeBody) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	if t.inflate != nil {
		t.inflate.close() // its last events are pushed before the end
	}
	if t.json && t.enc != "" && len(t.buf) > 0 {
		// Decoded, it is held to the bound of a body sent as it is.
		body, err := decoded(t.buf, t.enc, maxBody)
		if err != nil {
			t.undecodable(err)
		}
		t.buf = body
	}
	if t.json && len(bytes.TrimSpace(t.buf)) > 0 {
		t.rec.push(chunk{kind: chunkFrame, dir: mcp.Inbound, data: t.buf, at: time.Now(), stream: t.stream, conv: t.conv, redact: true})
	}
	if t.sse != nil {
		t.rec.push(chunk{kind: chunkSSE, sse: t.sse, at: time.Now(), stream: t.stream, conv: t.conv}) // no data: the end
	}
}

// recordSSE hands the recorder bytes of the event stream (decoded, when
// the server compressed it).
func (t *teeBody) recordSSE(b []byte) {
	t.rec.push(chunk{kind: chunkSSE, sse: t.sse, data: b, at: time.Now(), stream: t.stream, conv: t.conv})
}

// undecodable records that a compressed answer did not decode: what
// came before is in the record, the rest is not.
func (t *teeBody) undecodable(err error) {
	t.rec.push(chunk{kind: chunkEvent, conv: t.conv, ev: mcp.TransportEvent{Time: time.Now(), Kind: "http",
		Summary: "the answer on " + t.stream + " is compressed as " + t.enc + " but does not decode: the client got it as sent, and what did not decode is not in the record",
		Fields:  []mcp.Field{{Key: "stream", Value: t.stream}, {Key: "Content-Encoding", Value: t.enc}}, Err: err}})
}

// statelessClient names the conversation of a stateless (2026-07-28)
// client by the clientInfo its requests carry in _meta, so two such
// clients talking through one tap --listen at once stay apart. Their
// HTTP connections cannot tell them apart: a client's connection pool
// spreads one conversation over several. Two copies of the same client
// and version still read as one, and each handshake starts a new one.
func statelessClient(meta map[string]json.RawMessage) string {
	var info mcp.Implementation
	if json.Unmarshal(meta[mcp.MetaClientInfo], &info) != nil || info.Name == "" {
		return ""
	}
	return "client:" + info.Name + " " + info.Version
}

// serveUntilDone serves on ln until the server fails or ctx ends; then it
// gives open exchanges two seconds to finish before closing them (nil:
// the tap was stopped, not broken).
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = srv.Close()
		return nil
	}
}
