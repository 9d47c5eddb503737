package auth

import (
	"strings"
	"testing"
)

// FuzzParseChallenge: any WWW-Authenticate value parses without a panic:
// a server chooses the header.
func FuzzParseChallenge(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`,
		`Basic realm="x", Bearer error="invalid_token", error_description="expired \"quoted\""`,
		`Bearer`, `bearer scope=a,`, `, , Bearer error=`, `Bearer realm="unterminated`, `DPoP algs="ES256", Bearer scope="x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c, ok := ParseChallenge([]string{v})
		if !ok && (c != Challenge{}) {
			t.Fatalf("%q: no challenge but %+v", v, c)
		}
		if ok && !strings.Contains(strings.ToLower(v), "bearer") {
			t.Fatalf("%q: a Bearer challenge out of nothing", v)
		}
	})
}
