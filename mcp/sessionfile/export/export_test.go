package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// load reads a session file and re-runs the doctor, as mcpscope export does.
func load(t *testing.T, path string) *Session {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sf, err := record.ReadEvents(f, true)
	if err != nil {
		t.Fatal(err)
	}
	return FromEvents(path, sf.Header, WithDoctor(sf.Events, doctor.New(doctor.Options{})))
}

const brokenFile = "testdata/broken-call.jsonl"

// The page loads nothing from anywhere: no script, no link, no source
// attribute, no url() in the CSS.
func TestHTMLIsSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := HTML(&buf, load(t, brokenFile)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, banned := range []string{"<script", "<link", "<img", "<iframe", " src=", " href=", "url(", "@import"} {
		if strings.Contains(page, banned) {
			t.Errorf("the page holds %q", banned)
		}
	}
	for _, want := range []string{"broken-server", "framing/non-json-stdout", "tools/list", "broken-server v0.1 starting up...", "Content-Security-Policy"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// Server strings are text, never markup; secrets stay redacted even when
// the file kept them.
func TestHTMLEscapesAndRedacts(t *testing.T) {
	now := time.Now()
	hs := &mcp.Handshake{ServerInfo: mcp.Implementation{Name: `<script>alert(1)</script>`, Version: "1"}, ServerCapabilities: json.RawMessage(`{}`)}
	events := []mcp.Event{
		mcp.HandshakeEvent{Time: now, Handshake: hs},
		mcp.TransportEvent{Time: now, Kind: "http", Summary: "POST /mcp → 200", Fields: []mcp.Field{
			{Key: "method", Value: "POST"}, {Key: "url", Value: "https://x.example/mcp?api_key=s3cret"},
			{Key: "Authorization", Value: "Bearer s3cret"}, {Key: "Cookie", Value: "sid=s3cret"}, {Key: "status", Value: "200 OK"}}},
		// A capture made before the tap redacted bodies: an OAuth token
		// request and its answer, recorded as frames.
		mcp.FrameEvent{Frame: &mcp.Frame{Seq: 1, Time: now, Dir: mcp.Outbound, Kind: mcp.KindInvalid, Problem: "not JSON",
			Raw: []byte("grant_type=authorization_code&code=s3cret&code_verifier=s3cret&client_secret=s3cret")}},
		mcp.FrameEvent{Frame: &mcp.Frame{Seq: 2, Time: now, Dir: mcp.Inbound, Kind: mcp.KindInvalid, Problem: "not JSON-RPC",
			Raw: []byte(`{"access_token":"s3cret","refresh_token":"s3cret","id_token":"s3cret","token_type":"Bearer"}`)}},
	}
	header := record.Entry{Type: "session", Target: "srv --api-key s3cret https://x.example/mcp?api_key=s3cret", Env: map[string]string{"TOKEN": "s3cret"},
		Command: []string{"srv", "--api-key", "s3cret", "--token=s3cret", "GITHUB_TOKEN=s3cret"}, URL: "https://x.example/mcp?api_key=s3cret"}
	s := FromEvents("x.jsonl", header, events)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"html": func(b *bytes.Buffer) error { return HTML(b, s) },
		"md":   func(b *bytes.Buffer) error { return Markdown(b, s) },
		"har":  func(b *bytes.Buffer) error { return HAR(b, s, "test") },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "s3cret") {
			t.Errorf("%s: a secret reached the export:\n%s", name, buf.String())
		}
		if name == "html" && (!strings.Contains(buf.String(), "token_type") || !strings.Contains(buf.String(), "--api-key")) {
			t.Errorf("html: the redacted frame or command is missing:\n%s", buf.String())
		}
		if name == "html" && strings.Contains(buf.String(), "<script>alert") {
			t.Errorf("html: a server string became markup")
		}
	}
}

