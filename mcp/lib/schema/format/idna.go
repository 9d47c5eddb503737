package format

import (
	"unicode"
	"unicode/utf8"
)

// Internationalized host names (IDNA2008: RFC 5890-5893). A label is either
// ASCII letters, digits and hyphens, an A-label ("xn--" and Punycode) or a
// U-label (Unicode), and an A-label must decode to a valid U-label that
// encodes back to it exactly.
//
// A U-label's code points are judged by RFC 5892's derivation, computed
// from Go's unicode tables (compared once with IANA's tables for Unicode
// 17 over every code point: they agree), with one leniency:
// plain upper-case letters are accepted (every resolver folds them first,
// and IDNA2008 leaves mapping to the application). Normalization to NFC is
// not demanded either (the test suite holds "café" with a combining accent
// valid in an e-mail domain). The contextual rules of RFC 5892 appendix A
// and the Bidi rule of RFC 5893 are applied, with the Unicode properties
// Go does not tabulate (Bidi_Class, Joining_Type, NFKC's effect) in small
// range tables below.

// isIDNHostname reports whether s is an internationalized host name:
// labels separated by "." or the ideographic, fullwidth and halfwidth full
// stops, each a valid label, 253 octets at most in ASCII (A-label) form.
func isIDNHostname(s string) bool {
	if s == "" {
		return false
	}
	total, bidiDomain := 0, false
	var buf [maxLabelRunes]rune
	for rest := s; ; {
		label, next, more := cutLabel(rest)
		n, alen, ok := uLabel(label, &buf)
		if !ok {
			return false
		}
		total += alen
		if total > 253 {
			return false // and a megabyte of labels costs no more than 253 octets of them
		}
		for _, r := range buf[:n] {
			if c := bidiClass(r); c == bidiR || c == bidiAN {
				bidiDomain = true
			}
		}
		if !more {
			break
		}
		total++
		rest = next
	}
	if total > 253 {
		return false
	}
	if !bidiDomain {
		return true
	}
	for rest := s; ; {
		label, next, more := cutLabel(rest)
		n := labelRunes(label, &buf) // valid, as the first pass found
		if !bidiRule(buf[:n]) {
			return false
		}
		if !more {
			return true
		}
		rest = next
	}
}

// cutLabel splits s at its first label separator.
func cutLabel(s string) (label, rest string, more bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '.', 0x3002, 0xFF0E, 0xFF61:
			return s[:i], s[i+n:], true
		}
		i += n
	}
	return s, "", false
}

