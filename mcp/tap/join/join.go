// Package join joins a model tap's capture (what a client sent its model
// API) with MCP taps' captures of the same run (what the client and its
// servers said), tool by tool: what the server sent, what the client
// presented to its model and how that differs (renamed, cut, rewritten,
// deferred, dropped), whether the client's view predicted it, what the
// model called, what the client called on the server, what came back and
// what the model was given of it, with our token counts beside the API's
// (docs/model-tap.md, "Joined with the MCP tap").
//
// The two captures are joined by time (the MCP calls inside the model
// capture's span) and by name: the view of the client predicts the name
// the model sees for each of the server's tools (clients.Present).
package join

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// Model is a model tap's capture, read (tap.ReadModel).
type Model struct {
	// ID names the capture (its file's base name without .jsonl).
	ID       string
	Requests []tap.ModelEntry
}

// Server is one MCP tap's capture of the same run.
type Server struct {
	// ID names the capture; Name is the server's name in the client's
	// configuration (the tap's --name), which the client's prefixes use.
	ID      string
	Name    string
	Session *reading.Session
}

// Report is the joined view.
type Report struct {
	Model string `json:"model"`
	// Client is the client whose view predicted the names, and From says
	// how it was chosen (a clientInfo, or the caller's choice).
	Client   clients.ID   `json:"client"`
	From     string       `json:"clientFrom"`
	Servers  []ServerJoin `json:"servers"`
	Requests []RequestRow `json:"requests"`
	// Delta compares a request that defines none of the servers' tools
	// with the next one that does, when the capture has such a pair.
	Delta *Delta `json:"withAndWithoutTools,omitempty"`
	// Notes say what the join could not do (captures that do not overlap
	// in time, model tools of no server).
	Notes []string `json:"notes,omitempty"`
}

// ServerJoin is the join for one server.
type ServerJoin struct {
	ID     string `json:"capture"`
	Name   string `json:"name"`
	Client string `json:"clientInfo,omitempty"`
	// Overlap says the MCP capture's span meets the model capture's.
	Overlap bool       `json:"overlap"`
	Tools   []ToolJoin `json:"tools"`
	// Notes are the view's facts about the whole list, with their rules.
	Notes []clients.Effect `json:"viewNotes,omitempty"`
	// Outside counts the server's tools/call requests outside the model
	// capture's span (not joined).
	Outside int `json:"callsOutside,omitempty"`
}

// ServerTool is a tool as the server listed it.
type ServerTool struct {
	Name             string `json:"name"`
	DescriptionChars int    `json:"descriptionChars"`
	SchemaBytes      int    `json:"schemaBytes"`
}

// Presented is a tool as the client sent it to its model.
type Presented struct {
	Name             string `json:"name"`
	DescriptionChars int    `json:"descriptionChars"`
	SchemaBytes      int    `json:"schemaBytes"`
	Deferred         bool   `json:"deferred,omitempty"`
	// Requests are the model requests (their n) that defined it.
	Requests []int64 `json:"requests"`
	// Tokens is our count of the definition as sent (name, description,
	// schema), the view's Predicted its count of the one it predicts.
	Tokens    int `json:"tokens"`
	Predicted int `json:"predictedTokens"`
}

// Change is one way the client changed a tool, observed on the wire.
type Change struct {
	// Kind is renamed, description cut, description rewritten, schema
	// rewritten, deferred, dropped or not sent.
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Rules are the view's rules that say so ("claude/prefix").
	Rules []string `json:"rules,omitempty"`
	// Predicted: "yes" when the view predicted exactly what was sent,
	// "no" when it predicted something else (Wrong says what), "" when
	// it makes no prediction of this.
	Predicted string `json:"predicted,omitempty"`
	Wrong     string `json:"viewSaid,omitempty"`
}

// ModelCall is one call of the tool by the model.
type ModelCall struct {
	Request int64  `json:"request"`
	ID      string `json:"id,omitempty"`
	// Via is the tool whose script made the call (Codex's exec).
	Via string `json:"via,omitempty"`
}

