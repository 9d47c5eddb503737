// Package host is mcpscope's MCP Apps host: a web page served on loopback
// that renders a tool's view the way the MCP Apps specification asks of a
// web host, and the bridge (JSON-RPC over postMessage) between that view and
// mcpscope.
//
// Two listeners on 127.0.0.1, each on a random port, make two origins: the
// host page's and the sandbox's. The host page holds a sandboxed iframe
// (allow-scripts allow-same-origin) on the sandbox origin; the sandbox page
// is served with the view's Content-Security-Policy as a response header,
// tells the host it is ready, receives the view's HTML and writes it into an
// inner frame, which inherits that policy. Every path carries an unguessable
// token; a request with a wrong token, a Host header other than the
// listener's own address or an Origin other than the listener's own is
// refused, so another site in the same browser or a DNS-rebinding name
// cannot reach it.
//
// The bridge is written here, not taken from the SDK: every message reaches
// OnEvent exactly as the page serialised it, and the host's answers are
// ours to shape. The host page only relays: the view's messages go to
// mcpscope over a WebSocket, mcpscope's go back through postMessage.
package host

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
)

//go:embed assets
var assets embed.FS

// Forwarder sends a view's request (tools/call, resources/read) to the
// server through mcpscope's session. rpcErr is the server's JSON-RPC error
// when it answered with one; err is a local failure (no connection, a
// timeout). A nil Forwarder makes the host read-only: every such request is
// answered with a JSON-RPC error that says so.
type Forwarder func(ctx context.Context, view *View, method string, params json.RawMessage) (result json.RawMessage, rpcErr *mcp.RPCError, err error)

// ErrReadOnly is wrapped by a Forwarder's error for a view whose source
// cannot send (a tap's capture, a session file): the view gets a JSON-RPC
// error that says so, and the row is a read-only one, not a failure.
var ErrReadOnly = errors.New("the source is read-only")

// Options configure a Server.
type Options struct {
	// Theme is "light" or "dark" (the default), from mcpscope's theme.
	Theme string
	// Locale is a BCP 47 tag; "en-US" when empty.
	Locale string
	// TimeZone is an IANA zone name; the local zone's name when empty.
	TimeZone string
	// Version is mcpscope's version, sent as hostInfo.version.
	Version string
	// Forward sends the view's server requests; nil for a read-only source.
	Forward Forwarder
	// ReadOnly says why there is no Forward (shown to the view in the
	// error it gets), e.g. "the source is a tap's capture".
	ReadOnly string
	// OpenLink asks the person before a ui/open-link is opened; it returns
	// whether the URL was opened. Nil refuses every link. The host has
	// already checked the URL is http or https.
	OpenLink func(ctx context.Context, view *View, url string) bool
	// Tools, when set, gives the server's tools/list entries: a view's
	// tools/call of a tool whose visibility excludes "app" is then refused,
	// as the spec asks hosts to, and is a problem row.
	Tools func() []json.RawMessage
	// OnEvent receives every bridge message both ways and every report of
	// the page (CSP violations, console errors, load failures), in order
	// per view. It must not block for long.
	OnEvent func(Event)
	// InitTimeout is how long a view may take from load to ui/initialize
	// before a KindProblem event says it never initialised; 5 s when zero.
	InitTimeout time.Duration
}

// Server is a running host: two loopback listeners and the views added to it.
type Server struct {
	opts        Options
	token       string
	hostLn      net.Listener
	sandboxLn   net.Listener
	hostAddr    string // 127.0.0.1:port
	sandboxAddr string
	hostSrv     *http.Server
	sandboxSrv  *http.Server

	mu     sync.Mutex
	views  map[string]*View
	conns  map[string]*bridge // the live bridge of each view, by view ID
	nextID int
	closed bool
}

// Start listens on two random loopback ports and serves until Close.
func Start(opts Options) (*Server, error) {
	if opts.Theme != "light" {
		opts.Theme = "dark"
	}
	if opts.Locale == "" {
		opts.Locale = "en-US"
	}
	if opts.TimeZone == "" {
		opts.TimeZone = localZone()
	}
	if opts.InitTimeout == 0 {
		opts.InitTimeout = 5 * time.Second
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("apps host: token: %w", err)
	}
	s := &Server{opts: opts, token: base64.RawURLEncoding.EncodeToString(tok),
		views: map[string]*View{}, conns: map[string]*bridge{}}
	var err error
	if s.hostLn, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("apps host: listen: %w", err)
	}
	if s.sandboxLn, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		_ = s.hostLn.Close()
		return nil, fmt.Errorf("apps host: listen: %w", err)
	}
	s.hostAddr, s.sandboxAddr = s.hostLn.Addr().String(), s.sandboxLn.Addr().String()
	s.hostSrv = &http.Server{Handler: s.guard(s.hostAddr, http.HandlerFunc(s.serveHost)), ReadHeaderTimeout: 10 * time.Second}
	s.sandboxSrv = &http.Server{Handler: s.guard(s.sandboxAddr, http.HandlerFunc(s.serveSandbox)), ReadHeaderTimeout: 10 * time.Second}
	go s.hostSrv.Serve(s.hostLn)       //nolint:errcheck // ends with Close
	go s.sandboxSrv.Serve(s.sandboxLn) //nolint:errcheck // ends with Close
	return s, nil
}

// HostOrigin is the host page's origin, e.g. http://127.0.0.1:41234.
func (s *Server) HostOrigin() string { return "http://" + s.hostAddr }

// SandboxOrigin is the origin the views run on, a port other than the host's.
func (s *Server) SandboxOrigin() string { return "http://" + s.sandboxAddr }

