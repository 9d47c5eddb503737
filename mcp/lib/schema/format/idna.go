package format

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// Internationalized host names (IDNA2008: RFC 5890-5893) are checked by
// golang.org/x/net/idna's registration profile: Punycode, each code
// point's status, the joiners' context, the Bidi rule and the DNS lengths.
// That profile follows UTS #46, which is more permissive than IDNA2008 in
// three ways that isIDNHostname closes: it accepts the symbols and
// punctuation IDNA2003 allowed (UTS #46's NV8), it knows nothing of RFC
// 5892's list of exceptions, and it leaves out the CONTEXTO rules of RFC
// 5892 appendix A. Hyphens are checked here too, as RFC 5891 asks of
// U-labels only: an ASCII label is a host name's ("ab--cd" is one).
//
// Two leniencies are kept: upper-case letters are accepted (every resolver
// folds them first, and IDNA2008 leaves mapping to the application), and a
// name need not be in NFC (the test suite holds a decomposed "café" valid
// in an e-mail domain), though a code point that NFC alone replaces (the
// Angstrom sign, a composition exclusion) is refused, as IDNA2008 refuses
// it.

// maxIDNBytes bounds the input looked at: a name over 253 octets in ASCII
// form is invalid whatever it holds, and no code point takes more than 16
// bytes of UTF-8 (a decomposed Hangul syllable, 9) for one of those octets.
const maxIDNBytes = 16 * 253

// idnaProfile is x/net/idna's registration profile without its hyphen
// rules, which it applies to ASCII labels too.
var idnaProfile = idna.New(idna.ValidateForRegistration(), idna.CheckHyphens(false))

// isIDNHostname reports whether s is an internationalized host name:
// labels separated by "." or the ideographic, fullwidth and halfwidth full
// stops, each a valid label, 253 octets at most in ASCII (A-label) form.
func isIDNHostname(s string) bool {
	if s == "" || len(s) > maxIDNBytes || !utf8.ValidString(s) {
		return false
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == 0x3002 || r == 0xFF0E || r == 0xFF61:
			r = '.'
		case r >= utf8.RuneSelf && norm.NFC.String(string(r)) != string(r):
			return false
		case unicode.IsUpper(r):
			if l := unicode.ToLower(r); l >= utf8.RuneSelf || r < utf8.RuneSelf {
				r = l // not the Kelvin sign, which would become an ASCII k
			}
		}
		b.WriteRune(r)
	}
	name := norm.NFC.String(b.String())
	ascii, err := idnaProfile.ToASCII(name)
	if err != nil {
		return false
	}
	for label := range strings.SplitSeq(ascii, ".") {
		if !isALabelPrefix(label) {
			if !isLDHLabel(label) { // "" too: a trailing dot, which the profile takes for the root
				return false
			}
			continue
		}
		u, err := idna.Punycode.ToUnicode(label)
		if err != nil || !uLabelHyphens(u) || !idna2008Label([]rune(u)) {
			return false
		}
	}
	return true
}

// uLabelHyphens is RFC 5891 section 4.2.3.1: a U-label neither starts nor
// ends with a hyphen, nor has two in its third and fourth positions.
func uLabelHyphens(u string) bool {
	r := []rune(u)
	return len(r) > 0 && r[0] != '-' && r[len(r)-1] != '-' && !(len(r) >= 4 && r[2] == '-' && r[3] == '-')
}

// idna2008Label applies to a U-label what IDNA2008 asks beyond UTS #46:
// letters, marks and digits only (RFC 5892 section 2.1), its exceptions
// (section 2.6) and the CONTEXTO rules (appendix A.3-A.9).
func idna2008Label(label []rune) bool {
	arabicIndic, extArabicIndic := false, false
	for i, r := range label {
		switch {
		case r < utf8.RuneSelf:
			continue // LDH, which the profile checked
		case r == 0x00DF, r == 0x03C2, r == 0x06FD, r == 0x06FE, r == 0x0F0B, r == 0x3007:
			continue // PVALID exceptions
		case r == 0x0640, r == 0x07FA, r == 0x302E, r == 0x302F, 0x3031 <= r && r <= 0x3035, r == 0x303B:
			return false // DISALLOWED exceptions
		case r == 0x00B7: // MIDDLE DOT: between two l's (Catalan)
			if i == 0 || i == len(label)-1 || label[i-1] != 'l' || label[i+1] != 'l' {
				return false
			}
		case r == 0x0375: // GREEK LOWER NUMERAL SIGN (KERAIA): before Greek
			if i == len(label)-1 || !unicode.Is(unicode.Greek, label[i+1]) {
				return false
			}
		case r == 0x05F3, r == 0x05F4: // HEBREW GERESH, GERSHAYIM: after Hebrew
			if i == 0 || !unicode.Is(unicode.Hebrew, label[i-1]) {
				return false
			}
		case r == 0x30FB: // KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han
			if !anyRune(label, func(c rune) bool {
				return c != 0x30FB && unicode.In(c, unicode.Hiragana, unicode.Katakana, unicode.Han)
			}) {
				return false
			}
		case 0x0660 <= r && r <= 0x0669:
			arabicIndic = true
		case 0x06F0 <= r && r <= 0x06F9:
			extArabicIndic = true
		case unicode.In(r, unicode.P, unicode.S):
			return false // punctuation and symbols: UTS #46's NV8
		}
	}
	// Arabic-Indic digits and extended ones are not mixed.
	return !(arabicIndic && extArabicIndic)
}

func anyRune(rs []rune, f func(rune) bool) bool {
	for _, r := range rs {
		if f(r) {
			return true
		}
	}
	return false
}
