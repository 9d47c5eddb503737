// Package plural writes a count with its noun, in the singular for one:
// "1 server", "2 servers", never "1 servers" or "1 server(s)".
package plural

import "strconv"

// Of is n with one when n is 1, else with many: Of(1, "match", "matches").
func Of(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// S is n with noun, an s added unless n is 1: S(3, "tool") is "3 tools".
func S(n int, noun string) string { return Of(n, noun, noun+"s") }