// ServerCall is one tools/call of the tool the client made on the server.
type ServerCall struct {
	Time time.Time `json:"time"`
	// ResultBytes is the size of the result (or error) the server sent;
	// TextChars the characters of its text content.
	ResultBytes int    `json:"resultBytes"`
	TextChars   int    `json:"textChars"`
	IsError     bool   `json:"isError,omitempty"`
	Error       string `json:"error,omitempty"`
	// NoAnswer says the server never answered it in the capture.
	NoAnswer bool `json:"noAnswer,omitempty"`
}

// Given is what the model was given of a result.
type Given struct {
	Request int64  `json:"request"`
	ID      string `json:"id,omitempty"`
	Bytes   int    `json:"bytes"`
	// How is whole, cut or saved to a file; Rules name the view's rules
	// on results.
	How   string   `json:"how"`
	Rules []string `json:"rules,omitempty"`
}

// ToolJoin is one tool, joined.
type ToolJoin struct {
	Server      ServerTool   `json:"server"`
	Predicted   string       `json:"predictedName"`
	Presented   *Presented   `json:"presented,omitempty"`
	Changes     []Change     `json:"changes,omitempty"`
	ModelCalls  []ModelCall  `json:"modelCalls,omitempty"`
	ServerCalls []ServerCall `json:"serverCalls,omitempty"`
	Given       []Given      `json:"given,omitempty"`
}

// RequestRow is one model request with the API's count beside ours.
type RequestRow struct {
	N    int64     `json:"n"`
	Time time.Time `json:"time"`
	// Tools counts the definitions it sent, Joined those of the joined
	// servers' tools; Tokens is our count of all its definitions, as
	// sent.
	Tools  int `json:"tools"`
	Joined int `json:"joinedTools"`
	Tokens int `json:"toolTokens"`
	// Usage is the API's count as recorded; Input its count of the whole
	// request's input (cached tokens included), 0 without usage.
	Usage *modelapi.Usage `json:"usage,omitempty"`
	Input int64           `json:"input,omitempty"`
}

// Delta is the API's input count of a request with the servers' tools
// less that of one without them.
type Delta struct {
	Without int64 `json:"without"`
	With    int64 `json:"with"`
	// Input is With's input tokens less Without's; Ours is our count of
	// the definitions With added.
	Input int64 `json:"input"`
	Ours  int   `json:"ours"`
}

// slack widens the model capture's span: a client calls a server right
// after an answer ends, and clocks are read by two processes.
const slack = 2 * time.Second

// Join joins the model capture with the servers' captures. client is the
// view to predict with; "" picks it from the first server's clientInfo
// (the model API's shape when no clientInfo names one).
func Join(m Model, servers []Server, client clients.ID) Report {
	r := Report{Model: m.ID, Client: client, From: "given"}
	if client == "" {
		r.Client, r.From = pickClient(m, servers)
	}
	start, end := span(m.Requests)
	shownOf := map[string]bool{}
	for _, s := range servers {
		sj := joinServer(&r, m, s, start, end)
		for _, t := range sj.Tools {
			if t.Presented != nil {
				shownOf[t.Presented.Name] = true
			}
		}
		r.Servers = append(r.Servers, sj)
	}
	r.requests(m, shownOf)
	return r
}

// pickClient is the client a handshake named, else the one the model
// API's shape stands for.
func pickClient(m Model, servers []Server) (clients.ID, string) {
	for _, s := range servers {
		for _, c := range s.Session.Connections {
			if c.Handshake != nil && c.Handshake.ClientInfo.Name != "" {
				return clients.For(c.Handshake.ClientInfo), "clientInfo " + c.Client()
			}
		}
	}
	for _, q := range m.Requests {
		switch q.API {
		case modelapi.AnthropicMessages:
			return clients.Claude, "the model API (Anthropic Messages)"
		case modelapi.Gemini:
			return clients.Gemini, "the model API (Gemini)"
		}
	}
	return clients.Generic, "no clientInfo"
}

// span is from the first request's start to the last answer's end.
func span(reqs []tap.ModelEntry) (time.Time, time.Time) {
	var start, end time.Time
	for _, q := range reqs {
		e := q.Time.Add(time.Duration(q.DurationMs * float64(time.Millisecond)))
		if start.IsZero() || q.Time.Before(start) {
			start = q.Time
		}
		if e.After(end) {
			end = e
		}
	}
	return start.Add(-slack), end.Add(slack)
}

