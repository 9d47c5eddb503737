package demo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/mcp/demo"
)

// legacyVersion is the newest handshake-era version; pinning it makes the
// SDK client skip its server/discover probe and send initialize.
const legacyVersion = "2025-11-25"

// recorder collects what the server sends the client outside responses.
type recorder struct {
	mu       sync.Mutex
	progress []*sdkmcp.ProgressNotificationParams
	logs     []*sdkmcp.LoggingMessageParams
	elicits  []*sdkmcp.ElicitParams
	samples  []*sdkmcp.CreateMessageParams
	updated  chan string
}

func newRecorder() *recorder { return &recorder{updated: make(chan string, 16)} }

func (r *recorder) clientOptions() *sdkmcp.ClientOptions {
	return &sdkmcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdkmcp.ProgressNotificationClientRequest) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.progress = append(r.progress, req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *sdkmcp.LoggingMessageRequest) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.logs = append(r.logs, req.Params)
		},
		ElicitationHandler: func(_ context.Context, req *sdkmcp.ElicitRequest) (*sdkmcp.ElicitResult, error) {
			r.mu.Lock()
			r.elicits = append(r.elicits, req.Params)
			r.mu.Unlock()
			return &sdkmcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "colour": "blue"}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *sdkmcp.CreateMessageRequest) (*sdkmcp.CreateMessageResult, error) {
			r.mu.Lock()
			r.samples = append(r.samples, req.Params)
			r.mu.Unlock()
			prompt := req.Params.Messages[0].Content.(*sdkmcp.TextContent).Text
			return &sdkmcp.CreateMessageResult{
				Role:    "assistant",
				Model:   "fake-model",
				Content: &sdkmcp.TextContent{Text: "pong: " + prompt},
			}, nil
		},
		ResourceUpdatedHandler: func(_ context.Context, req *sdkmcp.ResourceUpdatedNotificationRequest) {
			select {
			case r.updated <- req.Params.URI:
			default:
			}
		},
	}
}

