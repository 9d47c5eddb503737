package calls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// Answer is a server's answer to one call: its result, or its error.
type Answer struct {
	Result  json.RawMessage // the result, exactly as sent
	Error   json.RawMessage // the JSON-RPC error object, when the server sent one
	Latency time.Duration
}

// AnswerOf reads a response message (a frame's bytes): its result or its
// error, the envelope (jsonrpc, id) left out.
func AnswerOf(message []byte, latency time.Duration) Answer {
	a := Answer{Latency: latency}
	if r, ok := jsonview.Member(message, "result"); ok {
		a.Result = r
	} else if e, ok := jsonview.Member(message, "error"); ok {
		a.Error = e
	}
	return a
}

// IsError reports whether the answer is a JSON-RPC error.
func (a Answer) IsError() bool { return a.Result == nil && a.Error != nil }

// Message is the answer as replay and a snapshot hold it: {"result": ...}
// or {"error": ...}.
func (a Answer) Message() json.RawMessage {
	key, v := "result", a.Result
	if a.IsError() {
		key, v = "error", a.Error
	}
	if v == nil {
		v = json.RawMessage("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"` + key + `":`)
	b.Write(compact(v))
	b.WriteString("}")
	return b.Bytes()
}

// body is what pointers point into: the result, or the error.
func (a Answer) body() json.RawMessage {
	if a.IsError() {
		return a.Error
	}
	return a.Result
}

// Failure is one expectation the answer did not meet.
type Failure struct {
	Check    string `json:"check"`             // isError, error, equals, matches, schema, snapshot, maxMs, answer
	Pointer  string `json:"pointer,omitempty"` // where, for equals, matches, schema and snapshot
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	Message  string `json:"message,omitempty"` // what it means, when expected and actual do not say it all
}

func (f Failure) String() string {
	var b strings.Builder
	b.WriteString(f.Check)
	if f.Pointer != "" {
		b.WriteString(" " + f.Pointer)
	}
	if f.Message != "" {
		b.WriteString(": " + f.Message)
	}
	switch {
	case f.Expected != "" && f.Actual != "":
		fmt.Fprintf(&b, ": expected %s, got %s", f.Expected, f.Actual)
	case f.Expected != "":
		fmt.Fprintf(&b, ": expected %s", f.Expected)
	case f.Actual != "":
		fmt.Fprintf(&b, ": %s", f.Actual)
	}
	return b.String()
}

// Check compares an answer with what c expects. tools is the server's
// tool list (for schema "output"); nil when it is not known.
func Check(c Call, a Answer, tools []mcp.Tool) []Failure {
	x := c.Expect
	if x.matcher == nil { // a Call built in code, not parsed
		var err error
		if x, err = compileExpect(x); err != nil {
			return []Failure{{Check: "expect", Message: err.Error()}}
		}
	}
	var out []Failure
	add := func(f Failure) { out = append(out, f) }
	placeholder := len(x.Snapshot) > 0 && IsPlaceholder(x.Snapshot)
	// A snapshot of an error expects one; so may a placeholder, which
	// takes whatever the answer is.
	expectsError := len(x.Error) > 0 || (len(x.Snapshot) > 0 && isErrorAnswer(x.Snapshot)) || placeholder
	switch {
	case a.Result == nil && a.Error == nil:
		add(Failure{Check: "answer", Message: "the response has neither a result nor an error"})
		return out
	case a.IsError() && !expectsError:
		add(Failure{Check: "answer", Message: "the server answered with an error", Actual: text(a.Error)})
	case !a.IsError() && len(x.Error) > 0:
		add(Failure{Check: "error", Message: "the server answered with a result", Expected: text(x.Error)})
	}
	if len(x.Error) > 0 && a.IsError() {
		want, _ := jsonview.Object(x.Error)
		got, _ := jsonview.Object(a.Error)
		for _, k := range sortedKeys(want) {
			if g, ok := got[k]; !ok || !jsonEqual(want[k], g) {
				add(Failure{Check: "error", Pointer: "/" + schema.EscapeToken(k), Expected: text(want[k]), Actual: textOr(g, ok)})
			}
		}
	}
	if x.IsError != nil && !a.IsError() {
		if got := mcp.IsToolError(a.Result); got != *x.IsError {
			add(Failure{Check: "isError", Expected: strconv.FormatBool(*x.IsError), Actual: strconv.FormatBool(got)})
		}
	}
	body := a.body()
	var doc any
	decoded := false
	value := func(ptr string) (any, bool) {
		if !decoded {
			doc, _ = schema.Decode(body)
			decoded = true
		}
		return resolve(doc, ptr)
	}
	for _, e := range x.Equals {
		got, ok := value(e.Pointer)
		want, _ := schema.Decode(e.Value)
		if !ok || !equalValues(want, got) {
			add(Failure{Check: "equals", Pointer: e.Pointer, Expected: text(e.Value), Actual: valueText(got, ok)})
		}
	}
	for _, m := range x.Matches {
		got, ok := value(m.Pointer)
		s, isString := got.(string)
		switch {
		case !ok:
			add(Failure{Check: "matches", Pointer: m.Pointer, Expected: "/" + m.Pattern + "/", Actual: "nothing there"})
		case !isString:
			add(Failure{Check: "matches", Pointer: m.Pointer, Message: "not a string", Expected: "/" + m.Pattern + "/", Actual: valueText(got, ok)})
		case !m.re.MatchString(s):
			add(Failure{Check: "matches", Pointer: m.Pointer, Expected: "/" + m.Pattern + "/", Actual: valueText(got, ok)})
		}
	}
	if len(x.Schema) > 0 && !a.IsError() {
		out = append(out, checkSchema(c, x, a.Result, tools)...)
	}
	switch {
	case placeholder:
		add(Failure{Check: "snapshot", Message: "none taken yet: mcpscope test --update takes this answer as the snapshot"})
	case len(x.Snapshot) > 0:
		for _, d := range x.matcher.Compare(x.Snapshot, a.Message()) {
			add(Failure{Check: "snapshot", Pointer: d.Path, Expected: orGone(d.Recorded), Actual: orGone(d.Replayed)})
		}
	}
	if x.MaxMs > 0 && a.Latency > time.Duration(x.MaxMs)*time.Millisecond {
		add(Failure{Check: "maxMs", Expected: fmt.Sprintf("at most %d ms", x.MaxMs), Actual: fmt.Sprintf("%d ms", a.Latency.Milliseconds())})
	}
	return out
}

// checkSchema validates a tools/call's structuredContent (what an
// outputSchema describes), or another method's whole result.
func checkSchema(c Call, x Expect, result json.RawMessage, tools []mcp.Tool) []Failure {
	target, where := result, ""
	if c.Method == mcp.MethodToolsCall {
		sc, ok := jsonview.Member(result, "structuredContent")
		if !ok {
			return []Failure{{Check: "schema", Pointer: "/structuredContent", Message: "the result has no structuredContent to validate"}}
		}
		target, where = sc, "/structuredContent"
	}
	s := x.inline
	if s == nil {
		if tools == nil {
			return []Failure{{Check: "schema", Message: "the tool list is not known, so the outputSchema is not either"}}
		}
		name := c.Tool()
		var found *mcp.Tool
		for i := range tools {
			if tools[i].Name == name {
				found = &tools[i]
			}
		}
		switch {
		case found == nil:
			return []Failure{{Check: "schema", Message: fmt.Sprintf("the server lists no tool %q", name)}}
		case len(found.OutputSchema) == 0:
			return []Failure{{Check: "schema", Message: fmt.Sprintf("tool %q declares no outputSchema", name)}}
		}
		var err error
		if s, err = schema.Compile(found.OutputSchema); err != nil {
			return []Failure{{Check: "schema", Message: fmt.Sprintf("tool %q's outputSchema cannot be used: %v", name, err)}}
		}
	}
	var out []Failure
	for _, is := range s.ValidateJSON(target) {
		out = append(out, Failure{Check: "schema", Pointer: where + is.Pointer, Message: is.Message})
	}
	return out
}

// Stale says why a saved tools/call may no longer fit the server: its tool
// is gone, or the tool's inputSchema refuses its arguments. "" when neither,
// or when the tool list is not known (tools nil).
func Stale(c Call, tools []mcp.Tool) string {
	name := c.Tool()
	if name == "" || tools == nil {
		return ""
	}
	for _, t := range tools {
		if t.Name != name {
			continue
		}
		s, err := schema.Compile(t.InputSchema)
		if err != nil {
			return ""
		}
		args := c.Arguments()
		if args == nil {
			args = json.RawMessage("{}")
		}
		issues := s.ValidateJSON(args)
		if len(issues) == 0 {
			return ""
		}
		return fmt.Sprintf("the inputSchema of %q now refuses these arguments: %s", name, issues[0].String())
	}
	if c.Server == "" {
		// Saved without its server: it may be another server's call.
		return fmt.Sprintf("the server lists no tool %q", name)
	}
	return fmt.Sprintf("the server no longer lists a tool %q", name)
}

func isErrorAnswer(v json.RawMessage) bool {
	_, ok := jsonview.Member(v, "error")
	return ok
}

// resolve follows a JSON pointer (RFC 6901) into a decoded value.
func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = cur[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(a, b json.RawMessage) bool {
	x, err1 := schema.Decode(a)
	y, err2 := schema.Decode(b)
	return err1 == nil && err2 == nil && equalValues(x, y)
}

// equalValues compares decoded JSON as the snapshot's comparator does:
// numbers by value (1 and 1.0 are the same number).
func equalValues(a, b any) bool { return schema.Equal(a, b) }

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// text is a JSON value as one line.
func text(v json.RawMessage) string { return string(compact(v)) }

func textOr(v json.RawMessage, ok bool) string {
	if !ok {
		return "nothing there"
	}
	return text(v)
}

func valueText(v any, ok bool) string {
	if !ok {
		return "nothing there"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func orGone(s string) string {
	if s == "" {
		return "nothing there"
	}
	return s
}