// sessionSpan is from the session's first frame to its last.
func sessionSpan(s *reading.Session) (time.Time, time.Time) {
	var start, end time.Time
	for _, ev := range s.Events {
		fe, ok := ev.(mcp.FrameEvent)
		if !ok || fe.Frame.Time.IsZero() {
			continue
		}
		if start.IsZero() || fe.Frame.Time.Before(start) {
			start = fe.Frame.Time
		}
		if fe.Frame.Time.After(end) {
			end = fe.Frame.Time
		}
	}
	return start, end
}

// serverTools is the server's last complete tools/list of the last
// connection that listed them before the model capture ended.
func serverTools(s *reading.Session, end time.Time) []mcp.Tool {
	var items []json.RawMessage
	for _, c := range s.Connections {
		l, ok := c.Lists[mcp.MethodToolsList]
		if !ok {
			continue
		}
		if len(c.Exchanges) > 0 && c.Exchanges[0].First().Time.After(end) && items != nil {
			break
		}
		items = l
	}
	return mcp.ParseTools(items)
}

func joinServer(r *Report, m Model, s Server, start, end time.Time) ServerJoin {
	sj := ServerJoin{ID: s.ID, Name: s.Name}
	for _, c := range s.Session.Connections {
		if c.Handshake != nil && sj.Client == "" {
			sj.Client = c.Client()
		}
	}
	ss, se := sessionSpan(s.Session)
	sj.Overlap = !ss.IsZero() && !ss.After(end) && !se.Before(start)
	if !sj.Overlap {
		r.Notes = append(r.Notes, fmt.Sprintf("the MCP capture %s (%s) does not overlap the model capture in time: not the same run, or clocks apart", s.ID, s.Name))
	}
	tools := serverTools(s.Session, end)
	view := clients.Present(r.Client, clients.Input{Server: s.Name, Tools: tools})
	sj.Notes = view.Notes
	defs := definitions(m.Requests)
	calls := serverCalls(s.Session, start, end, &sj.Outside)
	predicted := map[string]bool{}
	for _, e := range view.Tools {
		predicted[e.Shown] = true
	}
	claimed := map[string]bool{}
	for i, e := range view.Tools {
		t := &tools[i]
		tj := ToolJoin{
			Server:    ServerTool{Name: t.Name, DescriptionChars: utf8.RuneCountInString(t.Description), SchemaBytes: len(tokens.ClientJSON(t.InputSchema))},
			Predicted: e.Shown,
		}
		d, ok := defs[e.Shown]
		if !ok {
			// Named otherwise than the view predicts: the definition of no
			// predicted name that carries the server's description.
			d, ok = unpredicted(defs, predicted, claimed, t)
		}
		if ok {
			claimed[d.tool.Name] = true
			tj.Presented = presented(d, e.Tokens)
		}
		tj.Changes = changes(t, e, d, ok, view)
		shown := e.Shown
		if ok {
			shown = d.tool.Name
		}
		tj.ModelCalls = modelCalls(m.Requests, shown)
		tj.ServerCalls = calls[t.Name]
		tj.Given = given(m.Requests, shown, tj.ModelCalls, tj.ServerCalls, view)
		sj.Tools = append(sj.Tools, tj)
	}
	return sj
}

// unpredicted finds the definition of a tool the client named otherwise
// than the view predicts: one of a name no entry predicts, not claimed
// yet, whose description holds the server's (or its first 64
// characters, for one cut).
func unpredicted(defs map[string]*def, predicted, claimed map[string]bool, t *mcp.Tool) (*def, bool) {
	head := t.Description
	if r := []rune(head); len(r) > 64 {
		head = string(r[:64])
	}
	var found *def
	for name, d := range defs {
		if predicted[name] || claimed[name] || head == "" || !strings.Contains(d.tool.Description, head) {
			continue
		}
		if found == nil || d.tool.Name < found.tool.Name { // the same pick each run
			found = d
		}
	}
	return found, found != nil
}

