package record

import (
	"regexp"
	"strings"
	"sync"
)

// secretParam finds a query (or fragment) parameter: its name and value.
var secretParam = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([?&;#])([^=&;#?\s"'<>]{1,128})=([^&;#\s"'<>]*)`) })

// secretNames are parts of parameter names that carry credentials:
// api_key, access_token, client_secret, password, X-Amz-Signature, sig,
// code, code_verifier, auth, credential...
var secretNames = []string{"key", "token", "secret", "password", "passwd", "pwd", "sig", "code", "auth", "credential", "session", "jwt", "assertion"}

// IsSecretParam reports whether a URL parameter name looks like it carries
// a credential (case-insensitive, by part of the name).
func IsSecretParam(name string) bool {
	n := strings.ToLower(name)
	for _, s := range secretNames {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// RedactQuerySecrets replaces the values of secret-looking URL parameters
// (see IsSecretParam) anywhere in s — a URL, a timeline summary, an error
// message — with [redacted], so that `?api_key=…` never reaches a session
// file or a log in clear. Other parameters are kept.
func RedactQuerySecrets(s string) string {
	if !strings.ContainsRune(s, '=') {
		return s
	}
	return secretParam().ReplaceAllStringFunc(s, func(m string) string {
		sub := secretParam().FindStringSubmatch(m)
		if !IsSecretParam(sub[2]) || sub[3] == "" || sub[3] == Redacted {
			return m
		}
		return sub[1] + sub[2] + "=" + Redacted
	})
}
