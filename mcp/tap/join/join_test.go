package join_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/tap/join"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// serverTools trigger Claude Code's rules: a dot, a top-level anyOf, a
// description over the 16,384 characters it keeps, a 300 KB result and
// a tool for views alone.
var serverTools = `[
{"name":"get.weather","description":"Weather.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}},
{"name":"either","description":"Finds.","inputSchema":{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"}},"required":["name"]}]}},
{"name":"wordy","description":"` + strings.Repeat("d", 20000) + `","inputSchema":{"type":"object"}},
{"name":"big","description":"A 300 KB result.","inputSchema":{"type":"object"}},
{"name":"refresh","description":"Called by the view only.","inputSchema":{"type":"object"},"_meta":{"ui":{"visibility":["app"]}}}
]`

var t0 = time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)

// mcpCapture is a tap's capture of Claude Code and server wx: the
// handshake, the tools listed, and one call of big at 3 s answered with
// 300 KB of text.
func mcpCapture(t *testing.T, callAt time.Duration) *reading.Session {
	t.Helper()
	s, err := reading.Read("wx.jsonl", bytes.NewReader(mcpCaptureFile(callAt)), true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mcpCaptureFile is the MCP capture's file.
func mcpCaptureFile(callAt time.Duration) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","time":"` + t0.Format(time.RFC3339Nano) + `","format":1,"target":"wx","recorder":"tap","command":["node","server.js"]}` + "\n")
	seq := int64(0)
	frame := func(at time.Duration, dir, kind, method, id string, replyTo int64, raw string) {
		seq++
		e := map[string]any{"type": "frame", "time": t0.Add(at), "seq": seq, "dir": dir, "transport": "stdio", "kind": kind, "raw": raw, "size": len(raw)}
		if method != "" {
			e["method"] = method
		}
		if id != "" {
			e["id"] = id
		}
		if replyTo != 0 {
			e["replyTo"] = replyTo
		}
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	frame(0, "out", "request", "initialize", "0", 0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.328"}}}`)
	frame(10*time.Millisecond, "in", "response", "", "0", 1, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"weather-server","version":"1"}}}`)
	frame(20*time.Millisecond, "out", "notification", "notifications/initialized", "", 0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	frame(30*time.Millisecond, "out", "request", "tools/list", "1", 0, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	frame(40*time.Millisecond, "in", "response", "", "1", 4, `{"jsonrpc":"2.0","id":1,"result":{"tools":`+serverTools+`}}`)
	frame(callAt, "out", "request", "tools/call", "2", 0, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	frame(callAt+50*time.Millisecond, "in", "response", "", "2", 6, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`+strings.Repeat("x", 300*1024)+`"}]}}`)
	return b.Bytes()
}

// modelCapture is what Claude Code sent its model: #1 defines no MCP
// tool and the model searches; #2 defines the loaded tools as the view
// predicts them (but get.weather named as rename said otherwise: see
// rename) and the model calls big; #3 passes back big's result, saved to
// a file.
func modelCapture(t *testing.T, rename map[string]string) join.Model {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(serverTools), &raws); err != nil {
		t.Fatal(err)
	}
	view := clients.Present(clients.Claude, clients.Input{Server: "wx", Tools: mcp.ParseTools(raws)})
	search := modelapi.Tool{Name: "ToolSearch", Description: "Search tools.", Schema: json.RawMessage(`{"type":"object"}`)}
	loaded := []modelapi.Tool{search}
	for _, e := range view.Tools {
		if e.Dropped != "" {
			continue
		}
		name := e.Shown
		if n, ok := rename[name]; ok {
			name = n
		}
		loaded = append(loaded, modelapi.Tool{Name: name, Description: e.Description, Schema: e.Schema, Deferred: true})
	}
	saved := `[{"type":"text","text":"Error: result (307,200 characters across 1 line) exceeds maximum allowed tokens. Output has been saved to /tmp/x.txt."}]`
	return join.Model{ID: "m1", Requests: []tap.ModelEntry{
		{Type: "model", N: 1, Time: t0.Add(time.Second), DurationMs: 500, API: modelapi.AnthropicMessages, Tools: []modelapi.Tool{search},
			Calls: []modelapi.Call{{ID: "toolu_1", Name: "ToolSearch"}}, Usage: &modelapi.Usage{Input: 100, Output: 5, CacheRead: 20}},
		{Type: "model", N: 2, Time: t0.Add(2 * time.Second), DurationMs: 500, API: modelapi.AnthropicMessages, Tools: loaded,
			Calls: []modelapi.Call{{ID: "toolu_2", Name: "mcp__wx__big"}}, Usage: &modelapi.Usage{Input: 900, Output: 5, CacheRead: 20}},
		{Type: "model", N: 3, Time: t0.Add(4 * time.Second), DurationMs: 500, API: modelapi.AnthropicMessages, Tools: loaded,
			Results: []modelapi.Result{{ID: "toolu_2", Content: json.RawMessage(saved), Size: len(saved)}}, Usage: &modelapi.Usage{Input: 950, Output: 1}},
	}}
}

