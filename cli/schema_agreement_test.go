package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/schematest"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/panes/form"
	"github.com/mcpscope/mcpscope/themes"
)

// verdict is what one part of mcpscope says about an instance of a schema:
// "unusable" (the schema cannot validate anything), "valid" or "invalid".
type verdict string

// agreementCase is a schema and an instance to judge.
type agreementCase struct {
	name     string
	schema   json.RawMessage
	instance json.RawMessage
}

// TestSchemaVerdictsAgree feeds the same schemas and instances to the four
// places that judge arguments and structured results - the schema form, the
// raw JSON editor, call's validation and the protocol doctor - and checks
// they give the same verdict. They used to compile schemas three ways and
// disagree, for instance on "format" (the form and call asserted it, the
// editor and the doctor did not).
func TestSchemaVerdictsAgree(t *testing.T) {
	cases := agreementCorpus(t)
	seen := map[verdict]int{}
	heldElsewise := 0
	for _, c := range cases {
		call := callVerdict(t, c)
		seen[call]++
		got := map[string]verdict{"call": call, "editor": editorVerdict(c), "doctor": doctorVerdict(t, c)}
		if got["editor"] != call || got["doctor"] != call {
			t.Errorf("%s: %s against %s: verdicts differ: %v", c.name, c.instance, c.schema, got)
		}
		// The form always has a row for each required property, so for {}
		// it holds {"name": ""}; its verdict is about the value it holds,
		// which the others then judge too.
		fv, held := formVerdict(t, c)
		if held != nil && canonical(t, held) != canonical(t, c.instance) {
			heldElsewise++
			c = agreementCase{c.name + " (as the form holds it)", c.schema, held}
			call = callVerdict(t, c)
			if e, d := editorVerdict(c), doctorVerdict(t, c); e != call || d != call {
				t.Errorf("%s: %s against %s: verdicts differ: call %s, editor %s, doctor %s", c.name, c.instance, c.schema, call, e, d)
			}
		}
		if fv != call {
			t.Errorf("%s: %s against %s: the form says %s, call, the editor and the doctor say %s", c.name, c.instance, c.schema, fv, call)
		}
	}
	if heldElsewise > 20 {
		t.Errorf("the form held %d instances differently; expected only the {} of schemas with required properties", heldElsewise)
	}
	// The corpus must exercise every verdict, or agreeing proves little.
	if seen["valid"] < 20 || seen["invalid"] < 20 || seen["unusable"] < 3 {
		t.Errorf("the corpus is too one-sided: %v over %d cases", seen, len(cases))
	}
	t.Logf("%d cases: %v", len(cases), seen)
}

