package format

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// formatCases are the edge cases that matter to MCP servers' schemas and
// results, each with why it is valid or not. Many are where
// santhosh-tekuri/jsonschema/v6 (mcp/lib/schema's validator before our own)
// got it wrong, marked "library:"; the rest pin behaviour it got right.
var formatCases = []struct {
	format, value string
	valid         bool
	why           string
}{
	// date-time, date, time: RFC 3339 5.6
	{"date-time", "2024-02-29T12:00:00Z", true, "29 February in a leap year"},
	{"date-time", "2023-02-29T12:00:00Z", false, "29 February in a common year"},
	{"date", "1900-02-29", false, "1900 is not a leap year (divisible by 100)"},
	{"date", "2000-02-29", true, "2000 is a leap year (divisible by 400)"},
	{"date", "2024-04-31", false, "April has 30 days"},
	{"date", "2024-00-10", false, "month 0"},
	{"date", "tomorrow", false, "a word, not a date"},
	{"date", "2024-1-05", false, "an unpadded month"},
	{"date", "２０２４-01-05", false, "fullwidth digits"},
	{"date-time", "2024-06-01T12:00:00+05:30", true, "a positive offset with minutes (India)"},
	{"date-time", "2024-06-01T12:00:00-00:00", true, "an unknown local offset"},
	{"date-time", "2024-06-01t12:00:00z", true, "lower-case t and z"},
	{"date-time", "2024-06-01 12:00:00Z", false, "a space instead of T (RFC 3339 permits it only as an application's choice)"},
	{"date-time", "2024-06-01T12:00:00", false, "no offset: a local time is ambiguous"},
	{"date-time", "2024-06-01T12:00:00+0530", false, "an offset without its colon (ISO 8601 basic format)"},
	{"date-time", "2024-06-01T12:00:00+05", false, "an offset without minutes"},
	{"date-time", "2024-06-01T12:00:00.123456789Z", true, "nanoseconds"},
	{"date-time", "2024-06-01T12:00:00.Z", false, "a fraction without digits"},
	{"date-time", "2024-06-01T12:00:00,5Z", false, "a comma as decimal separator"},
	{"date-time", "2016-12-31T23:59:60Z", true, "the leap second at the end of 2016"},
	{"date-time", "2016-12-31T23:59:60+01:00", false, "a leap second at 22:59 UTC"},
	{"date-time", "2017-01-01T00:59:60+01:00", true, "the 2016 leap second seen from UTC+1"},
	{"date-time", "2016-12-31T18:59:60-05:00", true, "the 2016 leap second seen from UTC-5"},
	{"date-time", "2024-06-01T24:00:00Z", false, "hour 24"},
	{"date-time", "2024-06-01T12:00:00Z ", false, "a trailing space"},
	{"time", "23:59:60Z", true, "a leap second, UTC"},
	{"time", "12:00:60Z", false, "a leap second at noon"},
	{"time", "+1:30:00Z", false, "library: a sign in the hour (strconv.Atoi read it)"},
	{"time", "08:30:06+24:00", false, "offset hour 24"},

	// duration: RFC 3339 appendix A
	{"duration", "PT36H", true, "hours past a day"},
	{"duration", "P1Y0M2D", true, "years, months and days"},
	{"duration", "P3W", true, "weeks alone"},
	{"duration", "PT1H0M2S", true, "hours, minutes and seconds"},
	{"duration", "P1Y2D", false, "library: years then days skips months in the grammar"},
	{"duration", "PT1H2S", false, "library: hours then seconds skips minutes"},
	{"duration", "P1M1Y", false, "units out of order"},
	{"duration", "PT", false, "T and nothing"},
	{"duration", "P1DT", false, "a T and no time"},
	{"duration", "PT0.5S", false, "a fractional second is ISO 8601's, not RFC 3339's"},
	{"period", "2024-01-01T00:00:00Z/P1D", true, "a start and a duration"},
	{"period", "P1D/2024-01-01T00:00:00Z", true, "a duration and an end"},
	{"period", "P1D/P2D", false, "two durations"},

	// email: RFC 5321 Mailbox; idn-email: RFC 6531
	{"email", "joe@example.com", true, "plain"},
	{"email", "a@b", true, "a one-label domain"},
	{"email", `"john..doe"@example.com`, true, "two dots are fine when quoted"},
	{"email", `"joe bloggs"@example.com`, true, "a space is fine when quoted"},
	{"email", `"a\"b"@example.com`, true, "library: a quoted pair in a quoted local part"},
	{"email", `"a\\b"@example.com`, true, "library: an escaped backslash in a quoted local part"},
	{"email", `"a"b"@example.com`, false, "a bare quote inside the quotes"},
	{"email", `"ab\"@example.com`, false, "the closing quote escaped"},
	{"email", "\"a\tb\"@example.com", false, "a control character inside the quotes"},
	{"email", `"δ"@example.com`, false, "non-ASCII in a plain e-mail, even quoted"},
	{"email", "joe@[IPv6:2001:db8::1]", true, "an IPv6 address literal"},
	{"email", "joe@[IPv6:fe80::1%eth0]", false, "a zone in an address literal"},
	{"email", "joe@[192.168.0.1]", true, "an IPv4 address literal"},
	{"email", "joe@xn--bcher-kva.example", true, "an A-label domain"},
	{"email", "joe@xn--bcher-kvb.example", false, "an A-label that is not Punycode of anything valid"},
	{"email", "@example.com", false, "library: no local part"},
	{"email", "joe@", false, "no domain"},
	{"email", "joe.@example.com", false, "a dot at the end of the local part"},
	{"email", "δοκιμή@example.com", false, "non-ASCII local part in a plain e-mail"},
	{"idn-email", "δοκιμή@example.com", true, "non-ASCII local part"},
	{"idn-email", "joe@bücher.example", true, "a U-label domain"},
	{"idn-email", "joe＠example.com", false, "a fullwidth at sign"},
	{"idn-email", "jo\xffe@example.com", false, "invalid UTF-8 in the local part"},

	// hostname, idn-hostname: RFC 1123, IDNA2008
	{"hostname", "localhost", true, "one label"},
	{"hostname", "my-server.internal", true, "an inner hyphen"},
	{"hostname", "my_server", false, "an underscore"},
	{"hostname", "example.com.", false, "a trailing dot (the suite's reading)"},
	{"hostname", "xn--bcher-kva.example", true, "bücher's A-label"},
	{"hostname", "xn--bcher-kva-.example", false, "an A-label ending in a hyphen"},
	{"hostname", "xn--ls8h.example", false, "library: an A-label of an emoji (U+1F4A9 is DISALLOWED)"},
	{"hostname", "xn--example-", false, "library: an A-label decoding to ASCII only"},
	{"hostname", "ab--cd.example", true, "a reserved-LDH label that is not an A-label (RFC 1123 allows it)"},
	{"hostname", "bücher.example", false, "a U-label is idn-hostname's, not hostname's"},
	{"hostname", strings.Repeat("a", 63) + ".example", true, "a 63-octet label"},
	{"hostname", strings.Repeat("a", 64) + ".example", false, "a 64-octet label"},
	{"idn-hostname", "bücher.example", true, "a U-label"},
	{"idn-hostname", "Bücher.example", true, "upper case (resolvers fold it)"},
	{"idn-hostname", "münchen。de", true, "the ideographic full stop as separator"},
	{"idn-hostname", "ｅｘａｍｐｌｅ.com", false, "fullwidth letters (NFKC would change them)"},
	{"idn-hostname", "\u212Aelvin.example", false, "the Kelvin sign (lower-cases to ASCII k)"},
	{"idn-hostname", "\uFB01le.example", false, "the fi ligature (NFKC makes it f, i)"},
	{"idn-hostname", "\U0001D41A\U0001D41B.example", false, "mathematical bold letters"},
	{"idn-hostname", "\u212Bngstr\u00F6m.example", false, "the Angstrom sign (NFC makes it \u00C5)"},
	{"idn-hostname", "\u00C5ngstr\u00F6m.example", true, "A with ring above (upper case, accepted)"},
	{"idn-hostname", "\uF900.example", false, "a CJK compatibility ideograph"},
	{"idn-hostname", "x\u00AA.example", false, "the feminine ordinal indicator (NFKC makes it a)"},
	{"idn-hostname", "\u0915\u093C.example", true, "Devanagari KA and NUKTA, composed as NFC keeps them"},
	{"idn-hostname", "\u0958.example", false, "Devanagari QA, a composition exclusion"},
	{"idn-hostname", "a\u00ADb.example", false, "a soft hyphen (default-ignorable)"},
	{"idn-hostname", "💩.example", false, "an emoji (DISALLOWED in IDNA2008)"},
	{"idn-hostname", "例え.テスト", true, "Japanese"},
	{"idn-hostname", "مثال.إختبار", true, "Arabic, right to left"},
	{"idn-hostname", "1مثال.example", false, "a right-to-left label starting with a digit"},
	{"idn-hostname", "\u0628\u200C\u0628.example", true, "ZERO WIDTH NON-JOINER between two dual-joining BEHs"},
	{"idn-hostname", "\u0627\u200C\u0628.example", false, "ZERO WIDTH NON-JOINER after ALEF, which joins only to the right"},
	{"idn-hostname", "\u0628\u064E\u200C\u0628.example", true, "a transparent FATHA between BEH and the non-joiner"},
	{"idn-hostname", "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.example", true, "Persian mi-khaham, the non-joiner's everyday use"},

	// ipv4, ipv6
	{"ipv4", "192.168.0.1", true, "private"},
	{"ipv4", "+1.2.3.4", false, "library: a plus sign"},
	{"ipv4", "010.0.0.1", false, "a leading zero (octal to some parsers)"},
	{"ipv4", "1.2.3", false, "three parts"},
	{"ipv4", "256.0.0.1", false, "256"},
	{"ipv6", "::1", true, "loopback"},
	{"ipv6", "2001:db8::192.168.0.1", true, "an embedded IPv4 address"},
	{"ipv6", "fe80::1%eth0", false, "a zone is not part of the address"},
	{"ipv6", "[::1]", false, "brackets"},

	// uri, iri, uri-reference, iri-reference: RFC 3986, 3987
	{"uri", "https://example.com/a/b?q=1&r=%20#frag", true, "the usual"},
	{"uri", "file:///C:/Users/me/notes.txt", true, "a Windows file URI"},
	{"uri", "urn:isbn:0451450523", true, "a URN"},
	{"uri", "mailto:joe@example.com", true, "mailto"},
	{"uri", "data:text/plain;base64,SGVsbG8=", true, "a data URI"},
	{"uri", "http://[v1.fe]/", true, "library: an IPvFuture host"},
	{"uri", "http://[fe80::1%25eth0]/", true, "an IPv6 zone, percent-encoded (RFC 6874)"},
	{"uri", "http://[fe80::1%eth0]/", false, "an IPv6 zone not percent-encoded"},
	{"uri", "http://example.com:8080/", true, "a port"},
	{"uri", "http://example.com:/", true, "an empty port"},
	{"uri", "http://example.com:80a/", false, "a port with a letter"},
	{"uri", "http://a b.example/", false, "library: a space in the host"},
	{"uri", "https://example.com/a b", false, "library: a space in the path"},
	{"uri", "https://example.com/{id}", false, "library: braces (a template is not a URI)"},
	{"uri", "https://example.com/%", false, "a lone percent sign"},
	{"uri", "https://example.com/%zz", false, "a bad percent-encoding"},
	{"uri", "https://例子.测试/", false, "non-ASCII in a URI"},
	{"uri", "//example.com/", false, "no scheme"},
	{"uri", "1http://example.com/", false, "a scheme starting with a digit"},
	{"uri", "https://example.com/\xff", false, "invalid UTF-8"},
	{"iri", "https://例子.测试/路径?q=值#片段", true, "non-ASCII everywhere"},
	{"iri", "https://example.com/\u00A0", true, "NO-BREAK SPACE is a ucschar"},
	{"iri", "https://example.com/\uFFFE", false, "a noncharacter"},
	{"iri", "https://example.com/\uE000", false, "private use outside the query"},
	{"iri", "https://example.com/?\uE000", true, "private use in the query"},
	{"uri-reference", "//example.com/", true, "a network-path reference"},
	{"uri-reference", "../a/b", true, "a relative path"},
	{"uri-reference", "a:b/c", true, "read as scheme a"},
	{"uri-reference", "1:b", false, "a colon in the first segment without a scheme"},
	{"uri-reference", "", true, "the empty reference"},
	{"iri-reference", "/路径", true, "a non-ASCII relative reference"},

	// uri-template: RFC 6570; MCP resource templates are these
	{"uri-template", "file:///{path}", true, "an MCP file template"},
	{"uri-template", "users://{userId}/profile", true, "an MCP custom scheme"},
	{"uri-template", "{+base}/items{?page,limit}", true, "reserved and query expansion"},
	{"uri-template", "repo://{owner}/{repo}/issues/{id:3}", true, "a prefix modifier"},
	{"uri-template", "{/path*}", true, "an exploded path"},
	{"uri-template", "{", false, "an unclosed expression"},
	{"uri-template", "{{x}}", false, "nested braces"},
	{"uri-template", "{a b}", false, "a space in a variable name"},
	{"uri-template", "{x:0}", false, "a zero prefix"},
	{"uri-template", "{x*:3}", false, "explode and prefix together"},

	// json-pointer, relative-json-pointer
	{"json-pointer", "/a~1b/0", true, "an escaped slash"},
	{"json-pointer", "/a~2", false, "~2"},
	{"json-pointer", "a/b", false, "no leading slash"},
	{"relative-json-pointer", "0#", true, "the member name"},
	{"relative-json-pointer", "01/a", false, "a leading zero"},
	{"relative-json-pointer", "0+1/a", true, "an index moved forward (draft-bhutton-relative-json-pointer-00)"},
	{"relative-json-pointer", "1-2#", true, "an index moved back, then the name"},
	{"relative-json-pointer", "0+/a", false, "a sign without a number"},
	{"relative-json-pointer", "0+01/a", false, "a leading zero in the move"},
	{"relative-json-pointer", "+1/a", false, "a sign first"},

	// uuid, semver
	{"uuid", "123e4567-E89B-12d3-a456-426614174000", true, "mixed case"},
	{"uuid", "123e4567e89b12d3a456426614174000", false, "no hyphens"},
	{"uuid", "{123e4567-e89b-12d3-a456-426614174000}", false, "braces"},
	{"semver", "1.0.0-alpha.1+build.001", true, "pre-release and build (leading zeros are fine in build)"},
	{"semver", "1.0.0-01", false, "a numeric pre-release with a leading zero"},
	{"semver", "1.0", false, "two numbers"},
	{"semver", "v1.0.0", false, "a v prefix"},

	// regex: ECMA-262 that Go's regexp can run
	{"regex", `^\d{3}-\w+$`, true, "digits and words"},
	{"regex", `^\u00e9$`, true, "library: a \\u escape (RE2 has none)"},
	{"regex", `\p{Letter}`, true, "library: a long property name"},
	{"regex", `[]`, true, "library: the empty class"},
	{"regex", `\cJ`, true, "library: a control escape"},
	{"regex", `(?i)abc`, false, "library: an inline flag is RE2's, not ECMA-262's"},
	{"regex", `(?P<n>x)`, false, "library: a Python-style group"},
	{"regex", `\z`, false, "library: RE2's end of text"},
	{"regex", `(a`, false, "an unclosed group"},
	{"regex", `^a{2,3}b{2}c{1,}?$`, true, "quantifiers"},
	{"regex", `a{`, false, "library: a lone brace (an error with the u flag)"},
	{"regex", `a}`, false, "library: a lone closing brace"},
	{"regex", `[[:alpha:]]`, false, "library: RE2's POSIX class reads as a class and a lone ] in ECMA-262"},
	{"regex", `(?<=a)b`, false, "a lookbehind: ECMA-262, but Go cannot run it"},
}

