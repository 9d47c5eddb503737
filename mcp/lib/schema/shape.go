package schema

// The meta-schema check, written as shape rules per keyword: a schema that
// breaks its dialect's meta-schema does not compile (the doctor's
// tools/invalid-schema), and the error says what is wrong and where, in
// one line: "/properties/age/minimum must be a number". The same rules
// answer a $ref to a dialect's meta-schema by URI.
//
// Only keywords of the schema's dialect are checked; unknown keywords are
// allowed, as every dialect allows them.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp/lib/schema/format"
)

// anchorNames are the $anchor forms of 2020-12 and of 2019-09, compiled at
// first use.
var anchorNames = sync.OnceValues(func() (*regexp.Regexp, *regexp.Regexp) {
	return regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`), regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9.:_]*$`)
})

type shapeError struct {
	loc, msg string
}

func (e *shapeError) Error() string { return DisplayPointer(e.loc) + " " + e.msg }

func shapeErr(loc, kw, format string, args ...any) error {
	return &shapeError{loc: loc + "/" + EscapeToken(kw), msg: fmt.Sprintf(format, args...)}
}

// checkShape checks the schema v, at loc, against dialect d's rules.
func checkShape(v any, loc string, d dialect, depth int) error {
	return checkSchema(v, loc, d, depth, false)
}

