// Package schema compiles the JSON Schemas MCP servers publish (a tool's
// inputSchema, an elicitation's requestedSchema, an outputSchema) and
// validates instances against them, with one set of people-facing messages
// shared by the form engine and the command line.
//
// It exists so that every part of mcpscope judges arguments the same way
// and says so in the same words: the form shows "is required" next to
// /traveller/name, and `mcpscope call` prints "/traveller/name is required".
//
// The validator is mcpscope's own (compile.go, refs.go, shape.go,
// validate.go, keywords.go; formats in mcp/lib/schema/format), so nothing is
// built at package init and every start stays cheap. 2020-12 is the
// default dialect (MCP's); $schema picks 2019-09, draft-07, -06 or -04.
// A schema that breaks its dialect's meta-schema does not compile, and
// the error says where ("/properties/age/minimum must be a number").
// Formats are asserted, numbers compared exactly. $ref resolves only
// inside the document: every other URL is refused, so a server can never
// make mcpscope fetch from the network or read local files by publishing
// a schema, and a schema's loops and depth are bounded.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// documentURL is the location a schema is compiled under. Its made-up scheme
// means a relative $ref can only resolve inside the document itself.
const documentURL = "mcpscope:///schema.json"

// ErrRemoteRef is returned when a schema refers to anything outside itself.
var ErrRemoteRef = errors.New("not loaded: mcpscope never loads schemas from outside the document")

// Schema is a schema document and, once compiled, its validator. Parsing
// is cheap and compiling costs more (the shape checks, references,
// patterns), so the two are apart: a form can draw at once from the
// parsed document and compile in the background (see Compile and
// SetCompiled); Validate compiles on first use otherwise.
type Schema struct {
	doc any

	mu         sync.Mutex // guards the fields below
	order      keyOrder   // merges add entries while forms draw
	compiled   *compiled
	compileErr error
}

// Compiled is the result of compiling a Schema, made by Compile so it can
// run off the UI goroutine and be handed over with SetCompiled.
type Compiled struct {
	schema *compiled
	err    error
}

// Err is why the schema did not compile (nil when it did).
func (c *Compiled) Err() error { return c.err }

// Parse decodes raw without compiling it. An empty or null raw schema
// accepts everything (a tool may publish none).
func Parse(raw json.RawMessage) (*Schema, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		trimmed = []byte("true")
	}
	doc, order, err := decodeOrdered(trimmed)
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	return &Schema{doc: doc, order: order}, nil
}

// Compile parses and compiles raw: the one call the command line needs.
func Compile(raw json.RawMessage) (*Schema, error) {
	s, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	c := s.Compile()
	s.SetCompiled(c)
	if c.err != nil {
		return nil, c.err
	}
	return s, nil
}

// Compile compiles the document. It only reads s, so it may run in a
// tea.Cmd while the UI draws from the same Schema; SetCompiled installs
// the result.
func (s *Schema) Compile() *Compiled {
	c, err := compileDocument(s.doc)
	return &Compiled{schema: c, err: err}
}

// SetCompiled installs a Compile result.
func (s *Schema) SetCompiled(c *Compiled) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.compiled == nil && s.compileErr == nil {
		s.compiled, s.compileErr = c.schema, c.err
	}
}

// Ready reports whether the schema is compiled (or failed to), so Validate
// will not block.
func (s *Schema) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compiled != nil || s.compileErr != nil
}

// CompileErr is why the schema did not compile, once Ready.
func (s *Schema) CompileErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compileErr
}

func (s *Schema) validator() *compiled {
	if !s.Ready() {
		s.SetCompiled(s.Compile())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compiled
}

// Document is the decoded schema (map[string]any, or a bool), with numbers
// as json.Number. Callers must not modify it.
func (s *Schema) Document() any { return s.doc }

// Validate checks instance (decoded JSON: map[string]any, []any, string,
// json.Number or float64, bool, nil) and returns every problem, sorted by
// pointer; nil means valid.
//
// A schema that does not compile validates nothing (see CompileErr).
func (s *Schema) Validate(instance any) []Issue {
	v := s.validator()
	if v == nil {
		return nil
	}
	inst, values := normalize(instance)
	val := &validator{c: v, maxSteps: stepBudget(values)}
	var out []Issue
	if val.validate(v.root, inst, &out, nil) {
		return nil
	}
	return finish(out)
}

// ValidateJSON parses raw and validates it; malformed JSON is one issue at
// the root.
func (s *Schema) ValidateJSON(raw json.RawMessage) []Issue {
	v, err := Decode(raw)
	if err != nil {
		return []Issue{{Pointer: "", Message: "is not valid JSON: " + err.Error()}}
	}
	return s.Validate(v)
}

// Decode parses JSON keeping numbers exact (json.Number), the form the
// validator and the form engine expect.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// normalize turns values a caller may build by hand (ints, []string,
// map[string]string, json.RawMessage) into the decoded-JSON shapes the
// validator understands, by a JSON round trip when needed.
func normalize(v any) (any, int) {
	var values int
	if decoded(v, 0, &values) {
		return v, values // already decoded JSON (the common case): no copy
	}
	return normalized(v), values
}

func normalized(v any) any {
	switch v := v.(type) {
	case nil, bool, string, json.Number, float64:
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = normalized(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalized(x)
		}
		return out
	case json.RawMessage:
		if d, err := Decode(v); err == nil {
			return d
		}
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	d, err := Decode(b)
	if err != nil {
		return v
	}
	return d
}

// decoded reports whether v is made only of decoded-JSON shapes, and
// counts its values (the validator's step budget grows with them). Past
// a depth it says no, and normalize's copy decides.
func decoded(v any, depth int, count *int) bool {
	if depth > 64 {
		return false
	}
	*count++
	switch v := v.(type) {
	case nil, bool, string, json.Number, float64:
		return true
	case map[string]any:
		for _, x := range v {
			if !decoded(x, depth+1, count) {
				return false
			}
		}
		return true
	case []any:
		for _, x := range v {
			if !decoded(x, depth+1, count) {
				return false
			}
		}
		return true
	}
	return false
}

// Pointer joins JSON pointer tokens, escaping ~ and / as RFC 6901 says.
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}

// EscapeToken escapes one JSON pointer token.
func EscapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
