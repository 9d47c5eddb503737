package schema

import (
	"strconv"
	"strings"
)

// maxInventedZeros bounds the zeros CanonicalNumber writes out that the
// text it was given held only as an exponent: 1e21 is written whole, 1e22
// keeps its exponent, so 1e999999999 costs what its text does.
const maxInventedZeros = 21

// CanonicalNumber is a JSON number's text in its plainest exact form, the
// way a form sends what was typed: "1e3" is 1000, "1.50" is 1.5, "-0" and
// "0.0e5" are 0, "25E-4" is 0.0025. It is exact (no floating point on the
// way) and never brings in an exponent the text did not have, so a long
// integer typed in full stays whole. A number whose plain form would
// invent more than maxInventedZeros zeros keeps an exponent ("1e400",
// "1.5e-30"); one whose exponent is beyond the range the validator tells
// apart is returned as given.
//
// ok is false when s is not exactly JSON's number syntax (no spaces, no
// "+1", "01", "1." or ".5"). integer reports whether the value is an
// integer as JSON Schema counts them: 1.0 and 1e3 are, 1.5e0 is not.
func CanonicalNumber(s string) (text string, integer, ok bool) {
	if !numberSyntax(s) {
		return "", false, false
	}
	d, ok := parseDecimal(s)
	if !ok {
		return "", false, false
	}
	if d.isZero() {
		return "0", true, true
	}
	integer = d.isInt()
	if d.exp >= maxExp || d.exp <= -maxExp {
		return s, integer, true // the exponent was clamped: only the text says it exactly
	}
	hadExp := strings.ContainsAny(s, "eE")
	n := len(d.digits)
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp >= n && (!hadExp || d.exp-n <= maxInventedZeros):
		b.WriteString(d.digits)
		b.WriteString(zeros(d.exp - n))
	case d.exp > 0 && d.exp < n:
		b.WriteString(d.digits[:d.exp])
		b.WriteByte('.')
		b.WriteString(d.digits[d.exp:])
	case d.exp <= 0 && (!hadExp || -d.exp <= maxInventedZeros):
		b.WriteString("0.")
		b.WriteString(zeros(-d.exp))
		b.WriteString(d.digits)
	default:
		// d.ddd × 10^(exp-1), the exponent as people write it.
		b.WriteString(d.digits[:1])
		if n > 1 {
			b.WriteByte('.')
			b.WriteString(d.digits[1:])
		}
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(d.exp - 1))
	}
	return b.String(), integer, true
}

// numberSyntax reports whether s is exactly a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberSyntax(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
