// Package format checks the string formats of JSON Schema's "format"
// keyword (date-time, email, hostname, uri, regex, ...) for mcpscope's
// validator in mcp/lib/schema.
//
// mcpscope asserts formats in every draft: a debugger should say that
// "tomorrow" is not a date before the server does. The checks follow the
// RFCs the specification names (RFC 3339 for dates and durations, RFC 5321
// and 6531 for e-mail, RFC 1123 and IDNA2008 for host names, RFC 3986 and
// 3987 for URIs and IRIs, RFC 6570 for URI templates, RFC 6901 for JSON
// pointers, ECMA-262 for regular expressions), and where a rule is in
// doubt they lean towards accepting: a false error sends a server author
// chasing a bug that is not there, which is worse than a missed one.
//
// Every check is a linear-time parser that allocates nothing on the common
// paths, but for internationalized host names, which golang.org/x/net/idna
// checks (idna.go says what is added to it), and nothing is computed at
// package init: a format costs only when a schema asks for it.
package format

// Check reports whether value is valid for the named format. known is false
// for a format this package does not check; the specification says such a
// format is ignored (an annotation), so valid is then true.
func Check(name, value string) (valid, known bool) {
	switch name {
	case "date-time":
		return isDateTime(value), true
	case "date":
		return isDate(value), true
	case "time":
		return isTime(value), true
	case "duration":
		return isDuration(value), true
	case "period":
		return isPeriod(value), true
	case "email":
		return isEmail(value, false), true
	case "idn-email":
		return isEmail(value, true), true
	case "hostname":
		return isHostname(value), true
	case "idn-hostname":
		return isIDNHostname(value), true
	case "ipv4":
		return isIPv4(value), true
	case "ipv6":
		return isIPv6(value), true
	case "uri":
		return isURI(value, false, false), true
	case "iri":
		return isURI(value, true, false), true
	case "uri-reference":
		return isURI(value, false, true), true
	case "iri-reference":
		return isURI(value, true, true), true
	case "uri-template":
		return isURITemplate(value), true
	case "json-pointer":
		return isJSONPointer(value), true
	case "relative-json-pointer":
		return isRelativeJSONPointer(value), true
	case "uuid":
		return isUUID(value), true
	case "semver":
		return isSemver(value), true
	case "regex":
		return isRegex(value), true
	}
	return true, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