// uLabel validates one label of an internationalized host name and
// leaves its code points (decoded, for an A-label) in buf. alen is the
// label's length in ASCII form.
func uLabel(label string, buf *[maxLabelRunes]rune) (n, alen int, ok bool) {
	ascii := true
	for i := 0; i < len(label); i++ {
		if label[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		if !isLDHLabel(label) {
			return 0, 0, false
		}
		if isALabelPrefix(label) {
			n, ok := decodeALabel(label, buf)
			return n, len(label), ok && isULabel(buf[:n])
		}
		for i := 0; i < len(label); i++ {
			buf[i] = rune(label[i])
		}
		return len(label), len(label), true
	}
	if !utf8.ValidString(label) {
		return 0, 0, false
	}
	for _, r := range label {
		if n == len(buf) {
			return 0, 0, false // longer than any A-label can be
		}
		buf[n] = r
		n++
	}
	if !isULabel(buf[:n]) {
		return 0, 0, false
	}
	var enc [63 - 4]byte
	elen, ok := punyEncode(buf[:n], enc[:])
	if !ok {
		return 0, 0, false // its A-label would exceed 63 octets
	}
	return n, 4 + elen, true
}

// labelRunes leaves a label's code points (decoded, for an A-label) in buf;
// the label has passed uLabel.
func labelRunes(label string, buf *[maxLabelRunes]rune) int {
	if isALabelPrefix(label) {
		n, _ := punyDecode(label[4:], buf)
		return n
	}
	n := 0
	for _, r := range label {
		buf[n] = r
		n++
	}
	return n
}

// decodeALabel decodes an A-label and checks that it is one: it decodes,
// holds a non-ASCII code point, and encodes back to itself.
func decodeALabel(label string, buf *[maxLabelRunes]rune) (int, bool) {
	n, ok := punyDecode(label[4:], buf)
	if !ok || n == 0 {
		return 0, false
	}
	nonASCII := false
	for _, r := range buf[:n] {
		if r >= utf8.RuneSelf {
			nonASCII = true
		}
	}
	if !nonASCII {
		return 0, false
	}
	var enc [63 - 4]byte
	elen, ok := punyEncode(buf[:n], enc[:])
	if !ok || elen != len(label)-4 {
		return 0, false
	}
	for i := 0; i < elen; i++ {
		if lowerASCII(enc[i]) != lowerASCII(label[4+i]) {
			return 0, false
		}
	}
	return n, true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isULabel checks a label's code points by RFC 5891 section 5.4 and RFC
// 5892: no hyphens at the start, the end or in places 3 and 4, no
// combining mark first, and every code point PVALID or allowed by its
// contextual rule.
func isULabel(r []rune) bool {
	n := len(r)
	if n == 0 || r[0] == '-' || r[n-1] == '-' || n >= 4 && r[2] == '-' && r[3] == '-' {
		return false
	}
	if unicode.Is(unicode.M, r[0]) {
		return false
	}
	for i, c := range r {
		switch idnaProperty(c) {
		case pvalid:
		case contextJ:
			if !contextJOK(r, i) {
				return false
			}
		case contextO:
			if !contextOOK(r, i) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

const (
	disallowed = iota
	pvalid
	contextJ
	contextO
)

// idnaProperty derives a code point's IDNA2008 property (RFC 5892 section
// 3), with the leniencies the file comment describes.
func idnaProperty(r rune) int {
	switch r { // Exceptions (F)
	case 0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007:
		return pvalid
	case 0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB:
		return contextO
	case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B:
		return disallowed
	case 0x200C, 0x200D: // JoinControl (H)
		return contextJ
	}
	if 0x0660 <= r && r <= 0x0669 || 0x06F0 <= r && r <= 0x06F9 {
		return contextO
	}
	if r < utf8.RuneSelf { // LDH (K), letters in either case
		if isAlpha(byte(r)) || isDigit(byte(r)) || r == '-' {
			return pvalid
		}
		return disallowed
	}
	if inRanges(r, newerPVALID[:]) {
		return pvalid
	}
	switch {
	case isUnstable(r), // Unstable (B)
		unicode.Is(unicode.White_Space, r) || unicode.Is(unicode.Noncharacter_Code_Point, r) ||
			unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r), // IgnorableProperties (C)
		0x20D0 <= r && r <= 0x20FF || 0x1D100 <= r && r <= 0x1D24F,                             // IgnorableBlocks (D)
		0x1100 <= r && r <= 0x11FF || 0xA960 <= r && r <= 0xA97F || 0xD7B0 <= r && r <= 0xD7FF: // OldHangulJamo (I)
		return disallowed
	}
	if unicode.In(r, unicode.Ll, unicode.Lu, unicode.Lo, unicode.Nd, unicode.Lm, unicode.Mn, unicode.Mc) { // LetterDigits (A)
		return pvalid
	}
	return disallowed
}

// contextJOK applies RFC 5892 appendix A.1 and A.2 to the joiner at i.
func contextJOK(r []rune, i int) bool {
	if i > 0 && isVirama(r[i-1]) {
		return true
	}
	if r[i] != 0x200C {
		return false // ZERO WIDTH JOINER only after a virama
	}
	// (Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})
	j := i - 1
	for j >= 0 && isTransparent(r[j]) {
		j--
	}
	if j < 0 || joiningType(r[j]) != 'L' && joiningType(r[j]) != 'D' {
		return false
	}
	j = i + 1
	for j < len(r) && isTransparent(r[j]) {
		j++
	}
	return j < len(r) && (joiningType(r[j]) == 'R' || joiningType(r[j]) == 'D')
}

// isTransparent approximates Joining_Type T by marks and format
// characters (exact for every code point a label may hold but one).
func isTransparent(r rune) bool {
	return r != 0x200C && r != 0x200D && unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf)
}

// joiningType returns r's Joining_Type when it is D (dual), L (left) or R
// (right joining), else 0.
func joiningType(r rune) byte {
	lo, hi := 0, len(joiningTypes)
	for lo < hi {
		m := (lo + hi) / 2
		switch e := joiningTypes[m]; {
		case r < e.lo:
			hi = m
		case r > e.hi:
			lo = m + 1
		default:
			return e.jt
		}
	}
	return 0
}

// joiningTypes are Unicode 17's dual-, left- and right-joining code points
// (Joining_Type D, L and R of ArabicShaping.txt, as the Python idna
// package carries them), for ZERO WIDTH NON-JOINER's rule.
var joiningTypes = [...]struct {
	lo, hi rune
	jt     byte
}{
	{0x620, 0x620, 'D'}, {0x622, 0x625, 'R'}, {0x626, 0x626, 'D'}, {0x627, 0x627, 'R'},
	{0x628, 0x628, 'D'}, {0x629, 0x629, 'R'}, {0x62A, 0x62E, 'D'}, {0x62F, 0x632, 'R'},
	{0x633, 0x63F, 'D'}, {0x641, 0x647, 'D'}, {0x648, 0x648, 'R'}, {0x649, 0x64A, 'D'},
	{0x66E, 0x66F, 'D'}, {0x671, 0x673, 'R'}, {0x675, 0x677, 'R'}, {0x678, 0x687, 'D'},
	{0x688, 0x699, 'R'}, {0x69A, 0x6BF, 'D'}, {0x6C0, 0x6C0, 'R'}, {0x6C1, 0x6C2, 'D'},
	{0x6C3, 0x6CB, 'R'}, {0x6CC, 0x6CC, 'D'}, {0x6CD, 0x6CD, 'R'}, {0x6CE, 0x6CE, 'D'},
	{0x6CF, 0x6CF, 'R'}, {0x6D0, 0x6D1, 'D'}, {0x6D2, 0x6D3, 'R'}, {0x6D5, 0x6D5, 'R'},
	{0x6EE, 0x6EF, 'R'}, {0x6FA, 0x6FC, 'D'}, {0x6FF, 0x6FF, 'D'}, {0x710, 0x710, 'R'},
	{0x712, 0x714, 'D'}, {0x715, 0x719, 'R'}, {0x71A, 0x71D, 'D'}, {0x71E, 0x71E, 'R'},
	{0x71F, 0x727, 'D'}, {0x728, 0x728, 'R'}, {0x729, 0x729, 'D'}, {0x72A, 0x72A, 'R'},
	{0x72B, 0x72B, 'D'}, {0x72C, 0x72C, 'R'}, {0x72D, 0x72E, 'D'}, {0x72F, 0x72F, 'R'},
	{0x74D, 0x74D, 'R'}, {0x74E, 0x758, 'D'}, {0x759, 0x75B, 'R'}, {0x75C, 0x76A, 'D'},
	{0x76B, 0x76C, 'R'}, {0x76D, 0x770, 'D'}, {0x771, 0x771, 'R'}, {0x772, 0x772, 'D'},
	{0x773, 0x774, 'R'}, {0x775, 0x777, 'D'}, {0x778, 0x779, 'R'}, {0x77A, 0x77F, 'D'},
	{0x7CA, 0x7EA, 'D'}, {0x840, 0x840, 'R'}, {0x841, 0x845, 'D'}, {0x846, 0x847, 'R'},
	{0x848, 0x848, 'D'}, {0x849, 0x849, 'R'}, {0x84A, 0x853, 'D'}, {0x854, 0x854, 'R'},
	{0x855, 0x855, 'D'}, {0x856, 0x858, 'R'}, {0x860, 0x860, 'D'}, {0x862, 0x865, 'D'},
	{0x867, 0x867, 'R'}, {0x868, 0x868, 'D'}, {0x869, 0x86A, 'R'}, {0x870, 0x882, 'R'},
	{0x886, 0x886, 'D'}, {0x889, 0x88D, 'D'}, {0x88E, 0x88E, 'R'}, {0x88F, 0x88F, 'D'},
	{0x8A0, 0x8A9, 'D'}, {0x8AA, 0x8AC, 'R'}, {0x8AE, 0x8AE, 'R'}, {0x8AF, 0x8B0, 'D'},
	{0x8B1, 0x8B2, 'R'}, {0x8B3, 0x8B8, 'D'}, {0x8B9, 0x8B9, 'R'}, {0x8BA, 0x8C8, 'D'},
	{0x1807, 0x1807, 'D'}, {0x1820, 0x1878, 'D'}, {0x1887, 0x18A8, 'D'}, {0x18AA, 0x18AA, 'D'},
	{0xA840, 0xA871, 'D'}, {0xA872, 0xA872, 'L'}, {0x10AC0, 0x10AC4, 'D'}, {0x10AC5, 0x10AC5, 'R'},
	{0x10AC7, 0x10AC7, 'R'}, {0x10AC9, 0x10ACA, 'R'}, {0x10ACD, 0x10ACD, 'L'}, {0x10ACE, 0x10AD2, 'R'},
	{0x10AD3, 0x10AD6, 'D'}, {0x10AD7, 0x10AD7, 'L'}, {0x10AD8, 0x10ADC, 'D'}, {0x10ADD, 0x10ADD, 'R'},
	{0x10ADE, 0x10AE0, 'D'}, {0x10AE1, 0x10AE1, 'R'}, {0x10AE4, 0x10AE4, 'R'}, {0x10AEB, 0x10AEE, 'D'},
	{0x10AEF, 0x10AEF, 'R'}, {0x10B80, 0x10B80, 'D'}, {0x10B81, 0x10B81, 'R'}, {0x10B82, 0x10B82, 'D'},
	{0x10B83, 0x10B85, 'R'}, {0x10B86, 0x10B88, 'D'}, {0x10B89, 0x10B89, 'R'}, {0x10B8A, 0x10B8B, 'D'},
	{0x10B8C, 0x10B8C, 'R'}, {0x10B8D, 0x10B8D, 'D'}, {0x10B8E, 0x10B8F, 'R'}, {0x10B90, 0x10B90, 'D'},
	{0x10B91, 0x10B91, 'R'}, {0x10BA9, 0x10BAC, 'R'}, {0x10BAD, 0x10BAE, 'D'}, {0x10D00, 0x10D00, 'L'},
	{0x10D01, 0x10D21, 'D'}, {0x10D22, 0x10D22, 'R'}, {0x10D23, 0x10D23, 'D'}, {0x10EC2, 0x10EC2, 'R'},
	{0x10EC3, 0x10EC4, 'D'}, {0x10EC6, 0x10EC7, 'D'}, {0x10F30, 0x10F32, 'D'}, {0x10F33, 0x10F33, 'R'},
	{0x10F34, 0x10F44, 'D'}, {0x10F51, 0x10F53, 'D'}, {0x10F54, 0x10F54, 'R'}, {0x10F70, 0x10F73, 'D'},
	{0x10F74, 0x10F75, 'R'}, {0x10F76, 0x10F81, 'D'}, {0x10FB0, 0x10FB0, 'D'}, {0x10FB2, 0x10FB3, 'D'},
	{0x10FB4, 0x10FB6, 'R'}, {0x10FB8, 0x10FB8, 'D'}, {0x10FB9, 0x10FBA, 'R'}, {0x10FBB, 0x10FBC, 'D'},
	{0x10FBD, 0x10FBD, 'R'}, {0x10FBE, 0x10FBF, 'D'}, {0x10FC1, 0x10FC1, 'D'}, {0x10FC2, 0x10FC3, 'R'},
	{0x10FC4, 0x10FC4, 'D'}, {0x10FC9, 0x10FC9, 'R'}, {0x10FCA, 0x10FCA, 'D'}, {0x10FCB, 0x10FCB, 'L'},
	{0x1E900, 0x1E943, 'D'},
}

// isVirama reports whether r has Canonical_Combining_Class Virama (9).
func isVirama(r rune) bool {
	switch r {
	case 0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C, 0x0D4D,
		0x0DCA, 0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1715, 0x1734, 0x17D2, 0x1A60,
		0x1B44, 0x1BAA, 0x1BAB, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA82C, 0xA8C4, 0xA953, 0xA9C0,
		0xAAF6, 0xABED, 0x10A3F, 0x11046, 0x11070, 0x1107F, 0x110B9, 0x11133, 0x11134, 0x111C0,
		0x11235, 0x112EA, 0x1134D, 0x11442, 0x114C2, 0x115BF, 0x1163F, 0x116B6, 0x1172B, 0x11839,
		0x1193D, 0x1193E, 0x119E0, 0x11A34, 0x11A47, 0x11A99, 0x11C3F, 0x11D44, 0x11D45, 0x11D97,
		0x11F41, 0x11F42:
		return true
	}
	return false
}

// contextOOK applies RFC 5892 appendix A.3 to A.9 to the code point at i.
func contextOOK(r []rune, i int) bool {
	switch c := r[i]; {
	case c == 0x00B7: // MIDDLE DOT: between two l's (Catalan l·l)
		return i > 0 && i+1 < len(r) && r[i-1] == 'l' && r[i+1] == 'l'
	case c == 0x0375: // GREEK LOWER NUMERAL SIGN: before Greek
		return i+1 < len(r) && unicode.Is(unicode.Greek, r[i+1])
	case c == 0x05F3 || c == 0x05F4: // HEBREW GERESH, GERSHAYIM: after Hebrew
		return i > 0 && unicode.Is(unicode.Hebrew, r[i-1])
	case c == 0x30FB: // KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han
		for _, o := range r {
			if o != 0x30FB && unicode.In(o, unicode.Hiragana, unicode.Katakana, unicode.Han) {
				return true
			}
		}
		return false
	case 0x0660 <= c && c <= 0x0669: // ARABIC-INDIC DIGITS: not with extended ones
		for _, o := range r {
			if 0x06F0 <= o && o <= 0x06F9 {
				return false
			}
		}
		return true
	case 0x06F0 <= c && c <= 0x06F9: // EXTENDED ARABIC-INDIC DIGITS: not with the others
		for _, o := range r {
			if 0x0660 <= o && o <= 0x0669 {
				return false
			}
		}
		return true
	}
	return false
}

// The Bidi classes the Bidi rule tells apart (R stands for R and AL).
const (
	bidiL = iota
	bidiR
	bidiAN
	bidiEN
	bidiES // the hyphen, as far as labels go
	bidiNSM
	bidiON
)

// bidiClass gives Bidi_Class for the code points a label may hold: from
// bidiExceptions where it is not what the general category says (NSM for
// marks, L for the rest). What Unicode added after 14 to right-to-left
// scripts reads as L, so a label in them is not held to the Bidi rule (a
// missed error at worst, never a false one in a left-to-right name).
func bidiClass(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case isDigit(byte(r)):
			return bidiEN
		case r == '-':
			return bidiES
		case isAlpha(byte(r)):
			return bidiL
		}
		return bidiON
	}
	if c, ok := bidiException(r); ok {
		return c
	}
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return bidiNSM
	case unicode.In(r, unicode.L, unicode.Mc, unicode.Nd) || inRanges(r, newerPVALID[:]):
		return bidiL
	}
	return bidiON
}

