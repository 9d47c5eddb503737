package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
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

// finish sorts issues by pointer and drops repeats (the same sentence
// can arrive through two paths, allOf and $ref).
func finish(out []Issue) []Issue {
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
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
