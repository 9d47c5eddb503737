// Package redact hides credentials in what mcpscope shows or writes down:
// URL query parameters and user info, command-line arguments, HTTP
// headers, and form or JSON bodies (an OAuth token request, a token
// answer). It is the one place that knows what a secret looks like; every
// writer (session files, the tap's record, exports, logs, the window
// title) goes through it.
//
// Two name rules live here, for two kinds of names. A URL parameter is a
// secret when its name contains a secret word anywhere (api_key,
// X-Amz-Signature, sig): query names are short and a false positive costs
// little. A field name (a JSON member, a form field, a flag, an
// environment variable) is a secret when its last word is one
// (access_token, clientSecret, --api-key, OPENAI_API_KEY), so that
// token_endpoint, token_type and --token-file, which a person debugging
// a sign-in needs to read, are kept.
package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Marker replaces every secret value.
const Marker = "[redacted]"

// paramWords are parts of URL parameter names that carry credentials:
// api_key, access_token, client_secret, password, X-Amz-Signature, sig,
// code, code_verifier, auth, credential...
var paramWords = []string{"key", "token", "secret", "password", "passwd", "pwd", "sig", "code", "auth", "credential", "session", "jwt", "assertion"}

// IsSecretParam reports whether a URL parameter name looks like it carries
// a credential (case-insensitive, by part of the name).
func IsSecretParam(name string) bool {
	n := strings.ToLower(name)
	for _, s := range paramWords {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// secretLastWords end the names of fields that hold credentials.
var secretLastWords = []string{
	"token", "secret", "password", "passwd", "pwd", "pass", "passphrase", "key", "apikey",
	"verifier", "assertion", "credential", "credentials", "cookie", "jwt", "bearer", "signature",
}

// secretCodes are the names of one-time codes (OAuth's authorization
// code, the device flow's): "code" alone is too common a last word
// (error_code) to be one.
var secretCodes = []string{"code", "authorization_code", "device_code"}

// IsSecretField reports whether a field name (a JSON member, a form
// field, a flag without its dashes, an environment variable) names a
// credential: its last word (split at _, -, . and camelCase) is one, as
// in access_token, clientSecret, api-key, OPENAI_API_KEY.
func IsSecretField(name string) bool {
	if slices.Contains(secretCodes, strings.ToLower(name)) {
		return true
	}
	w := words(name)
	return len(w) > 0 && slices.Contains(secretLastWords, w[len(w)-1])
}

// words splits a name at _, -, . and spaces and where camelCase turns to
// upper case, lower-cased: "clientSecret" is [client secret].
func words(name string) []string {
	var out []string
	var cur []rune
	end := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			end()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			end()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	end()
	return out
}

// secretParam finds a query (or fragment) parameter: its name and value.
var secretParam = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([?&;#])([^=&;#?\s"'<>]{1,128})=([^&;#\s"'<>]*)`)
})

// userInfo finds a password in a URL's user info: scheme://user:password@.
var userInfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'<>]*):([^/\s@"'<>]+)@`)
})

// URLs replaces, anywhere in s (a URL, a timeline summary, an error
// message), the values of secret-looking URL parameters (IsSecretParam)
// and a password in a URL's user info with Marker, so that `?api_key=…`
// never reaches a session file, a log or a title in clear. Other
// parameters are kept.
func URLs(s string) string {
	if strings.ContainsRune(s, '=') {
		s = secretParam().ReplaceAllStringFunc(s, func(m string) string {
			sub := secretParam().FindStringSubmatch(m)
			if !IsSecretParam(sub[2]) || sub[3] == "" || sub[3] == Marker {
				return m
			}
			return sub[1] + sub[2] + "=" + Marker
		})
	}
	if strings.Contains(s, "@") {
		s = userInfo().ReplaceAllStringFunc(s, func(m string) string {
			sub := userInfo().FindStringSubmatch(m)
			if sub[2] == Marker {
				return m
			}
			return sub[1] + ":" + Marker + "@"
		})
	}
	return s
}

// secretHeaders are the headers whose values are credentials whatever
// their name says.
var secretHeaders = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token"}

// IsSecretHeader reports whether an HTTP header carries a credential:
// Authorization, Cookie, Set-Cookie, Proxy-Authorization, X-Api-Key, or a
// name whose last word is a secret's (X-Goog-Api-Key, X-CSRF-Token).
func IsSecretHeader(name string) bool {
	return slices.Contains(secretHeaders, strings.ToLower(name)) || IsSecretField(name)
}

// Header is a header's value as it may be shown: an Authorization value
// keeps its scheme ("Bearer [redacted]"), a cookie its names
// ("sid=[redacted]; Path=/"), another secret header is Marker, and any
// other value has its URLs redacted.
func Header(name, value string) string {
	switch n := strings.ToLower(name); {
	case n == "authorization" || n == "proxy-authorization":
		return Authorization(value)
	case n == "cookie" || n == "set-cookie":
		return cookie(value)
	case IsSecretHeader(n):
		return Marker
	}
	return URLs(value)
}

// Authorization keeps the scheme of an Authorization value and hides the
// credentials: "Bearer [redacted]".
func Authorization(v string) string {
	if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok && scheme != "" {
		return scheme + " " + Marker
	}
	return Marker
}

// cookie keeps a Cookie or Set-Cookie value's names and a Set-Cookie's
// attributes (Path, Expires...), and hides the values of the cookies.
func cookie(v string) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "path", "domain", "expires", "max-age", "samesite":
			continue
		}
		parts[i] = name + "=" + Marker
	}
	return strings.Join(parts, ";")
}
