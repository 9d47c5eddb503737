package apps

import "strings"

// MaxHTMLBytes is the size of a view's HTML the doctor warns above: three
// quarters of the 1 MiB Qwen Code accepts by default, the smallest limit a
// host is known to apply.
const MaxHTMLBytes = 768 << 10

// DefaultCSP is the policy the spec asks a host to send with a view whose
// resource declares no csp (2026-01-26, host behavior), as it writes it.
const DefaultCSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; media-src 'self' data:; connect-src 'none'"

// Header is the Content-Security-Policy a host sends with the view. A nil
// CSP (none declared) gives DefaultCSP; a declared one widens it by its
// domains (connectDomains to connect-src, resourceDomains to script-,
// style-, img-, font- and media-src, frameDomains to frame-src,
// baseUriDomains to base-uri), with what the spec says an empty list
// means: frame-src 'none' and base-uri 'self'. Entries that could break
// out of their directive (see SafeSource) are left out; Rejected lists
// them.
func (c *CSP) Header() string {
	if c == nil {
		return DefaultCSP
	}
	res := safe(c.ResourceDomains)
	directives := []string{
		"default-src 'none'",
		join("script-src 'self' 'unsafe-inline'", res),
		join("style-src 'self' 'unsafe-inline'", res),
		join("img-src 'self' data:", res),
	}
	if len(res) > 0 {
		directives = append(directives, join("font-src 'self'", res))
	}
	directives = append(directives,
		join("media-src 'self' data:", res),
		orNone("connect-src", safe(c.ConnectDomains)),
		orNone("frame-src", safe(c.FrameDomains)),
	)
	if base := safe(c.BaseURIDomains); len(base) > 0 {
		directives = append(directives, join("base-uri", base))
	} else {
		directives = append(directives, "base-uri 'self'")
	}
	return strings.Join(directives, "; ")
}

// Rejected lists the declared entries Header leaves out, in the order
// declared: connect, resource, frame, then base URI domains.
func (c *CSP) Rejected() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, list := range [][]string{c.ConnectDomains, c.ResourceDomains, c.FrameDomains, c.BaseURIDomains} {
		for _, d := range list {
			if !SafeSource(d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// SafeSource reports whether a declared domain can stand as one CSP source
// expression: not empty, and no whitespace, control character, quote, comma
// or semicolon, any of which would let a server add sources or directives
// of its own choosing to the policy.
func SafeSource(d string) bool {
	if d == "" {
		return false
	}
	for _, r := range d {
		if r <= ' ' || r == 0x7f || r == ';' || r == ',' || r == '\'' || r == '"' {
			return false
		}
	}
	return true
}

func safe(list []string) []string {
	var out []string
	for _, d := range list {
		if SafeSource(d) {
			out = append(out, d)
		}
	}
	return out
}

func join(directive string, sources []string) string {
	if len(sources) == 0 {
		return directive
	}
	return directive + " " + strings.Join(sources, " ")
}

func orNone(directive string, sources []string) string {
	if len(sources) == 0 {
		return directive + " 'none'"
	}
	return join(directive, sources)
}
