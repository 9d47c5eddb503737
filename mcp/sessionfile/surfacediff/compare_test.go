package surfacediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

func load(t *testing.T, path string) *Surface {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read-only
	sf, err := record.ReadEvents(f, true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromEvents(path, sf.Events)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// key is how a test names a change: "class area name path".
func keys(r *Report) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, strings.Join([]string{string(c.Class), c.Area, c.Name, c.Path}, " "))
	}
	sort.Strings(out)
	return out
}

// The fixture pair: notes-server 1.0.0 and 2.0.0, with one change of
// every kind the issue names.
func TestEveryChangeIsClassed(t *testing.T) {
	r := Compare(load(t, "testdata/notes-v1.jsonl"), load(t, "testdata/notes-v2.jsonl"))
	want := []string{
		"breaking capability logging ",                           // a capability no longer declared
		"breaking capability tools.listChanged ",                 // a sub-capability gone
		"breaking tool remove_me ",                               // removed tool
		"breaking tool search inputSchema.properties.count.type", // number -> integer: narrowed type
		"breaking tool search inputSchema.properties.legacy",     // removed property
		"breaking tool search inputSchema.properties.limit",      // new required property
		"breaking tool search inputSchema.properties.mode.enum",  // enum value removed
		"compatible tool echo description",                       // description change
		"compatible tool echo inputSchema.properties.text.description",
		"compatible tool new_tool ", // new tool
		"compatible tool search description",
		"compatible tool search inputSchema.properties.lang",  // new optional property
		"compatible tool widen inputSchema.properties.n.enum", // enum value added
		"compatible tool widen inputSchema.properties.n.type", // integer -> number: widened
		"info server  ",
	}
	sort.Strings(want)
	got := keys(r)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Breaking != 7 || r.Compatible != 7 {
		t.Errorf("breaking %d, compatible %d", r.Breaking, r.Compatible)
	}
	if r.Changes[0].Class != Breaking {
		t.Errorf("breaking changes are not listed first: %+v", r.Changes[0])
	}
}

func TestCompatibleOnly(t *testing.T) {
	r := Compare(load(t, "testdata/notes-v1.jsonl"), load(t, "testdata/notes-v1.1.jsonl"))
	if r.Breaking != 0 {
		t.Errorf("compatible changes classed breaking: %v", keys(r))
	}
	if r.Compatible < 4 {
		t.Errorf("compatible changes missed: %v", keys(r))
	}
	same := Compare(load(t, "testdata/notes-v1.jsonl"), load(t, "testdata/notes-v1.jsonl"))
	if len(same.Changes) != 0 {
		t.Errorf("a surface differs from itself: %v", keys(same))
	}
}

// For an output schema the direction turns: what the client reads must
// not lose a property or gain a type.
func TestOutputSchemaDirection(t *testing.T) {
	mk := func(out string) *Surface {
		return &Surface{Lists: map[string][]json.RawMessage{"tools/list": {json.RawMessage(
			`{"name":"t","inputSchema":{"type":"object"},"outputSchema":` + out + `}`)}}}
	}
	a := mk(`{"type":"object","properties":{"sum":{"type":"integer"},"note":{"type":"string"}},"required":["sum"]}`)
	b := mk(`{"type":"object","properties":{"sum":{"type":"number"},"extra":{"type":"string"}},"required":["sum"]}`)
	got := strings.Join(keys(Compare(a, b)), "\n")
	for _, w := range []string{
		"breaking tool t outputSchema.properties.note",     // removed from what is read
		"breaking tool t outputSchema.properties.sum.type", // integer -> number: the client may now get 1.5
		"compatible tool t outputSchema.properties.extra",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

func TestWriters(t *testing.T) {
	r := Compare(load(t, "testdata/notes-v1.jsonl"), load(t, "testdata/notes-v2.jsonl"))
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, f, r); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, "remove_me") || !strings.Contains(out, "notes-server") {
			t.Errorf("%s output lacks the removed tool or the server:\n%s", f, out)
		}
		if f == "json" {
			var back Report
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Breaking != r.Breaking || len(back.Changes) != len(r.Changes) {
				t.Errorf("json does not round-trip: %v", err)
			}
		}
	}
	if err := Write(&bytes.Buffer{}, "xml", r); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func toolSurface(tool string) *Surface {
	return &Surface{Lists: map[string][]json.RawMessage{"tools/list": {json.RawMessage(tool)}}}
}

