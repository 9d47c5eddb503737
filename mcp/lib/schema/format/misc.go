package format

// isJSONPointer reports whether s is a JSON Pointer of RFC 6901: empty, or
// reference tokens each after a "/", in which "~" only starts the escapes
// "~0" and "~1".
func isJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' {
			if i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1' {
				return false
			}
			i++
		}
	}
	return true
}

// isRelativeJSONPointer reports whether s is a Relative JSON Pointer
// (draft-bhutton-relative-json-pointer-00, which 2020-12 cites): a
// non-negative integer without leading zeros, optionally moved by "+n" or
// "-n" along an array (the index manipulation earlier drafts lacked),
// then "#" or a JSON Pointer.
func isRelativeJSONPointer(s string) bool {
	n := uintLen(s)
	if n == 0 {
		return false
	}
	rest := s[n:]
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		m := uintLen(rest[1:])
		if m == 0 {
			return false
		}
		rest = rest[1+m:]
	}
	return rest == "#" || isJSONPointer(rest)
}

// uintLen returns the length of the non-negative integer without leading
// zeros that s starts with, or 0.
func uintLen(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i > 1 && s[0] == '0' {
		return 0
	}
	return i
}

// isUUID reports whether s is a UUID in RFC 4122's string form: 32 hex
// digits in groups of 8-4-4-4-12 joined by hyphens, in either case.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// isSemver reports whether s is a Semantic Versioning 2.0.0 version:
// MAJOR.MINOR.PATCH without leading zeros, then an optional "-" and
// dot-separated pre-release identifiers (numeric ones without leading
// zeros), then an optional "+" and dot-separated build identifiers.
func isSemver(s string) bool {
	core := s
	pre, build := "", ""
	hasPre, hasBuild := false, false
	for i := 0; i < len(s); i++ {
		if s[i] == '+' {
			core, build, hasBuild = s[:i], s[i+1:], true
			break
		}
	}
	for i := 0; i < len(core); i++ {
		if core[i] == '-' {
			core, pre, hasPre = core[:i], core[i+1:], true
			break
		}
	}
	for part := 0; part < 3; part++ {
		if part > 0 {
			if core == "" || core[0] != '.' {
				return false
			}
			core = core[1:]
		}
		i := 0
		for i < len(core) && isDigit(core[i]) {
			i++
		}
		if i == 0 || i > 1 && core[0] == '0' {
			return false
		}
		core = core[i:]
	}
	if core != "" {
		return false
	}
	return (!hasPre || semverIdents(pre, true)) && (!hasBuild || semverIdents(build, false))
}

// semverIdents checks dot-separated identifiers of letters, digits and
// hyphens; numeric ones may not have leading zeros when numeric is set
// (pre-release), and may in build metadata.
func semverIdents(s string, numeric bool) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if c := s[i]; !isAlpha(c) && !isDigit(c) && c != '-' {
				return false
			}
			continue
		}
		id := s[start:i]
		if id == "" || numeric && len(id) > 1 && id[0] == '0' && isAllDigits(id) {
			return false
		}
		start = i + 1
	}
	return true
}
