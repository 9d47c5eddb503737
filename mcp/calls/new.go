package calls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// ToolParams are the params of a tools/call of tool with args (none when
// args is empty).
func ToolParams(tool string, args json.RawMessage) json.RawMessage {
	name, _ := marshalNoEscape(tool)
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	b.Write(name)
	if len(bytes.TrimSpace(args)) > 0 {
		b.WriteString(`,"arguments":`)
		b.Write(compact(args))
	}
	b.WriteString("}")
	return b.Bytes()
}

// Saved is the call a person keeps from an answer they saw: what was
// sent, and what the answer showed. A result is expected again as a
// result (a tool's isError as it was; its structuredContent valid against
// its outputSchema when it declares one); an error as an error of the
// same code. withSnapshot keeps the whole answer as the snapshot too.
func Saved(name, method string, params json.RawMessage, a Answer, withSnapshot, outputSchema bool) Call {
	c := Call{Name: name, Method: method, Params: params}
	switch {
	case a.IsError():
		if code, ok := jsonview.Member(a.Error, "code"); ok {
			c.Expect.Error = compact(append(append([]byte(`{"code":`), code...), '}'))
		}
	case method == mcp.MethodToolsCall:
		isErr := mcp.IsToolError(a.Result)
		c.Expect.IsError = &isErr
		if outputSchema && !isErr {
			c.Expect.Schema = json.RawMessage(`"output"`)
		}
	}
	if withSnapshot {
		c.Expect.Snapshot = a.Message()
	}
	return c
}

// maxNameRunes bounds a suggested name: the arguments are a reminder,
// not the whole call.
const maxNameRunes = 40

// SuggestName is a name for a new call of tool with args: the tool and
// its scalar arguments ("add a=1 b=2"), as many as fit a reasonable
// length, made unique among the file's calls.
func (f *File) SuggestName(tool string, args json.RawMessage) string {
	taken := map[string]bool{}
	for _, c := range f.Calls {
		taken[c.Name] = true
	}
	return SuggestName(tool, args, taken)
}

// SuggestName is File.SuggestName for the names in taken. The name is
// one a person can keep as it is: objects and arrays are left out rather
// than drawn as "…", an argument that does not fit is left out with the
// rest, and nothing ends in an ellipsis (only a first value too long for
// the whole is cut, at a space when it has one).
func SuggestName(tool string, args json.RawMessage, taken map[string]bool) string {
	name := tool
	room := func() int { return maxNameRunes - utf8.RuneCountInString(name) - 1 }
	jsonview.Each(args, func(k []byte, v json.RawMessage) bool {
		v = bytes.TrimSpace(v)
		var value string
		switch {
		case len(v) == 0 || v[0] == '{' || v[0] == '[':
			return true // a structure names nothing in a line
		case v[0] == '"':
			s, _ := jsonview.String(v)
			value = strings.Join(strings.Fields(s), " ") // one line
		default:
			value = string(v)
		}
		part := jsonview.Key(k) + "=" + value
		if n := utf8.RuneCountInString(part); n > room() {
			if name == tool && room() > len(k)+4 {
				name += " " + cutAtSpace(part, room())
			}
			return false
		}
		name += " " + part
		return true
	})
	return UniqueName(name, taken)
}

// cutAtSpace is s cut to at most n runes, at its last space when that
// keeps most of it.
func cutAtSpace(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ")
}

// Describe says what the expectations ask, one line each, for people.
func (x Expect) Describe() []string {
	var out []string
	if x.IsError != nil {
		out = append(out, fmt.Sprintf("isError %t", *x.IsError))
	}
	if len(x.Error) > 0 {
		out = append(out, "an error "+text(x.Error))
	}
	for _, e := range x.Equals {
		out = append(out, fmt.Sprintf("equals %s = %s", pointerName(e.Pointer), text(e.Value)))
	}
	for _, m := range x.Matches {
		out = append(out, fmt.Sprintf("matches %s ~ /%s/", pointerName(m.Pointer), m.Pattern))
	}
	switch {
	case string(x.Schema) == `"output"`:
		out = append(out, "schema: the tool's outputSchema")
	case len(x.Schema) > 0:
		out = append(out, "schema "+text(x.Schema))
	}
	if IsPlaceholder(x.Snapshot) && len(x.Snapshot) > 0 {
		out = append(out, "snapshot: none taken yet (mcpscope test --update takes it)")
	} else if len(x.Snapshot) > 0 {
		s := "snapshot: the whole answer as saved"
		if len(x.Ignore) > 0 {
			s += ", ignoring " + strings.Join(x.Ignore, ", ")
		}
		out = append(out, s)
	}
	if x.MaxMs > 0 {
		out = append(out, fmt.Sprintf("within %d ms", x.MaxMs))
	}
	if len(out) == 0 {
		out = append(out, "a result, not an error")
	}
	return out
}

func pointerName(p string) string {
	if p == "" {
		return `""`
	}
	return p
}
