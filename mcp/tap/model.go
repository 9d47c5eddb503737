package tap

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// Provider is a model API the model tap knows: where it is and the
// setting a client points elsewhere to reach it through the tap.
type Provider struct {
	Name string
	// Upstream is the API's real address, the default of --upstream.
	Upstream string
	// BaseURLVar is the environment variable the clients of this API
	// read their base URL from; BasePath is what that URL ends in after
	// the host (the clients append the rest).
	BaseURLVar, BasePath string
}

// Providers are the model APIs `tap --model` takes.
var Providers = []Provider{
	{Name: "anthropic", Upstream: "https://api.anthropic.com", BaseURLVar: "ANTHROPIC_BASE_URL"},
	{Name: "openai", Upstream: "https://api.openai.com", BaseURLVar: "OPENAI_BASE_URL", BasePath: "/v1"},
	{Name: "gemini", Upstream: "https://generativelanguage.googleapis.com", BaseURLVar: "GOOGLE_GEMINI_BASE_URL"},
}

// FindProvider is the provider of that name.
func FindProvider(name string) (Provider, bool) {
	for _, p := range Providers {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return Provider{}, false
}

// TransportModel is the Transport of a model tap's Info and of its
// capture in List.
const TransportModel = "model"

// ModelOptions configure a model tap: a reverse proxy on loopback
// between a client and its model API.
type ModelOptions struct {
	Name     string
	Provider Provider
	// Listen is the local address (":0" picks a port); it must be
	// loopback.
	Listen string
	// Upstream is the API's URL ("" for Provider.Upstream).
	Upstream     string
	AllowOrigins []string
	// Ready, when set, gets the tap's base URL once it listens (what the
	// client's BaseURLVar is to be set to).
	Ready func(baseURL string)
	Recording
}

// ModelEntry is one line of a model capture after its header: one
// request of the client to its model API and what came back
// (docs/model-tap.md).
type ModelEntry struct {
	Type string `json:"type"` // "model"
	// Time is when the request came; N numbers the requests in order
	// of arrival (lines are written as their responses end).
	Time time.Time    `json:"time"`
	N    int64        `json:"n"`
	API  modelapi.API `json:"api,omitempty"`
	// Method and Path are the client's, secret query parameters (?key=)
	// redacted.
	Method string `json:"method"`
	Path   string `json:"path"`
	// Status is the API's HTTP status (0 when none came).
	Status          int         `json:"status,omitempty"`
	DurationMs      float64     `json:"durationMs"`
	RequestBytes    int64       `json:"requestBytes"`
	ResponseBytes   int64       `json:"responseBytes"`
	RequestHeaders  []mcp.Field `json:"requestHeaders,omitempty"`
	ResponseHeaders []mcp.Field `json:"responseHeaders,omitempty"`
	Model           string      `json:"model,omitempty"`
	Stream          bool        `json:"stream,omitempty"`
	// Tools are the definitions the request gave the model, as sent.
	Tools []modelapi.Tool `json:"tools,omitempty"`
	// Results are the tool results this request passed back that no
	// earlier request of the tap carried (a client sends the whole
	// conversation every turn).
	Results []modelapi.Result `json:"results,omitempty"`
	// Calls are the tool calls the model made in its answer.
	Calls []modelapi.Call `json:"calls,omitempty"`
	// Usage is what the API reported the request cost.
	Usage *modelapi.Usage `json:"usage,omitempty"`
	// Problems say what the tap could not read (the bytes passed
	// through all the same).
	Problems []string `json:"problems,omitempty"`
	// Error is the tap's own failure (the API unreachable): the client
	// got 502 from the tap, not an answer of the API.
	Error string `json:"error,omitempty"`
	// Refused says the tap's guard refused the request: it was not
	// forwarded.
	Refused string `json:"refused,omitempty"`
}

// modelTap is a running model tap.
type modelTap struct {
	upstream *url.URL
	guard    *guard
	proxy    *httputil.ReverseProxy
	w        *record.Writer
	warn     func(string)
	n        atomic.Int64
	pending  sync.WaitGroup

	mu   sync.Mutex
	seen map[string]bool // the tool results recorded so far
	// lastParsed is closed when the latest request has been read: each
	// request is read after the one before it, so that a result passed
	// back again is recorded with the first request that carried it.
	lastParsed chan struct{}
}

// maxSeenResults bounds the memory of results already recorded: past it
// the memory starts again, and a result passed back once more is
// recorded once more.
const maxSeenResults = 1 << 16

type modelCtxKey struct{}

// modelExchange is one request through the model tap.
type modelExchange struct {
	entry   ModelEntry
	start   time.Time
	reqBody []byte // nil when over maxBody
	reqEnc  string
	mu      sync.Mutex
	resp    bytes.Buffer
	respCut bool
	respEnc string
	sse     bool
	done    sync.Once
	// parsed is closed once the request has been read (readRequest).
	parsed chan struct{}
}

// RunModel runs a model tap until ctx ends: every request to it goes to
// the same path under the upstream URL, its bytes unchanged both ways
// and a streamed answer flushed as it comes; each exchange becomes one
// line of a capture in StateDir.
func RunModel(ctx context.Context, o ModelOptions) error {
	up := o.Upstream
	if up == "" {
		up = o.Provider.Upstream
	}
	upstream, err := url.Parse(up)
	if err != nil || (upstream.Scheme != "http" && upstream.Scheme != "https") || upstream.Host == "" {
		return fmt.Errorf("tap: --upstream %q is not an http(s) URL", up)
	}
	listen := o.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("tap: --listen %s: %w", listen, err)
	}
	addr, _ := ln.Addr().(*net.TCPAddr)
	if addr == nil || !addr.IP.IsLoopback() {
		_ = ln.Close()
		return fmt.Errorf("tap: --listen %s is not a loopback address: a model tap forwards the client's API key, and only this machine may reach it", listen)
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	g, err := newGuard(addr, false, o.AllowOrigins, "", warn)
	if err != nil {
		_ = ln.Close()
		return err
	}
	name := o.Name
	if name == "" {
		name = "model " + o.Provider.Name
	}
	info := &Info{Name: name, Transport: TransportModel, URL: redact.URLs(upstream.String()), Listen: ln.Addr().String()}
	w, live := startModelCapture(info, o.Recording, warn)
	m := &modelTap{upstream: upstream, guard: g, w: w, warn: warn, seen: map[string]bool{}}
	m.proxy = &httputil.ReverseProxy{
		Rewrite:        m.rewrite,
		FlushInterval:  -1, // every write reaches the client at once: SSE event by event
		ModifyResponse: m.response,
		ErrorHandler:   m.failed,
	}
	srv := &http.Server{Handler: m, ReadHeaderTimeout: 30 * time.Second}
	if o.Ready != nil {
		o.Ready("http://" + ln.Addr().String() + o.Provider.BasePath)
	}
	err = serveUntilDone(ctx, srv, ln)
	m.pending.Wait()
	_ = w.Close()
	live.release()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// startModelCapture opens the capture's file and holds its live file, as
// a tap of a server does; without a place to record, the tap goes on
// forwarding, unrecorded.
func startModelCapture(info *Info, opt Recording, warn func(string)) (*record.Writer, *liveFile) {
	info.PID = os.Getpid()
	info.Started = time.Now()
	info.ID = fmt.Sprintf("%s-%d-%s", info.Started.Format("20060102-150405"), info.PID, safeName(info.Name))
	sess := record.Session{Target: info.Name, URL: info.URL, Recorder: record.RecorderModelTap}
	dir := opt.Dir
	if dir == "" {
		d, err := StateDir()
		if err != nil {
			warn(err.Error())
		}
		dir = d
	}
	var w *record.Writer
	if dir != "" {
		if err := ensurePrivateDir(dir); err != nil {
			warn("not recording: " + err.Error())
		} else if w, err = createCapture(dir, info, sess, opt.wrapFile); err != nil {
			warn("not recording: " + err.Error())
			info.File = ""
		}
	}
	if w == nil {
		return record.NewWriter(discardCloser{}, sess), nil
	}
	w.OnFail(func(err error) {
		warn("the capture " + info.File + " stops here (" + err.Error() + "); requests go on through the tap, unrecorded")
	})
	_ = w.Flush()
	live, err := holdLive(dirOf(info.File), info)
	if err != nil {
		warn("a viewer will take this capture for a finished one: " + err.Error())
	}
	return w, live
}

func dirOf(file string) string {
	i := strings.LastIndexAny(file, `/\`)
	if i < 0 {
		return "."
	}
	return file[:i]
}

func (m *modelTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &modelExchange{start: time.Now()}
	x.entry = ModelEntry{Type: "model", Time: x.start, N: m.n.Add(1), Method: r.Method, Path: redact.URLs(pathOf(r.URL)),
		API: modelapi.Classify(r.Method, r.URL.Path), RequestHeaders: headerFields(r.Header)}
	if why, status := m.guard.refusal(r); why != "" {
		x.entry.Refused, x.entry.Status = why, status
		x.entry.RequestHeaders = append(x.entry.RequestHeaders, mcp.Field{Key: "Host", Value: r.Host})
		if _, said := m.guard.warned.LoadOrStore(why, true); !said {
			m.warn(fmt.Sprintf("refused %s %s: %s", r.Method, x.entry.Path, why))
		}
		http.Error(w, "mcpscope tap: refused: "+why, status)
		m.write(x)
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			x.entry.Error = "reading the client's request: " + err.Error()
			http.Error(w, "mcpscope tap: reading the request: "+err.Error(), http.StatusBadGateway)
			m.write(x)
			return
		}
		x.entry.RequestBytes = int64(len(body))
		if len(body) < maxBody {
			// Whole in memory: the API gets it from there (see
			// httpTap.ServeHTTP for why not from the connection).
			x.reqBody = body
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.Header.Del("Transfer-Encoding")
			r.TransferEncoding = nil
		} else {
			_ = http.NewResponseController(w).EnableFullDuplex()
			rest := r.Body
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), &countingReader{r: rest, n: &x.entry.RequestBytes}), rest}
			x.entry.Problems = append(x.entry.Problems, fmt.Sprintf("the request is over %d MiB: forwarded whole, not read", maxBody>>20))
		}
		x.reqEnc = r.Header.Get("Content-Encoding")
	}
	m.pending.Add(1)
	m.readInOrder(x)
	m.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), modelCtxKey{}, x)))
	// The response's body is closed by now: finish was called, or no
	// response came (failed).
	x.finish(m)
}

type countingReader struct {
	r io.Reader
	n *int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	atomic.AddInt64(c.n, int64(n))
	return n, err
}

// rewrite sends the request to the same path under the upstream URL. A
// tap is invisible: no X-Forwarded-* headers are added, and every header
// the client sent (its API key included) goes on as it was.
func (m *modelTap) rewrite(pr *httputil.ProxyRequest) {
	out, in := pr.Out, pr.In
	out.URL.Scheme, out.URL.Host = m.upstream.Scheme, m.upstream.Host
	base := strings.TrimSuffix(m.upstream.Path, "/")
	out.URL.Path = base + in.URL.Path
	out.URL.RawPath = ""
	if in.URL.RawPath != "" {
		out.URL.RawPath = strings.TrimSuffix(m.upstream.EscapedPath(), "/") + in.URL.RawPath
	}
	out.URL.RawQuery = in.URL.RawQuery
	out.Host = m.upstream.Host
}

func (m *modelTap) response(resp *http.Response) error {
	x, _ := resp.Request.Context().Value(modelCtxKey{}).(*modelExchange)
	if x == nil {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.entry.Status = resp.StatusCode
	x.entry.ResponseHeaders = headerFields(resp.Header)
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// A WebSocket (OpenAI's Responses API offers one): the proxy
		// needs the connection itself to copy both ways, so it passes
		// unread.
		x.entry.Problems = append(x.entry.Problems, "the connection was upgraded to "+resp.Header.Get("Upgrade")+": its messages pass through unread")
		return nil
	}
	x.respEnc = resp.Header.Get("Content-Encoding")
	x.sse = strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	resp.Body = &modelBody{ReadCloser: resp.Body, x: x, m: m}
	return nil
}

// failed answers a request the proxy could not pass on (the API did not
// answer, or answered what cannot be passed on): 502, and the tap's error
// in the record, a local failure and not the API's answer. The proxy
// calls it only before the client's response has started.
func (m *modelTap) failed(w http.ResponseWriter, r *http.Request, err error) {
	if x, _ := r.Context().Value(modelCtxKey{}).(*modelExchange); x != nil {
		x.mu.Lock()
		x.entry.Error = redact.URLs(err.Error())
		x.mu.Unlock()
	}
	http.Error(w, "mcpscope tap: the model API's answer could not be passed on: "+redact.URLs(err.Error()), http.StatusBadGateway)
}

// modelBody passes the API's answer on and keeps a copy (up to maxBody)
// for the record, read when the answer ends.
type modelBody struct {
	io.ReadCloser
	x *modelExchange
	m *modelTap
}

func (b *modelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.x.mu.Lock()
		b.x.entry.ResponseBytes += int64(n)
		if room := maxBody - b.x.resp.Len(); room > 0 {
			b.x.resp.Write(p[:min(n, room)])
		}
		if b.x.resp.Len() >= maxBody && b.x.entry.ResponseBytes > maxBody {
			b.x.respCut = true
		}
		b.x.mu.Unlock()
	}
	return n, err
}

func (b *modelBody) Close() error {
	err := b.ReadCloser.Close()
	b.x.finish(b.m)
	return err
}

// finish records the exchange once, off the copy's path: the answer has
// reached the client by the time it is read.
func (x *modelExchange) finish(m *modelTap) {
	x.done.Do(func() {
		go func() {
			defer m.pending.Done()
			x.mu.Lock()
			x.entry.DurationMs = float64(time.Since(x.start).Microseconds()) / 1000
			x.mu.Unlock()
			<-x.parsed
			m.readResponse(x)
			m.write(x)
		}()
	})
}

// readInOrder reads x's request off the copy's path, after the request
// that came before it.
func (m *modelTap) readInOrder(x *modelExchange) {
	x.parsed = make(chan struct{})
	m.mu.Lock()
	prev := m.lastParsed
	m.lastParsed = x.parsed
	m.mu.Unlock()
	go func() {
		defer close(x.parsed)
		if prev != nil {
			<-prev
		}
		m.readRequest(x)
	}()
}

// readRequest fills the entry from the request: model, tools, results.
func (m *modelTap) readRequest(x *modelExchange) {
	if x.entry.API == "" || x.reqBody == nil {
		return
	}
	body, err := decoded(x.reqBody, x.reqEnc, maxDecoded)
	var req modelapi.Request
	if err != nil {
		err = fmt.Errorf("the request: %w", err)
	} else {
		req, err = modelapi.ParseRequest(x.entry.API, body)
	}
	results := m.newResults(req.Results)
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		x.entry.Problems = append(x.entry.Problems, err.Error())
	}
	x.entry.Model, x.entry.Stream, x.entry.Tools, x.entry.Results = req.Model, req.Stream, req.Tools, results
}

// readResponse fills the entry from the answer: calls and usage.
func (m *modelTap) readResponse(x *modelExchange) {
	x.mu.Lock()
	defer x.mu.Unlock()
	api := x.entry.API
	if api == "" || x.entry.Status == 0 || x.resp.Len() == 0 {
		return
	}
	if x.respCut {
		x.entry.Problems = append(x.entry.Problems, fmt.Sprintf("the answer is over %d MiB: read up to there", maxBody>>20))
	}
	body, err := decoded(x.resp.Bytes(), x.respEnc, maxDecoded)
	if err != nil {
		x.entry.Problems = append(x.entry.Problems, "the answer: "+err.Error())
		return
	}
	if x.entry.Status >= 300 {
		return // an error of the API's: its body is neither calls nor usage
	}
	resp, err := modelapi.ParseResponse(api, x.sse, body)
	if err != nil {
		x.entry.Problems = append(x.entry.Problems, err.Error())
	}
	x.entry.Calls, x.entry.Usage = resp.Calls, resp.Usage
	if resp.Model != "" {
		x.entry.Model = resp.Model
	}
	if api == modelapi.Gemini {
		x.entry.Stream = x.sse || strings.HasSuffix(strings.SplitN(x.entry.Path, "?", 2)[0], ":streamGenerateContent")
	}
}

// newResults are the results no earlier request carried: a result is
// known by the call it answers, or (a Gemini result without an id) by
// its name and content.
func (m *modelTap) newResults(all []modelapi.Result) []modelapi.Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []modelapi.Result
	for _, r := range all {
		key := "id:" + r.ID
		if r.ID == "" {
			sum := sha256.Sum256(r.Content)
			key = fmt.Sprintf("name:%s:%x", r.Name, sum[:8])
		}
		if m.seen[key] {
			continue
		}
		if len(m.seen) >= maxSeenResults {
			m.seen = map[string]bool{}
		}
		m.seen[key] = true
		out = append(out, r)
	}
	return out
}

// maxDecoded bounds a decompressed body: a small gzip may hold a great
// deal.
const maxDecoded = 4 * maxBody

// decoded is a body without its Content-Encoding (gzip, deflate), at most
// limit bytes of it; other encodings are not read.
func decoded(body []byte, enc string, limit int64) ([]byte, error) {
	var r io.ReadCloser
	var err error
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(body))
	case "deflate":
		r, err = zlib.NewReader(bytes.NewReader(body))
	default:
		return nil, fmt.Errorf("encoded as %q, which the tap does not read", enc)
	}
	if err != nil {
		return nil, fmt.Errorf("its %s: %w", enc, err)
	}
	defer func() { _ = r.Close() }()
	out, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("its %s: %w", enc, err)
	}
	return out, nil
}

// write appends the exchange's line to the capture.
func (m *modelTap) write(x *modelExchange) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a path's & stays readable
	x.mu.Lock()
	err := enc.Encode(&x.entry)
	x.mu.Unlock()
	if err != nil {
		m.warn("a line of the capture: " + err.Error())
		return
	}
	m.w.Line(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	_ = m.w.Flush()
}

// modelRecordedHeaders are the headers a model capture keeps: what says
// which client and API version spoke, the credentials (redacted, to show
// they were sent), and the API's request ids.
var modelRecordedHeaders = []string{"Content-Type", "Content-Encoding", "Accept", "User-Agent",
	"Anthropic-Version", "Anthropic-Beta", "Openai-Organization", "Openai-Project", "X-Goog-Api-Client",
	"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Cookie", "Set-Cookie",
	"Request-Id", "X-Request-Id", "Retry-After"}

// headerFields are h's recorded headers, every credential redacted
// whatever --record-secrets says: it is the client's, not the user's.
func headerFields(h http.Header) []mcp.Field {
	var out []mcp.Field
	for _, k := range modelRecordedHeaders {
		for _, v := range h.Values(k) {
			out = append(out, mcp.Field{Key: k, Value: redact.Header(k, v)})
		}
	}
	return out
}