// agreementCorpus is every schema of mcp/lib/schema/schematest with its minimal
// instance, {} and the minimal instance with each required property given
// a value of the wrong type; plus the cases that used to disagree.
func agreementCorpus(t *testing.T) []agreementCase {
	var out []agreementCase
	corpus := schematest.Corpus(t)
	names := make([]string, 0, len(corpus))
	for name := range corpus {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		raw := corpus[name]
		out = append(out, agreementCase{name + " {}", raw, json.RawMessage(`{}`)})
		s, err := schema.Compile(raw)
		if err != nil {
			continue
		}
		minimal, ok := schema.MinimalInstance(s).(map[string]any)
		if !ok {
			continue
		}
		b, _ := json.Marshal(minimal)
		out = append(out, agreementCase{name + " minimal", raw, b})
		keys := make([]string, 0, len(minimal))
		for k := range minimal {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			wrong := map[string]any{}
			for kk, v := range minimal {
				wrong[kk] = v
			}
			if _, isString := minimal[k].(string); isString {
				wrong[k] = 12345
			} else {
				wrong[k] = "not the right type"
			}
			b, _ := json.Marshal(wrong)
			out = append(out, agreementCase{name + " wrong " + k, raw, b})
		}
	}
	obj := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	out = append(out, []agreementCase{
		// Formats are asserted everywhere: a debugger says "tomorrow" is not
		// a date before the server does.
		{"format date, bad", obj(`"d":{"type":"string","format":"date"}`), json.RawMessage(`{"d":"tomorrow"}`)},
		{"format date, good", obj(`"d":{"type":"string","format":"date"}`), json.RawMessage(`{"d":"2026-11-30"}`)},
		{"format date-time, bad", obj(`"d":{"type":"string","format":"date-time"}`), json.RawMessage(`{"d":"2026-11-30 10:00"}`)},
		{"format email, bad", obj(`"e":{"type":"string","format":"email"}`), json.RawMessage(`{"e":"not an address"}`)},
		{"format email, good", obj(`"e":{"type":"string","format":"email"}`), json.RawMessage(`{"e":"ada@example.com"}`)},
		{"format uri, bad", obj(`"u":{"type":"string","format":"uri"}`), json.RawMessage(`{"u":"no scheme"}`)},
		{"format unknown", obj(`"x":{"type":"string","format":"my-own"}`), json.RawMessage(`{"x":"anything"}`)},
		// Dialects: draft-07 has no dependentRequired, 2020-12 (the default) does.
		{"dependentRequired, 2020-12", json.RawMessage(`{"type":"object","dependentRequired":{"a":["b"]}}`), json.RawMessage(`{"a":1}`)},
		{"dependentRequired, draft-07", json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependentRequired":{"a":["b"]}}`), json.RawMessage(`{"a":1}`)},
		{"integer 1.0", obj(`"n":{"type":"integer"}`), json.RawMessage(`{"n":1.0}`)},
		{"big integer", obj(`"n":{"type":"integer","maximum":9007199254740993}`), json.RawMessage(`{"n":9007199254740993}`)},
		{"local $ref", json.RawMessage(`{"type":"object","$defs":{"u":{"enum":["c","f"]}},"properties":{"u":{"$ref":"#/$defs/u"}}}`), json.RawMessage(`{"u":"k"}`)},
		// Schemas none of them can use.
		{"network $ref", obj(`"x":{"$ref":"https://example.com/x.json"}`), json.RawMessage(`{"x":1}`)},
		{"relative $ref", obj(`"x":{"$ref":"other.json"}`), json.RawMessage(`{"x":1}`)},
		{"unknown dialect", json.RawMessage(`{"$schema":"https://example.com/my-dialect","type":"object"}`), json.RawMessage(`{}`)},
		{"not a schema", obj(`"x":{"type":"nope"}`), json.RawMessage(`{}`)},
	}...)
	return out
}

// formVerdict: the schema form (panes/form), compiled as the TUI does it,
// in the background, then given the instance. It also returns the value the
// form holds (nil when the schema is unusable).
func formVerdict(t *testing.T, c agreementCase) (verdict, json.RawMessage) {
	f, err := form.New(c.schema, form.Options{})
	if err != nil {
		return "unusable", nil
	}
	if cmd := f.Init(); cmd != nil {
		f.Update(cmd())
	}
	if f.SchemaErr() != nil {
		return "unusable", nil
	}
	if err := f.SetValue(c.instance); err != nil {
		t.Fatalf("%s: form.SetValue: %v", c.name, err)
	}
	held, _ := f.Value()
	if f.Valid() {
		return "valid", held
	}
	return "invalid", held
}

// canonical is raw re-encoded: key order and spacing do not count.
func canonical(t *testing.T, raw json.RawMessage) string {
	v, err := schema.Decode(raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// editorVerdict: the raw JSON editor (ctrl+e in the tools pane).
func editorVerdict(c agreementCase) verdict {
	e := panes.NewJSONEdit(themes.Default(true), keymap.Default(), mcp.Tool{Name: "t", InputSchema: c.schema}, c.instance)
	if e.SchemaErr() != nil {
		return "unusable"
	}
	e.SetValue(string(c.instance))
	if e.Valid() {
		return "valid"
	}
	return "invalid"
}

// callVerdict: mcpscope call's check before tools/call is sent.
func callVerdict(t *testing.T, c agreementCase) verdict {
	args, err := schema.Decode(c.instance)
	if err != nil {
		t.Fatalf("%s: instance: %v", c.name, err)
	}
	switch err := checkToolArguments("t", c.schema, args); {
	case err == nil:
		return "valid"
	case strings.Contains(err.Error(), "cannot validate the arguments"):
		return "unusable"
	}
	return "invalid"
}

// doctorVerdict: the protocol doctor, given a tools/list that declares the
// schema as a tool's outputSchema and a tools/call result whose
// structuredContent is the instance.
func doctorVerdict(t *testing.T, c agreementCase) verdict {
	l := doctor.New(doctor.Options{})
	var rules []string
	frame := func(f *mcp.Frame) {
		f.Transport = "stdio"
		for _, d := range l.Observe(mcp.FrameEvent{Frame: f}) {
			rules = append(rules, d.Rule)
		}
	}
	tool := fmt.Sprintf(`{"name":"t","inputSchema":{"type":"object"},"outputSchema":%s}`, c.schema)
	frame(&mcp.Frame{Seq: 1, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: mcp.MethodToolsList, ID: "1",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)})
	frame(&mcp.Frame{Seq: 2, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "1", ReplyTo: 1, ReplyToMethod: mcp.MethodToolsList,
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + tool + `]}}`)})
	frame(&mcp.Frame{Seq: 3, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: mcp.MethodToolsCall, ID: "2",
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}`)})
	text, _ := json.Marshal(string(c.instance))
	frame(&mcp.Frame{Seq: 4, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "2", ReplyTo: 3, ReplyToMethod: mcp.MethodToolsCall,
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + string(c.instance) + `}}`)})
	joined := strings.Join(rules, " ")
	switch {
	case strings.Contains(joined, "tools/invalid-schema"), strings.Contains(joined, "tools/network-ref"), strings.Contains(joined, "tools/unsupported-dialect"):
		return "unusable"
	case strings.Contains(joined, "tools/structured-content-mismatch"):
		return "invalid"
	}
	return "valid"
}
