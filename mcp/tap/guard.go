package tap

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
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
	warn    func(string)
	warned  sync.Map // what has been said once on stderr
}

func newGuard(listen *net.TCPAddr, public bool, allow []string, warn func(string)) (*guard, error) {
	g := &guard{listen: listen, public: public, origins: map[string]bool{}, hosts: map[string]bool{}, warn: warn}
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

// refusal says why a request is refused; "" lets it through.
func (g *guard) refusal(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o) {
		return fmt.Sprintf("its Origin %s is not this machine (a web page's request?); mcpscope tap --allow-origin %s lets it through", o, o)
	}
	if !g.hostAllowed(r.Host) {
		return fmt.Sprintf("its Host %q is not the tap's address %s (a name rebound to this machine?); mcpscope tap --allow-origin lets an origin's host through", r.Host, g.listen)
	}
	return ""
}

func (g *guard) originAllowed(o string) bool {
	if g.origins[strings.ToLower(o)] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" (a sandboxed page, a file) included
	}
	return isLoopbackHost(u.Hostname())
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

// check refuses a request the tap must not forward: 403, a row in the
// record, and a line on stderr the first time for each cause.
func (g *guard) check(w http.ResponseWriter, r *http.Request, rec *recorder) bool {
	why := g.refusal(r)
	if why == "" {
		return true
	}
	summary := fmt.Sprintf("refused %s %s: %s", r.Method, pathOf(r.URL), why)
	rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "tap", Summary: summary,
		Fields: []mcp.Field{{Key: "Host", Value: r.Host}, {Key: "Origin", Value: r.Header.Get("Origin")}, {Key: "status", Value: "403 Forbidden"}},
		Err:    fmt.Errorf("the tap refused a request: %s", why)}})
	if _, said := g.warned.LoadOrStore(why, true); !said && g.warn != nil {
		g.warn(summary)
	}
	http.Error(w, "mcpscope tap: refused: "+why, http.StatusForbidden)
	return false
}
