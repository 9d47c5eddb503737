package tap

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
)

// guard keeps the HTTP tap a local server, as the spec asks of local
// Streamable HTTP servers (validate Origin; bind to localhost): a web page
// that rebinds a name to 127.0.0.1 would otherwise reach, through the
// user's machine, a server only that machine can reach.
type guard struct {
	listen  *net.TCPAddr // what the tap listens on
	public  bool         // --listen-public: any Host names this machine
	origins map[string]bool
	hosts   map[string]bool // the hosts of the allowed origins
	token   string          // --token: what every request must carry ("" for none)
	warn    func(string)
	warned  sync.Map // what has been said once on stderr
}

// TokenHeader and TokenParam carry the tap's --token: a header the
// client's config adds, or a parameter of the URL it is given. The tap
// removes both before it forwards a request.
const (
	TokenHeader = "Mcpscope-Tap-Token"
	TokenParam  = "mcpscope_tap_token"
)

func newGuard(listen *net.TCPAddr, public bool, allow []string, token string, warn func(string)) (*guard, error) {
	g := &guard{listen: listen, public: public, origins: map[string]bool{}, hosts: map[string]bool{}, token: token, warn: warn}
	for _, o := range allow {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, fmt.Errorf("tap: --allow-origin %q: an origin is scheme://host[:port], e.g. https://app.example.com", o)
		}
		g.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
		g.hosts[strings.ToLower(u.Host)] = true
	}
	return g, nil
}

// isLoopbackHost says whether a host (no port) names this machine's
// loopback interface.
func isLoopbackHost(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// refusal says why a request is refused ("" lets it through) and with
// which status.
func (g *guard) refusal(r *http.Request) (why string, status int) {
	if !g.hostAllowed(r.Host) {
		return fmt.Sprintf("its Host %q is not the tap's address %s (a name rebound to this machine?); mcpscope tap --allow-origin lets an origin's host through", r.Host, g.listen), http.StatusForbidden
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o, r.Host) {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("its Origin %s is not the tap's own (a sandboxed page or a file?)", o), http.StatusForbidden
		}
		return fmt.Sprintf("its Origin %s is not the tap's own (a web page's request?); mcpscope tap --allow-origin %s lets it through", o, o), http.StatusForbidden
	}
	if g.token != "" && !g.tokenGiven(r) {
		return "it does not carry the tap's token (the " + TokenHeader + " header, or ?" + TokenParam + "= in the URL the client was given)", http.StatusUnauthorized
	}
	return "", 0
}

// originAllowed: a client that is not a browser sends no Origin (the spec
// lets a server take that); a browser's request passes only from the
// tap's own origin (a page the tap's address served) or one the user
// allowed. Another local port is another program: a page of any local
// web server would otherwise reach the tapped server through the tap.
func (g *guard) originAllowed(o, host string) bool {
	return g.origins[strings.ToLower(o)] || strings.EqualFold(o, "http://"+host)
}

// tokenGiven says whether r carries the tap's token. A GET of the OAuth
// metadata (/.well-known/...) needs none: a client fetches it without
// the headers of its config, and it is public.
func (g *guard) tokenGiven(r *http.Request) bool {
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/.well-known/") {
		return true
	}
	given := r.Header.Get(TokenHeader)
	if given == "" {
		given = queryParam(r.URL.RawQuery, TokenParam)
	}
	return subtle.ConstantTimeCompare([]byte(given), []byte(g.token)) == 1
}

// queryParam is the first value of name in a raw query ("" when absent).
func queryParam(raw, name string) string {
	for _, kv := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == name {
			v, _ = url.QueryUnescape(v)
			return v
		}
	}
	return ""
}

// withoutToken removes the tap's token from a request before it is
// recorded or forwarded: the token is the tap's, not the server's. The
// rest of the query is kept byte for byte.
func withoutToken(r *http.Request) {
	r.Header.Del(TokenHeader)
	if !strings.Contains(r.URL.RawQuery, TokenParam) {
		return
	}
	var kept []string
	for _, kv := range strings.Split(r.URL.RawQuery, "&") {
		if k, _, _ := strings.Cut(kv, "="); k != TokenParam {
			kept = append(kept, kv)
		}
	}
	r.URL.RawQuery = strings.Join(kept, "&")
	r.RequestURI = r.URL.RequestURI()
}

func (g *guard) hostAllowed(hostport string) bool {
	if g.public || g.hosts[strings.ToLower(hostport)] {
		return true
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if port != fmt.Sprint(g.listen.Port) {
		return false
	}
	if ip := net.ParseIP(host); ip != nil && ip.Equal(g.listen.IP) {
		return true
	}
	return isLoopbackHost(host)
}

// check refuses a request the tap must not forward (403, or 401 without
// the token), with a row in the record and a line on stderr the first
// time for each cause; a request it lets through loses the tap's token.
func (g *guard) check(w http.ResponseWriter, r *http.Request, rec *recorder) bool {
	why, status := g.refusal(r)
	withoutToken(r)
	if why == "" {
		return true
	}
	statusText := fmt.Sprintf("%d %s", status, http.StatusText(status))
	summary := fmt.Sprintf("refused %s %s: %s", r.Method, redact.URLs(pathOf(r.URL)), why)
	rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "tap", Summary: summary,
		Fields: []mcp.Field{{Key: "Host", Value: r.Host}, {Key: "Origin", Value: r.Header.Get("Origin")}, {Key: "status", Value: statusText}},
		Err:    fmt.Errorf("the tap refused a request: %s", why)}})
	if _, said := g.warned.LoadOrStore(why, true); !said && g.warn != nil {
		g.warn(summary)
	}
	http.Error(w, "mcpscope tap: refused: "+why, status)
	return false
}