// waitFor polls cond until it holds or a generous deadline passes: the SDK
// client dispatches notifications concurrently with responses.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// connect starts s and an SDK client over in-memory transports. version ""
// lets the client pick (it probes server/discover first, i.e. modern).
func connect(t *testing.T, s *sdkmcp.Server, rec *recorder, version string) *sdkmcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdkmcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	client := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "demo-test", Version: "0"}, rec.clientOptions())
	client.AddRoots(&sdkmcp.Root{URI: "file:///work/project", Name: "project"})
	cs, err := client.Connect(ctx, ct, &sdkmcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

func connectLegacy(t *testing.T) (*sdkmcp.ClientSession, *recorder) {
	t.Helper()
	rec := newRecorder()
	return connect(t, demo.NewServer(), rec, legacyVersion), rec
}

func callTool(t *testing.T, cs *sdkmcp.ClientSession, name string, args any) *sdkmcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func text(t *testing.T, res *sdkmcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdkmcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func asJSON(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("bad test schema: %v", err)
	}
	return v
}

func TestLegacyHandshake(t *testing.T) {
	cs, _ := connectLegacy(t)
	init := cs.InitializeResult()
	if init.ProtocolVersion != legacyVersion {
		t.Errorf("protocolVersion = %q, want %q", init.ProtocolVersion, legacyVersion)
	}
	si := init.ServerInfo
	if si.Name != "mcpscope-demo" || si.Version != "1.0.0" || si.Title == "" || si.Description == "" || si.WebsiteURL == "" {
		t.Errorf("serverInfo = %+v", si)
	}
	if init.Instructions == "" {
		t.Error("no instructions")
	}
	c := init.Capabilities
	if c.Tools == nil || !c.Tools.ListChanged ||
		c.Resources == nil || !c.Resources.Subscribe || !c.Resources.ListChanged ||
		c.Prompts == nil || !c.Prompts.ListChanged ||
		c.Logging == nil || c.Completions == nil {
		got, _ := json.Marshal(c)
		t.Errorf("capabilities = %s", got)
	}
}

func TestToolsListedWithExactSchemas(t *testing.T) {
	cs, _ := connectLegacy(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		want, ok := demo.InputSchemas[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		if !reflect.DeepEqual(tool.InputSchema, asJSON(t, want)) {
			got, _ := json.Marshal(tool.InputSchema)
			t.Errorf("%s inputSchema =\n%s\nwant\n%s", tool.Name, got, want)
		}
		if tool.Description == "" || tool.Title == "" {
			t.Errorf("%s has no title or description", tool.Name)
		}
		if tool.Name == "add" && !reflect.DeepEqual(tool.OutputSchema, asJSON(t, demo.AddOutputSchema)) {
			t.Errorf("add outputSchema = %v", tool.OutputSchema)
		}
	}
	if len(names) != len(demo.InputSchemas) {
		t.Errorf("tools = %v, want %d tools", names, len(demo.InputSchemas))
	}
	// Spot-check the constructs the form engine depends on, in case both the
	// schema and this test drift together.
	bt := asJSON(t, demo.InputSchemas["book_trip"]).(map[string]any)
	props := bt["properties"].(map[string]any)
	if _, ok := bt["$defs"].(map[string]any)["address"]; !ok {
		t.Error("book_trip: no $defs.address")
	}
	if ref := props["traveller"].(map[string]any)["properties"].(map[string]any)["address"].(map[string]any)["$ref"]; ref != "#/$defs/address" {
		t.Errorf("traveller.address $ref = %v", ref)
	}
	if len(props["payment"].(map[string]any)["oneOf"].([]any)) != 2 {
		t.Error("payment is not a two-way oneOf")
	}
	if typ := props["notes"].(map[string]any)["type"]; !reflect.DeepEqual(typ, []any{"string", "null"}) {
		t.Errorf("notes type = %v", typ)
	}
	if props["seat"].(map[string]any)["default"] != "aisle" {
		t.Error("seat has no default aisle")
	}
}

func TestAddStructuredContent(t *testing.T) {
	cs, _ := connectLegacy(t)
	res := callTool(t, cs, "add", map[string]any{"a": 2, "b": 3.5})
	if res.IsError {
		t.Fatalf("add failed: %s", text(t, res))
	}
	sc, ok := res.StructuredContent.(map[string]any)
	if !ok || sc["sum"] != 5.5 {
		t.Errorf("structuredContent = %#v", res.StructuredContent)
	}
	var fallback map[string]any
	if err := json.Unmarshal([]byte(text(t, res)), &fallback); err != nil || fallback["sum"] != 5.5 {
		t.Errorf("text fallback = %q (%v)", text(t, res), err)
	}
	// The SDK validates arguments against the raw schema.
	if res := callTool(t, cs, "add", map[string]any{"a": 1}); !res.IsError {
		t.Errorf("add without b succeeded: %s", text(t, res))
	}
}

func TestEchoFailImage(t *testing.T) {
	cs, _ := connectLegacy(t)
	if got := text(t, callTool(t, cs, "echo", map[string]any{"message": "hi there"})); got != "hi there" {
		t.Errorf("echo = %q", got)
	}

	res := callTool(t, cs, "fail", map[string]any{})
	if !res.IsError || text(t, res) != "this tool always fails" {
		t.Errorf("fail = isError %v, %q", res.IsError, text(t, res))
	}

	res = callTool(t, cs, "image", map[string]any{})
	var img *sdkmcp.ImageContent
	var link *sdkmcp.ResourceLink
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdkmcp.ImageContent:
			img = c
		case *sdkmcp.ResourceLink:
			link = c
		}
	}
	if img == nil || img.MIMEType != "image/png" {
		t.Fatalf("no PNG image block in %v", res.Content)
	}
	if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
		t.Errorf("image is not a valid PNG: %v", err)
	}
	if link == nil || link.URI != "demo://logo.png" {
		t.Errorf("resource_link = %+v", link)
	}
}

func TestBookTrip(t *testing.T) {
	cs, _ := connectLegacy(t)
	args := map[string]any{
		"traveller": map[string]any{
			"name": "Ada Lovelace", "email": "ada@example.com", "age": 36,
			"address": map[string]any{"city": "London", "country": "GB"},
		},
		"legs": []any{
			map[string]any{"from": "LHR", "to": "CDG", "date": "2026-09-01"},
			map[string]any{"from": "CDG", "to": "LHR", "date": "2026-09-08", "class": "first"},
		},
		"payment": map[string]any{"number": "4111111111111111"},
		"notes":   nil,
	}
	res := callTool(t, cs, "book_trip", args)
	got := text(t, res)
	if res.IsError {
		t.Fatalf("book_trip failed: %s", got)
	}
	for _, want := range []string{"Ada Lovelace", "London (GB)", "LHR -> CDG on 2026-09-01, economy", "first", "Seat preference: aisle", "ending 1111"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}

	args["payment"] = map[string]any{"number": "1234"} // fails the pattern, so matches no oneOf branch
	if res := callTool(t, cs, "book_trip", args); !res.IsError {
		t.Errorf("bad card number accepted: %s", text(t, res))
	}
}

