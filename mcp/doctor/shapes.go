package doctor

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
)

// maxComposition is how deep anyOf/oneOf/allOf/not may nest before
// tools/unbounded-composition warns.
const maxComposition = 6

var compositionKeywords = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "not": true}

// compositionDepth is the deepest nesting of composition keywords in a
// schema (bounded by the walk's own depth limit).
func compositionDepth(v any, depth int) int {
	if depth > 64 {
		return 0
	}
	best := 0
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			d := compositionDepth(c, depth+1)
			if compositionKeywords[k] {
				d++
			}
			best = max(best, d)
		}
	case []any:
		for _, c := range t {
			best = max(best, compositionDepth(c, depth+1))
		}
	}
	return best
}

// toolShapeRules checks what the JSON Schema validator does not: composition
// depth, and the 2026-07-28 x-mcp-header annotations.
func (l *Linter) toolShapeRules(f *mcp.Frame, label, which string, raw json.RawMessage) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	if d := compositionDepth(v, 0); d > maxComposition {
		l.report("tools/unbounded-composition", fmt.Sprintf("Tool %s has an %s with anyOf/oneOf/allOf/not nested %d levels deep (more than %d).", label, which, d, maxComposition), f.Seq)
	}
	if which != "inputSchema" || !l.modern {
		return
	}
	h := &headerCheck{seen: map[string]bool{}}
	h.walk(v, "", true, 0)
	if len(h.problems) > 0 {
		l.report("tools/invalid-mcp-header", fmt.Sprintf("Tool %s has invalid x-mcp-header annotations (clients must drop the tool): %s.", label, strings.Join(h.problems, "; ")), f.Seq)
	}
	if len(h.sensitive) > 0 {
		l.report("tools/sensitive-mcp-header", fmt.Sprintf("Tool %s mirrors secret-looking parameters into headers: %s.", label, strings.Join(h.sensitive, ", ")), f.Seq)
	}
}

var (
	httpToken       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$") })
	sensitiveHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)pass(word|wd)?|secret|token|api[_-]?key|credential|private[_-]?key`)
	})
)

type headerCheck struct {
	seen      map[string]bool
	problems  []string
	sensitive []string
}

// walk visits a schema; viaProps is true while the path from the root went
// through "properties" only (the one place an annotation may live).
func (h *headerCheck) walk(v any, path string, viaProps bool, depth int) {
	s, ok := v.(map[string]any)
	if !ok || depth > 32 || len(h.problems) > 20 {
		return
	}
	if raw, has := s["x-mcp-header"]; has {
		h.check(s, raw, path, viaProps && path != "")
	}
	for k, c := range s {
		switch k {
		case "properties":
			props, _ := c.(map[string]any)
			for name, p := range props {
				h.walk(p, joinPath(path, name), viaProps, depth+1)
			}
		case "x-mcp-header", "const", "enum", "default", "examples":
		default:
			switch cc := c.(type) {
			case map[string]any:
				if k == "$defs" || k == "definitions" || k == "patternProperties" || k == "dependentSchemas" {
					for name, p := range cc {
						h.walk(p, joinPath(path, k+"."+name), false, depth+1)
					}
				} else {
					h.walk(cc, joinPath(path, k), false, depth+1)
				}
			case []any:
				for i, p := range cc {
					h.walk(p, joinPath(path, fmt.Sprintf("%s[%d]", k, i)), false, depth+1)
				}
			}
		}
	}
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func (h *headerCheck) check(s map[string]any, raw any, path string, placed bool) {
	where := path
	if where == "" {
		where = "the root"
	}
	name, isStr := raw.(string)
	switch {
	case !isStr:
		h.problems = append(h.problems, fmt.Sprintf("on %s it is not a string", where))
		return
	case name == "":
		h.problems = append(h.problems, fmt.Sprintf("on %s it is empty", where))
		return
	case strings.ContainsAny(name, "\r\n"):
		h.problems = append(h.problems, fmt.Sprintf("on %s %q holds CR or LF", where, name))
		return
	case !httpToken().MatchString(name):
		h.problems = append(h.problems, fmt.Sprintf("on %s %q is not an RFC 9110 token", where, name))
	}
	if !placed {
		h.problems = append(h.problems, fmt.Sprintf("%q on %s is reached through something other than properties", name, where))
	}
	low := strings.ToLower(name)
	if h.seen[low] {
		h.problems = append(h.problems, fmt.Sprintf("%q is used twice (case-insensitively)", name))
	}
	h.seen[low] = true
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if xs, ok := x.(string); ok {
				types = append(types, xs)
			}
		}
	}
	for _, t := range types {
		if t == "number" || t == "object" || t == "array" {
			h.problems = append(h.problems, fmt.Sprintf("%q on %s marks a property of type %s (only string, integer and boolean may be)", name, where, t))
			break
		}
	}
	last := path[strings.LastIndex(path, ".")+1:]
	if sensitiveHeader().MatchString(last) || sensitiveHeader().MatchString(name) {
		h.sensitive = append(h.sensitive, fmt.Sprintf("%s → Mcp-Param-%s", where, name))
	}
}

// uriTemplateProblem checks RFC 6570 syntax; "" when the template is valid.
func uriTemplateProblem(t string) string {
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '{':
			end := strings.IndexByte(t[i+1:], '}')
			if end < 0 {
				return fmt.Sprintf("the { at offset %d is never closed", i)
			}
			if p := expressionProblem(t[i+1 : i+1+end]); p != "" {
				return fmt.Sprintf("expression {%s}: %s", t[i+1:i+1+end], p)
			}
			i += end + 1
		case c == '}':
			return fmt.Sprintf("a } at offset %d closes nothing", i)
		case c < 0x21 || c == 0x7f:
			return fmt.Sprintf("a space or control character at offset %d", i)
		case strings.IndexByte("\"'<>\\^`|", c) >= 0:
			return fmt.Sprintf("%q at offset %d is not allowed in a template literal", c, i)
		case c == '%':
			if i+2 >= len(t) || !isHex(t[i+1]) || !isHex(t[i+2]) {
				return fmt.Sprintf("a %% at offset %d is not followed by two hex digits", i)
			}
		}
	}
	return ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