// bidiException looks r up in bidiExceptions.
func bidiException(r rune) (int, bool) {
	lo, hi := 0, len(bidiExceptions)
	for lo < hi {
		m := (lo + hi) / 2
		switch e := bidiExceptions[m]; {
		case r < e.lo:
			hi = m
		case r > e.hi:
			lo = m + 1
		default:
			return e.class, true
		}
	}
	return 0, false
}

// bidiExceptions are the code points a label may hold (LetterDigits and
// the exceptions of RFC 5892) whose Bidi_Class in Unicode 14 (Python's
// unicodedata) is not NSM for a mark and L for the rest: right-to-left
// letters (R and AL, which the Bidi rule treats alike), Arabic-Indic
// digits (AN), extended ones (EN), and the few letters and marks that are
// ON or L. A range may span code points a label may not hold.
var bidiExceptions = [...]struct {
	lo, hi rune
	class  int
}{
	{0xB7, 0xB7, bidiON}, {0x2B9, 0x2BA, bidiON}, {0x2C6, 0x2CF, bidiON}, {0x2EC, 0x2EC, bidiON},
	{0x374, 0x375, bidiON}, {0x5D0, 0x5F4, bidiR}, {0x620, 0x64A, bidiR}, {0x660, 0x669, bidiAN},
	{0x66E, 0x66F, bidiR}, {0x671, 0x6D5, bidiR}, {0x6E5, 0x6E6, bidiR}, {0x6EE, 0x6EF, bidiR},
	{0x6F0, 0x6F9, bidiEN}, {0x6FA, 0x710, bidiR}, {0x712, 0x72F, bidiR}, {0x74D, 0x7A5, bidiR},
	{0x7B1, 0x7EA, bidiR}, {0x7F4, 0x7FA, bidiR}, {0x800, 0x815, bidiR}, {0x81A, 0x81A, bidiR},
	{0x824, 0x824, bidiR}, {0x828, 0x828, bidiR}, {0x840, 0x858, bidiR}, {0x860, 0x88E, bidiR},
	{0x8A0, 0x8C9, bidiR}, {0xCBF, 0xCBF, bidiL}, {0xCC6, 0xCC6, bidiL}, {0x2E2F, 0x2E2F, bidiON},
	{0x30FB, 0x30FB, bidiON}, {0xA67F, 0xA67F, bidiON}, {0xA717, 0xA71F, bidiON},
	{0xA788, 0xA788, bidiON}, {0xFB1D, 0xFB1D, bidiR}, {0xFB1F, 0xFDFB, bidiR}, {0xFE70, 0xFEFC, bidiR},
	{0xFF10, 0xFF19, bidiEN}, {0x10800, 0x10A00, bidiR}, {0x10A10, 0x10A35, bidiR},
	{0x10A60, 0x10AE4, bidiR}, {0x10B00, 0x10D23, bidiR}, {0x10D30, 0x10D39, bidiAN},
	{0x10E80, 0x10EA9, bidiR}, {0x10EB0, 0x10F45, bidiR}, {0x10F70, 0x10F81, bidiR},
	{0x10FB0, 0x10FF6, bidiR}, {0x11A07, 0x11A08, bidiL}, {0x11C3F, 0x11C3F, bidiL},
	{0x1D7CE, 0x1D7FF, bidiEN}, {0x1E800, 0x1E8C4, bidiR}, {0x1E900, 0x1E943, bidiR},
	{0x1E94B, 0x1EEBB, bidiR}, {0x1FBF0, 0x1FBF9, bidiEN},
}