// checkSchema: draft-04 has no boolean schemas, except where
// additionalProperties and additionalItems take a boolean (boolOK).
func checkSchema(v any, loc string, d dialect, depth int, boolOK bool) error {
	if depth > maxSchemaDepth {
		return &shapeError{loc: loc, msg: fmt.Sprintf("nests more than %d levels deep", maxSchemaDepth)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool && (d >= draft6 || boolOK) {
			return nil
		}
		if d == draft4 {
			return &shapeError{loc: loc, msg: "must be a schema (an object)"}
		}
		return &shapeError{loc: loc, msg: "must be a schema (an object or a boolean)"}
	}
	if s, ok := m["$schema"]; ok {
		str, isStr := s.(string)
		if !isStr {
			return shapeErr(loc, "$schema", "must be a string")
		}
		if nd, known := dialectOf(str); known {
			d = nd
		}
	}
	for kw, val := range m {
		if err := checkKeyword(m, kw, val, loc, d, depth); err != nil {
			return err
		}
	}
	return nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

func isNumber(v any) bool { _, ok := numberOf(v); return ok && typeOf(v) == typeNumber }

func isNonNegativeInt(v any) bool {
	d, ok := numberOf(v)
	return ok && typeOf(v) == typeNumber && !d.neg && d.isInt()
}

// checkKeyword checks one keyword of the schema m.
func checkKeyword(m map[string]any, kw string, val any, loc string, d dialect, depth int) error {
	sub := func(v any, at string, boolOK bool) error {
		return checkSchema(v, at, d, depth+1, boolOK)
	}
	here := loc + "/" + EscapeToken(kw)
	want := func(ok bool, what string) error {
		if ok {
			return nil
		}
		return shapeErr(loc, kw, "must be %s", what)
	}
	switch kw {
	case "$ref", "format", "title", "description":
		return want(isString(val), "a string")
	case "$id", "id":
		if (kw == "id") != (d == draft4) {
			return nil
		}
		s, ok := val.(string)
		if !ok {
			return shapeErr(loc, kw, "must be a string")
		}
		if i := strings.IndexByte(s, '#'); d >= draft2019 && i >= 0 && i < len(s)-1 {
			return shapeErr(loc, kw, "must not have a fragment (use $anchor)")
		}
	case "$comment", "contentEncoding", "contentMediaType":
		if d >= draft7 {
			return want(isString(val), "a string")
		}
	case "$anchor", "$dynamicAnchor":
		if d < draft2019 || (kw == "$dynamicAnchor" && d < draft2020) {
			return nil
		}
		s, ok := val.(string)
		if !ok {
			return shapeErr(loc, kw, "must be a string")
		}
		re2020, re2019 := anchorNames()
		re := re2020
		if d == draft2019 {
			re = re2019
		}
		if !re.MatchString(s) {
			return shapeErr(loc, kw, "%q is not an anchor name (a letter or _, then letters, digits, - . _)", s)
		}
	case "$dynamicRef":
		if d >= draft2020 {
			return want(isString(val), "a string")
		}
	case "$recursiveRef":
		if d == draft2019 {
			return want(isString(val), "a string")
		}
	case "$recursiveAnchor":
		if d == draft2019 {
			return want(isBool(val), "a boolean")
		}
	case "$vocabulary":
		if d >= draft2019 {
			obj, ok := val.(map[string]any)
			if !ok {
				return shapeErr(loc, kw, "must be an object")
			}
			for k, b := range obj {
				if !isBool(b) {
					return shapeErr(here, k, "must be a boolean")
				}
			}
		}
	case "readOnly", "writeOnly", "deprecated":
		if d >= draft7 {
			return want(isBool(val), "a boolean")
		}
	case "uniqueItems":
		return want(isBool(val), "a boolean")
	case "examples":
		if d >= draft6 {
			return want(isArray(val), "an array")
		}
	case "type":
		return checkType(loc, val)
	case "enum":
		arr, ok := val.([]any)
		if !ok {
			return shapeErr(loc, kw, "must be an array")
		}
		if d == draft4 && len(arr) == 0 {
			return shapeErr(loc, kw, "must not be empty")
		}
	case "multipleOf":
		dec, ok := numberOf(val)
		if !ok || typeOf(val) != typeNumber {
			return shapeErr(loc, kw, "must be a number")
		}
		if dec.neg || dec.isZero() {
			return shapeErr(loc, kw, "must be greater than 0")
		}
	case "maximum", "minimum":
		return want(isNumber(val), "a number")
	case "exclusiveMaximum", "exclusiveMinimum":
		if d == draft4 {
			return want(isBool(val), "a boolean (draft-04)")
		}
		return want(isNumber(val), "a number")
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		return want(isNonNegativeInt(val), "a non-negative integer")
	case "maxContains", "minContains":
		if d >= draft2019 {
			return want(isNonNegativeInt(val), "a non-negative integer")
		}
	case "pattern":
		s, ok := val.(string)
		if !ok {
			return shapeErr(loc, kw, "must be a string")
		}
		if _, err := format.Regex(s); err != nil {
			return shapeErr(loc, kw, "is not a valid regular expression: %v", err)
		}
	case "required":
		return checkNames(loc, kw, val, d == draft4)
	case "dependentRequired":
		if d < draft2019 {
			return nil
		}
		obj, ok := val.(map[string]any)
		if !ok {
			return shapeErr(loc, kw, "must be an object")
		}
		for name, list := range obj {
			if err := checkNames(here, name, list, false); err != nil {
				return err
			}
		}
	case "dependencies":
		obj, ok := val.(map[string]any)
		if !ok {
			return shapeErr(loc, kw, "must be an object")
		}
		for name, dep := range obj {
			if _, isList := dep.([]any); isList {
				if err := checkNames(here, name, dep, d == draft4); err != nil {
					return err
				}
			} else if err := sub(dep, here+"/"+EscapeToken(name), false); err != nil {
				return err
			}
		}
	case "properties", "patternProperties", "definitions", "$defs", "dependentSchemas":
		if (kw == "$defs" || kw == "dependentSchemas") && d < draft2019 {
			return nil
		}
		obj, ok := val.(map[string]any)
		if !ok {
			return shapeErr(loc, kw, "must be an object of schemas")
		}
		for name, s := range obj {
			if kw == "patternProperties" {
				if _, err := format.Regex(name); err != nil {
					return shapeErr(here, name, "is not a valid regular expression: %v", err)
				}
			}
			if err := sub(s, here+"/"+EscapeToken(name), false); err != nil {
				return err
			}
		}
	case "items":
		if arr, ok := val.([]any); ok && d < draft2020 {
			return checkSchemaList(here, arr, sub)
		}
		return sub(val, here, false)
	case "prefixItems":
		if d < draft2020 {
			return nil
		}
		arr, ok := val.([]any)
		if !ok {
			return shapeErr(loc, kw, "must be an array of schemas")
		}
		return checkSchemaList(here, arr, sub)
	case "allOf", "anyOf", "oneOf":
		arr, ok := val.([]any)
		if !ok {
			return shapeErr(loc, kw, "must be an array of schemas")
		}
		return checkSchemaList(here, arr, sub)
	case "additionalItems", "additionalProperties":
		return sub(val, here, true)
	case "not":
		return sub(val, here, false)
	case "contains", "propertyNames":
		if d >= draft6 {
			return sub(val, here, false)
		}
	case "if", "then", "else":
		if d >= draft7 {
			return sub(val, here, false)
		}
	case "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		if d >= draft2019 {
			return sub(val, here, false)
		}
	}
	return nil
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

func isArray(v any) bool { _, ok := v.([]any); return ok }

func checkSchemaList(at string, arr []any, sub func(any, string, bool) error) error {
	if len(arr) == 0 {
		return &shapeError{loc: at, msg: "must not be empty"}
	}
	for i, s := range arr {
		if err := sub(s, at+"/"+strconv.Itoa(i), false); err != nil {
			return err
		}
	}
	return nil
}

func checkType(loc string, val any) error {
	names := "null, boolean, object, array, number, string, integer"
	switch t := val.(type) {
	case string:
		if typeBit(t) == 0 {
			return shapeErr(loc, "type", "%q is not a type (%s)", t, names)
		}
		return nil
	case []any:
		if len(t) == 0 {
			return shapeErr(loc, "type", "must not be an empty list")
		}
		var seen uint8
		for i, x := range t {
			s, ok := x.(string)
			if !ok || typeBit(s) == 0 {
				return shapeErr(loc+"/type", strconv.Itoa(i), "must be a type (%s)", names)
			}
			if seen&typeBit(s) != 0 {
				return shapeErr(loc, "type", "lists %q twice", s)
			}
			seen |= typeBit(s)
		}
		return nil
	}
	return shapeErr(loc, "type", "must be a type name or an array of them (%s)", names)
}

// checkNames: an array of unique strings (required, dependencies' lists).
func checkNames(loc, kw string, val any, nonEmpty bool) error {
	arr, ok := val.([]any)
	if !ok {
		return shapeErr(loc, kw, "must be an array of property names")
	}
	if nonEmpty && len(arr) == 0 {
		return shapeErr(loc, kw, "must not be empty")
	}
	seen := make(map[string]bool, len(arr))
	for i, x := range arr {
		s, ok := x.(string)
		if !ok {
			return shapeErr(loc+"/"+EscapeToken(kw), strconv.Itoa(i), "must be a string")
		}
		if seen[s] {
			return shapeErr(loc, kw, "lists %q twice", s)
		}
		seen[s] = true
	}
	return nil
}
