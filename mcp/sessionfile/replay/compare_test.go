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

// A difference inside JSON text in a string is named by its inner path,
// with the inner values, not by the whole string; texts whose top levels
// differ in kind are shown whole.
func TestCompareNamesThePathInsideJSONText(t *testing.T) {
	m, _ := NewMatcher(nil, false)
	a := json.RawMessage(`{"result":{"content":[{"type":"text","text":"{\"sum\":3,\"items\":[1,2],\"same\":\"x\"}"}]}}`)
	b := json.RawMessage(`{"result":{"content":[{"type":"text","text":"{\"sum\":4,\"items\":[1,5],\"same\":\"x\"}"}]}}`)
	d := m.Compare(a, b)
	if got := paths(d); got != "/result/content/0/text/items/1,/result/content/0/text/sum" {
		t.Fatalf("differences at %s", got)
	}
	if d[1].Recorded != "3" || d[1].Replayed != "4" {
		t.Errorf("the inner difference shows %q and %q, want the numbers", d[1].Recorded, d[1].Replayed)
	}
	// The path reported is one --ignore takes.
	ig, _ := NewMatcher([]string{"/result/content/0/text/sum", "/result/content/0/text/items/1"}, false)
	if got := ig.Compare(a, b); len(got) != 0 {
		t.Errorf("ignoring the reported paths left %s", paths(got))
	}
	kind := m.Compare(json.RawMessage(`{"result":{"t":"{\"a\":1}"}}`), json.RawMessage(`{"result":{"t":"[1]"}}`))
	if len(kind) != 1 || kind[0].Path != "/result/t" || kind[0].Recorded != `"{\"a\":1}"` {
		t.Errorf("an object text against an array text: %+v", kind)
	}
}

// Numbers are equal by value, as JSON reads them and as a calls file's
// equals compares them: 3 and 3.0, 1e2 and 100.
func TestCompareNumbersByValue(t *testing.T) {
	m, _ := NewMatcher(nil, true)
	if d := m.Compare(json.RawMessage(`{"result":{"n":3,"m":[1e2],"t":"{\"x\":0.50}"}}`), json.RawMessage(`{"result":{"n":3.0,"m":[100],"t":"{\"x\":0.5}"}}`)); len(d) != 0 {
		t.Errorf("equal numbers differ at %s", paths(d))
	}
	if d := m.Compare(json.RawMessage(`{"result":{"n":3}}`), json.RawMessage(`{"result":{"n":3.0000000000000001}}`)); paths(d) != "/result/n" {
		t.Errorf("3 and 3.0000000000000001 (one float64, two numbers): %s", paths(d))
	}
	if d := m.Compare(json.RawMessage(`{"result":{"n":1e999999999}}`), json.RawMessage(`{"result":{"n":1e999999998}}`)); paths(d) != "/result/n" {
		t.Errorf("huge exponents: %s", paths(d))
	}
}
