package format

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// JSON Schema's regular expressions are ECMA-262's; Go's regexp is RE2,
// which runs in linear time whatever the pattern (a server controls the
// pattern, so a backtracking engine is out of the question). The two
// agree on most of what schemas use, and this file translates the rest of
// ECMA-262 that RE2 can run:
//
//   - \s and \S are ECMA's (with U+00A0, U+FEFF, the line and paragraph
//     separators and the Unicode spaces), not RE2's ASCII set; "." does
//     not match \r, U+2028 or U+2029 either;
//   - \uXXXX (and surrogate pairs of them), \u{X...} and \cX become \x{...};
//   - \p{...} accepts ECMA's long names (\p{Letter}, \p{Script=Greek},
//     \p{gc=Lu});
//   - [] (matches nothing) and [^] (matches anything) become classes RE2
//     reads; a "[" inside a class is a literal, as in ECMA;
//   - inside a class, \b is a backspace.
//
// What ECMA-262 has and RE2 cannot run (backreferences, lookaround) is
// refused; what RE2 has and ECMA-262 (with the u flag, as the 2020-12
// specification asks) does not ((?i), (?P<n>), \z, \Q...\E, [[:alpha:]], a
// lone "]" or "{") is not a valid ECMA-262 regex.

// regexError is the translation's error: a constant, so nothing is built
// at package init.
type regexError string

func (e regexError) Error() string { return string(e) }

