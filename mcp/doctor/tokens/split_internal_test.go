package tokens

import (
	"strings"
	"testing"
	"time"
	"unicode"
)

// Replacing DEL by STX leaves the count as it is only while no token but
// their own holds either byte: then each is one token wherever it stands.
func TestDeleteAndSTXAreTokensOfTheirOwn(t *testing.T) {
	for id, tok := range libraryTokens(t) {
		if strings.ContainsAny(tok, "\x7f\x02") && len(tok) > 1 {
			t.Errorf("token %d %q holds DEL or STX", id, tok)
		}
	}
}

// For every character of the Basic Multilingual Plane, beside letters,
// digits, spaces and between newlines, the library's matcher (Count's
// fast path) counts what the pattern's own split counts, DEL replaced:
// only whitespace makes the runs Count sends the other way. There the
// fast path also counts what the library itself counts.
func TestFastPathAgreesWithThePatternOnTheBMP(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep of 63,000 characters")
	}
	start := time.Now()
	var b strings.Builder
	for r := rune(0); r <= 0xFFFF; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		b.Reset()
		c := string(r)
		b.WriteString("a" + c + "b " + c + "'s " + c + "1\n" + c + "\n")
		s := withoutDelete(b.String())
		if hasSplitRun(s) {
			if !unicode.IsSpace(r) {
				t.Errorf("U+%04X: %q has a run between newlines", r, s)
			}
			continue
		}
		n, fastOK := countPieces(s, librarySplitter())
		want, ok := countByPattern(s)
		if !fastOK || !ok || n != want {
			t.Errorf("U+%04X %q: the library's matcher counts %d, the pattern's split %d", r, s, n, want)
		}
		if lib, err := library().Count(s); err != nil || lib != n {
			t.Errorf("U+%04X %q: %d tokens, the library counts %d (%v)", r, s, n, lib, err)
		}
	}
	t.Logf("%v", time.Since(start))
}

// BenchmarkCount counts 330 kB of code with blank indented lines (the
// pattern's own split), without (the library's matcher alone), and with
// one in a hundred functions (the pattern's split around those alone).
func BenchmarkCount(b *testing.B) {
	block := func(blank string) string {
		return "def f(x):\n    y = x + 1 # comment 中文字符 😀\n" + blank + "    return {\"a\": [1,2,3]}\n"
	}
	for _, tc := range []struct{ name, text string }{
		{"blank-indented", strings.Repeat(block("    \n"), 4000)},
		{"blank", strings.Repeat(block("\n"), 4000)},
		{"one-in-100", strings.Repeat(block("    \n")+strings.Repeat(block("\n"), 99), 40)},
	} {
		text := tc.text
		Count("warm the tables\n \n")
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Count(text)
			}
		})
	}
}

// countSplit, which sends only the stretches around the runs through the
// pattern's split, counts what the pattern's split of the whole text
// counts: the stretches end where every split has a piece boundary.
func FuzzCountSplitAgreesWithThePattern(f *testing.F) {
	for _, s := range []string{
		"def f():\n    x = 1\n    \n    return x\n", "a\n \nb", "x!\n \n \n/y", "é\u0301\n\t\n\u0301z",
		"\n/\n \n/", "a\r\n \r\nb\n", "\x7f\n \n\x7f", "\n\n  \n\n\n", "x\n \n\ny\n \n\nz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = withoutDelete(s)
		if !hasSplitRun(s) {
			return
		}
		got, ok := countSplit(s)
		want, wantOK := countByPattern(s)
		if got != want || ok != wantOK {
			t.Errorf("%q: %d (%v), the pattern's split of the whole %d (%v)", s, got, ok, want, wantOK)
		}
	})
}

// Count is the library's count wherever the library's matcher splits as
// the pattern does: pieces short and long (the merge's scan and its
// heap), words, punctuation, scripts, emoji and bytes that are not UTF-8.
func FuzzCountAgreesWithTheLibrary(f *testing.F) {
	for _, s := range []string{
		"hello world", strings.Repeat("abcdefghij", 30), strings.Repeat("!@#$%^&*()", 20),
		strings.Repeat("中文字符", 40), strings.Repeat("😀", 50), strings.Repeat("\xff\xfeab", 40),
		"supercalifragilisticexpialidocious" + strings.Repeat("Xy", 60), `{"a":[1,2,3],"b":"\u5929"}`,
		strings.Repeat("=", 300) + "\n" + strings.Repeat("-", 97),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = withoutDelete(s)
		if hasSplitRun(s) {
			return // the library splits it wrongly (see split.go)
		}
		want, err := library().Count(s)
		if err != nil {
			t.Skip(err)
		}
		if got := Count(s); got != want {
			t.Errorf("%q: %d tokens, the library counts %d", s, got, want)
		}
	})
}