// modelCaptureFile is the model capture's file.
func modelCaptureFile(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"type":"session","time":"` + t0.Format(time.RFC3339Nano) + `","format":1,"target":"model anthropic","url":"https://api.anthropic.com","recorder":"model-tap"}` + "\n")
	for _, q := range modelCapture(t, nil).Requests {
		q.Method, q.Path, q.Status = "POST", "/v1/messages", 200
		line, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return b.Bytes()
}

var update = flag.Bool("update", false, "write testdata/join's captures again")

// The fixture captures in testdata/join (which cli's tests of taps
// --join and open --with read) are the ones these tests build, and read
// as files they join as built.
func TestFixtureCaptures(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "join")
	files := map[string][]byte{"model.jsonl": modelCaptureFile(t), "wx.jsonl": mcpCaptureFile(3 * time.Second)}
	for name, want := range files {
		path := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the capture built here (%v): go test ./mcp/tap/join -run TestFixtureCaptures -update", path, err)
		}
	}
	_, reqs, err := tap.ReadModel(filepath.Join(dir, "model.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := reading.ReadFile(filepath.Join(dir, "wx.jsonl"), true)
	if err != nil {
		t.Fatal(err)
	}
	r := join.Join(join.Model{ID: "model", Requests: reqs}, []join.Server{{ID: "wx", Name: "wx", Session: s}}, "")
	if c, ok := change(tool(t, r, "get.weather"), "renamed"); !ok || c.Predicted != "yes" || len(tool(t, r, "big").Given) != 1 {
		t.Errorf("the fixtures join as %+v", r.Servers)
	}
}

func tool(t *testing.T, r join.Report, name string) join.ToolJoin {
	t.Helper()
	for _, s := range r.Servers {
		for _, tj := range s.Tools {
			if tj.Server.Name == name {
				return tj
			}
		}
	}
	t.Fatalf("no tool %s in the join", name)
	return join.ToolJoin{}
}

func change(tj join.ToolJoin, kind string) (join.Change, bool) {
	for _, c := range tj.Changes {
		if c.Kind == kind {
			return c, true
		}
	}
	return join.Change{}, false
}

// Each change Claude Code made is named with its rule and found as the
// view predicts; the call of big is followed from the model to the
// server and back.
func TestJoinClaude(t *testing.T) {
	r := join.Join(modelCapture(t, nil), []join.Server{{ID: "wx1", Name: "wx", Session: mcpCapture(t, 3*time.Second)}}, "")
	if r.Client != clients.Claude || !strings.Contains(r.From, "claude-code 2.1.328") {
		t.Errorf("client %s from %q, want claude from its clientInfo", r.Client, r.From)
	}
	if len(r.Notes) != 0 {
		t.Errorf("notes %q", r.Notes)
	}
	for _, w := range []struct {
		tool, kind, text, rule string
	}{
		{"get.weather", "renamed", "get.weather → mcp__wx__get_weather", "claude/prefix"},
		{"get.weather", "deferred", "defer_loading", "claude/tool-search"},
		{"either", "schema rewritten", "bytes", "claude/schema-combinators"},
		{"either", "description rewritten", "text added", "claude/schema-combinators"},
		{"wordy", "description cut", "from 20000 to 16397 characters", "claude/description-cut"},
		{"refresh", "dropped", "", "claude/visibility"},
	} {
		c, ok := change(tool(t, r, w.tool), w.kind)
		switch {
		case !ok:
			t.Errorf("%s: no %q change in %+v", w.tool, w.kind, tool(t, r, w.tool).Changes)
		case !strings.Contains(c.Text, w.text) || !contains(c.Rules, w.rule) || c.Predicted != "yes":
			t.Errorf("%s: %+v, want %q with rule %s, as predicted", w.tool, c, w.text, w.rule)
		}
	}
	if c := tool(t, r, "big").Changes; len(c) != 2 { // renamed, deferred
		t.Errorf("big: changes %+v", c)
	}
	big := tool(t, r, "big")
	if len(big.ModelCalls) != 1 || big.ModelCalls[0].ID != "toolu_2" || big.ModelCalls[0].Request != 2 {
		t.Errorf("big: model calls %+v", big.ModelCalls)
	}
	if len(big.ServerCalls) != 1 || big.ServerCalls[0].TextChars != 300*1024 || big.ServerCalls[0].ResultBytes < 300*1024 {
		t.Errorf("big: server calls %+v", big.ServerCalls)
	}
	if g := big.Given; len(g) != 1 || g[0].Request != 3 || g[0].How != "saved to a file" || !contains(g[0].Rules, "claude/result-limits") || g[0].Bytes != 144 {
		t.Errorf("big: given %+v", g)
	}
	if p := big.Presented; p == nil || p.Tokens == 0 || p.Tokens != p.Predicted || len(p.Requests) != 2 {
		t.Errorf("big: presented %+v, want tokens as predicted, in #2 and #3", p)
	}
	if len(tool(t, r, "get.weather").ModelCalls) != 0 {
		t.Error("get.weather: the model called it, the capture says not")
	}
	// The API's count beside ours, and the difference the tools made.
	if len(r.Requests) != 3 || r.Requests[0].Input != 120 || r.Requests[1].Joined != 4 || r.Requests[1].Tokens <= r.Requests[0].Tokens {
		t.Errorf("requests %+v", r.Requests)
	}
	if d := r.Delta; d == nil || d.Without != 1 || d.With != 2 || d.Input != 800 || d.Ours == 0 || d.Ours >= r.Requests[1].Tokens {
		t.Errorf("with and without the tools: %+v", d)
	}
	var text bytes.Buffer
	join.WriteText(&text, r)
	for _, want := range []string{
		"renamed get.weather → mcp__wx__get_weather (claude/prefix); as the view predicts",
		"description cut: from 20000 to 16397 characters (claude/description-cut); as the view predicts",
		"the model was given 144 bytes of it in #3 (toolu_2): saved to a file (claude/result-limits)",
		"1/1  300 KiB → 144 B saved\n",
		"the API's count, which covers the whole request",
		"#1 has none of the joined servers' tools, #2 has them: the API's input count differs by +800 tokens",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text has no %q:\n%s", want, text.String())
		}
	}
}

// A name the client sent otherwise than the view predicts is found by
// its description and said to be wrong.
func TestJoinMispredicted(t *testing.T) {
	r := join.Join(modelCapture(t, map[string]string{"mcp__wx__get_weather": "mcp__wx__get.weather"}), []join.Server{{ID: "wx1", Name: "wx", Session: mcpCapture(t, 3*time.Second)}}, "")
	c, ok := change(tool(t, r, "get.weather"), "renamed")
	if !ok || c.Text != "get.weather → mcp__wx__get.weather" || c.Predicted != "no" || c.Wrong != "named mcp__wx__get_weather" {
		t.Errorf("renamed: %+v (%v)", c, ok)
	}
	var text bytes.Buffer
	join.WriteText(&text, r)
	if !strings.Contains(text.String(), "NOT as the view predicts, which says named mcp__wx__get_weather") {
		t.Errorf("the text does not say the view was wrong:\n%s", text.String())
	}
}

// An MCP capture of another time is joined by name only and said not to
// overlap; its calls are not joined.
func TestJoinNoOverlap(t *testing.T) {
	s := mcpCapture(t, 3*time.Second)
	m := modelCapture(t, nil)
	for i := range m.Requests {
		m.Requests[i].Time = m.Requests[i].Time.Add(time.Hour)
	}
	r := join.Join(m, []join.Server{{ID: "wx1", Name: "wx", Session: s}}, "")
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "does not overlap") || r.Servers[0].Overlap {
		t.Errorf("notes %q, overlap %v", r.Notes, r.Servers[0].Overlap)
	}
	if big := tool(t, r, "big"); len(big.ServerCalls) != 0 || r.Servers[0].Outside != 1 {
		t.Errorf("a call an hour away was joined: %+v (outside %d)", big.ServerCalls, r.Servers[0].Outside)
	}
}

// The client given is the view used, whatever the clientInfo says.
func TestJoinGivenClient(t *testing.T) {
	r := join.Join(modelCapture(t, nil), []join.Server{{ID: "wx1", Name: "wx", Session: mcpCapture(t, 3*time.Second)}}, clients.Gemini)
	if r.Client != clients.Gemini || tool(t, r, "get.weather").Predicted != "mcp_wx_get.weather" {
		t.Errorf("client %s, predicted %q", r.Client, tool(t, r, "get.weather").Predicted)
	}
	b, err := json.Marshal(r)
	if err != nil || !bytes.Contains(b, []byte(`"predictedName":"mcp_wx_get.weather"`)) {
		t.Errorf("JSON %v: %.300s", err, b)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Names and texts from the captures reach the terminal with their
// control sequences neutralised.
func TestJoinTextNeutralisesControls(t *testing.T) {
	m := modelCapture(t, nil)
	m.Requests[1].Tools = append(m.Requests[1].Tools, modelapi.Tool{Name: "mcp__wx__evil\x1b]52;c;aGk=\x07", Description: "Weather."})
	r := join.Join(m, []join.Server{{ID: "wx\x1b[2J", Name: "wx\x1b[31m", Session: mcpCapture(t, 3*time.Second)}}, "")
	var text bytes.Buffer
	join.WriteText(&text, r)
	if bytes.ContainsAny(text.Bytes(), "\x1b\x07") {
		t.Errorf("the text holds a control character:\n%q", text.String())
	}
}

// A Gemini result names its function: it is joined by that name, its
// id or none.
func TestJoinGeminiResultByName(t *testing.T) {
	m := modelCapture(t, nil)
	m.Requests[2].Results[0] = modelapi.Result{ID: "gemini-call-1", Name: "mcp__wx__big", Content: json.RawMessage(`{"output":"x"}`), Size: 14}
	r := join.Join(m, []join.Server{{ID: "wx1", Name: "wx", Session: mcpCapture(t, 3*time.Second)}}, "")
	if g := tool(t, r, "big").Given; len(g) != 1 || g[0].How != "cut" || g[0].Bytes != 14 {
		t.Errorf("given %+v, want the named result, cut (14 bytes of 300 KB)", g)
	}
}

// Gemini CLI 0.61.0 gave its model the first 8,000 and last 32,000
// characters of a 300 KB result and the path of the whole: saved to a
// file, as the real-client test saw.
func TestJoinGeminiSaved(t *testing.T) {
	m := modelCapture(t, nil)
	note := `{"output":"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /tmp/x/mcp_wx_big.txt\n` + strings.Repeat("x", 40000) + `"}`
	m.Requests[2].Results[0] = modelapi.Result{ID: "mcp_wx_big_1", Name: "mcp__wx__big", Content: json.RawMessage(note), Size: len(note)}
	r := join.Join(m, []join.Server{{ID: "wx1", Name: "wx", Session: mcpCapture(t, 3*time.Second)}}, "")
	if g := tool(t, r, "big").Given; len(g) != 1 || g[0].How != "saved to a file" {
		t.Errorf("given %+v, want saved to a file", g)
	}
}

// A call made in a script of Codex's exec tool is joined by its name,
// says so, and is given the exec call's output.
func TestJoinCallViaExec(t *testing.T) {
	m := modelCapture(t, nil)
	m.Requests[1].Calls = []modelapi.Call{{ID: "call_2", Name: "exec", Type: "custom_tool_call"}, {ID: "call_2", Name: "mcp__wx__big", Via: "exec"}}
	out := `[{"type":"input_text","text":"Warning: truncated output (original token count: 76800)"}]`
	m.Requests[2].Results[0] = modelapi.Result{ID: "call_2", Content: json.RawMessage(out), Size: len(out)}
	r := join.Join(m, []join.Server{{ID: "wx1", Name: "wx", Session: mcpCapture(t, 3*time.Second)}}, "")
	big := tool(t, r, "big")
	if c := big.ModelCalls; len(c) != 1 || c[0].ID != "call_2" || c[0].Via != "exec" {
		t.Errorf("model calls %+v, want call_2 via exec", c)
	}
	if g := big.Given; len(g) != 1 || g[0].How != "cut" || g[0].Bytes != len(out) {
		t.Errorf("given %+v, want the exec output, cut", g)
	}
	var text bytes.Buffer
	join.WriteText(&text, r)
	if !strings.Contains(text.String(), "the model called it in #2 (call_2), in its exec script") {
		t.Errorf("the text does not say the call was in the exec script:\n%s", text.String())
	}
}