// The HAR of an HTTP session validates against the HAR 1.2 schema, has one
// entry per HTTP request, and each POST carries its JSON-RPC message.
func TestHARValidates(t *testing.T) {
	raw, err := os.ReadFile("testdata/har-1.2.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	s := load(t, "../record/testdata/format1-demo-http.jsonl")
	var buf bytes.Buffer
	if err := HAR(&buf, s, "test"); err != nil {
		t.Fatal(err)
	}
	if issues := sch.ValidateJSON(buf.Bytes()); len(issues) > 0 {
		t.Fatalf("the HAR does not validate: %+v", issues)
	}
	var har harLog
	if err := json.Unmarshal(buf.Bytes(), &har); err != nil {
		t.Fatal(err)
	}
	if len(har.Log.Entries) != len(s.HTTP) || len(s.HTTP) < 5 {
		t.Fatalf("%d entries for %d HTTP requests", len(har.Log.Entries), len(s.HTTP))
	}
	posts := 0
	for _, e := range har.Log.Entries {
		if e.Request.Method != "POST" {
			continue
		}
		posts++
		if e.Request.PostData == nil || !json.Valid([]byte(e.Request.PostData.Text)) {
			t.Errorf("a POST without its JSON-RPC message: %+v", e.Request)
		}
	}
	if posts == 0 {
		t.Error("no POST entries")
	}
	// The schema can fail: a HAR without its required fields does not pass.
	if issues := sch.ValidateJSON([]byte(`{"log":{"version":"1.2","entries":[{"time":1}]}}`)); len(issues) == 0 {
		t.Error("the schema accepted a broken HAR")
	}
}

func TestMarkdownBugReport(t *testing.T) {
	var buf bytes.Buffer
	if err := Markdown(&buf, load(t, brokenFile)); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"## MCP session: broken-server", "### Failing exchanges", "invalid frame", "broken-server v0.1 starting up...", "`framing/non-json-stdout`", "**Protocol**: 2025-11-25"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if regexp.MustCompile("(?m)^```$").FindAllStringIndex(md, -1) == nil {
		t.Error("no fenced JSON")
	}
}

// Stderr lines a flood made mcpscope count and not keep are said where
// they were, in the report as in the TUI.
func TestExportSaysStderrLinesWereDropped(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := FromEvents("s.jsonl", record.Entry{}, []mcp.Event{
		mcp.StderrEvent{Time: at, Line: "first"},
		mcp.StderrEvent{Time: at, Line: "after the flood", Dropped: 123456, DroppedBytes: 12345678},
	})
	want := []string{"first", "… 123456 earlier lines dropped (12345678 bytes): a flood faster than mcpscope keeps", "after the flood"}
	if !slices.Equal(s.Stderr, want) {
		t.Errorf("stderr %q, want %q", s.Stderr, want)
	}
}

// A tap's note that an answer was cut before its end is an HTTP event
// without a request: the HAR still validates, and the note is in the
// log's comment, not dropped.
func TestHARKeepsACutAnswerAsANote(t *testing.T) {
	raw, err := os.ReadFile("testdata/har-1.2.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	s := load(t, "../record/testdata/format1-demo-http.jsonl")
	exchanges := len(s.HTTP)
	s.HTTP = append(s.HTTP, mcp.TransportEvent{Time: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC), Kind: "http",
		Summary: "the answer on POST #7 was cut before its end: the client got only what came before",
		Fields:  []mcp.Field{{Key: "stream", Value: "POST #7"}}, Err: errors.New("unexpected EOF")})
	var buf bytes.Buffer
	if err := HAR(&buf, s, "test"); err != nil {
		t.Fatal(err)
	}
	if issues := sch.ValidateJSON(buf.Bytes()); len(issues) > 0 {
		t.Fatalf("the HAR does not validate: %+v", issues)
	}
	var har harLog
	if err := json.Unmarshal(buf.Bytes(), &har); err != nil {
		t.Fatal(err)
	}
	if len(har.Log.Entries) != exchanges {
		t.Errorf("%d entries for %d exchanges", len(har.Log.Entries), exchanges)
	}
	if c := har.Log.Comment; !strings.Contains(c, "was cut before its end") || !strings.Contains(c, "unexpected EOF") {
		t.Errorf("the log's comment does not keep the note: %q", c)
	}
}
