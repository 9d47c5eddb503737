package format

import (
	"strings"
	"unicode/utf8"
)

// isURITemplate reports whether s is a URI Template of RFC 6570 section
// 2: literals (the URI characters, ucschar, iprivate and percent-encoded
// octets) and expressions: "{", an optional operator, then comma-separated
// varspecs, each a variable name with an optional ":max-length" prefix
// (1-9999) or "*" explode modifier, then "}". Expressions do not nest, so
// one pass with no stack suffices.
//
// The apostrophe is accepted in a literal: the RFC's ABNF leaves it out
// but its prose and the test suite treat it as a sub-delim like the rest.
func isURITemplate(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 || !isExpression(s[i+1:i+1+end]) {
				return false
			}
			i += end + 2
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 3
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isUCSChar(r) && !isIPrivate(r) {
				return false
			}
			i += n
		case c <= ' ' || c == 0x7f || strings.IndexByte("\"<>\\^`|}", c) >= 0:
			return false
		default:
			i++
		}
	}
	return true
}

// isExpression checks the inside of a template expression's braces.
func isExpression(s string) bool {
	if s != "" && strings.IndexByte("+#./;?&=,!@|", s[0]) >= 0 {
		s = s[1:]
	}
	for {
		comma := strings.IndexByte(s, ',')
		spec := s
		if comma >= 0 {
			spec = s[:comma]
		}
		if !isVarspec(spec) {
			return false
		}
		if comma < 0 {
			return true
		}
		s = s[comma+1:]
	}
}

// isVarspec checks varname [ ":" max-length / "*" ], where a varname is
// varchars (letters, digits, "_", percent-encoded octets) with single
// inner dots.
func isVarspec(s string) bool {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isAlpha(c) || isDigit(c) || c == '_':
			i++
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 3
		case c == '.':
			if i == 0 || s[i-1] == '.' || i+1 == len(s) {
				return false
			}
			i++
		default:
			goto modifier
		}
	}
modifier:
	if i == 0 || s[i-1] == '.' {
		return false
	}
	switch rest := s[i:]; {
	case rest == "" || rest == "*":
		return true
	case rest[0] == ':':
		n := rest[1:]
		return len(n) >= 1 && len(n) <= 4 && n[0] != '0' && isAllDigits(n)
	}
	return false
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