func TestCheck(t *testing.T) {
	for _, c := range formatCases {
		valid, known := Check(c.format, c.value)
		if !known {
			t.Errorf("%s is not known", c.format)
		}
		if valid != c.valid {
			t.Errorf("Check(%q, %q) = %v, want %v: %s", c.format, c.value, valid, c.valid, c.why)
		}
	}
}

func TestUnknownFormatsAreIgnored(t *testing.T) {
	for _, name := range []string{"int32", "binary", "color", "Date", "", "date-time "} {
		if valid, known := Check(name, "anything"); !valid || known {
			t.Errorf("Check(%q) = %v, %v; want true, false", name, valid, known)
		}
	}
}

// TestWiderFormatsAcceptTheNarrower: every URI is an IRI and a URI
// reference, every e-mail an internationalized one, every host name an
// internationalized one.
func TestWiderFormatsAcceptTheNarrower(t *testing.T) {
	wider := map[string][]string{
		"uri":           {"iri", "uri-reference", "iri-reference"},
		"iri":           {"iri-reference"},
		"uri-reference": {"iri-reference"},
		"email":         {"idn-email"},
		"hostname":      {"idn-hostname"},
	}
	for _, c := range formatCases {
		if !c.valid {
			continue
		}
		for _, w := range wider[c.format] {
			if valid, _ := Check(w, c.value); !valid {
				t.Errorf("%q is a valid %s but not a valid %s", c.value, c.format, w)
			}
		}
	}
}