const (
	errNotECMA      regexError = "not an ECMA-262 regular expression"
	errNotRunnable  regexError = "an ECMA-262 feature Go's regexp cannot run (backreference or lookaround)"
	errSurrogate    regexError = "a lone surrogate escape, which no UTF-8 string can match"
	ecmaSpaceRanges            = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`
	// ecmaNonSpaceRanges is the complement of ecmaSpaceRanges, for \S
	// inside a class.
	ecmaNonSpaceRanges = `\x00-\x08\x0e-\x1f\x21-\x{9f}\x{a1}-\x{167f}\x{1681}-\x{1fff}\x{200b}-\x{2027}\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{fefe}\x{ff00}-\x{10ffff}`
)

// Regex compiles a pattern of the "pattern" and "patternProperties"
// keywords. An ECMA-262 pattern is translated as the file comment says and
// compiled; a pattern that is not ECMA-262 but that Go's regexp compiles
// ("(?i)abc", which Go servers often publish) is compiled as Go reads it,
// as mcpscope always did, since the specification only says a pattern
// SHOULD be ECMA-262. When neither works the error is Go's, or, for a
// backreference, a lookaround or a lone surrogate, one that says why Go's
// regexp cannot run it.
func Regex(pattern string) (*regexp.Regexp, error) {
	translated, err := ecmaToRE2(pattern, true)
	if err == nil {
		if re, err := regexp.Compile(translated); err == nil {
			return re, nil
		}
	}
	re, goErr := regexp.Compile(pattern)
	if goErr != nil && (err == errNotRunnable || err == errSurrogate) {
		return nil, err // says more than Go's "invalid or unsupported Perl syntax"
	}
	return re, goErr
}

// isRegex reports whether s is an ECMA-262 regular expression that Go's
// regexp can run (the "regex" format). Parsing is enough to know (Go's
// regexp compiles whatever parses), and the translation for it keeps ".",
// \s and \S short, since only the structure counts: a megabyte of "."
// parses in a fraction of a second, its exact translation, twelve
// megabytes of classes, in seconds.
func isRegex(s string) bool {
	translated, err := ecmaToRE2(s, false)
	if err != nil {
		return false
	}
	_, err = syntax.Parse(translated, syntax.Perl)
	return err == nil
}

// ecmaToRE2 translates an ECMA-262 pattern (read with the "u" flag, as
// JSON Schema implementations do) into RE2 syntax: with exact, with the
// same meaning; without, with the same structure (for checking that it
// parses).
func ecmaToRE2(p string, exact bool) (string, error) {
	var b strings.Builder
	b.Grow(len(p) + 8)
	inClass := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			n, err := translateEscape(&b, p, i, inClass, exact)
			if err != nil {
				return "", err
			}
			i += n
			continue
		case inClass && c == ']':
			inClass = false
			b.WriteByte(']')
		case inClass && c == '[':
			b.WriteString(`\[`)
		case inClass:
			b.WriteByte(c)
		case c == '[':
			switch {
			case strings.HasPrefix(p[i:], "[]"):
				b.WriteString(`[^\x00-\x{10ffff}]`)
				i += 2
				continue
			case strings.HasPrefix(p[i:], "[^]"):
				b.WriteString(`[\x00-\x{10ffff}]`)
				i += 3
				continue
			}
			inClass = true
			b.WriteByte('[')
			if strings.HasPrefix(p[i+1:], "^") {
				b.WriteByte('^')
				i++
			}
		case c == '(' && strings.HasPrefix(p[i:], "(?"):
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, ":"):
				b.WriteString("(?:")
				i += 3
				continue
			case strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!") ||
				strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!"):
				return "", errNotRunnable
			case strings.HasPrefix(rest, "<"):
				b.WriteString("(?<")
				i += 3
				continue
			}
			return "", errNotECMA
		case c == '{':
			// With the u flag a brace is a quantifier or an error
			// (without it, a literal: Annex B).
			n := quantifierLen(p[i:])
			if n == 0 {
				return "", errNotECMA
			}
			b.WriteString(p[i : i+n])
			i += n
			continue
		case c == '}' || c == ']':
			return "", errNotECMA // a lone closer: an error with the u flag
		case c == '.' && exact:
			b.WriteString(`[^\n\r\x{2028}\x{2029}]`)
		default:
			b.WriteByte(c)
		}
		i++
	}
	if inClass {
		return "", errNotECMA
	}
	return b.String(), nil
}

// quantifierLen returns the length of the {n}, {n,} or {n,m} quantifier at
// the start of s, or 0.
func quantifierLen(s string) int {
	i := 1
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 1 || i == len(s) {
		return 0
	}
	if s[i] == ',' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

// translateEscape writes the RE2 form of the escape at p[i] (a backslash)
// and returns how many bytes of p it took.
func translateEscape(b *strings.Builder, p string, i int, inClass, exact bool) (int, error) {
	if i+1 == len(p) {
		return 0, errNotECMA
	}
	c := p[i+1]
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'r', 'f', 'v':
		b.WriteString(p[i : i+2])
	case 'b', 'B':
		if inClass {
			if c == 'B' {
				return 0, errNotECMA
			}
			b.WriteString(`\x08`)
		} else {
			b.WriteString(p[i : i+2])
		}
	case 's', 'S':
		switch {
		case !exact:
			b.WriteString(p[i : i+2])
		case inClass && c == 's':
			b.WriteString(ecmaSpaceRanges)
		case inClass:
			b.WriteString(ecmaNonSpaceRanges)
		case c == 's':
			b.WriteString("[" + ecmaSpaceRanges + "]")
		default:
			b.WriteString("[^" + ecmaSpaceRanges + "]")
		}
	case '0':
		if i+2 < len(p) && isDigit(p[i+2]) {
			return 0, errNotECMA // octal escapes are not ECMA-262's (with u)
		}
		b.WriteString(`\x00`)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9', 'k':
		if inClass {
			return 0, errNotECMA
		}
		return 0, errNotRunnable // backreferences
	case 'c':
		if i+2 < len(p) && isAlpha(p[i+2]) {
			writeCodePoint(b, rune(p[i+2]%32))
			return 3, nil
		}
		return 0, errNotECMA
	case 'x':
		if i+3 < len(p) && isHex(p[i+2]) && isHex(p[i+3]) {
			b.WriteString(p[i : i+4])
			return 4, nil
		}
		return 0, errNotECMA
	case 'u':
		r, n, ok := unicodeEscape(p[i:])
		if !ok {
			return 0, errNotECMA
		}
		if 0xD800 <= r && r <= 0xDBFF {
			if lo, m, ok := unicodeEscape(p[i+n:]); ok && 0xDC00 <= lo && lo <= 0xDFFF {
				r, n = 0x10000+(r-0xD800)<<10+(lo-0xDC00), n+m
			}
		}
		if 0xD800 <= r && r <= 0xDFFF {
			return 0, errSurrogate
		}
		writeCodePoint(b, r)
		return n, nil
	case 'p', 'P':
		end := strings.IndexByte(p[i:], '}')
		if i+2 >= len(p) || p[i+2] != '{' || end < 0 {
			return 0, errNotECMA
		}
		name, ok := unicodePropertyName(p[i+3 : i+end])
		if !ok {
			return 0, errNotECMA
		}
		b.WriteString(`\` + string(c) + `{` + name + `}`)
		return end + 1, nil
	case '-':
		if !inClass {
			return 0, errNotECMA
		}
		b.WriteString(`\-`)
	default:
		// Identity escapes: ECMA-262 (with u) allows only its syntax
		// characters and "/".
		if strings.IndexByte(`^$\.*+?()[]{}|/`, c) < 0 {
			return 0, errNotECMA
		}
		b.WriteString(p[i : i+2])
	}
	return 2, nil
}

// unicodeEscape reads \uXXXX or \u{X...} at the start of s.
func unicodeEscape(s string) (r rune, n int, ok bool) {
	if len(s) < 3 || s[0] != '\\' || s[1] != 'u' {
		return 0, 0, false
	}
	if s[2] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 4 || end > 3+8 {
			return 0, 0, false
		}
		v, ok := hexValue(s[3:end])
		if !ok || v > utf8.MaxRune {
			return 0, 0, false
		}
		return rune(v), end + 1, true
	}
	if len(s) < 6 {
		return 0, 0, false
	}
	v, ok := hexValue(s[2:6])
	return rune(v), 6, ok
}

func hexValue(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			v = v*16 + int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v*16 + int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v*16 + int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, s != ""
}

func writeCodePoint(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	b.WriteString(`\x{`)
	started := false
	for shift := 20; shift >= 0; shift -= 4 {
		d := (r >> shift) & 0xF
		if d != 0 || started || shift == 0 {
			b.WriteByte(hex[d])
			started = true
		}
	}
	b.WriteByte('}')
}

// unicodePropertyName maps an ECMA-262 property of \p{...} to RE2's name:
// General_Category values (short or long, bare or after gc= or
// General_Category=) and scripts (after sc=, Script=, scx= or
// Script_Extensions=, which RE2 approximates by Script). RE2 checks the
// result when it compiles.
func unicodePropertyName(s string) (string, bool) {
	key, value, hasKey := strings.Cut(s, "=")
	if !hasKey {
		value = key
		if long, ok := generalCategory(value); ok {
			return long, true
		}
		return value, value != "" && isPropertyWord(value)
	}
	switch key {
	case "General_Category", "gc":
		if long, ok := generalCategory(value); ok {
			return long, true
		}
		return value, isPropertyWord(value)
	case "Script", "sc", "Script_Extensions", "scx":
		return value, isPropertyWord(value)
	}
	return "", false
}

func isPropertyWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlpha(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return s != ""
}

// generalCategory maps ECMA-262's long General_Category names (and its
// "digit", "punct" and "cntrl" aliases) to RE2's short ones. (A switch,
// not a map: a package-level map would be built at init.)
func generalCategory(name string) (string, bool) {
	switch name {
	case "Letter":
		return "L", true
	case "Uppercase_Letter":
		return "Lu", true
	case "Lowercase_Letter":
		return "Ll", true
	case "Titlecase_Letter":
		return "Lt", true
	case "Modifier_Letter":
		return "Lm", true
	case "Other_Letter":
		return "Lo", true
	case "Mark", "Combining_Mark":
		return "M", true
	case "Nonspacing_Mark":
		return "Mn", true
	case "Spacing_Mark":
		return "Mc", true
	case "Enclosing_Mark":
		return "Me", true
	case "Number":
		return "N", true
	case "Decimal_Number", "digit":
		return "Nd", true
	case "Letter_Number":
		return "Nl", true
	case "Other_Number":
		return "No", true
	case "Punctuation", "punct":
		return "P", true
	case "Connector_Punctuation":
		return "Pc", true
	case "Dash_Punctuation":
		return "Pd", true
	case "Open_Punctuation":
		return "Ps", true
	case "Close_Punctuation":
		return "Pe", true
	case "Initial_Punctuation":
		return "Pi", true
	case "Final_Punctuation":
		return "Pf", true
	case "Other_Punctuation":
		return "Po", true
	case "Symbol":
		return "S", true
	case "Math_Symbol":
		return "Sm", true
	case "Currency_Symbol":
		return "Sc", true
	case "Modifier_Symbol":
		return "Sk", true
	case "Other_Symbol":
		return "So", true
	case "Separator":
		return "Z", true
	case "Space_Separator":
		return "Zs", true
	case "Line_Separator":
		return "Zl", true
	case "Paragraph_Separator":
		return "Zp", true
	case "Other":
		return "C", true
	case "Control", "cntrl":
		return "Cc", true
	case "Format":
		return "Cf", true
	case "Surrogate":
		return "Cs", true
	case "Private_Use":
		return "Co", true
	}
	return "", false
}
