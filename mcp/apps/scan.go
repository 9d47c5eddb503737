package apps

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Ref is one absolute URL a view's HTML loads or connects to, found by a
// static scan: what the markup and the literal strings say, not what the
// view's scripts compute when they run.
type Ref struct {
	// URL is as written (a protocol-relative //host/path included).
	URL string
	// Directive is the CSP directive that governs it (script-src,
	// style-src, img-src, font-src, media-src, connect-src, frame-src,
	// object-src).
	Directive string
	// Where says what in the HTML names it: "<script src>", "fetch()".
	Where string
}

// Field is the _meta.ui.csp list whose domains widen a directive ("" for
// object-src, which nothing widens).
func (r Ref) Field() string {
	switch r.Directive {
	case "connect-src":
		return "connectDomains"
	case "frame-src":
		return "frameDomains"
	case "object-src":
		return ""
	}
	return "resourceDomains"
}

// Origin is the URL's scheme://host[:port] (https assumed for a
// protocol-relative URL), for the domain to declare.
func (r Ref) Origin() string {
	u, err := url.Parse(absolute(r.URL))
	if err != nil || u.Host == "" {
		return r.URL
	}
	return u.Scheme + "://" + u.Host
}

// The scan's patterns. An HTML parser is not used on purpose: this is a
// scan of what the bytes name, and golang.org/x/net/html would build its
// entity table at every start of mcpscope, for every command.
type scanPatterns struct {
	tag, attr, script, style, fontFace, cssURL, cssImport *regexp.Regexp
	connect, xhr, jsImport                                *regexp.Regexp
}

var patterns = sync.OnceValue(func() *scanPatterns {
	const abs = `((?:(?:https?|wss?):)?//[^"'\x60\s)<>]+)`
	return &scanPatterns{
		tag:       regexp.MustCompile(`(?is)<(script|link|img|image|source|video|audio|track|iframe|embed|object|input)\b((?:[^>"']|"[^"]*"|'[^']*')*)>`),
		attr:      regexp.MustCompile(`(?is)([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>\x60]+))`),
		script:    regexp.MustCompile(`(?is)<script\b[^>]*>(.*?)</script\s*>`),
		style:     regexp.MustCompile(`(?is)<style\b[^>]*>(.*?)</style\s*>|\bstyle\s*=\s*(?:"([^"]*)"|'([^']*)')`),
		fontFace:  regexp.MustCompile(`(?is)@font-face\s*\{[^}]*\}`),
		cssURL:    regexp.MustCompile(`(?i)url\(\s*["']?` + abs),
		cssImport: regexp.MustCompile(`(?i)@import\s+(?:url\(\s*)?["']?` + abs),
		connect:   regexp.MustCompile(`\b(fetch|WebSocket|EventSource|sendBeacon)\s*\(\s*["'\x60]` + abs),
		xhr:       regexp.MustCompile(`\.open\(\s*["'][A-Za-z]+["']\s*,\s*["'\x60]` + abs),
		jsImport:  regexp.MustCompile(`\bimport\s*(?:\(\s*|[\w$*{}\s,]+from\s*)["'\x60]` + abs),
	}
})