// bidiRule applies RFC 5893 section 2 to one label of a Bidi domain name.
func bidiRule(r []rune) bool {
	if len(r) == 0 {
		return false
	}
	first := bidiClass(r[0])
	if first != bidiL && first != bidiR {
		return false // rule 1
	}
	last := len(r) - 1
	for last > 0 && bidiClass(r[last]) == bidiNSM {
		last--
	}
	end := bidiClass(r[last])
	if first == bidiR {
		hasEN, hasAN := false, false
		for _, c := range r {
			switch bidiClass(c) {
			case bidiL:
				return false // rule 2
			case bidiEN:
				hasEN = true
			case bidiAN:
				hasAN = true
			}
		}
		return (end == bidiR || end == bidiEN || end == bidiAN) && !(hasEN && hasAN) // rules 3 and 4
	}
	for _, c := range r {
		if k := bidiClass(c); k == bidiR || k == bidiAN {
			return false // rule 5
		}
	}
	return end == bidiL || end == bidiEN // rule 6
}

// isUnstable reports whether r is one of the letters, digits and marks
// that NFKC and case folding change (RFC 5892's Unstable, B), which makes
// it DISALLOWED: compatibility forms (fullwidth and mathematical letters,
// ligatures, presentation forms, superscripts, the Kelvin sign),
// canonical singletons and composition exclusions. Plain upper-case
// letters are left out (see the file comment).
func isUnstable(r rune) bool { return inRanges(r, unstableRanges[:]) }

