package clients

import (
	"regexp"
	"strings"
	"testing"
)

// ASCIIName is the regexp it stands for, byte by byte and at the length
// bounds, for each of the rules that use it.
func TestASCIINameIsItsPattern(t *testing.T) {
	for _, rule := range []struct {
		pattern string
		max     int
		punct   string
	}{
		{`^[a-zA-Z0-9_-]{1,64}$`, 64, "_-"},
		{`^[a-zA-Z0-9_.-]{1,64}$`, 64, "_.-"},
		{`^[A-Za-z0-9_.-]{1,128}$`, 128, "_.-"},
	} {
		re := regexp.MustCompile(rule.pattern)
		var names []string
		for c := range 256 {
			names = append(names, string(rune(c)), "a"+string([]byte{byte(c)})+"b")
		}
		for _, n := range []int{0, 1, rule.max - 1, rule.max, rule.max + 1, 2 * rule.max} {
			names = append(names, strings.Repeat("x", n), strings.Repeat("é", n/2), strings.Repeat("a.", n/2), "\n"+strings.Repeat("a", n))
		}
		names = append(names, "get_weather", "mcp__server__tool", "tool name", "a\nb", "ok-1.2", "Ωmega", "a\x00")
		for _, s := range names {
			if got, want := ASCIIName(s, rule.max, rule.punct), re.MatchString(s); got != want {
				t.Errorf("%s on %q (%d bytes): %v, the pattern says %v", rule.pattern, s, len(s), got, want)
			}
		}
	}
}
