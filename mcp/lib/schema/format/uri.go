package format

import (
	"strings"
	"unicode/utf8"
)

// URIs and IRIs by the grammar of RFC 3986 appendix A and RFC 3987 section
// 2.2 (an IRI may also hold the non-ASCII characters ucschar and, in its
// query, iprivate), parsed by hand in one pass. Go's net/url is not used:
// it accepts spaces, quotes and braces that no URI may hold, and refuses
// IPvFuture hosts that every URI may.

// isURI reports whether s is a URI (or, with iri, an IRI); with ref, a
// relative reference is accepted too.
func isURI(s string, iri, ref bool) bool {
	if n := schemeLen(s); n > 0 {
		return isHierPartEtc(s[n+1:], iri)
	}
	if !ref {
		return false
	}
	// relative-ref: a first path segment must not hold ':' (it would read
	// as a scheme); isHierPartEtc checks the rest.
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	if strings.IndexByte(s[:end], ':') >= 0 {
		return false
	}
	return isHierPartEtc(s, iri)
}

// schemeLen returns the length of s's scheme when s starts with one
// followed by ':', else 0.
func schemeLen(s string) int {
	if s == "" || !isAlpha(s[0]) {
		return 0
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i
		case isAlpha(c) || isDigit(c) || c == '+' || c == '-' || c == '.':
		default:
			return 0
		}
	}
	return 0
}

// isHierPartEtc checks what follows the scheme (or a whole relative
// reference): an optional "//" authority, a path, a query and a fragment.
func isHierPartEtc(s string, iri bool) bool {
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		if !isAuthority(s[:end], iri) {
			return false
		}
		s = s[end:]
	}
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if !isChars(s[:end], iri, false, "/:@") {
		return false
	}
	s = s[end:]
	if s != "" && s[0] == '?' {
		end = strings.IndexByte(s, '#')
		if end < 0 {
			end = len(s)
		}
		if !isChars(s[1:end], iri, true, "/:@?") {
			return false
		}
		s = s[end:]
	}
	if s != "" {
		return isChars(s[1:], iri, false, "/:@?")
	}
	return true
}

// isAuthority checks [ userinfo "@" ] host [ ":" port ].
func isAuthority(s string, iri bool) bool {
	if at := strings.IndexByte(s, '@'); at >= 0 {
		if !isChars(s[:at], iri, false, ":") {
			return false
		}
		s = s[at+1:]
	}
	if s != "" && s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 || !isIPLiteral(s[1:end]) {
			return false
		}
		s = s[end+1:]
		if s == "" {
			return true
		}
		if s[0] != ':' {
			return false
		}
		_, ok := digits(s[1:])
		return ok || len(s) == 1
	}
	if colon := strings.LastIndexByte(s, ':'); colon >= 0 {
		if _, ok := digits(s[colon+1:]); !ok && colon+1 < len(s) {
			return false
		}
		s = s[:colon]
	}
	return isChars(s, iri, false, "") // reg-name
}

// isIPLiteral checks the inside of a host's brackets: an IPv6 address,
// optionally with an RFC 6874 zone ("%25" and the zone), or an IPvFuture.
func isIPLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		for i := dot + 1; i < len(s); i++ {
			if c := s[i]; !isUnreserved(c) && !isSubDelim(c) && c != ':' {
				return false
			}
		}
		return true
	}
	if zone := strings.Index(s, "%25"); zone >= 0 {
		if zone+3 == len(s) || !isChars(s[zone+3:], false, false, "") {
			return false
		}
		s = s[:zone]
	}
	return isIPv6(s)
}

func isUnreserved(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

// isChars reports whether s holds only unreserved characters, sub-delims,
// percent-encoded octets and the characters of extra; with iri, also
// ucschar, and with private, iprivate too.
func isChars(s string, iri, private bool, extra string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if c == '%' {
				if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
					return false
				}
				i += 3
				continue
			}
			if !isUnreserved(c) && !isSubDelim(c) && strings.IndexByte(extra, c) < 0 {
				return false
			}
			i++
		case iri:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !(isUCSChar(r) || private && isIPrivate(r)) {
				return false
			}
			i += n
		default:
			return false
		}
	}
	return true
}

// isUCSChar reports whether r is a ucschar of RFC 3987.
func isUCSChar(r rune) bool {
	switch {
	case r < 0xA0:
		return false
	case r <= 0xD7FF, 0xF900 <= r && r <= 0xFDCF, 0xFDF0 <= r && r <= 0xFFEF:
		return true
	case 0x10000 <= r && r <= 0xDFFFD, 0xE1000 <= r && r <= 0xEFFFD:
		return r&0xFFFF <= 0xFFFD // each plane minus its last two noncharacters
	}
	return false
}

// isIPrivate reports whether r is an iprivate of RFC 3987 (query only).
func isIPrivate(r rune) bool {
	return 0xE000 <= r && r <= 0xF8FF || 0xF0000 <= r && r <= 0xFFFFD || 0x100000 <= r && r <= 0x10FFFD
}