// ScanHTML lists the absolute URLs a view's HTML loads scripts, styles,
// images, fonts, media and frames from, and the fetch, XMLHttpRequest,
// WebSocket, EventSource and sendBeacon URLs written in its scripts as
// literals. Relative URLs are left out: they stay on the view's origin.
func ScanHTML(html string) []Ref {
	p := patterns()
	var out []Ref
	seen := map[[2]string]bool{}
	add := func(raw, directive, where string) {
		raw = strings.TrimSpace(raw)
		if !isAbsolute(raw) || seen[[2]string{raw, directive}] {
			return
		}
		seen[[2]string{raw, directive}] = true
		out = append(out, Ref{URL: raw, Directive: directive, Where: where})
	}
	for _, m := range p.tag.FindAllStringSubmatch(html, -1) {
		tag, attrs := strings.ToLower(m[1]), attributes(p, m[2])
		switch tag {
		case "script":
			add(attrs["src"], "script-src", "<script src>")
		case "link":
			linkRef(attrs, add)
		case "img", "image":
			add(attrs["src"], "img-src", "<"+tag+" src>")
			add(attrs["href"], "img-src", "<"+tag+" href>")
			for _, u := range srcset(attrs["srcset"]) {
				add(u, "img-src", "<"+tag+" srcset>")
			}
		case "input":
			if strings.EqualFold(attrs["type"], "image") {
				add(attrs["src"], "img-src", "<input src>")
			}
		case "source":
			// A <source> with srcset is a picture's; with src, a video's or
			// an audio's.
			for _, u := range srcset(attrs["srcset"]) {
				add(u, "img-src", "<source srcset>")
			}
			add(attrs["src"], "media-src", "<source src>")
		case "video", "audio", "track":
			add(attrs["src"], "media-src", "<"+tag+" src>")
			add(attrs["poster"], "img-src", "<video poster>")
		case "iframe":
			add(attrs["src"], "frame-src", "<iframe src>")
		case "embed":
			add(attrs["src"], "object-src", "<embed src>")
		case "object":
			add(attrs["data"], "object-src", "<object data>")
		}
	}
	for _, m := range p.style.FindAllStringSubmatch(html, -1) {
		css := m[1] + m[2] + m[3]
		for _, f := range p.fontFace.FindAllString(css, -1) {
			for _, u := range p.cssURL.FindAllStringSubmatch(f, -1) {
				add(u[1], "font-src", "@font-face url()")
			}
		}
		for _, u := range p.cssImport.FindAllStringSubmatch(css, -1) {
			add(u[1], "style-src", "@import")
		}
		rest := p.cssImport.ReplaceAllString(p.fontFace.ReplaceAllString(css, ""), "")
		for _, u := range p.cssURL.FindAllStringSubmatch(rest, -1) {
			add(u[1], "img-src", "CSS url()")
		}
	}
	for _, m := range p.script.FindAllStringSubmatch(html, -1) {
		js := m[1]
		for _, u := range p.connect.FindAllStringSubmatch(js, -1) {
			add(u[2], "connect-src", u[1]+"()")
		}
		for _, u := range p.xhr.FindAllStringSubmatch(js, -1) {
			add(u[1], "connect-src", "XMLHttpRequest open()")
		}
		for _, u := range p.jsImport.FindAllStringSubmatch(js, -1) {
			add(u[1], "script-src", "import")
		}
	}
	return out
}

// linkRef sorts a <link> by its rel (and a preload's as).
func linkRef(attrs map[string]string, add func(raw, directive, where string)) {
	rels := strings.Fields(strings.ToLower(attrs["rel"]))
	href := attrs["href"]
	switch {
	case slices.Contains(rels, "stylesheet"):
		add(href, "style-src", "<link rel=stylesheet>")
	case slices.Contains(rels, "modulepreload"):
		add(href, "script-src", "<link rel=modulepreload>")
	case slices.Contains(rels, "preload"):
		directive := map[string]string{"script": "script-src", "style": "style-src", "font": "font-src", "image": "img-src",
			"audio": "media-src", "video": "media-src", "fetch": "connect-src"}[strings.ToLower(attrs["as"])]
		if directive != "" {
			add(href, directive, "<link rel=preload>")
		}
	case slices.Contains(rels, "icon"), slices.Contains(rels, "apple-touch-icon"):
		add(href, "img-src", "<link rel=icon>")
	}
}

// attributes reads a tag's attributes, names lowercased; the first of a
// repeated name counts, as in a browser.
func attributes(p *scanPatterns, s string) map[string]string {
	out := map[string]string{}
	for _, a := range p.attr.FindAllStringSubmatch(s, -1) {
		name := strings.ToLower(a[1])
		if _, dup := out[name]; !dup {
			out[name] = a[2] + a[3] + a[4]
		}
	}
	return out
}