// def is a tool's definition as first sent, and every request that sent
// it.
type def struct {
	tool     modelapi.Tool
	requests []int64
}

// definitions are the tools the client defined, by the name the model
// sees.
func definitions(reqs []tap.ModelEntry) map[string]*def {
	out := map[string]*def{}
	for _, q := range reqs {
		for _, t := range q.Tools {
			d, ok := out[t.Name]
			if !ok {
				d = &def{tool: t}
				out[t.Name] = d
			}
			if n := len(d.requests); n == 0 || d.requests[n-1] != q.N {
				d.requests = append(d.requests, q.N)
			}
		}
	}
	return out
}

// definitionTokens is our count of a definition as the client sent it.
func definitionTokens(t modelapi.Tool) int {
	var b strings.Builder
	b.WriteString(`{"name":` + string(tokens.QuoteString(t.Name)))
	if t.Description != "" {
		b.WriteString(`,"description":` + string(tokens.QuoteString(t.Description)))
	}
	if len(t.Schema) > 0 {
		b.WriteString(`,"input_schema":` + string(t.Schema))
	}
	b.WriteString("}")
	return tokens.Count(b.String())
}

func presented(d *def, predicted int) *Presented {
	return &Presented{
		Name:             d.tool.Name,
		DescriptionChars: utf8.RuneCountInString(d.tool.Description),
		SchemaBytes:      len(d.tool.Schema),
		Deferred:         d.tool.Deferred,
		Requests:         d.requests,
		Tokens:           definitionTokens(d.tool),
		Predicted:        predicted,
	}
}