// inRanges reports whether r is in one of the sorted ranges.
func inRanges(r rune, ranges [][2]rune) bool {
	lo, hi := 0, len(ranges)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < ranges[m][0]:
			hi = m
		case r > ranges[m][1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// newerPVALID are the code points IANA's IDNA tables (Unicode 17) hold
// PVALID that Go's unicode tables (Unicode 15.0) do not know yet, so that a
// label in a script or ideograph block Unicode added since is not refused
// as unassigned. Derived by comparing idnaProperty with those tables (as
// the Python idna package carries them); every other code point agrees,
// but for the upper-case letters accepted on purpose.
var newerPVALID = [...][2]rune{
	{0x88F, 0x88F}, {0x897, 0x897}, {0xC5C, 0xC5C}, {0xCDC, 0xCDC}, {0x1ACF, 0x1ADD}, {0x1AE0, 0x1AEB},
	{0x1C8A, 0x1C8A}, {0xA7CD, 0xA7CD}, {0xA7CF, 0xA7CF}, {0xA7DB, 0xA7DB}, {0x105C0, 0x105F3},
	{0x10940, 0x10959}, {0x10D40, 0x10D4F}, {0x10D69, 0x10D6D}, {0x10D6F, 0x10D85}, {0x10EC2, 0x10EC7},
	{0x10EFA, 0x10EFC}, {0x11380, 0x11389}, {0x1138B, 0x1138B}, {0x1138E, 0x1138E}, {0x11390, 0x113B5},
	{0x113B7, 0x113C0}, {0x113C2, 0x113C2}, {0x113C5, 0x113C5}, {0x113C7, 0x113CA}, {0x113CC, 0x113D3},
	{0x113E1, 0x113E2}, {0x116D0, 0x116E3}, {0x11B60, 0x11B67}, {0x11BC0, 0x11BE0}, {0x11BF0, 0x11BF9},
	{0x11DB0, 0x11DDB}, {0x11DE0, 0x11DE9}, {0x11F5A, 0x11F5A}, {0x13460, 0x143FA}, {0x16100, 0x16139},
	{0x16D40, 0x16D6C}, {0x16D70, 0x16D79}, {0x16EBB, 0x16ED3}, {0x16FF2, 0x16FF3}, {0x187F8, 0x187FF},
	{0x18CFF, 0x18CFF}, {0x18D09, 0x18D1E}, {0x18D80, 0x18DF2}, {0x1E5D0, 0x1E5FA}, {0x1E6C0, 0x1E6DE},
	{0x1E6E0, 0x1E6F5}, {0x1E6FE, 0x1E6FF}, {0x2B73A, 0x2B73F}, {0x2CEA2, 0x2CEAD}, {0x2EBF0, 0x2EE5D},
	{0x323B0, 0x33479},
}

// unstableRanges are the Unstable code points among the LetterDigits of
// Unicode 14, derived by NFKC(casefold(NFKC(cp))) != cp (Python's
// unicodedata), and Unicode 15's Cyrillic modifier letters (U+1E030-1E06D), leaving out upper-case letters that NFKC keeps and whose
// lower case is stable; a range may span code points that are not
// LetterDigits, which are DISALLOWED anyway. An array of constants: data
// in the binary, no work at init.
var unstableRanges = [...][2]rune{
	{0xAA, 0xBA}, {0xDF, 0xDF}, {0x130, 0x130}, {0x132, 0x133}, {0x13F, 0x140}, {0x149, 0x149},
	{0x17F, 0x17F}, {0x1C4, 0x1CC}, {0x1F1, 0x1F3}, {0x2B0, 0x2B8}, {0x2E0, 0x2E4}, {0x340, 0x341},
	{0x343, 0x345}, {0x374, 0x374}, {0x37A, 0x37A}, {0x3C2, 0x3C2}, {0x3D0, 0x3D6}, {0x3F0, 0x3F2},
	{0x3F4, 0x3F5}, {0x3F9, 0x3F9}, {0x587, 0x587}, {0x675, 0x678}, {0x958, 0x95F}, {0x9DC, 0x9DF},
	{0xA33, 0xA33}, {0xA36, 0xA36}, {0xA59, 0xA5B}, {0xA5E, 0xA5E}, {0xB5C, 0xB5D}, {0xE33, 0xE33},
	{0xEB3, 0xEB3}, {0xEDC, 0xEDD}, {0xF43, 0xF43}, {0xF4D, 0xF4D}, {0xF52, 0xF52}, {0xF57, 0xF57},
	{0xF5C, 0xF5C}, {0xF69, 0xF69}, {0xF73, 0xF73}, {0xF75, 0xF79}, {0xF81, 0xF81}, {0xF93, 0xF93},
	{0xF9D, 0xF9D}, {0xFA2, 0xFA2}, {0xFA7, 0xFA7}, {0xFAC, 0xFAC}, {0xFB9, 0xFB9}, {0x10FC, 0x10FC},
	{0x13F8, 0x13FD}, {0x1C80, 0x1C88}, {0x1D2C, 0x1D2E}, {0x1D30, 0x1D3A}, {0x1D3C, 0x1D4D},
	{0x1D4F, 0x1D6A}, {0x1D78, 0x1D78}, {0x1D9B, 0x1DBF}, {0x1E9A, 0x1E9B}, {0x1E9E, 0x1E9E},
	{0x1F71, 0x1F71}, {0x1F73, 0x1F73}, {0x1F75, 0x1F75}, {0x1F77, 0x1F77}, {0x1F79, 0x1F79},
	{0x1F7B, 0x1F7B}, {0x1F7D, 0x1FA7}, {0x1FB2, 0x1FB4}, {0x1FB7, 0x1FB7}, {0x1FBB, 0x1FC4},
	{0x1FC7, 0x1FC7}, {0x1FC9, 0x1FC9}, {0x1FCB, 0x1FCB}, {0x1FD3, 0x1FD3}, {0x1FDB, 0x1FDB},
	{0x1FE3, 0x1FE3}, {0x1FEB, 0x1FEB}, {0x1FF2, 0x1FF4}, {0x1FF7, 0x1FF7}, {0x1FF9, 0x1FF9},
	{0x1FFB, 0x209C}, {0x2102, 0x2131}, {0x2133, 0x2149}, {0x2C7C, 0x2C7D}, {0x2D6F, 0x2D6F},
	{0x309F, 0x309F}, {0x30FF, 0x30FF}, {0x3131, 0x318E}, {0xA69C, 0xA69D}, {0xA770, 0xA770},
	{0xA7F2, 0xA7F4}, {0xA7F8, 0xA7F9}, {0xAB5C, 0xAB5F}, {0xAB69, 0xABBF}, {0xF900, 0xFA0D},
	{0xFA10, 0xFA10}, {0xFA12, 0xFA12}, {0xFA15, 0xFA1E}, {0xFA20, 0xFA20}, {0xFA22, 0xFA22},
	{0xFA25, 0xFA26}, {0xFA2A, 0xFB1D}, {0xFB1F, 0xFDFB}, {0xFE70, 0xFE72}, {0xFE74, 0xFFDC},
	{0x10781, 0x107BA}, {0x1D400, 0x1D7FF}, {0x1E030, 0x1E06D}, {0x1EE00, 0x1FBF9}, {0x2F800, 0x2FA1D},
}