// srcset lists a srcset's URLs.
func srcset(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if f := strings.Fields(c); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

func isAbsolute(raw string) bool {
	l := strings.ToLower(raw)
	for _, p := range []string{"http://", "https://", "ws://", "wss://", "//"} {
		if strings.HasPrefix(l, p) && len(l) > len(p) {
			return true
		}
	}
	return false
}

// absolute gives a protocol-relative URL the scheme a view served over
// https would load it with.
func absolute(raw string) string {
	if strings.HasPrefix(raw, "//") {
		return "https:" + raw
	}
	return raw
}

// Allows reports whether the policy Header sends lets the view load u
// under directive (a directive the policy lacks falls back to
// default-src, as in a browser). 'self' never matches: the scan's URLs
// are absolute, and the view's own origin is the host's sandbox.
func (c *CSP) Allows(directive, rawURL string) bool {
	u, err := url.Parse(absolute(rawURL))
	if err != nil || u.Host == "" {
		return false
	}
	policy := map[string][]string{}
	for _, d := range strings.Split(c.Header(), ";") {
		f := strings.Fields(d)
		if len(f) > 0 {
			policy[f[0]] = f[1:]
		}
	}
	sources, ok := policy[directive]
	if !ok {
		sources = policy["default-src"]
	}
	for _, s := range sources {
		if sourceMatches(s, u) {
			return true
		}
	}
	return false
}

// sourceMatches matches one CSP source expression against a URL, as CSP
// Level 3 does for host and scheme sources: a scheme-less host matches
// http(s) and ws(s); http also matches https, ws matches wss, http and
// https, wss matches https; *.host matches subdomains only; no port means
// the scheme's default; a path ending in / is a prefix.
func sourceMatches(src string, u *url.URL) bool {
	s := strings.ToLower(src)
	scheme := strings.ToLower(u.Scheme)
	switch {
	case s == "*":
		return scheme == "http" || scheme == "https" || scheme == "ws" || scheme == "wss"
	case strings.HasPrefix(s, "'"):
		return false // 'self', 'none', 'unsafe-inline', nonces and hashes
	case strings.HasSuffix(s, ":") && !strings.Contains(s, "/"):
		return schemeMatches(strings.TrimSuffix(s, ":"), scheme)
	}
	srcScheme := ""
	if i := strings.Index(s, "://"); i >= 0 {
		srcScheme, s = s[:i], s[i+3:]
		if !schemeMatches(srcScheme, scheme) {
			return false
		}
	} else if scheme != "http" && scheme != "https" && scheme != "ws" && scheme != "wss" {
		return false
	}
	hostPort, path := s, ""
	if i := strings.Index(s, "/"); i >= 0 {
		hostPort, path = s[:i], s[i:]
	}
	host, port := hostPort, ""
	if i := strings.LastIndex(hostPort, ":"); i >= 0 && !strings.Contains(hostPort[i:], "]") {
		host, port = hostPort[:i], hostPort[i+1:]
	}
	uHost := strings.ToLower(u.Hostname())
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		if !strings.HasSuffix(uHost, "."+rest) {
			return false
		}
	} else if host != uHost {
		return false
	}
	if port != "*" {
		want := port
		if want == "" {
			want = defaultPort(srcScheme)
			if srcScheme == "" {
				want = defaultPort(scheme)
			}
		}
		got := u.Port()
		if got == "" {
			got = defaultPort(scheme)
		}
		// A source's default port admits the upgraded scheme's default.
		if got != want && !(port == "" && (got == "443" && want == "80")) {
			return false
		}
	}
	if path != "" && path != "/" {
		p := u.EscapedPath()
		if strings.HasSuffix(path, "/") {
			return strings.HasPrefix(p, path)
		}
		return p == path
	}
	return true
}

func schemeMatches(src, scheme string) bool {
	switch src {
	case scheme:
		return true
	case "http":
		return scheme == "https"
	case "ws":
		return scheme == "wss" || scheme == "http" || scheme == "https"
	case "wss":
		return scheme == "https"
	}
	return false
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	}
	return ""
}
