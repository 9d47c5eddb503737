package schema_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/schematest"
)

// structuredSchema is a tool's outputSchema of the kind servers publish:
// an object with a list of records carrying formats.
const structuredSchema = `{"type":"object","properties":{"sum":{"type":"number"},"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"at":{"type":"string","format":"date-time"},"tags":{"type":"array","items":{"type":"string","minLength":1},"uniqueItems":true},"score":{"type":"number","minimum":0,"maximum":100,"multipleOf":0.5}},"required":["id"],"additionalProperties":false}}},"required":["sum"]}`

// structuredContent is a result matching structuredSchema, with n records.
func structuredContent(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"sum":3,"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"6f1c2b1e-8d7a-4c1e-9f3a-%012d","at":"2026-11-30T10:00:%02dZ","tags":["a","b%d"],"score":%d.5}`, i, i%60, i, i%100)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// BenchmarkCompile compiles every tool schema of the demo server (what
// the doctor and the tools pane do on each tools/list), and a tool's
// outputSchema.
func BenchmarkCompile(b *testing.B) {
	tools := schematest.Tools(b, "demo-tools.json")
	b.Run("demo-tools", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for name, raw := range tools {
				if _, err := schema.Compile(raw); err != nil {
					b.Fatalf("%s: %v", name, err)
				}
			}
		}
	})
	b.Run("outputSchema", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := schema.Compile(json.RawMessage(structuredSchema)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkValidate validates the demo's book_trip arguments (valid, and
// with six problems) and a tool result's structuredContent.
func BenchmarkValidate(b *testing.B) {
	book, err := schema.Compile(schematest.Tools(b, "demo-tools.json")["book_trip"])
	if err != nil {
		b.Fatal(err)
	}
	valid := json.RawMessage(`{"traveller":{"name":"Ada"},"legs":[{"from":"LHR","to":"CDG","date":"2026-01-02"}],"payment":{"company":"ACME"}}`)
	invalid := json.RawMessage(`{"traveller": {"email": "not-an-email", "age": 200, "address": {"city": "Paris", "country": "fr"}}, "legs": [], "payment": {"number": "12"}}`)
	out, err := schema.Compile(json.RawMessage(structuredSchema))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		s      *schema.Schema
		raw    json.RawMessage
		issues int
	}{
		{"book_trip-valid", book, valid, 0},
		{"book_trip-6-issues", book, invalid, 6},
		{"structuredContent-1", out, structuredContent(1), 0},
		{"structuredContent-1000", out, structuredContent(1000), 0},
	} {
		inst, err := schema.Decode(c.raw)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := len(c.s.Validate(inst)); got != c.issues {
					b.Fatalf("%d issues, want %d", got, c.issues)
				}
			}
		})
	}
}
