package plural

import "testing"

func TestCounts(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{S(1, "server"), "1 server"},
		{S(0, "server"), "0 servers"},
		{S(2, "server"), "2 servers"},
		{Of(1, "match", "matches"), "1 match"},
		{Of(5, "match", "matches"), "5 matches"},
		{S(-1, "byte"), "-1 bytes"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