var varspec = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(\.([A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*(:[1-9][0-9]{0,3}|\*)?$`)
})

func expressionProblem(body string) string {
	if body == "" {
		return "empty"
	}
	if strings.IndexByte("=,!@|", body[0]) >= 0 {
		return fmt.Sprintf("operator %q is reserved", body[0])
	}
	if strings.IndexByte("+#./;?&", body[0]) >= 0 {
		body = body[1:]
	}
	if strings.Contains(body, "{") {
		return "a { inside an expression"
	}
	for _, v := range strings.Split(body, ",") {
		if !varspec().MatchString(v) {
			return fmt.Sprintf("%q is not a variable name (letters, digits, _, %%XX, dots) with an optional :length or *", v)
		}
	}
	return ""
}

var notFoundMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)not found|no such|unknown resource|does ?n[o']t exist|not exist`)
})

// notFoundCode checks the code of a legacy resources/read error that says
// the resource does not exist.
func (l *Linter) notFoundCode(f *mcp.Frame, req *outRequest) {
	if req.method != mcp.MethodResourcesRead || l.modern || !notFoundMessage().MatchString(f.ErrorMessage) {
		return
	}
	switch f.ErrorCode {
	case mcp.CodeResourceNotFound, mcp.CodeInvalidParams, mcp.CodeMethodNotFound:
		return
	}
	l.report("resources/not-found-code", fmt.Sprintf("resources/read of a missing resource was answered with code %d (%s) instead of -32002.", f.ErrorCode, f.ErrorMessage), f.Seq, f.ReplyTo)
}

// templateEntry checks a resources/templates/list entry's uriTemplate.
func (l *Linter) templateEntry(f *mcp.Frame, raw json.RawMessage) {
	t, ok := str(object(raw), "uriTemplate")
	if !ok {
		return
	}
	if p := uriTemplateProblem(t); p != "" {
		l.report("resources/invalid-uri-template", fmt.Sprintf("uriTemplate %q is not valid RFC 6570: %s.", t, p), f.Seq)
	}
}

// toolOrderDone compares the order of a complete modern tools/list with
// the previous one.
func (l *Linter) toolOrderDone(f *mcp.Frame) {
	cur := l.toolOrder
	l.toolOrder = nil
	if l.modern && l.prevToolOrder != nil && len(cur) == len(l.prevToolOrder) && len(cur) > 1 {
		same, set := true, make(map[string]int, len(cur))
		for i, n := range cur {
			if n != l.prevToolOrder[i] {
				same = false
			}
			set[n]++
			set[l.prevToolOrder[i]]--
		}
		sameNames := true
		for _, c := range set {
			if c != 0 {
				sameNames = false
				break
			}
		}
		if !same && sameNames {
			l.report("modern/tool-order", "Two tools/list answers listed the same tools in a different order.", l.prevToolOrderSeq, f.Seq)
		}
	}
	l.prevToolOrder, l.prevToolOrderSeq = cur, f.Seq
}
