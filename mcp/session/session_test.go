package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer() // when re-executed as the demo server
	// The child package's spawner lives as long as the process, on purpose
	// (its thread's end would send SIGTERM to every server it started).
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/mcpscope/mcpscope/mcp/lib/child.spawn"))
}

// script is a scripted server: answer says what each request gets (a
// result's JSON, or "" for no answer), and push sends a message from the
// server. Messages reach the client in order from one goroutine.
type script struct {
	answer func(method string, params json.RawMessage) string
	mu     sync.Mutex
	sent   []string // methods of the requests received, in order
	in     chan []byte
	sink   mcp.Sink
	done   chan struct{}
	once   sync.Once
	// follow are messages pushed right after the answer to a method.
	follow map[string][]string
	// raw, when set, may answer a request with a whole message of its
	// own (a batch, say) instead of answer's result.
	raw func(id json.RawMessage, method string) string
}

func newScript(answer func(method string, params json.RawMessage) string) *script {
	return &script{answer: answer, in: make(chan []byte, 256), done: make(chan struct{})}
}

func (s *script) Name() string { return "script" }

func (s *script) Start(_ context.Context, sink mcp.Sink) (mcp.Conn, error) {
	s.sink = sink
	go func() {
		for {
			select {
			case raw := <-s.in:
				sink.Receive(raw, "", "")
			case <-s.done:
				sink.Closed(mcp.ErrClosed)
				return
			}
		}
	}()
	return s, nil
}

func (s *script) Close(context.Context) error {
	s.once.Do(func() { close(s.done) })
	return nil
}

func (s *script) push(raw string) { s.in <- []byte(raw) }

func (s *script) Write(_ context.Context, raw []byte) error {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return err
	}
	if req.ID == nil || req.Method == "" {
		return nil // a notification or our answer to a server request
	}
	s.mu.Lock()
	s.sent = append(s.sent, req.Method)
	s.mu.Unlock()
	if s.raw != nil {
		if msg := s.raw(req.ID, req.Method); msg != "" {
			s.push(msg)
			return nil
		}
	}
	if res := s.answer(req.Method, req.Params); res != "" {
		s.push(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + res + `}`)
	}
	for _, m := range s.follow[req.Method] {
		s.push(m)
	}
	return nil
}

func (s *script) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.sent {
		if m == method {
			n++
		}
	}
	return n
}

const initResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"script","version":"1"}}`

// started connects a session to a script and collects its stream.
func started(t *testing.T, srv *script) (*Session, *collector) {
	t.Helper()
	s := New(context.Background(), mcp.NewClient(srv, mcp.Options{Era: mcp.EraLegacy}), Options{RequestTimeout: 5 * time.Second})
	c := collect(s.Events())
	t.Cleanup(func() {
		_ = s.Close()
		c.wait(t)
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, c
}

// collector reads a stream to its end.
type collector struct {
	mu     sync.Mutex
	events []mcp.Event
	closed chan struct{}
}

func collect(ch <-chan mcp.Event) *collector {
	c := &collector{closed: make(chan struct{})}
	go func() {
		defer close(c.closed)
		for ev := range ch {
			c.mu.Lock()
			c.events = append(c.events, ev)
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *collector) wait(t *testing.T) {
	select {
	case <-c.closed:
	case <-time.After(5 * time.Second):
		t.Error("the stream did not close after Close")
	}
}

func (c *collector) snapshot() []mcp.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]mcp.Event(nil), c.events...)
}

// until waits for an event that matches, and returns it with its index.
func until[E mcp.Event](t *testing.T, c *collector, what string, match func(E) bool) (E, int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for i, ev := range c.snapshot() {
			if e, ok := ev.(E); ok && match(e) {
				return e, i
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	var zero E
	t.Fatalf("no %s on the stream", what)
	return zero, -1
}

func doneOf(id OpID) func(OpDoneEvent) bool {
	return func(e OpDoneEvent) bool { return e.Op.ID == id }
}

// A page whose items are not an array fails the operation with the reason:
// "load more" never shows a malformed page as an empty one.
func TestMalformedPageIsReported(t *testing.T) {
	srv := newScript(func(method string, params json.RawMessage) string {
		switch method {
		case "initialize":
			return initResult
		case "tools/list":
			if strings.Contains(string(params), `"cursor"`) {
				return `{"tools":"not a list"}`
			}
			return `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c2"}`
		}
		return `{}`
	})
	s, c := started(t, srv)
	first, err := s.ListPage("tools/list", "")
	if err != nil {
		t.Fatal(err)
	}
	done, _ := until(t, c, "the first page", doneOf(first.ID))
	page, ok := done.Result.(*Page)
	if !ok || done.Err != nil || len(page.Items) != 1 || page.Next != "c2" {
		t.Fatalf("first page: %+v (result %+v)", done, done.Result)
	}
	second, err := s.ListPage("tools/list", page.Next)
	if err != nil {
		t.Fatal(err)
	}
	done, _ = until(t, c, "the second page", doneOf(second.ID))
	if done.Err == nil || !strings.Contains(done.Err.Error(), `"tools" is not an array`) || done.Status != StatusError || done.Result != nil {
		t.Fatalf("malformed page: status %v, err %v, result %+v", done.Status, done.Err, done.Result)
	}
}

