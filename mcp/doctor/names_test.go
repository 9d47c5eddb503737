package doctor

import (
	"strings"
	"testing"
)

func TestQuoteNameCutsALongNameAtACharacter(t *testing.T) {
	if got := QuoteName("echo"); got != `"echo"` {
		t.Errorf("short: %s", got)
	}
	exact := strings.Repeat("é", NameShown)
	if got := QuoteName(exact); got != `"`+exact+`"` {
		t.Errorf("%d characters are quoted whole: got %.40s…", NameShown, got)
	}
	long := strings.Repeat("é", 5000)
	want := `"` + strings.Repeat("é", NameShown) + `"… (10000 bytes)`
	if got := QuoteName(long); got != want {
		t.Errorf("long: %.60s… (%d bytes), want %d", got, len(got), len(want))
	}
}
