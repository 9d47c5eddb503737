package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Issue is one reason an instance does not validate.
type Issue struct {
	// Pointer is the JSON pointer of the instance location the problem is
	// about ("" is the whole instance). For a missing required property it
	// is the property's own location: that is what the user must fill.
	Pointer string
	// Message completes a sentence whose subject is the location, e.g.
	// "is required" or "has fewer than minItems (1)".
	Message string
}

// String is the whole sentence: "/traveller/name is required".
func (i Issue) String() string { return DisplayPointer(i.Pointer) + " " + i.Message }

// DisplayPointer shows a pointer to people; the root has no pointer text.
func DisplayPointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// fallbackPrinter renders the library's own text for kinds we do not
// phrase ourselves.
var fallbackPrinter = message.NewPrinter(language.English)

func issuesFrom(ve *jsonschema.ValidationError) []Issue {
	var out []Issue
	collect(ve, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	// The same sentence can arrive through two paths (allOf and $ref).
	dedup := out[:0]
	seen := map[Issue]bool{}
	for _, is := range out {
		if !seen[is] {
			seen[is] = true
			dedup = append(dedup, is)
		}
	}
	return dedup
}

// collect flattens the error tree to the leaves people can act on. Group
// nodes ("allOf failed", "$ref failed") say nothing by themselves. A failed
// oneOf/anyOf is reported through the branch that came closest (fewest
// problems): listing every branch's complaints would mostly be noise about
// branches the user never meant.
func collect(ve *jsonschema.ValidationError, out *[]Issue) {
	ptr := pointerOf(ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			*out = append(*out, Issue{ptr, fmt.Sprintf("matches more than one oneOf branch (%s)", joinInts(k.Subschemas))})
			return
		}
		collectClosest(ve, ptr, "oneOf", out)
		return
	case *kind.AnyOf:
		collectClosest(ve, ptr, "anyOf", out)
		return
	}
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collect(c, out)
		}
		return
	}
	*out = append(*out, leafIssues(ptr, ve.ErrorKind)...)
}

func collectClosest(ve *jsonschema.ValidationError, ptr, keyword string, out *[]Issue) {
	if len(ve.Causes) == 0 {
		*out = append(*out, Issue{ptr, "matches none of the " + keyword + " branches"})
		return
	}
	var best []Issue
	for i, c := range ve.Causes {
		var got []Issue
		collect(c, &got)
		if i == 0 || len(got) < len(best) {
			best = got
		}
	}
	*out = append(*out, best...)
}

func leafIssues(ptr string, k jsonschema.ErrorKind) []Issue {
	one := func(msg string, args ...any) []Issue { return []Issue{{ptr, fmt.Sprintf(msg, args...)}} }
	switch k := k.(type) {
	case *kind.Required:
		out := make([]Issue, 0, len(k.Missing))
		for _, name := range k.Missing {
			out = append(out, Issue{ptr + "/" + EscapeToken(name), "is required"})
		}
		return out
	case *kind.DependentRequired:
		return missingBecause(ptr, k.Missing, k.Prop)
	case *kind.Dependency:
		return missingBecause(ptr, k.Missing, k.Prop)
	case *kind.AdditionalProperties:
		out := make([]Issue, 0, len(k.Properties))
		for _, name := range k.Properties {
			out = append(out, Issue{ptr + "/" + EscapeToken(name), "is not allowed (additionalProperties)"})
		}
		return out
	case *kind.Type:
		return one("must be %s, not %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Enum:
		return one("must be one of %s", joinValues(k.Want))
	case *kind.Const:
		return one("must be %s", showValue(k.Want))
	case *kind.Format:
		return one("is not a valid %s", k.Want)
	case *kind.MinLength:
		return one("is shorter than minLength (%d)", k.Want)
	case *kind.MaxLength:
		return one("is longer than maxLength (%d)", k.Want)
	case *kind.Pattern:
		return one("does not match pattern %s", k.Want)
	case *kind.Minimum:
		return one("is less than minimum (%s)", ratString(k.Want))
	case *kind.Maximum:
		return one("is greater than maximum (%s)", ratString(k.Want))
	case *kind.ExclusiveMinimum:
		return one("is not greater than exclusiveMinimum (%s)", ratString(k.Want))
	case *kind.ExclusiveMaximum:
		return one("is not less than exclusiveMaximum (%s)", ratString(k.Want))
	case *kind.MultipleOf:
		return one("is not a multiple of %s", ratString(k.Want))
	case *kind.MinItems:
		return one("has fewer than minItems (%d)", k.Want)
	case *kind.MaxItems:
		return one("has more than maxItems (%d)", k.Want)
	case *kind.UniqueItems:
		return one("has duplicate items (%d and %d)", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinProperties:
		return one("has fewer than minProperties (%d)", k.Want)
	case *kind.MaxProperties:
		return one("has more than maxProperties (%d)", k.Want)
	case *kind.PropertyNames:
		return []Issue{{ptr + "/" + EscapeToken(k.Property), "is not an allowed property name"}}
	case *kind.FalseSchema:
		return one("is not allowed")
	case *kind.Not:
		return one("must not match the schema under not")
	case *kind.Contains:
		return one("has no item matching contains")
	case *kind.MinContains:
		return one("has fewer than minContains (%d) matching items", k.Want)
	case *kind.MaxContains:
		return one("has more than maxContains (%d) matching items", k.Want)
	case *kind.AdditionalItems:
		return one("has %d item(s) more than allowed", k.Count)
	}
	return one("%s", k.LocalizedString(fallbackPrinter))
}

func missingBecause(ptr string, missing []string, because string) []Issue {
	out := make([]Issue, 0, len(missing))
	for _, name := range missing {
		out = append(out, Issue{ptr + "/" + EscapeToken(name), fmt.Sprintf("is required when %s is present", because)})
	}
	return out
}

func pointerOf(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	return Pointer(tokens...)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(10)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func joinValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = showValue(v)
	}
	return strings.Join(parts, ", ")
}

// showValue prints a schema value compactly as JSON, cut when long.
func showValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return s
}
