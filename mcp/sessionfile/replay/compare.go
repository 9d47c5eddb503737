package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// Difference is one place where the replayed answer differs.
type Difference struct {
	Path     string `json:"path"` // a JSON pointer into the answer: /result/content/0/text
	Recorded string `json:"recorded,omitempty"`
	Replayed string `json:"replayed,omitempty"`
}

// volatileKeys are object keys whose values differ from run to run by
// nature: they are ignored wherever they appear unless the caller asks
// for strict comparison.
var volatileKeys = map[string]bool{
	"_meta": true, "progressToken": true, "sessionId": true, "session_id": true,
	"timestamp": true, "createdAt": true, "updatedAt": true, "lastUpdatedAt": true, "requestId": true,
	"taskId": true, "requestState": true,
}

// Matcher is the one comparison of a recorded answer with a new one:
// `mcpscope replay` compares every replayed exchange with it, and anything
// else that checks an answer against a recorded one (saved calls with
// their expectations) must use it too, so that the same values are
// ignored everywhere. Its rules:
//
//   - both answers are read as JSON (numbers kept exact); what is not JSON
//     is compared as a string;
//   - unless strict, the values of the volatile keys (_meta, progressToken,
//     sessionId, session_id, timestamp, createdAt, updatedAt,
//     lastUpdatedAt, requestId, taskId, requestState) are ignored wherever
//     they appear, and so is the difference between two RFC 3339 strings;
//   - numbers are equal by value (3 and 3.0 are one number);
//   - JSON text inside a string (a tool's text fallback) is compared as
//     JSON, under the same rules, and a difference inside it is named by
//     its path continued into the text (/result/content/0/text/sum);
//   - each ignore pattern (see NewMatcher) leaves out the values at the
//     paths it matches.
//
// NewMatcher, Compare and Difference are a stable API: their signatures
// and these rules change only with a note in docs/session-files.md.
type Matcher struct {
	patterns [][]string
	strict   bool // no default volatile rules
}

// NewMatcher parses --ignore paths: a JSON pointer (/result/content/0/text)
// or a dotted pattern (result.content.*.text, **.version), where * is one
// segment and ** any number. Paths start at the answer: result or error.
func NewMatcher(ignore []string, strict bool) (*Matcher, error) {
	m := &Matcher{strict: strict}
	for _, p := range ignore {
		segs, err := parsePath(p)
		if err != nil {
			return nil, err
		}
		m.patterns = append(m.patterns, segs)
	}
	return m, nil
}

func parsePath(p string) ([]string, error) {
	switch {
	case p == "":
		return nil, fmt.Errorf("--ignore: an empty path")
	case strings.HasPrefix(p, "/"):
		parts := strings.Split(p[1:], "/")
		for i, s := range parts {
			parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		}
		return parts, nil
	}
	return strings.Split(p, "."), nil
}

func (m *Matcher) ignored(path []string) bool {
	if !m.strict && len(path) > 0 && volatileKeys[path[len(path)-1]] {
		return true
	}
	for _, pat := range m.patterns {
		if match(pat, path) {
			return true
		}
	}
	return false
}

func match(pat, path []string) bool {
	if len(pat) == 0 {
		return len(path) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(path); i++ {
			if match(pat[1:], path[i:]) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 || (pat[0] != "*" && pat[0] != path[0]) {
		return false
	}
	return match(pat[1:], path[1:])
}

// Compare is NewMatcher(ignore, strict) and its Compare, for one pair of
// answers. The error is a bad ignore pattern.
func Compare(recorded, replayed json.RawMessage, ignore []string, strict bool) ([]Difference, error) {
	m, err := NewMatcher(ignore, strict)
	if err != nil {
		return nil, err
	}
	return m.Compare(recorded, replayed), nil
}

// Compare compares two answers (whole JSON-RPC answers, {"result":...} or
// {"error":...}, or any JSON) and lists where they differ, in path order;
// nil when they match. It is safe for concurrent use.
func (m *Matcher) Compare(recorded, replayed json.RawMessage) []Difference {
	var a, b any
	if err := decode(recorded, &a); err != nil {
		a = string(recorded)
	}
	if err := decode(replayed, &b); err != nil {
		b = string(replayed)
	}
	var out []Difference
	m.walk(nil, a, b, &out)
	return out
}

func decode(raw json.RawMessage, v *any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

// walk compares a and b at path. path is a stack shared by the whole walk:
// a child's path is path with its key appended in place, overwritten by
// the next sibling's, and only read while the child is walked (a
// Difference keeps pointer(path), a string). Copying it at each level
// cost the square of the depth: 850 MB for a result nested 10,000 deep.
func (m *Matcher) walk(path []string, a, b any, out *[]Difference) {
	if m.ignored(path) {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range av {
				keys[k] = true
			}
			for k := range bv {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
				x, xok := av[k]
				y, yok := bv[k]
				p := append(path, k) // a stack: see walk's comment
				switch {
				case xok && !yok:
					if !m.ignored(p) {
						*out = append(*out, Difference{Path: pointer(p), Recorded: text(x)})
					}
				case !xok && yok:
					if !m.ignored(p) {
						*out = append(*out, Difference{Path: pointer(p), Replayed: text(y)})
					}
				default:
					m.walk(p, x, y, out)
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			n := max(len(av), len(bv))
			for i := 0; i < n; i++ {
				p := append(path, strconv.Itoa(i))
				switch {
				case i >= len(bv):
					if !m.ignored(p) {
						*out = append(*out, Difference{Path: pointer(p), Recorded: text(av[i])})
					}
				case i >= len(av):
					if !m.ignored(p) {
						*out = append(*out, Difference{Path: pointer(p), Replayed: text(bv[i])})
					}
				default:
					m.walk(p, av[i], bv[i], out)
				}
			}
			return
		}
	case string:
		if bs, ok := b.(string); ok && !m.strict && bothTimestamps(av, bs) {
			return
		}
		// JSON text inside a string (a tool's text fallback) is compared as
		// JSON, so that its volatile values are ignored too, and a
		// difference inside it is named by its path continued into the
		// text (/result/content/0/text/sum), as --ignore names it. Texts
		// whose top levels differ in kind are shown whole.
		if bs, ok := b.(string); ok && av != bs && looksLikeJSON(av) && looksLikeJSON(bs) {
			var x, y any
			if decode(json.RawMessage(av), &x) == nil && decode(json.RawMessage(bs), &y) == nil {
				var inner []Difference
				m.walk(path, x, y, &inner)
				here := pointer(path)
				if !slices.ContainsFunc(inner, func(d Difference) bool { return d.Path == here }) {
					*out = append(*out, inner...)
					return
				}
			}
		}
	case json.Number:
		// Numbers are equal by value, as JSON reads them: 3 and 3.0 are
		// one number (the equals expectation and the schema validator
		// agree).
		if bn, ok := b.(json.Number); ok && schema.Equal(av, bn) {
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, Difference{Path: pointer(path), Recorded: text(a), Replayed: text(b)})
	}
}

func looksLikeJSON(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")
}

func bothTimestamps(a, b string) bool {
	return isTimestamp(a) && isTimestamp(b)
}

func isTimestamp(s string) bool {
	if len(s) < 20 || len(s) > 40 {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func pointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/")
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func text(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