// Add registers a view and returns it with its ID and URL set. The view's
// fields must not change afterwards, except through SetResult.
func (s *Server) Add(v View) *View {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	v.ID = strconv.Itoa(s.nextID)
	v.URL = s.HostOrigin() + "/" + s.token + "/view/" + v.ID
	v.settled = make(chan struct{})
	v.tl = &timeline{changed: make(chan struct{})}
	if v.Result != nil || v.Cancelled != "" {
		close(v.settled)
	}
	p := &v
	s.views[v.ID] = p
	return p
}

// SetResult gives a view added before its call returned the call's result
// (or, with result nil, the reason it was cancelled). A view already
// initialised gets tool-result or tool-cancelled now.
func (s *Server) SetResult(v *View, result json.RawMessage, cancelled string) {
	s.mu.Lock()
	if v.Result != nil || v.Cancelled != "" {
		s.mu.Unlock()
		return
	}
	v.Result, v.Cancelled = result, cancelled
	close(v.settled)
	s.mu.Unlock()
}

// Close tears down every open view (ui/resource-teardown, answered or not
// within ctx) and stops both listeners.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	var open []*bridge
	for _, b := range s.conns {
		open = append(open, b)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, b := range open {
		wg.Add(1)
		go func() { defer wg.Done(); b.teardown(ctx) }()
	}
	wg.Wait()
	return errors.Join(s.hostSrv.Close(), s.sandboxSrv.Close())
}

// Teardown sends the view's open page ui/resource-teardown and waits for
// its answer (or ctx), as a host does before it removes a view; the
// connection is closed after. A view with no page open is left alone.
func (s *Server) Teardown(ctx context.Context, v *View) {
	s.mu.Lock()
	b := s.conns[v.ID]
	s.mu.Unlock()
	if b != nil {
		b.teardown(ctx)
	}
}

// guard refuses what is not for this listener: a Host header other than its
// own address (DNS rebinding), an Origin other than its own (another site
// in the same browser), a path without the token.
func (s *Server) guard(addr string, next http.Handler) http.Handler {
	origin := "http://" + addr
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != addr {
			http.Error(w, "mcpscope: this host serves "+addr+" only", http.StatusMisdirectedRequest)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != origin {
			http.Error(w, "mcpscope: cross-origin request refused", http.StatusForbidden)
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, "/")
		tok, rest, _ := strings.Cut(rest, "/")
		if !ok || subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
			http.NotFound(w, r)
			return
		}
		r.URL.Path = "/" + rest
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) view(id string) *View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.views[id]
}

// hostPage is parsed at the first preview, not at every start of every
// command.
var hostPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(assets, "assets/host.html"))
})

// serveHost serves the host page, its script and its WebSocket.
func (s *Server) serveHost(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "mcpscope: GET only", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case r.URL.Path == "/host.js":
		serveAsset(w, "assets/host.js", "text/javascript; charset=utf-8")
	case strings.HasPrefix(r.URL.Path, "/view/"):
		v := s.view(strings.TrimPrefix(r.URL.Path, "/view/"))
		if v == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src "+
			"ws://"+s.hostAddr+"; frame-src "+s.SandboxOrigin()+"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		hostPage().Execute(w, map[string]string{ //nolint:errcheck // a write error is the browser gone
			"Title":         v.Tool.Name,
			"Template":      v.Resource.URI,
			"Token":         s.token,
			"WS":            "ws://" + s.hostAddr + "/" + s.token + "/ws/" + v.ID,
			"SandboxOrigin": s.SandboxOrigin(),
			"SandboxURL":    s.SandboxOrigin() + "/" + s.token + "/sandbox/" + v.ID,
			"Theme":         s.opts.Theme,
		})
	case strings.HasPrefix(r.URL.Path, "/ws/"):
		v := s.view(strings.TrimPrefix(r.URL.Path, "/ws/"))
		if v == nil {
			http.NotFound(w, r)
			return
		}
		// The guard has checked Origin already; Accept checks it again
		// against the Host, which the guard has pinned.
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.SetReadLimit(maxMessage)
		s.run(r.Context(), v, c)
	default:
		http.NotFound(w, r)
	}
}

// serveSandbox serves the sandbox page, under the view's CSP, and its script.
func (s *Server) serveSandbox(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "mcpscope: GET only", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case r.URL.Path == "/sandbox.js":
		serveAsset(w, "assets/sandbox.js", "text/javascript; charset=utf-8")
	case strings.HasPrefix(r.URL.Path, "/sandbox/"):
		v := s.view(strings.TrimPrefix(r.URL.Path, "/sandbox/"))
		if v == nil {
			http.NotFound(w, r)
			return
		}
		// The view's policy is the sandbox page's, and the inner frame the
		// view is written into inherits it; the page's own script comes
		// from 'self', which every policy the spec builds allows.
		csp := v.Resource.CSP
		if csp == "" {
			csp = apps.DefaultCSP
		}
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = fmt.Fprintf(w, "<!doctype html><html><head><meta charset=\"utf-8\"><title>mcpscope sandbox</title>"+
			"<style>html,body{margin:0;padding:0;height:100%%}iframe{border:0;width:100%%;height:100%%;display:block}</style></head>"+
			"<body><script src=\"/%s/sandbox.js\" data-host=\"%s\"></script></body></html>",
			s.token, template.HTMLEscapeString(s.HostOrigin()))
	default:
		http.NotFound(w, r)
	}
}

func serveAsset(w http.ResponseWriter, name, contentType string) {
	b, err := assets.ReadFile(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(b) //nolint:errcheck // a write error is the browser gone
}

func localZone() string {
	if z := time.Local.String(); z != "" && z != "Local" {
		return z
	}
	return "UTC"
}