// An operation's outcome comes after its response frame on the stream,
// and its start before its request frame.
func TestOutcomeFollowsItsFrame(t *testing.T) {
	srv := newScript(func(method string, _ json.RawMessage) string {
		if method == "initialize" {
			return initResult
		}
		return `{}`
	})
	s, c := started(t, srv)
	var ids []OpID
	for i := 0; i < 50; i++ {
		o, err := s.Ping()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
	}
	for _, id := range ids {
		until(t, c, "a pong", doneOf(id))
	}
	evs := c.snapshot()
	seen := map[int64]int{} // frame Seq -> index
	for i, ev := range evs {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			seen[fe.Frame.Seq] = i
		}
	}
	started := map[OpID]int{}
	for i, ev := range evs {
		switch e := ev.(type) {
		case OpStartedEvent:
			started[e.Op.ID] = i
		case OpDoneEvent:
			if _, ok := e.Result.(*Pong); !ok {
				t.Fatalf("ping %d: result %T, err %v", e.Op.ID, e.Result, e.Err)
			}
			at, ok := seen[e.Frame.Seq]
			if !ok || at > i {
				t.Fatalf("the outcome of op %d (index %d) came before its response frame (index %d)", e.Op.ID, i, at)
			}
			if req, ok := seen[e.Frame.ReplyTo]; !ok || started[e.Op.ID] > req {
				t.Fatalf("op %d started (index %d) after its request frame (index %d)", e.Op.ID, started[e.Op.ID], req)
			}
		}
	}
}

