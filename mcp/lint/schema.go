package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaURL is where a tool's schema is registered for compiling. Relative
// $refs resolve against it and are then refused by the loader, like any
// other reference that leaves the document.
const schemaURL = "https://mcpscope.invalid/schema.json"

// knownDialects are the $schema values the validator understands.
var knownDialects = map[string]bool{
	"https://json-schema.org/draft/2020-12/schema": true,
	"https://json-schema.org/draft/2019-09/schema": true,
	"http://json-schema.org/draft-07/schema":       true,
	"http://json-schema.org/draft-06/schema":       true,
	"http://json-schema.org/draft-04/schema":       true,
}

func knownDialect(s string) bool {
	s = strings.TrimSuffix(s, "#")
	return knownDialects[s] || knownDialects[strings.Replace(s, "https://", "http://", 1)] || knownDialects[strings.Replace(s, "http://", "https://", 1)]
}

// refusingLoader loads nothing: a schema a server sent must never make
// mcpscope read a file or fetch a URL.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: mcpscope never follows references out of a schema", url)
}

// schemaFault is why a schema cannot be used, with the rule it breaks.
type schemaFault struct {
	rule   string
	detail string
}

// compileSchema compiles a server's schema: 2020-12 unless $schema names
// another dialect, no reference ever loaded. A fault names the rule broken.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, *schemaFault) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &schemaFault{"tools/invalid-schema", "not valid JSON: " + err.Error()}
	}
	if ref := networkRef(doc, 0); ref != "" {
		return nil, &schemaFault{"tools/network-ref", "it refers to " + ref}
	}
	if m, ok := doc.(map[string]any); ok {
		if d, ok := m["$schema"].(string); ok && !knownDialect(d) {
			return nil, &schemaFault{"tools/unsupported-dialect", fmt.Sprintf("$schema %q is not a dialect mcpscope can validate (2020-12, 2019-09, draft-07, -06, -04)", d)}
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, &schemaFault{"tools/invalid-schema", oneLine(err)}
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, &schemaFault{"tools/invalid-schema", oneLine(err)}
	}
	return sch, nil
}

// networkRef finds a $ref to an absolute http(s) URI.
func networkRef(v any, depth int) string {
	if depth > 64 {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == "$ref" || k == "$dynamicRef" {
				if s, ok := val.(string); ok && (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) {
					return s
				}
			}
			if r := networkRef(val, depth+1); r != "" {
				return r
			}
		}
	case []any:
		for _, val := range x {
			if r := networkRef(val, depth+1); r != "" {
				return r
			}
		}
	}
	return ""
}

// validate checks an instance against a compiled schema and says why it
// fails, in one line.
func validate(sch *jsonschema.Schema, raw json.RawMessage) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "not valid JSON: " + err.Error()
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return validationText(ve)
		}
		return oneLine(err)
	}
	return ""
}

// englishPrinter renders the validator's own sentences ("missing property
// 'sum'"); the kinds themselves print as Go values.
var englishPrinter = message.NewPrinter(language.English)

// validationText flattens a validation error to its leaf causes.
func validationText(ve *jsonschema.ValidationError) string {
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := schema.DisplayPointer(schema.Pointer(e.InstanceLocation...))
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(englishPrinter)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) > 3 {
		leaves = append(leaves[:3], fmt.Sprintf("and %d more", len(leaves)-3))
	}
	return strings.Join(leaves, "; ")
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
