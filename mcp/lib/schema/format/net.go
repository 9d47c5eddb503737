package format

import (
	"net/netip"
	"strings"
	"unicode/utf8"
)

// isIPv4 reports whether s is a dotted-quad IPv4 address (RFC 2673 section
// 3.2): four decimals 0-255 without signs or leading zeros, which some
// parsers read as octal.
func isIPv4(s string) bool {
	for part := 0; part < 4; part++ {
		if part > 0 {
			if s == "" || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
		i := 0
		for i < len(s) && i < 4 && isDigit(s[i]) {
			i++
		}
		n, ok := digits(s[:i])
		if !ok || n > 255 || i > 1 && s[0] == '0' {
			return false
		}
		s = s[i:]
	}
	return s == ""
}

// isIPv6 reports whether s is an IPv6 address of RFC 4291 section 2.2,
// without brackets, prefix length or zone (a zone is local to one host and
// not part of the address).
func isIPv6(s string) bool {
	if strings.IndexByte(s, ':') < 0 || strings.IndexByte(s, '%') >= 0 {
		return false
	}
	_, err := netip.ParseAddr(s)
	return err == nil
}

// isHostname reports whether s is a host name of RFC 1123 section 2.1:
// dot-separated labels of letters, digits and inner hyphens, each 1-63
// octets, 253 in all. A label starting "xn--" is an IDNA A-label and must
// decode to a valid U-label (RFC 5891 section 5.4).
func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	aLabels := false
	for rest := s; ; {
		dot := strings.IndexByte(rest, '.')
		label := rest
		if dot >= 0 {
			label = rest[:dot]
		}
		if !isLDHLabel(label) {
			return false
		}
		aLabels = aLabels || isALabelPrefix(label)
		if dot < 0 {
			break
		}
		rest = rest[dot+1:]
	}
	// A-labels must decode to valid U-labels, and the Bidi rule spans
	// the whole name: isIDNHostname knows both.
	return !aLabels || isIDNHostname(s)
}

// isLDHLabel reports whether label is 1-63 letters, digits and hyphens,
// not starting or ending with a hyphen.
func isLDHLabel(label string) bool {
	if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		if c := label[i]; !isAlpha(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

func isALabelPrefix(label string) bool {
	return len(label) >= 4 && label[2] == '-' && label[3] == '-' &&
		(label[0] == 'x' || label[0] == 'X') && (label[1] == 'n' || label[1] == 'N')
}

// isEmail reports whether s is an e-mail address: RFC 5321's Mailbox
// (a dot-atom or quoted local part, then a domain or an address literal)
// or, with idn, RFC 6531's, whose local part may hold any non-ASCII
// character and whose domain is an internationalized host name.
func isEmail(s string, idn bool) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 || !isLocalPart(local, idn) || idn && !utf8.ValidString(local) {
		return false
	}
	if len(domain) > 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(lit)
	}
	if idn {
		return isIDNHostname(domain)
	}
	return isHostname(domain)
}

// isLocalPart checks an e-mail's local part: a dot-atom (atext runs joined
// by single dots) or a quoted string of printable characters and quoted
// pairs.
func isLocalPart(local string, idn bool) bool {
	if len(local) >= 2 && local[0] == '"' && local[len(local)-1] == '"' {
		q := local[1 : len(local)-1]
		for i := 0; i < len(q); i++ {
			c := q[i]
			switch {
			case c == '\\':
				i++
				if i == len(q) || q[i] < 0x20 || q[i] > 0x7e {
					return false
				}
			case c == '"':
				return false
			case c >= 0x80:
				if !idn {
					return false
				}
			case c < 0x20 || c == 0x7f:
				return false
			}
		}
		return true
	}
	if local == "" || local[0] == '.' || local[len(local)-1] == '.' {
		return false
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		switch {
		case c == '.':
			if local[i-1] == '.' {
				return false
			}
		case c >= 0x80:
			if !idn {
				return false
			}
		case !isAtext(c):
			return false
		}
	}
	return true
}

// isAtext reports whether c is an ASCII atext character of RFC 5322.
func isAtext(c byte) bool {
	return isAlpha(c) || isDigit(c) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}
