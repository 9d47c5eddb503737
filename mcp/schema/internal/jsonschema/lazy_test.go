package jsonschema

import (
	"strings"
	"sync"
	"testing"
)

// The meta-schemas are compiled on first use (Draft.load), not in init; a
// schema of every draft, compiled from several goroutines at once (run
// with -race), is still checked against its meta-schema and validates.
func TestDraftsLoadOnFirstUseConcurrently(t *testing.T) {
	drafts := []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}
	var wg sync.WaitGroup
	for round := 0; round < 4; round++ {
		for _, d := range drafts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := NewCompiler()
				c.AssertFormat()
				bad := map[string]any{"$schema": d.url, "type": 12.0}
				if err := c.AddResource("mem:///bad.json", bad); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.Compile("mem:///bad.json"); err == nil || !strings.Contains(err.Error(), "type") {
					t.Errorf("%s: a schema whose type is 12 compiled (err %v): the meta-schema was not applied", d.url, err)
				}
				good := map[string]any{"$schema": d.url, "type": "object", "required": []any{"a"}}
				if err := c.AddResource("mem:///good.json", good); err != nil {
					t.Error(err)
					return
				}
				s, err := c.Compile("mem:///good.json")
				if err != nil {
					t.Errorf("%s: %v", d.url, err)
					return
				}
				if err := s.Validate(map[string]any{}); err == nil {
					t.Errorf("%s: {} passed a schema that requires a", d.url)
				}
				if err := s.Validate(map[string]any{"a": 1.0}); err != nil {
					t.Errorf("%s: %v", d.url, err)
				}
			}()
		}
	}
	wg.Wait()
	for _, d := range drafts {
		if d.sch == nil {
			t.Errorf("%s: never loaded", d.url)
		}
	}
}
