package redact

import (
	"regexp"
	"strings"
	"sync"
)

// envName is an environment-style assignment's name: NAME=value.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`) })

// headerArg is a header given as an argument: -H "Authorization: Bearer x".
var headerArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9-]{1,64}):[ \t]*(.+)$`) })

// Args is a command line with its secrets redacted, for a session file,
// an export or a title: the value of a flag that names a secret
// (--api-key X, --api-key=X, --token, --password, --client-secret; see
// IsSecretField), an environment-style argument (OPENAI_API_KEY=X,
// GITHUB_TOKEN=X), a secret header given as an argument
// ("Authorization: Bearer X"), and secret URL parameters and passwords
// (URLs). A value that starts with "-" after a flag is taken for the next
// flag, not a value. args itself is not changed.
func Args(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	valueNext := false
	for i, a := range args {
		if valueNext && a != "" && !strings.HasPrefix(a, "-") {
			out[i], valueNext = Marker, false
			continue
		}
		valueNext = false
		out[i] = arg(a, &valueNext)
	}
	return out
}

// arg redacts one argument; valueNext is set when it is a secret flag
// whose value is the next argument.
func arg(a string, valueNext *bool) string {
	if strings.HasPrefix(a, "-") {
		dashes := len(a) - len(strings.TrimLeft(a, "-"))
		name, value, hasValue := strings.Cut(a[dashes:], "=")
		if name != "" && IsSecretField(name) {
			if !hasValue {
				*valueNext = true
				return a
			}
			if value != "" && value != Marker {
				return a[:dashes] + name + "=" + Marker
			}
			return a
		}
		return URLs(a)
	}
	if name, value, ok := strings.Cut(a, "="); ok && value != "" && value != Marker && envName().MatchString(name) && IsSecretField(name) {
		return name + "=" + Marker
	}
	if m := headerArg().FindStringSubmatch(a); m != nil && IsSecretHeader(m[1]) {
		return m[1] + ": " + Header(m[1], m[2])
	}
	return URLs(a)
}

// Command is a command line written as one string (a title, a target's
// description: the arguments joined by spaces) with its secrets redacted
// as Args does. Spacing is kept.
func Command(line string) string {
	parts := strings.Split(line, " ")
	var args []string
	var at []int
	for i, p := range parts {
		if p != "" {
			args, at = append(args, p), append(at, i)
		}
	}
	for j, a := range Args(args) {
		parts[at[j]] = a
	}
	return strings.Join(parts, " ")
}