func TestRegexSpeaksECMA(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		match      bool
	}{
		{`^\s$`, "\u00a0", true},  // ECMA's \s has NO-BREAK SPACE; RE2's has not
		{`^\s$`, "\ufeff", true},  // and the BOM
		{`^\S$`, "\u2003", false}, // EM SPACE is a space
		{`^[\S]$`, "\u2003", false},
		{`^[\S]$`, "x", true},
		{`^[\s]$`, "\u3000", true},
		{`^.$`, "\r", false}, // ECMA's dot stops at every line terminator
		{`^.$`, "\u2028", false},
		{`^.$`, "é", true},
		{`[]`, "", false},             // the empty class matches nothing
		{`^[^]$`, "\n", true},         // its negation anything
		{`^\cJ$`, "\n", true},         // control escapes
		{`^\cj$`, "\n", true},         //
		{`^\u00e9$`, "é", true},       // \u escapes
		{`^\u{1F600}$`, "😀", true},    // code point escapes
		{`^\uD83D\uDE00$`, "😀", true}, // surrogate pairs
		{`^\p{Letter}+$`, "école", true},
		{`^\p{Script=Greek}+$`, "αβγ", true},
		{`^\p{sc=Greek}+$`, "abc", false},
		{`^\p{gc=Lu}$`, "É", true},
		{`^\d$`, "٣", false}, // \d is ASCII in both
		{`^\w$`, "é", false}, // and \w
		{`^[[]$`, "[", true}, // a bracket in a class is a literal, not RE2's [[:alpha:]]
		{`^[[:a]$`, ":", true},
		{`^[\b]$`, "\b", true}, // backspace in a class
		{`^\/$`, "/", true},
		{`(?i)abc`, "ABC", true},        // not ECMA-262, compiled as Go reads it
		{`^[[:alpha:]]+$`, "abc", true}, // and so is RE2's POSIX class
		{`^a{2}$`, "aa", true},
		{`\z`, "", true},
	} {
		re, err := Regex(c.pattern)
		if err != nil {
			t.Errorf("Regex(%q): %v", c.pattern, err)
			continue
		}
		if got := re.MatchString(c.s); got != c.match {
			t.Errorf("Regex(%q).MatchString(%q) = %v, want %v", c.pattern, c.s, got, c.match)
		}
	}
	for _, c := range []struct{ pattern, err string }{
		{`(?<=a)b`, "cannot run"}, {`(a)\1`, "cannot run"}, {`(?<n>a)\k<n>`, "cannot run"},
		{`(`, "missing closing )"}, {`[a`, "missing closing ]"}, {`\uD800`, "lone surrogate"}, {`a{1001}`, "invalid repeat count"},
	} {
		if _, err := Regex(c.pattern); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Regex(%q): %v, want an error saying %q", c.pattern, err, c.err)
		}
	}
}

// TestSpaceClassesPartition: ECMA-262's \s and its complement, as written
// for classes, split the code points between them with none in both.
func TestSpaceClassesPartition(t *testing.T) {
	space := regexp.MustCompile(`^[` + ecmaSpaceRanges + `]$`)
	other := regexp.MustCompile(`^[` + ecmaNonSpaceRanges + `]$`)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r > 0x10000 && r%97 != 0 {
			continue // the ranges above the BMP are one; a sample suffices
		}
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		s := string(r)
		isSpace := space.MatchString(s)
		if isSpace == other.MatchString(s) {
			t.Errorf("%U: \\s %v, \\S %v", r, isSpace, !isSpace)
		}
		if want := unicode.Is(unicode.Zs, r) || strings.ContainsRune("\t\n\v\f\r\u2028\u2029\ufeff", r); isSpace != want {
			t.Errorf("%U: in \\s %v, want %v", r, isSpace, want)
		}
	}
}
