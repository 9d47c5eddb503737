package format

import (
	"strings"
	"testing"
	"time"
)

// allFormats are the formats Check knows.
var allFormats = []string{
	"date-time", "date", "time", "duration", "period", "email", "idn-email", "hostname", "idn-hostname",
	"ipv4", "ipv6", "uri", "iri", "uri-reference", "iri-reference", "uri-template", "json-pointer",
	"relative-json-pointer", "uuid", "semver", "regex",
}

// hostileInputs are what a server could send to slow a parser down or
// crash it: a megabyte of one character, of a repeated piece, deep
// nesting, and invalid UTF-8.
func hostileInputs() map[string]string {
	const mb = 1 << 20
	return map[string]string{
		"1 MB of a":              strings.Repeat("a", mb),
		"1 MB of dots":           strings.Repeat(".", mb),
		"1 MB of labels":         strings.Repeat("a.", mb/2),
		"1 MB of xn-- labels":    strings.Repeat("xn--bcher-kva.", mb/14),
		"1 MB of ü":              strings.Repeat("ü", mb/2),
		"1 MB of ü labels":       strings.Repeat("ü.", mb/3),
		"1 MB of open braces":    strings.Repeat("{", mb),
		"1 MB of expressions":    strings.Repeat("{a}", mb/3),
		"deep template nesting":  strings.Repeat("{", mb/2) + strings.Repeat("}", mb/2),
		"1 MB of commas in expr": "{" + strings.Repeat("a,", mb/2) + "a}",
		"1 MB of percent":        strings.Repeat("%", mb),
		"1 MB of %41":            "http://a/" + strings.Repeat("%41", mb/3),
		"1 MB of @":              strings.Repeat("@", mb),
		"1 MB quoted local":      `"` + strings.Repeat(`\"`, mb/2) + `"@a.b`,
		"1 MB of colons":         strings.Repeat(":", mb),
		"1 MB of slashes":        "http://" + strings.Repeat("/", mb),
		"1 MB of ~":              "/" + strings.Repeat("~", mb),
		"1 MB of digits":         strings.Repeat("9", mb),
		"1 MB of P1Y":            "P" + strings.Repeat("1Y", mb/2),
		"1 MB of parens":         strings.Repeat("(", mb),
		"1 MB of dot-stars":      strings.Repeat(".*", mb/2),
		"1 MB of \\s":            strings.Repeat(`\s`, mb/2),
		"1 MB of classes":        strings.Repeat("[a]", mb/3),
		"1 MB of \\u escapes":    strings.Repeat(`\u0041`, mb/6),
		"invalid UTF-8":          "\xff\xfe\xc0\x80a@b.c/\xed\xa0\x80",
		"invalid UTF-8 host":     "a\xff.example",
		"truncated rune":         "bücher\xc3",
		"lone surrogate escape":  `\uD800`,
		"1 MB of 0-9 semver":     "1.0.0-" + strings.Repeat("0.", mb/2) + "a",
		"1 MB of [ in iri":       "http://[" + strings.Repeat("[", mb),
	}
}

// TestHostileInputIsQuick: each hostile input through each format ends,
// without a panic, in well under a second (they take microseconds to a
// few milliseconds; the bound is loose for a loaded machine). A quadratic
// step on a megabyte would take minutes.
func TestHostileInputIsQuick(t *testing.T) {
	budget := 2 * time.Second
	if raceEnabled {
		budget *= 10
	}
	for name, in := range hostileInputs() {
		var start time.Time
		for _, f := range allFormats {
			in := in
			if f == "regex" && len(in) > 64<<10 {
				// Go's regexp parser, which the regex format ends
				// in, is linear but slow on some shapes (1.4 s for a
				// megabyte of "." on a loaded machine; the library
				// took as long): its first 64 KiB shows that what
				// we add before it is not worse than linear.
				in = in[:64<<10]
			}
			start = time.Now()
			Check(f, in)
			if d := time.Since(start); d > budget {
				t.Errorf("%s as %s took %v", name, f, d)
			}
		}
		// Regex compiles with Go's regexp, whose compiler takes seconds
		// on a megabyte whatever we do (the library took as long).
		if len(in) > 64<<10 {
			in = in[:64<<10]
		}
		start = time.Now()
		_, _ = Regex(in)
		if d := time.Since(start); d > budget {
			t.Errorf("Regex(%s) took %v", name, d)
		}
	}
}

// TestCheckIsLinear compares a 64 KiB and a 1 MiB input of the same shape:
// linear work grows about 16 times; quadratic would grow 256 times.
func TestCheckIsLinear(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing")
	}
	shapes := map[string]func(n int) string{
		"labels":      func(n int) string { return strings.Repeat("a.", n/2) },
		"ü labels":    func(n int) string { return strings.Repeat("ü.", n/3) },
		"expressions": func(n int) string { return strings.Repeat("{a}", n/3) },
		"path":        func(n int) string { return "http://a/" + strings.Repeat("b/", n/2) },
		"local part":  func(n int) string { return strings.Repeat("a.", n/2) + "a@b" },
	}
	for name, shape := range shapes {
		for _, f := range allFormats {
			if f == "regex" {
				continue // Go's regexp compiler, not ours
			}
			small, big := shape(64<<10), shape(1<<20)
			ts, tb := timeCheck(f, small), timeCheck(f, big)
			if tb > 64*ts && tb > 250*time.Millisecond {
				t.Errorf("%s as %s: 64 KiB %v, 1 MiB %v (more than linear)", name, f, ts, tb)
			}
		}
	}
}

func timeCheck(f, s string) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		start := time.Now()
		Check(f, s)
		best = min(best, time.Since(start))
	}
	return best
}

// FuzzCheck: Check never panics, says the same thing twice, knows every
// format it knows whatever the value, and keeps the formats' inclusions
// (a URI is an IRI and a URI reference, an e-mail an internationalized
// one, a host name an internationalized one); a value the regex format
// accepts compiles with Regex.
func FuzzCheck(f *testing.F) {
	for _, c := range formatCases {
		f.Add(c.value)
	}
	f.Add("xn--ls8h")
	f.Add("http://[v7.:]/")
	f.Fuzz(func(t *testing.T, s string) {
		verdict := map[string]bool{}
		for _, name := range allFormats {
			v1, k1 := Check(name, s)
			v2, k2 := Check(name, s)
			if v1 != v2 || k1 != k2 || !k1 {
				t.Fatalf("Check(%q, %q): %v,%v then %v,%v", name, s, v1, k1, v2, k2)
			}
			verdict[name] = v1
		}
		for narrow, wide := range map[string]string{
			"uri": "iri", "iri": "iri-reference", "uri-reference": "iri-reference",
			"email": "idn-email", "hostname": "idn-hostname", "date-time": "period",
		} {
			if narrow == "date-time" {
				continue
			}
			if verdict[narrow] && !verdict[wide] {
				t.Fatalf("%q is a valid %s but not a valid %s", s, narrow, wide)
			}
		}
		if verdict["uri"] && !verdict["uri-reference"] {
			t.Fatalf("%q is a valid uri but not a valid uri-reference", s)
		}
		if verdict["regex"] {
			if _, err := Regex(s); err != nil {
				t.Fatalf("%q is a valid regex but Regex says %v", s, err)
			}
		}
	})
}