// Every part of a tool a client reads is compared and classed: the
// annotations by the care they ask of a client (a tool no longer
// read-only is breaking), the title and icons compatible, _meta key by
// key (a key gone is breaking).
func TestToolPartsAreClassed(t *testing.T) {
	a := toolSurface(`{"name":"t","title":"T","inputSchema":{"type":"object"},"icons":[{"src":"a.png"}],
		"annotations":{"readOnlyHint":true,"destructiveHint":false,"openWorldHint":false,"title":"T"},
		"_meta":{"ui/resourceUri":"ui://t","x":1}}`)
	b := toolSurface(`{"name":"t","title":"T2","inputSchema":{"type":"object"},"icons":[{"src":"b.png"}],
		"annotations":{"destructiveHint":false,"idempotentHint":true,"openWorldHint":true,"title":"T2"},
		"_meta":{"x":2,"y":true}}`)
	got := strings.Join(keys(Compare(a, b)), "\n")
	want := strings.Join([]string{
		"breaking tool t _meta.ui/resourceUri",
		"breaking tool t annotations.openWorldHint",
		"breaking tool t annotations.readOnlyHint",
		"compatible tool t _meta.x",
		"compatible tool t _meta.y",
		"compatible tool t annotations.idempotentHint",
		"compatible tool t annotations.title",
		"compatible tool t icons",
		"compatible tool t title",
	}, "\n")
	if got != want {
		t.Errorf("changes:\n%s\nwant:\n%s", got, want)
	}
	// Back the other way the hints ask for less care: compatible, except
	// idempotentHint, whose loss means calling again may do more.
	back := strings.Join(keys(Compare(b, a)), "\n")
	for _, w := range []string{"compatible tool t annotations.readOnlyHint", "compatible tool t annotations.openWorldHint", "breaking tool t annotations.idempotentHint", "compatible tool t _meta.ui/resourceUri", "breaking tool t _meta.y"} {
		if !strings.Contains(back, w) {
			t.Errorf("b → a lacks %q:\n%s", w, back)
		}
	}
	// An explicit default is the same in effect as none.
	same := Compare(toolSurface(`{"name":"t","annotations":{"destructiveHint":true}}`), toolSurface(`{"name":"t"}`))
	if same.Breaking != 0 || len(same.Changes) != 1 || same.Changes[0].Class != Compatible {
		t.Errorf("destructiveHint true → absent: %v", keys(same))
	}
}

// A list only one side listed is not compared (its items are neither
// new nor removed); items offered only to the client that declared what
// they name follow the clients, and say so.
func TestNotListedAndClientFollowing(t *testing.T) {
	a := &Surface{ClientCapabilities: json.RawMessage(`{"roots":{"listChanged":true},"elicitation":{}}`), Lists: map[string][]json.RawMessage{
		"tools/list": {json.RawMessage(`{"name":"echo"}`), json.RawMessage(`{"name":"get-roots-list","description":"Lists the client's roots"}`), json.RawMessage(`{"name":"gone"}`)},
	}}
	b := &Surface{ClientCapabilities: json.RawMessage(`{"sampling":{},"elicitation":{}}`), Lists: map[string][]json.RawMessage{
		"tools/list":     {json.RawMessage(`{"name":"echo"}`), json.RawMessage(`{"name":"trigger-sampling-request"}`)},
		"resources/list": {json.RawMessage(`{"uri":"demo://a"}`)},
	}}
	r := Compare(a, b)
	if got := strings.Join(keys(r), "\n"); got != "breaking tool gone \ninfo tool get-roots-list \ninfo tool trigger-sampling-request " {
		t.Errorf("changes:\n%s", got)
	}
	if len(r.NotListed) != 1 || r.NotListed[0].Method != "resources/list" || r.NotListed[0].ListedBy != "B" || r.NotListed[0].Count != 1 {
		t.Errorf("not listed: %+v", r.NotListed)
	}
	var caps []string
	for _, d := range r.Clients {
		caps = append(caps, fmt.Sprintf("%s:%v/%v", d.Capability, d.A, d.B))
	}
	if strings.Join(caps, ",") != "roots:true/false,roots.listChanged:true/false,sampling:false/true" {
		t.Errorf("client differences %v", caps)
	}
	var text bytes.Buffer
	_ = Write(&text, "text", r)
	for _, w := range []string{"only A's client: roots, roots.listChanged", "not compared: resources/list was listed only by B",
		"CLIENT     tool trigger-sampling-request: tool trigger-sampling-request is offered only to B, whose client declared sampling"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
}