func TestSlowCountProgress(t *testing.T) {
	cs, rec := connectLegacy(t)
	params := &sdkmcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"steps": 3, "delay_ms": 1}}
	params.SetProgressToken("count-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "counted 3" {
		t.Errorf("result = %q", got)
	}
	waitFor(t, "3 progress notifications", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.progress) == 3
	})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var steps []float64
	for _, p := range rec.progress {
		if p.ProgressToken != "count-1" || p.Total != 3 {
			t.Errorf("progress = %+v", p)
		}
		steps = append(steps, p.Progress)
	}
	slices.Sort(steps)
	if !slices.Equal(steps, []float64{1, 2, 3}) {
		t.Errorf("progress steps = %v", steps)
	}
}

func TestSlowCountDefaultsAndCancel(t *testing.T) {
	cs, rec := connectLegacy(t)
	ctx, cancel := context.WithCancel(context.Background())
	params := &sdkmcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"steps": 1000, "delay_ms": 20}}
	params.SetProgressToken(7)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	waitFor(t, "first progress", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.progress) > 0
	})
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("cancelled call returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	// The server must stop counting: progress stops growing.
	time.Sleep(100 * time.Millisecond)
	rec.mu.Lock()
	n := len(rec.progress)
	rec.mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.progress) != n {
		t.Errorf("progress continued after cancel: %d -> %d", n, len(rec.progress))
	}
}

func TestLogBurst(t *testing.T) {
	cs, rec := connectLegacy(t)
	// Without logging/setLevel the SDK sends nothing at all.
	callTool(t, cs, "log_burst", map[string]any{"count": 2})
	if err := cs.SetLoggingLevel(context.Background(), &sdkmcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	callTool(t, cs, "log_burst", map[string]any{"count": 2, "level": "debug"}) // below the threshold
	res := callTool(t, cs, "log_burst", map[string]any{"count": 3, "level": "warning"})
	if res.IsError {
		t.Fatal(text(t, res))
	}
	waitFor(t, "3 log messages", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.logs) >= 3
	})
	time.Sleep(20 * time.Millisecond)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.logs) != 3 {
		t.Fatalf("got %d log messages, want 3", len(rec.logs))
	}
	for _, l := range rec.logs {
		if l.Level != "warning" || l.Logger != "mcpscope-demo" {
			t.Errorf("log = %+v", l)
		}
	}
}

func TestAskUserElicitation(t *testing.T) {
	cs, rec := connectLegacy(t)
	res := callTool(t, cs, "ask_user", map[string]any{"message": "Who are you?"})
	if res.IsError {
		t.Fatal(text(t, res))
	}
	rec.mu.Lock()
	if len(rec.elicits) != 1 || rec.elicits[0].Message != "Who are you?" || rec.elicits[0].Mode != "form" {
		t.Errorf("elicitation requests = %+v", rec.elicits)
	}
	rec.mu.Unlock()
	sc := res.StructuredContent.(map[string]any)
	content, _ := sc["content"].(map[string]any)
	// subscribe was not answered: the SDK fills the form's default in.
	if sc["action"] != "accept" || content["name"] != "Ada" || content["colour"] != "blue" || content["subscribe"] != true {
		t.Errorf("answer = %v", sc)
	}
	if !strings.Contains(text(t, res), `"action":"accept"`) {
		t.Errorf("text = %s", text(t, res))
	}
}

func TestAskModelSampling(t *testing.T) {
	cs, rec := connectLegacy(t)
	res := callTool(t, cs, "ask_model", map[string]any{"prompt": "ping"})
	if res.IsError || text(t, res) != "pong: ping" {
		t.Errorf("ask_model = isError %v, %q", res.IsError, text(t, res))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.samples) != 1 || rec.samples[0].MaxTokens != 200 {
		t.Errorf("sampling requests = %+v", rec.samples)
	}
}

func TestListRoots(t *testing.T) {
	cs, _ := connectLegacy(t)
	res := callTool(t, cs, "list_roots", map[string]any{})
	if got := text(t, res); res.IsError || !strings.Contains(got, "file:///work/project (project)") {
		t.Errorf("list_roots = isError %v, %q", res.IsError, got)
	}
}

func TestServerInputWithoutCapability(t *testing.T) {
	st, ct := sdkmcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := demo.NewServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "bare", Version: "0"},
		&sdkmcp.ClientOptions{Capabilities: &sdkmcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, ct, &sdkmcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); _ = ss.Wait() }()
	for _, tool := range []string{"ask_user", "ask_model", "list_roots"} {
		res := callTool(t, cs, tool, map[string]any{"prompt": "x"})
		if !res.IsError || !strings.Contains(text(t, res), "capability") {
			t.Errorf("%s without capability = isError %v, %q", tool, res.IsError, text(t, res))
		}
	}
}