// rulesOf are the view's rules for a tool whose ID ends in one of the
// suffixes ("/prefix"), in its effects, hints and the list's notes.
func rulesOf(e clients.Entry, v clients.View, suffixes ...string) []string {
	var out []string
	add := func(rule string) {
		for _, s := range suffixes {
			if strings.HasSuffix(rule, s) && !contains(out, rule) {
				out = append(out, rule)
			}
		}
	}
	for _, ef := range e.Effects {
		add(ef.Rule)
	}
	for _, ef := range e.Hints {
		add(ef.Rule)
	}
	for _, ef := range v.Notes {
		add(ef.Rule)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// predictedByView reports whether the view says what this client sends
// of a tool's description and schema (the generic view and those of
// clients not observed do not).
func predictedByView(e clients.Entry) bool { return e.Description != "" || e.Schema != nil }

// changes compares what the client sent with what the server listed,
// names each change and the rule behind it, and says whether the view
// predicted it.
func changes(t *mcp.Tool, e clients.Entry, d *def, sent bool, v clients.View) []Change {
	var out []Change
	if !sent {
		var c Change
		switch {
		case e.Dropped != "" && !e.Refused:
			c = Change{Kind: "dropped", Text: e.Dropped, Rules: ruleIDs(e.Effects, e.Dropped), Predicted: "yes"}
		case len(rulesOf(e, v, "/tool-search", "/deferred")) > 0:
			c = Change{Kind: "not sent", Text: "no request defined it: the client sends its tools deferred, and the model did not load this one", Rules: rulesOf(e, v, "/tool-search", "/deferred")}
		default:
			c = Change{Kind: "not sent", Text: "no request defined " + e.Shown, Predicted: "no", Wrong: "the view predicts it is sent as " + e.Shown}
		}
		return append(out, c)
	}
	if e.Dropped != "" && !e.Refused {
		out = append(out, Change{Kind: "not dropped", Text: "sent as " + d.tool.Name, Predicted: "no", Wrong: "dropped: " + e.Dropped})
	}
	if d.tool.Name != t.Name {
		out = append(out, Change{Kind: "renamed", Text: t.Name + " → " + d.tool.Name, Rules: rulesOf(e, v, "/prefix", "/name-length", "/name-characters"), Predicted: "yes"})
	}
	if got, want := d.tool.Description, t.Description; got != want {
		c := Change{Rules: rulesOf(e, v, "/description-cut", "/schema-combinators", "/code-mode", "/empty-description")}
		n, m := utf8.RuneCountInString(want), utf8.RuneCountInString(got)
		switch cut := strings.TrimSuffix(got, clients.ClaudeTruncated); {
		case m < n && strings.HasPrefix(want, cut):
			c.Kind, c.Text = "description cut", fmt.Sprintf("from %d to %d characters", n, m)
		case strings.Contains(got, want):
			c.Kind, c.Text = "description rewritten", fmt.Sprintf("text added, %d → %d characters", n, m)
		default:
			c.Kind, c.Text = "description rewritten", fmt.Sprintf("%d → %d characters", n, m)
		}
		out = append(out, c)
	}
	if !sameJSON(d.tool.Schema, tokens.ClientJSON(t.InputSchema)) {
		out = append(out, Change{Kind: "schema rewritten", Text: fmt.Sprintf("%d → %d bytes", len(tokens.ClientJSON(t.InputSchema)), len(d.tool.Schema)),
			Rules: rulesOf(e, v, "/schema-combinators", "/nullable", "/wait-for-previous", "/schema", "/code-mode")})
	}
	if d.tool.Deferred {
		out = append(out, Change{Kind: "deferred", Text: "defer_loading set: its definition reaches the model once the model searches for it", Rules: rulesOf(e, v, "/tool-search", "/deferred")})
	}
	// Whether the view predicted each: the name always; the description
	// and the schema where the view says what the client sends.
	for i := range out {
		c := &out[i]
		switch c.Kind {
		case "renamed":
			if d.tool.Name != e.Shown {
				c.Predicted, c.Wrong = "no", "named "+e.Shown
			}
		case "description cut", "description rewritten":
			c.Predicted = verdict(predictedByView(e), d.tool.Description == e.Description)
			if c.Predicted == "no" {
				c.Wrong = fmt.Sprintf("a description of %d characters", utf8.RuneCountInString(e.Description))
			}
		case "schema rewritten":
			c.Predicted = verdict(predictedByView(e), compact(d.tool.Schema) == string(e.Schema))
			if c.Predicted == "no" {
				c.Wrong = "the schema " + string(e.Schema)
			}
		case "deferred":
			c.Predicted = verdict(true, len(c.Rules) > 0)
			if c.Predicted == "no" {
				c.Wrong = "sent whole"
			}
		}
	}
	// A change the view predicts that did not happen is wrong too.
	if predictedByView(e) {
		if d.tool.Description == t.Description && e.Description != t.Description {
			out = append(out, Change{Kind: "description as served", Text: "sent unchanged", Predicted: "no", Wrong: fmt.Sprintf("a description of %d characters", utf8.RuneCountInString(e.Description))})
		}
		if sameJSON(d.tool.Schema, tokens.ClientJSON(t.InputSchema)) && e.Schema != nil && compact(d.tool.Schema) != string(e.Schema) {
			out = append(out, Change{Kind: "schema as served", Text: "sent unchanged", Predicted: "no", Wrong: "the schema " + string(e.Schema)})
		}
	}
	return out
}

func verdict(predicts, right bool) string {
	switch {
	case !predicts:
		return ""
	case right:
		return "yes"
	}
	return "no"
}

// ruleIDs are the rules of the effects whose text is why.
func ruleIDs(es []clients.Effect, why string) []string {
	var out []string
	for _, e := range es {
		if e.Text == why {
			out = append(out, e.Rule)
		}
	}
	return out
}

// sameJSON says whether two JSON texts hold the same value (key order
// and spacing aside).
func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// modelCalls are the model's calls of the tool, by the name it sees.
func modelCalls(reqs []tap.ModelEntry, shown string) []ModelCall {
	var out []ModelCall
	for _, q := range reqs {
		for _, c := range q.Calls {
			if c.Name == shown {
				out = append(out, ModelCall{Request: q.N, ID: c.ID, Via: c.Via})
			}
		}
	}
	return out
}

// serverCalls are the client's tools/call requests inside the span, by
// tool name; outside counts the others.
func serverCalls(s *reading.Session, start, end time.Time, outside *int) map[string][]ServerCall {
	out := map[string][]ServerCall{}
	for _, x := range s.Exchanges() {
		if x.Request == nil || x.Request.Method != mcp.MethodToolsCall || (x.Role != reading.Request && x.Role != reading.Retry) {
			continue
		}
		if x.Request.Time.Before(start) || x.Request.Time.After(end) {
			*outside++
			continue
		}
		name, _ := jsonview.Member(x.Params(), "name")
		n, _ := jsonview.String(name)
		c := ServerCall{Time: x.Request.Time}
		switch {
		case x.Response == nil:
			c.NoAnswer = true
		case x.Response.Kind == mcp.KindErrorResponse:
			c.Error = x.Response.ErrorMessage
			c.ResultBytes = len(x.Answer())
		default:
			res, _ := jsonview.Member(x.Response.Raw, "result")
			c.ResultBytes, c.IsError, c.TextChars = len(res), mcp.IsToolError(res), textChars(res)
		}
		out[n] = append(out[n], c)
	}
	return out
}

// textChars counts the characters of a result's text content.
func textChars(res json.RawMessage) int {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(res, &r)
	n := 0
	for _, c := range r.Content {
		if c.Type == "text" {
			n += utf8.RuneCountInString(c.Text)
		}
	}
	return n
}

// given is what the model was given of the tool's results: the results
// that answer the model's calls (by id), or those that name the tool
// (Gemini's functionResponse names the function it answers).
func given(reqs []tap.ModelEntry, shown string, calls []ModelCall, server []ServerCall, v clients.View) []Given {
	ids := map[string]bool{}
	for _, c := range calls {
		if c.ID != "" {
			ids[c.ID] = true
		}
	}
	var out []Given
	for _, q := range reqs {
		for _, res := range q.Results {
			if res.ID != "" && ids[res.ID] || res.Name == shown {
				out = append(out, Given{Request: q.N, ID: res.ID, Bytes: res.Size, How: how(res, server), Rules: rulesOf(clients.Entry{}, v, "/result-limits")})
			}
		}
	}
	return out
}

// how says what became of a result: saved to a file (the client's note
// says so: Claude Code's and opencode's "saved to", Copilot CLI's
// "Saved to:", Gemini CLI's "For full output see:"), cut (smaller than
// the server's text), or whole.
func how(res modelapi.Result, server []ServerCall) string {
	content := strings.ToLower(string(res.Content))
	switch {
	case strings.Contains(content, "saved to"), strings.Contains(content, "for full output see"):
		return "saved to a file"
	case strings.Contains(content, "truncated"):
		return "cut"
	}
	for _, c := range server {
		if c.TextChars > 0 && res.Size < c.TextChars {
			return "cut"
		}
	}
	return "whole"
}

// requests are the model requests with the API's count beside ours, and
// the difference between one without the servers' tools and the next
// with them.
func (r *Report) requests(m Model, joined map[string]bool) {
	for _, q := range m.Requests {
		if q.API == "" {
			continue
		}
		row := RequestRow{N: q.N, Time: q.Time, Tools: len(q.Tools), Usage: q.Usage, Input: wholeInput(q.API, q.Usage)}
		for _, t := range q.Tools {
			row.Tokens += definitionTokens(t)
			if joined[t.Name] {
				row.Joined++
			}
		}
		r.Requests = append(r.Requests, row)
	}
	for i := 1; i < len(r.Requests); i++ {
		a, b := r.Requests[i-1], r.Requests[i]
		if a.Joined != 0 || b.Joined == 0 || a.Usage == nil || b.Usage == nil {
			continue
		}
		ours := 0
		for _, q := range m.Requests {
			if q.N != b.N {
				continue
			}
			for _, t := range q.Tools {
				if joined[t.Name] {
					ours += definitionTokens(t)
				}
			}
		}
		r.Delta = &Delta{Without: a.N, With: b.N, Input: b.Input - a.Input, Ours: ours}
		break
	}
}

// wholeInput is the API's count of a request's whole input: Anthropic
// counts cache reads and writes apart from input_tokens, the OpenAI and
// Gemini APIs within it.
func wholeInput(api modelapi.API, u *modelapi.Usage) int64 {
	switch {
	case u == nil:
		return 0
	case api == modelapi.AnthropicMessages:
		return u.Input + u.CacheRead + u.CacheCreation
	}
	return u.Input
}
