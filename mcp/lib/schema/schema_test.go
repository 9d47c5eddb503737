package schema_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/schematest"
)

func mustCompile(t *testing.T, raw string) *schema.Schema {
	t.Helper()
	s, err := schema.Compile(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return s
}

func issueStrings(is []schema.Issue) []string {
	out := make([]string, len(is))
	for i, x := range is {
		out[i] = x.String()
	}
	return out
}

func TestBookTripIssuesArePhrasedForPeople(t *testing.T) {
	s, err := schema.Compile(schematest.Tools(t, "demo-tools.json")["book_trip"])
	if err != nil {
		t.Fatal(err)
	}
	got := issueStrings(s.ValidateJSON(json.RawMessage(`{
		"traveller": {"email": "not-an-email", "age": 200, "address": {"city": "Paris", "country": "fr"}},
		"legs": [],
		"payment": {"number": "12"}
	}`)))
	want := []string{
		"/legs has fewer than minItems (1)",
		"/payment/number does not match pattern ^[0-9]{16}$",
		"/traveller/address/country does not match pattern ^[A-Z]{2}$",
		"/traveller/age is greater than maximum (150)",
		"/traveller/email is not a valid email",
		"/traveller/name is required",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}
}

func TestValidInstanceHasNoIssues(t *testing.T) {
	s, err := schema.Compile(schematest.Tools(t, "demo-tools.json")["book_trip"])
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"traveller":{"name":"Ada"},"legs":[{"from":"LHR","to":"CDG","date":"2026-01-02"}],"payment":{"company":"ACME"}}`
	if is := s.ValidateJSON(json.RawMessage(ok)); is != nil {
		t.Errorf("unexpected issues: %v", is)
	}
	// Hand-built Go values are accepted too.
	v := map[string]any{"traveller": map[string]any{"name": "Ada"}, "legs": []map[string]string{{"from": "a", "to": "b", "date": "2026-01-02"}}, "payment": map[string]any{"company": "ACME"}}
	if is := s.Validate(v); is != nil {
		t.Errorf("Go values: %v", is)
	}
}

func TestRemoteRefsAreRefused(t *testing.T) {
	for _, ref := range []string{"https://example.com/s.json", "file:///etc/passwd", "other.json"} {
		_, err := schema.Compile(json.RawMessage(`{"properties": {"a": {"$ref": "` + ref + `"}}}`))
		if !errors.Is(err, schema.ErrRemoteRef) {
			t.Errorf("%s: err = %v, want ErrRemoteRef", ref, err)
		}
	}
}

func TestDraft07AndDefinitions(t *testing.T) {
	s := mustCompile(t, `{"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": {"n": {"type": "integer", "exclusiveMinimum": 0}},
		"properties": {"n": {"$ref": "#/definitions/n"}}, "required": ["n"]}`)
	got := issueStrings(s.ValidateJSON(json.RawMessage(`{"n": 0}`)))
	if len(got) != 1 || got[0] != "/n is not greater than exclusiveMinimum (0)" {
		t.Errorf("issues = %q", got)
	}
	if m := schema.MinimalInstance(s); !reflect.DeepEqual(m, map[string]any{"n": json.Number("1")}) {
		t.Errorf("minimal = %#v", m)
	}
}

func TestOneOfReportsTheClosestBranch(t *testing.T) {
	s := mustCompile(t, `{"oneOf": [
		{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false},
		{"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"], "additionalProperties": false}]}`)
	got := issueStrings(s.ValidateJSON(json.RawMessage(`{"b": "x"}`)))
	if len(got) != 1 || got[0] != "/b must be integer, not string" {
		t.Errorf("issues = %q", got)
	}
}

func TestPointerEscaping(t *testing.T) {
	s := mustCompile(t, `{"required": ["a/b", "c~d"]}`)
	got := issueStrings(s.ValidateJSON(json.RawMessage(`{}`)))
	want := []string{"/a~1b is required", "/c~0d is required"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("issues = %q, want %q", got, want)
	}
}

func TestPropertyOrderFollowsTheDocument(t *testing.T) {
	s := mustCompile(t, `{"properties": {"zeta": {}, "alpha": {}, "mid": {}}}`)
	props := s.Root()["properties"].(map[string]any)
	if got := s.Keys(props); !reflect.DeepEqual(got, []string{"zeta", "alpha", "mid"}) {
		t.Errorf("keys = %v", got)
	}
}

func TestMinimalInstanceValidatesAcrossTheCorpus(t *testing.T) {
	for name, raw := range schematest.Corpus(t) {
		t.Run(name, func(t *testing.T) {
			s, err := schema.Compile(raw)
			if err != nil {
				t.Fatal(err)
			}
			m := schema.MinimalInstance(s)
			if is := s.Validate(m); is != nil {
				b, _ := json.Marshal(m)
				t.Errorf("minimal %s does not validate: %s", b, strings.Join(issueStrings(is), "; "))
			}
		})
	}
}