func TestResources(t *testing.T) {
	cs, _ := connectLegacy(t)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if want := []string{"demo://clock", "demo://logo.png", "demo://readme"}; !slices.Equal(uris, want) {
		t.Errorf("resources = %v, want %v", uris, want)
	}

	rr, err := cs.ReadResource(ctx, &sdkmcp.ReadResourceParams{URI: "demo://readme"})
	if err != nil {
		t.Fatal(err)
	}
	if c := rr.Contents[0]; c.MIMEType != "text/markdown" || !strings.HasPrefix(c.Text, "# mcpscope demo server") {
		t.Errorf("readme = %+v", c)
	}

	rr, err = cs.ReadResource(ctx, &sdkmcp.ReadResourceParams{URI: "demo://logo.png"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(rr.Contents[0].Blob)); err != nil || rr.Contents[0].MIMEType != "image/png" {
		t.Errorf("logo blob: %v (%s)", err, rr.Contents[0].MIMEType)
	}

	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "demo://notes/{id}" {
		t.Errorf("templates = %+v", tl.ResourceTemplates)
	}
	rr, err = cs.ReadResource(ctx, &sdkmcp.ReadResourceParams{URI: "demo://notes/todo"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rr.Contents[0].Text, "slow_count") {
		t.Errorf("note todo = %q", rr.Contents[0].Text)
	}
	if _, err := cs.ReadResource(ctx, &sdkmcp.ReadResourceParams{URI: "demo://notes/nope"}); err == nil {
		t.Error("reading a missing note succeeded")
	}
}

func TestCompletions(t *testing.T) {
	cs, _ := connectLegacy(t)
	ctx := context.Background()
	cases := []struct {
		ref  *sdkmcp.CompleteReference
		arg  sdkmcp.CompleteParamsArgument
		want []string
	}{
		{&sdkmcp.CompleteReference{Type: "ref/resource", URI: "demo://notes/{id}"}, sdkmcp.CompleteParamsArgument{Name: "id", Value: "t"}, []string{"todo"}},
		{&sdkmcp.CompleteReference{Type: "ref/resource", URI: "demo://notes/{id}"}, sdkmcp.CompleteParamsArgument{Name: "id", Value: ""}, []string{"42", "ideas", "shopping", "todo", "welcome"}},
		{&sdkmcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, sdkmcp.CompleteParamsArgument{Name: "style", Value: "p"}, []string{"pirate"}},
		{&sdkmcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, sdkmcp.CompleteParamsArgument{Name: "style", Value: ""}, []string{"formal", "casual", "pirate"}},
		{&sdkmcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, sdkmcp.CompleteParamsArgument{Name: "name", Value: "A"}, []string{}},
	}
	for _, c := range cases {
		res, err := cs.Complete(ctx, &sdkmcp.CompleteParams{Ref: c.ref, Argument: c.arg})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Completion.Values, c.want) || res.Completion.Values == nil {
			t.Errorf("complete %+v %+v = %#v, want %v", c.ref, c.arg, res.Completion.Values, c.want)
		}
	}
}

func TestPrompts(t *testing.T) {
	cs, _ := connectLegacy(t)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 2 {
		t.Errorf("prompts = %d, want 2", len(list.Prompts))
	}
	res, err := cs.GetPrompt(ctx, &sdkmcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada", "style": "pirate"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[0].Content.(*sdkmcp.TextContent).Text; got != "Please greet Ada in a pirate style." {
		t.Errorf("greet = %q", got)
	}
	res, err = cs.GetPrompt(ctx, &sdkmcp.GetPromptParams{Name: "review_code", Arguments: map[string]string{"code": "x := 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 2 || !strings.Contains(res.Messages[0].Content.(*sdkmcp.TextContent).Text, "x := 1") {
		t.Errorf("review_code = %+v", res.Messages)
	}
	if _, err := cs.GetPrompt(ctx, &sdkmcp.GetPromptParams{Name: "greet"}); err == nil {
		t.Error("greet without name succeeded")
	}
}

func TestClockSubscription(t *testing.T) {
	rec := newRecorder()
	cs := connect(t, demo.NewServerWithClock(10*time.Millisecond), rec, legacyVersion)
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &sdkmcp.SubscribeParams{URI: "demo://clock"}); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-rec.updated:
		if uri != "demo://clock" {
			t.Errorf("updated %q", uri)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/resources/updated")
	}
	if err := cs.Unsubscribe(ctx, &sdkmcp.UnsubscribeParams{URI: "demo://clock"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &sdkmcp.SubscribeParams{URI: "demo://nope"}); err == nil {
		t.Error("subscribing to an unknown resource succeeded")
	}
}