// Five list_changed in a row make one re-list in flight and one after it;
// the last says what changed.
func TestListChangedCoalescedWithDiff(t *testing.T) {
	var mu sync.Mutex
	lists := 0
	release := make(chan struct{})
	srv := newScript(func(method string, _ json.RawMessage) string {
		switch method {
		case "initialize":
			return initResult
		case "tools/list":
			mu.Lock()
			lists++
			n := lists
			mu.Unlock()
			if n == 2 {
				<-release // hold the first re-list while more changes arrive
			}
			if n == 1 {
				return `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`
			}
			return `{"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"x":{}}}},{"name":"c","inputSchema":{"type":"object"}}]}`
		}
		return `{}`
	})
	s, c := started(t, srv)
	if _, err := s.ListPage("tools/list", ""); err != nil {
		t.Fatal(err)
	}
	until(t, c, "the first page", func(e OpDoneEvent) bool { return e.Op.Kind == KindPage })
	for i := 0; i < 5; i++ {
		srv.push(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	}
	time.Sleep(100 * time.Millisecond) // the five arrive while the re-list waits
	close(release)
	until(t, c, "two re-lists", func(e ListChangedEvent) bool {
		var n int
		for _, ev := range c.snapshot() {
			if _, ok := ev.(ListChangedEvent); ok {
				n++
			}
		}
		return n == 2
	})
	time.Sleep(100 * time.Millisecond)
	if n := srv.count("tools/list"); n != 3 {
		t.Fatalf("%d tools/list requests (1 page + re-lists for 5 list_changed), want 3", n)
	}
	ev, _ := until(t, c, "the first re-list", func(e ListChangedEvent) bool { return true })
	if got, want := ev.Diff.String(), "added c; removed a; changed b (schema changed)"; got != want || !ev.Known {
		t.Fatalf("diff = %q (known %v, err %v), want %q", got, ev.Known, ev.Err, want)
	}
}

// A list_changed for a capability the server did not declare is not
// followed: the session says it ignored it.
func TestListChangedWithoutCapabilityIsNotFollowed(t *testing.T) {
	srv := newScript(func(method string, _ json.RawMessage) string {
		if method == "initialize" {
			return initResult // tools, no prompts
		}
		return `{"prompts":[]}`
	})
	_, c := started(t, srv)
	srv.push(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)
	ev, _ := until(t, c, "the ignored change", func(ListChangeIgnoredEvent) bool { return true })
	if ev.Capability != "prompts" || ev.Method != "prompts/list" {
		t.Fatalf("ignored %+v", ev)
	}
	time.Sleep(100 * time.Millisecond)
	if n := srv.count("prompts/list"); n != 0 {
		t.Fatalf("%d prompts/list sent after an undeclared list_changed", n)
	}
}

// A list_changed that arrives with the handshake's answer, before the
// session knows the capabilities, is judged once they are known: an
// undeclared list is not listed (the broken Python server's
// resources/list_changed was followed with resources/list).
func TestEarlyListChangedWaitsForTheCapabilities(t *testing.T) {
	for i := 0; i < 20; i++ {
		srv := newScript(func(method string, _ json.RawMessage) string {
			if method == "initialize" {
				return initResult // tools, no prompts
			}
			return `{"prompts":[],"tools":[]}`
		})
		srv.follow = map[string][]string{"initialize": {
			`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`,
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		}}
		_, c := started(t, srv)
		ev, _ := until(t, c, "the ignored change", func(ListChangeIgnoredEvent) bool { return true })
		if ev.Capability != "prompts" {
			t.Fatalf("ignored %+v", ev)
		}
		until(t, c, "the declared list re-read", func(e ListChangedEvent) bool { return e.Method == "tools/list" })
		if n := srv.count("prompts/list"); n != 0 {
			t.Fatalf("run %d: %d prompts/list sent after an early, undeclared list_changed", i, n)
		}
	}
}

// A tool call that creates a task is polled with tasks/get at the
// server's pollInterval until the task ends, and then no more.
func TestTaskIsPolledUntilDone(t *testing.T) {
	var mu sync.Mutex
	var gets []time.Time
	srv := newScript(func(method string, _ json.RawMessage) string {
		switch method {
		case "initialize":
			return initResult
		case "tools/list":
			return `{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`
		case "tools/call":
			return `{"task":{"taskId":"t1","status":"working","pollInterval":300}}`
		case "tasks/get":
			mu.Lock()
			gets = append(gets, time.Now())
			n := len(gets)
			mu.Unlock()
			if n >= 2 {
				return `{"taskId":"t1","status":"completed","pollInterval":300}`
			}
			return `{"taskId":"t1","status":"working","pollInterval":300}`
		}
		return `{}`
	})
	s, c := started(t, srv)
	first, _ := s.ListPage("tools/list", "")
	until(t, c, "the tools", doneOf(first.ID))
	called := time.Now()
	o, err := s.CallTool("slow", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Label != "tools/call slow (as a task)" {
		t.Fatalf("label %q: the tool allows tasks and the server declared them", o.Label)
	}
	done, _ := until(t, c, "the call", doneOf(o.ID))
	if tr := done.Result.(*ToolResult); tr.Task == nil || tr.Task.ID != "t1" {
		t.Fatalf("tool result %+v: no task", tr)
	}
	until(t, c, "the completed task", func(e TaskEvent) bool { return e.Task.Status == "completed" })
	time.Sleep(800 * time.Millisecond) // more than two poll intervals
	mu.Lock()
	defer mu.Unlock()
	if len(gets) != 2 {
		t.Errorf("tasks/get sent %d times; polling must stop at the terminal status", len(gets))
	}
	if d := gets[0].Sub(called); d < 250*time.Millisecond {
		t.Errorf("the first poll came %v after the call; the server asked for 300 ms", d)
	}
}

// An accepted URL elicitation is tracked until the server completes it; a
// completion nobody accepted is reported as unknown.
func TestURLElicitationTracked(t *testing.T) {
	srv := newScript(func(method string, _ json.RawMessage) string {
		if method == "initialize" {
			return initResult
		}
		return `{}`
	})
	s, c := started(t, srv)
	s.SetHandler(mcp.HandlerFunc(func(_ context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept"}`), nil
	}))
	srv.push(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"url","elicitationId":"el-1","url":"https://example.com/x","message":"go"}}`)
	until(t, c, "the acceptance", func(e ElicitationEvent) bool { return e.ID == "el-1" && !e.Completed })
	srv.push(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-1"}}`)
	srv.push(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-2"}}`)
	if e, _ := until(t, c, "el-1 completed", func(e ElicitationEvent) bool { return e.ID == "el-1" && e.Completed }); !e.Known {
		t.Error("el-1 was accepted, but its completion is reported as unknown")
	}
	if e, _ := until(t, c, "el-2 completed", func(e ElicitationEvent) bool { return e.ID == "el-2" }); e.Known {
		t.Error("el-2 was never accepted, but its completion is reported as known")
	}
}

// Every operation of a session that ended fails at once with the reason;
// none is started.
func TestClosedSessionRefuses(t *testing.T) {
	srv := newScript(func(string, json.RawMessage) string { return initResult })
	s, c := started(t, srv)
	_ = s.Close()
	c.wait(t)
	if _, err := s.Ping(); !errors.Is(err, mcp.ErrClosed) {
		t.Fatalf("ping after close: %v", err)
	}
}

// A replayed session sends nothing: every Sender method says why.
func TestReplayIsReadOnly(t *testing.T) {
	evs := []mcp.Event{mcp.StateEvent{Time: time.Now(), State: mcp.StateReady}}
	r := NewReplay(evs, "stdio", "this is a recorded session (run.jsonl): nothing can be sent")
	c := collect(r.Events())
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.wait(t)
	if got := c.snapshot(); len(got) != 1 {
		t.Fatalf("replayed %d events, want 1", len(got))
	}
	var ro *ReadOnlyError
	_, err := r.CallTool("echo", nil)
	if !errors.As(err, &ro) || !strings.Contains(err.Error(), "recorded session") || !strings.Contains(err.Error(), "tools/call") {
		t.Fatalf("CallTool on a replay: %v", err)
	}
	if _, err := r.NotifyRootsChanged(); !errors.As(err, &ro) {
		t.Fatalf("NotifyRootsChanged on a replay: %v", err)
	}
	_ = r.Close()
}

// A notification the session follows but cannot read is reported right
// after its frame; nothing is derived from it.
func TestUnreadableNotificationIsReported(t *testing.T) {
	srv := newScript(func(method string, _ json.RawMessage) string {
		if method == "initialize" {
			return initResult
		}
		return `{}`
	})
	_, c := started(t, srv)
	srv.push(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":"half"}}`)
	srv.push(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"status":"working"}}`)
	ev, at := until(t, c, "the unreadable progress", func(e UnreadableEvent) bool { return e.Method == mcp.NotifyProgress })
	if fe, ok := c.snapshot()[at-1].(mcp.FrameEvent); !ok || fe.Frame.Seq != ev.Seq {
		t.Errorf("the report does not follow its frame (seq %d)", ev.Seq)
	}
	until(t, c, "the unreadable task status", func(e UnreadableEvent) bool { return e.Method == mcp.NotifyTasksStatus })
	for _, ev := range c.snapshot() {
		if _, ok := ev.(ProgressEvent); ok {
			t.Error("a progress event was derived from unreadable params")
		}
	}
}

// What a handshake allows: declared capabilities, completions before the
// capability existed (2024-11-05), and the modern era's per-request level.
func TestAllowedBy(t *testing.T) {
	if got := AllowedBy(nil); got != (Allowed{}) {
		t.Errorf("no handshake allows %+v", got)
	}
	old := &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: mcp.Version20241105, ServerCapabilities: json.RawMessage(`{"resources":{"subscribe":true}}`)}
	if got := AllowedBy(old); !got.Resources || !got.Subscribe || !got.Completions || got.Prompts || got.Logging || got.PerRequestLogLevel {
		t.Errorf("2024-11-05 with resources.subscribe: %+v", got)
	}
	cur := &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: mcp.Version20251125, ServerCapabilities: json.RawMessage(`{"prompts":{},"logging":{}}`)}
	if got := AllowedBy(cur); got.Completions || !got.Prompts || !got.Logging || got.Subscribe {
		t.Errorf("2025-11-25 without completions: %+v", got)
	}
	modern := &mcp.Handshake{Era: mcp.EraModern, ProtocolVersion: mcp.Version20260728, ServerCapabilities: json.RawMessage(`{"completions":{}}`)}
	if got := AllowedBy(modern); !got.Completions || !got.PerRequestLogLevel {
		t.Errorf("modern: %+v", got)
	}
}

// Derive gives a read-only source what a session shows beside a frame.
func TestDerive(t *testing.T) {
	note := func(dir mcp.Direction, method, raw string) mcp.Event {
		return mcp.FrameEvent{Frame: &mcp.Frame{Seq: 4, Dir: dir, Kind: mcp.KindNotification, Method: method, Raw: []byte(raw), Time: time.Now()}}
	}
	got := Derive(note(mcp.Inbound, mcp.NotifyProgress, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":4}}`))
	if p, ok := got[0].(ProgressEvent); len(got) != 1 || !ok || p.Token != "t" || p.Progress != 2 || *p.Total != 4 {
		t.Errorf("progress: %+v", got)
	}
	got = Derive(note(mcp.Inbound, mcp.NotifyTasksStatus, `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"a","status":"working"}}`))
	if e, ok := got[0].(TaskEvent); len(got) != 1 || !ok || e.Task.ID != "a" {
		t.Errorf("task status: %+v", got)
	}
	got = Derive(note(mcp.Inbound, mcp.NotifyResourcesUpdated, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":[]}`))
	if e, ok := got[0].(UnreadableEvent); len(got) != 1 || !ok || e.Seq != 4 {
		t.Errorf("unreadable update: %+v", got)
	}
	for _, ev := range []mcp.Event{
		note(mcp.Inbound, mcp.NotifyElicitationComplete, `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"x"}}`),
		note(mcp.Outbound, mcp.NotifyProgress, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`),
		note(mcp.Inbound, mcp.NotifyToolsListChanged, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`),
		mcp.StderrEvent{Time: time.Now(), Line: "x"},
	} {
		if got := Derive(ev); len(got) != 0 {
			t.Errorf("derived %+v from %+v", got, ev)
		}
	}
}
