package replay

import (
	"encoding/json"
	"strings"
	"testing"
)

func paths(d []Difference) string {
	var out []string
	for _, x := range d {
		out = append(out, x.Path)
	}
	return strings.Join(out, ",")
}

func TestCompareIgnoresVolatileValues(t *testing.T) {
	m, err := NewMatcher(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	a := json.RawMessage(`{"result":{"_meta":{"x":1},"createdAt":"2026-01-01T00:00:00Z","at":"2026-01-01T00:00:00.5Z","n":1,
		"content":[{"type":"text","text":"{\"sessionId\":\"a\",\"v\":1}"}],"gone":true,"list":[1,2]}}`)
	b := json.RawMessage(`{"result":{"_meta":{"x":2},"createdAt":"2027-01-01T00:00:00Z","at":"2027-05-01T00:00:00Z","n":2,
		"content":[{"type":"text","text":"{\"sessionId\":\"b\",\"v\":1}"}],"new":1,"list":[1]}}`)
	got := paths(m.Compare(a, b))
	if got != "/result/gone,/result/list/1,/result/n,/result/new" {
		t.Errorf("differences at %s", got)
	}
	strict, _ := NewMatcher(nil, true)
	if got := paths(strict.Compare(a, b)); !strings.Contains(got, "/result/_meta/x") || !strings.Contains(got, "/result/createdAt") ||
		!strings.Contains(got, "/result/content/0/text") {
		t.Errorf("strict: differences at %s", got)
	}
}

func TestIgnorePaths(t *testing.T) {
	a := json.RawMessage(`{"result":{"content":[{"text":"a","v":1},{"text":"b"}],"x/y":{"deep":{"version":"1"}}}}`)
	b := json.RawMessage(`{"result":{"content":[{"text":"A","v":2},{"text":"B"}],"x/y":{"deep":{"version":"2"}}}}`)
	for _, tc := range []struct {
		ignore []string
		want   string
	}{
		{nil, "/result/content/0/text,/result/content/0/v,/result/content/1/text,/result/x~1y/deep/version"},
		{[]string{"result.content.*.text"}, "/result/content/0/v,/result/x~1y/deep/version"},
		{[]string{"/result/content/0/v", "**.version"}, "/result/content/0/text,/result/content/1/text"},
		{[]string{"/result/x~1y"}, "/result/content/0/text,/result/content/0/v,/result/content/1/text"},
		{[]string{"**"}, ""},
	} {
		m, err := NewMatcher(tc.ignore, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(m.Compare(a, b)); got != tc.want {
			t.Errorf("--ignore %v: differences at %s, want %s", tc.ignore, got, tc.want)
		}
	}
	if _, err := NewMatcher([]string{""}, false); err == nil {
		t.Error("an empty path was accepted")
	}
}

// Compare is NewMatcher and its Compare in one call, with the same rules.
func TestCompareFunction(t *testing.T) {
	d, err := Compare(json.RawMessage(`{"result":{"n":1,"createdAt":"a"}}`), json.RawMessage(`{"result":{"n":2,"createdAt":"b"}}`), nil, false)
	if err != nil || paths(d) != "/result/n" {
		t.Errorf("differences at %s (%v)", paths(d), err)
	}
	if d, _ := Compare(json.RawMessage(`{"result":{"n":1}}`), json.RawMessage(`{"result":{"n":2}}`), []string{"/result/n"}, false); d != nil {
		t.Errorf("an ignored path differs: %v", d)
	}
	if _, err := Compare(nil, nil, []string{""}, false); err == nil {
		t.Error("an empty pattern was accepted")
	}
}
