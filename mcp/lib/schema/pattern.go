package schema

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// SampleForPattern returns a short string matching pattern, or "" and
// false when it cannot build one (lookarounds and the like, which Go's
// regexp cannot parse, or a pattern it gets wrong). It walks the parsed
// pattern taking the first choice and the minimum repetitions everywhere,
// which covers the patterns tool schemas use: codes, digits, prefixes.
func SampleForPattern(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writeSample(&b, re.Simplify(), 0) {
		return "", false
	}
	out := b.String()
	if ok, _ := regexp.MatchString(pattern, out); !ok {
		return "", false
	}
	return out, true
}

func writeSample(b *strings.Builder, re *syntax.Regexp, depth int) bool {
	if depth > 64 {
		return false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
		return true
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return false
		}
		b.WriteRune(preferPrintable(re.Rune))
		return true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
		return true
	case syntax.OpCapture:
		return writeSample(b, re.Sub[0], depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !writeSample(b, s, depth+1) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return len(re.Sub) > 0 && writeSample(b, re.Sub[0], depth+1)
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpPlus:
		return writeSample(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if !writeSample(b, re.Sub[0], depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// preferPrintable picks a letter or digit from a class's ranges when it
// has one, so samples read well ("a", "0") instead of control characters.
func preferPrintable(ranges []rune) rune {
	for _, want := range [][2]rune{{'a', 'z'}, {'A', 'Z'}, {'0', '9'}} {
		for i := 0; i+1 < len(ranges); i += 2 {
			lo, hi := ranges[i], ranges[i+1]
			if lo <= want[1] && hi >= want[0] {
				return max(lo, want[0])
			}
		}
	}
	return ranges[0]
}
