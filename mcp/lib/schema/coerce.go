package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CoerceArgument types a command-line value (mcpscope call --tool-arg
// name=value) by the "type" inputSchema gives property name. A described
// property is parsed strictly as its type (the first of a type list that
// fits wins; "null" only for the literal null); a property the schema does
// not describe, or a schema that does not decode, is parsed as JSON when
// the value is valid JSON and kept as a string otherwise, as the official
// Inspector CLI does. Numbers and JSON values come back as json.RawMessage
// so that their spelling is sent unchanged.
func CoerceArgument(inputSchema json.RawMessage, name, value string) (any, error) {
	var doc struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(inputSchema, &doc) // a broken schema leaves every value a guess
	prop, known := doc.Properties[name]
	return coerce(value, typeList(prop.Type), known)
}

// typeList reads a schema's "type": one name or a list of names.
func typeList(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

func coerce(v string, types []string, known bool) (any, error) {
	if !known || len(types) == 0 {
		var x any
		if err := json.Unmarshal([]byte(v), &x); err == nil {
			return json.RawMessage(v), nil
		}
		return v, nil
	}
	if v == "null" && slices.Contains(types, "null") {
		return nil, nil
	}
	var errs []string
	for _, t := range types {
		switch t {
		case "string":
			return v, nil
		case "integer":
			if _, err := strconv.ParseInt(v, 10, 64); err == nil {
				return json.RawMessage(v), nil
			}
			errs = append(errs, "an integer")
		case "number":
			if _, err := strconv.ParseFloat(v, 64); err == nil && json.Valid([]byte(v)) {
				return json.RawMessage(v), nil
			}
			errs = append(errs, "a number")
		case "boolean":
			if v == "true" || v == "false" {
				return v == "true", nil
			}
			errs = append(errs, "true or false")
		case "object", "array":
			var x any
			if err := json.Unmarshal([]byte(v), &x); err == nil {
				if _, isObj := x.(map[string]any); (t == "object") == isObj {
					return json.RawMessage(v), nil
				}
			}
			errs = append(errs, "a JSON "+t)
		}
	}
	if len(errs) == 0 {
		// Only types no KEY=VALUE can be (such as "null" alone, or a
		// misspelt type): say what the schema says instead of a cut sentence.
		return nil, fmt.Errorf("the inputSchema's type %s is not one a KEY=VALUE argument can be converted to; pass the arguments with --tool-args-json", quoteTypes(types))
	}
	return nil, fmt.Errorf("the inputSchema wants %s", strings.Join(errs, " or "))
}

func quoteTypes(types []string) string {
	q := make([]string, len(types))
	for i, t := range types {
		q[i] = strconv.Quote(t)
	}
	return strings.Join(q, " or ")
}
