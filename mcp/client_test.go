package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer() // when re-executed as the fake or the demo server
	// The child package's spawner lives as long as the process, on purpose
	// (its thread's end would send SIGTERM to every server it started).
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/mcpscope/mcpscope/mcp/lib/child.spawn"))
}

// fake returns a transport that runs this test binary as the scripted
// misbehaving server.
func fake(behaviours ...string) *mcp.StdioTransport {
	return &mcp.StdioTransport{
		Command: os.Args[0],
		Env:     []string{mcptest.EnvVar + "=" + strings.Join(behaviours, ",")},
		Grace:   500 * time.Millisecond,
	}
}

// collector reads a client's whole event stream.
type collector struct {
	mu     sync.Mutex
	events []mcp.Event
	done   chan struct{}
}

func collect(c *mcp.Client) *collector {
	col := &collector{done: make(chan struct{})}
	ch := c.Events()
	go func() {
		defer close(col.done)
		for ev := range ch {
			col.mu.Lock()
			col.events = append(col.events, ev)
			col.mu.Unlock()
		}
	}()
	return col
}

// wait returns every event once the stream has closed.
func (col *collector) wait(t *testing.T) []mcp.Event {
	t.Helper()
	select {
	case <-col.done:
	case <-time.After(10 * time.Second):
		t.Fatal("event stream did not close")
	}
	return col.events
}

// sawTransport reports a transport event so far whose summary holds s.
func (col *collector) sawTransport(s string) bool {
	col.mu.Lock()
	defer col.mu.Unlock()
	for _, ev := range col.events {
		if te, ok := ev.(mcp.TransportEvent); ok && strings.Contains(te.Summary, s) {
			return true
		}
	}
	return false
}

func frames(evs []mcp.Event) []*mcp.Frame {
	var out []*mcp.Frame
	for _, ev := range evs {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			out = append(out, fe.Frame)
		}
	}
	return out
}

func connect(t *testing.T, tr mcp.Transport, opts mcp.Options) (*mcp.Client, *collector) {
	t.Helper()
	c := mcp.NewClient(tr, opts)
	col := collect(c)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return c, col
}

func TestLegacyHandshakeAndCall(t *testing.T) {
	c, col := connect(t, fake("paginate"), mcp.Options{Discover: true})
	hs := c.Handshake()
	if hs.Era != mcp.EraLegacy || hs.ProtocolVersion != mcp.LatestLegacyVersion || hs.OfferedVersion != mcp.LatestLegacyVersion {
		t.Errorf("handshake = %+v", hs)
	}
	if hs.ServerInfo.Name != "fake" || hs.Instructions != "a test server" {
		t.Errorf("server info = %+v, instructions %q", hs.ServerInfo, hs.Instructions)
	}
	if !hs.HasCapability("tools", "listChanged") || hs.HasCapability("prompts") {
		t.Errorf("capabilities misread: %s", hs.ServerCapabilities)
	}
	resp, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if !strings.Contains(string(resp.Result), `\"message\":\"hi\"`) {
		t.Errorf("result = %s", resp.Result)
	}
	_ = c.Close() // ends the session; the frames are what is checked
	evs := col.wait(t)
	fs := frames(evs)
	want := []struct {
		dir    mcp.Direction
		kind   mcp.Kind
		method string
	}{
		{mcp.Outbound, mcp.KindRequest, "initialize"},
		{mcp.Inbound, mcp.KindResponse, ""},
		{mcp.Outbound, mcp.KindNotification, "notifications/initialized"},
		{mcp.Outbound, mcp.KindRequest, "tools/list"},
		{mcp.Inbound, mcp.KindResponse, ""},
		{mcp.Outbound, mcp.KindRequest, "tools/list"},
		{mcp.Inbound, mcp.KindResponse, ""},
		{mcp.Outbound, mcp.KindRequest, "tools/call"},
		{mcp.Inbound, mcp.KindResponse, ""},
	}
	if len(fs) != len(want) {
		for _, f := range fs {
			t.Logf("%d %s %s %s", f.Seq, f.Dir, f.Kind, f.Raw)
		}
		t.Fatalf("got %d frames, want %d", len(fs), len(want))
	}
	for i, w := range want {
		f := fs[i]
		if f.Dir != w.dir || f.Kind != w.kind || f.Method != w.method {
			t.Errorf("frame %d = %s %s %q, want %s %s %q", i, f.Dir, f.Kind, f.Method, w.dir, w.kind, w.method)
		}
		if f.Seq != int64(i+1) {
			t.Errorf("frame %d has seq %d", i, f.Seq)
		}
	}
	if fs[1].ReplyTo != fs[0].Seq || fs[1].ReplyToMethod != "initialize" || fs[1].Latency <= 0 {
		t.Errorf("initialize response not correlated: replyTo %d method %q latency %v", fs[1].ReplyTo, fs[1].ReplyToMethod, fs[1].Latency)
	}
	if fs[1].Label() != "result of initialize" {
		t.Errorf("label = %q", fs[1].Label())
	}
	var lists []mcp.ListEvent
	var gotHandshake, gotReady bool
	for _, ev := range evs {
		switch e := ev.(type) {
		case mcp.ListEvent:
			lists = append(lists, e)
		case mcp.HandshakeEvent:
			gotHandshake = true
		case mcp.StateEvent:
			gotReady = gotReady || e.State == mcp.StateReady
		}
	}
	if len(lists) != 1 || lists[0].Method != "tools/list" || len(lists[0].Items) != 2 || lists[0].Pages != 2 {
		t.Errorf("list events = %+v", lists)
	}
	if !gotHandshake || !gotReady {
		t.Errorf("handshake event %v, ready state %v", gotHandshake, gotReady)
	}
}

func TestNoiseIsKeptAndNotFatal(t *testing.T) {
	c, col := connect(t, fake("noise"), mcp.Options{})
	// The connection must survive everything the server printed.
	if _, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo"}); err != nil {
		t.Fatalf("call after noise: %v", err)
	}
	_ = c.Close() // ends the session; the frames are what is checked
	fs := frames(col.wait(t))
	var invalid, batch, batchChildren, unknown int
	for _, f := range fs {
		if f.Dir != mcp.Inbound {
			continue
		}
		switch f.Kind {
		case mcp.KindInvalid:
			invalid++
		case mcp.KindBatch:
			batch++
		}
		if f.BatchSeq != 0 {
			batchChildren++
		}
		if f.UnknownID {
			unknown++
		}
	}
	// "Server listening", a cut-off object, and a pretty-printed object
	// split over three lines.
	if invalid != 5 {
		t.Errorf("invalid frames = %d, want 5", invalid)
	}
	if batch != 1 || batchChildren != 2 {
		t.Errorf("batch frames = %d, children = %d; want 1 and 2", batch, batchChildren)
	}
	if unknown != 2 { // 999 inside the batch, 424242 alone
		t.Errorf("unknown-id responses = %d, want 2", unknown)
	}
	for _, f := range fs {
		if f.Kind == mcp.KindInvalid && string(f.Raw) == "Server listening on stdio" {
			return
		}
	}
	t.Error("the log line on stdout was not kept byte for byte")
}

func TestServerCrashDuringCall(t *testing.T) {
	c, col := connect(t, fake("crash-on-call"), mcp.Options{})
	start := time.Now()
	_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo"})
	elapsed := time.Since(start)
	var le *mcp.LocalError
	var exit *mcp.ExitError
	if !errors.As(err, &le) || le.Kind != mcp.ConnectionLost || !errors.As(err, &exit) {
		t.Fatalf("err = %v, want a lost connection carrying the exit", err)
	}
	if exit.Code != 7 {
		t.Errorf("exit code = %d, want 7", exit.Code)
	}
	if !strings.Contains(err.Error(), "panic: something broke") || !strings.Contains(err.Error(), "status 7") {
		t.Errorf("message lacks the status or the stderr: %v", err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("took %v to notice the crash", elapsed)
	}
	_ = c.Close() // ends the session; the frames are what is checked
	var sawExit bool
	for _, ev := range col.wait(t) {
		if e, ok := ev.(mcp.ExitEvent); ok && e.Exit.Code == 7 {
			sawExit = true
		}
	}
	if !sawExit {
		t.Error("no ExitEvent published")
	}
}

func TestTimeoutSendsCancelled(t *testing.T) {
	c, col := connect(t, fake("hang-on-call"), mcp.Options{})
	_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo"}, mcp.WithTimeout(200*time.Millisecond))
	if !mcp.IsTimeout(err) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	// Give the server a moment to log that it saw the cancellation.
	time.Sleep(200 * time.Millisecond)
	_ = c.Close()
	evs := col.wait(t)
	var cancelled *mcp.Frame
	var serverSaw, localErr bool
	for _, ev := range evs {
		switch e := ev.(type) {
		case mcp.FrameEvent:
			if e.Frame.Method == "notifications/cancelled" && e.Frame.Dir == mcp.Outbound {
				cancelled = e.Frame
			}
		case mcp.StderrEvent:
			serverSaw = serverSaw || strings.Contains(e.Line, "got cancelled")
		case mcp.LocalErrorEvent:
			localErr = localErr || e.Err.Kind == mcp.Timeout
		}
	}
	if cancelled == nil {
		t.Fatal("no notifications/cancelled frame sent")
	}
	if !strings.Contains(string(cancelled.Raw), `"requestId":2`) {
		t.Errorf("cancelled frame = %s, want requestId 2", cancelled.Raw)
	}
	if !serverSaw {
		t.Error("the server never received notifications/cancelled")
	}
	if !localErr {
		t.Error("no LocalErrorEvent for the timeout")
	}
}

func TestUnsupportedVersion(t *testing.T) {
	c := mcp.NewClient(fake("bad-version"), mcp.Options{})
	col := collect(c)
	_, err := c.Connect(context.Background())
	var he *mcp.HandshakeError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want a HandshakeError", err)
	}
	if !strings.Contains(err.Error(), "1999-01-01") || !strings.Contains(err.Error(), mcp.LatestLegacyVersion) {
		t.Errorf("error does not name both versions: %v", err)
	}
	col.wait(t)
}

func TestRepeatedCursorStops(t *testing.T) {
	c, col := connect(t, fake("repeat-cursor"), mcp.Options{})
	items, pages, err := c.ListAll(context.Background(), "tools/list")
	if err == nil || !strings.Contains(err.Error(), `repeated cursor "again"`) {
		t.Fatalf("err = %v, want a repeated cursor error", err)
	}
	if pages != 2 || len(items) != 2 {
		t.Errorf("pages %d items %d, want 2 and 2", pages, len(items))
	}
	_ = c.Close()
	col.wait(t)
}

func TestServerRequestsAnswered(t *testing.T) {
	c, col := connect(t, fake("ask"), mcp.Options{})
	time.Sleep(300 * time.Millisecond) // let the server ask and log the answers
	_ = c.Close()
	evs := col.wait(t)
	var pong, rootsErr bool
	for _, f := range frames(evs) {
		if f.Dir != mcp.Outbound {
			continue
		}
		if f.ReplyToMethod == "ping" && string(f.Raw) == `{"jsonrpc":"2.0","id":"s1","result":{}}` {
			pong = true
		}
		if f.ReplyToMethod == "roots/list" && f.Kind == mcp.KindErrorResponse && f.ErrorCode == mcp.CodeMethodNotFound &&
			strings.Contains(f.ErrorMessage, "no answer configured for roots/list") {
			rootsErr = true
		}
	}
	if !pong {
		t.Error("ping not answered with an empty result echoing the string id")
	}
	if !rootsErr {
		t.Error("roots/list not answered with the default handler's clear error")
	}
}

// An answer to a server request is complete before it is published: the
// recorder reads it (OnEvent) on its own goroutine, so a latency written
// after publication was a data race (caught under -race through --record).
func TestAnswerIsCompleteWhenObserved(t *testing.T) {
	var mu sync.Mutex
	var latencies []time.Duration
	observe := func(ev mcp.Event) {
		if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Outbound && fe.Frame.ReplyToMethod == "ping" {
			mu.Lock()
			latencies = append(latencies, fe.Frame.Latency)
			mu.Unlock()
		}
	}
	c, col := connect(t, fake("ask"), mcp.Options{OnEvent: observe})
	time.Sleep(300 * time.Millisecond)
	_ = c.Close()
	col.wait(t)
	mu.Lock()
	defer mu.Unlock()
	if len(latencies) != 1 {
		t.Fatalf("observed %d ping answers, want 1", len(latencies))
	}
	if latencies[0] <= 0 {
		t.Errorf("the ping answer was observed with latency %v: it was published before it was complete", latencies[0])
	}
}

func TestHandlerAnswersServerRequest(t *testing.T) {
	h := mcp.HandlerFunc(func(_ context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"roots":[{"uri":"file:///tmp"}]}`), nil
	})
	c, col := connect(t, fake("ask"), mcp.Options{Handler: h})
	time.Sleep(300 * time.Millisecond)
	_ = c.Close()
	var answered bool
	for _, ev := range col.wait(t) {
		if e, ok := ev.(mcp.StderrEvent); ok && strings.Contains(e.Line, `file:///tmp`) {
			answered = true
		}
	}
	if !answered {
		t.Error("the server did not receive the handler's roots")
	}
}

func TestProgress(t *testing.T) {
	c, col := connect(t, fake("progress"), mcp.Options{})
	var mu sync.Mutex
	var got []float64
	_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo"}, mcp.WithProgress(func(p mcp.Progress) {
		mu.Lock()
		got = append(got, p.Progress)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	col.wait(t)
	if len(got) != 3 || got[2] != 3 {
		t.Errorf("progress = %v, want [1 2 3]", got)
	}
}

func TestModernEra(t *testing.T) {
	c, col := connect(t, fake("modern"), mcp.Options{Era: mcp.EraModern})
	hs := c.Handshake()
	if hs.Era != mcp.EraModern || hs.ProtocolVersion != mcp.Version20260728 || hs.ServerInfo.Name != "fake-modern" {
		t.Errorf("handshake = %+v", hs)
	}
	if _, err := c.Call(context.Background(), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	fs := frames(col.wait(t))
	for _, f := range fs {
		if f.Dir == mcp.Outbound && f.Kind == mcp.KindRequest {
			if !strings.Contains(string(f.Raw), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) ||
				!strings.Contains(string(f.Raw), `"io.modelcontextprotocol/clientCapabilities"`) {
				t.Errorf("modern request without _meta: %s", f.Raw)
			}
		}
		if f.Method == "initialize" || f.Method == "notifications/initialized" {
			t.Errorf("modern era sent %s", f.Method)
		}
	}
}

func TestAutoEra(t *testing.T) {
	t.Run("falls back to legacy", func(t *testing.T) {
		c, col := connect(t, fake(), mcp.Options{Era: mcp.EraAuto})
		hs := c.Handshake()
		if hs.Era != mcp.EraLegacy || !strings.Contains(hs.ProbeOutcome, "fell back") {
			t.Errorf("era %v, probe %q", hs.Era, hs.ProbeOutcome)
		}
		_ = c.Close()
		fs := frames(col.wait(t))
		if fs[0].Method != "server/discover" || !fs[0].Probe {
			t.Errorf("first frame %s (probe %v), want the visible server/discover probe", fs[0].Method, fs[0].Probe)
		}
	})
	t.Run("silent server", func(t *testing.T) {
		c := mcp.NewClient(fake("silent"), mcp.Options{Era: mcp.EraAuto, ProbeTimeout: 200 * time.Millisecond, Timeout: 300 * time.Millisecond})
		col := collect(c)
		_, err := c.Connect(context.Background())
		if err == nil || !strings.Contains(err.Error(), "no answer to initialize") {
			t.Errorf("err = %v", err)
		}
		fs := frames(col.wait(t))
		if len(fs) < 2 || fs[0].Method != "server/discover" || fs[1].Method != "initialize" {
			t.Errorf("frames: want discover then initialize")
		}
	})
	t.Run("modern server", func(t *testing.T) {
		c, col := connect(t, fake("modern"), mcp.Options{Era: mcp.EraAuto})
		if c.Handshake().Era != mcp.EraModern {
			t.Errorf("era = %v", c.Handshake().Era)
		}
		_ = c.Close()
		col.wait(t)
	})
}

func TestTwentyMegabyteLine(t *testing.T) {
	tr := fake("big-line")
	tr.Env = append(tr.Env, "MCPSCOPE_FAKE_BIG="+("20000000"))
	c, col := connect(t, tr, mcp.Options{})
	resp, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Frame.Raw) < 20_000_000 {
		t.Errorf("frame is %d bytes", len(resp.Frame.Raw))
	}
	_ = c.Close()
	col.wait(t)
}

func TestStartFailuresArePlain(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "server.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cmd, want string }{
		{"mcpscope-no-such-command", "command not found"},
		{filepath.Join(dir, "missing"), "no such file"},
		{notExec, "not executable"},
	} {
		c := mcp.NewClient(&mcp.StdioTransport{Command: tc.cmd}, mcp.Options{})
		col := collect(c)
		_, err := c.Connect(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.cmd, err, tc.want)
		}
		col.wait(t)
	}
}

func TestExitAtStart(t *testing.T) {
	c := mcp.NewClient(fake("exit-at-start"), mcp.Options{})
	col := collect(c)
	_, err := c.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "status 3") || !strings.Contains(err.Error(), "config file not found") {
		t.Errorf("err = %v", err)
	}
	col.wait(t)
}

func TestCloseDuringHandshake(t *testing.T) {
	c := mcp.NewClient(fake("silent"), mcp.Options{})
	col := collect(c)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Connect(context.Background())
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	_ = c.Close()
	select {
	case err := <-errc:
		var le *mcp.LocalError
		if !errors.As(err, &le) || le.Kind != mcp.ConnectionLost {
			t.Errorf("Connect returned %v, want a lost connection", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Connect did not return after Close")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	col.wait(t)
}

// pipeTransport is a transport whose server side is the test itself: Write
// hands messages to the test, and Close ends the connection with ErrClosed,
// as the HTTP transports do.
type pipeTransport struct {
	sink mcp.Sink
	out  chan []byte
}

func (p *pipeTransport) Name() string { return "pipe" }
func (p *pipeTransport) Start(_ context.Context, sink mcp.Sink) (mcp.Conn, error) {
	p.sink = sink
	return p, nil
}
func (p *pipeTransport) Write(_ context.Context, raw []byte) error {
	p.out <- append([]byte(nil), raw...)
	return nil
}
func (p *pipeTransport) Close(context.Context) error {
	p.sink.Closed(mcp.ErrClosed)
	return nil
}

func TestOrderlyCloseIsClosedNotFailed(t *testing.T) {
	p := &pipeTransport{out: make(chan []byte, 8)}
	c := mcp.NewClient(p, mcp.Options{})
	col := collect(c)
	go func() {
		req := <-p.out // initialize
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(req, &r)
		p.sink.Receive([]byte(`{"jsonrpc":"2.0","id":`+string(r.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"p","version":"1"}}}`), "", "")
		<-p.out // notifications/initialized
	}()
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	var last mcp.StateEvent
	for _, ev := range col.wait(t) {
		if s, ok := ev.(mcp.StateEvent); ok {
			last = s
		}
	}
	if last.State != mcp.StateClosed {
		t.Errorf("last state = %v (%s), want closed", last.State, last.Detail)
	}
}

// DecodePage reads a page or says why it cannot: a page is never read as
// an empty one.
func TestDecodePage(t *testing.T) {
	items, next, err := mcp.DecodePage(mcp.MethodToolsList, json.RawMessage(`{"tools":[{"name":"a"}],"nextCursor":"c"}`))
	if err != nil || len(items) != 1 || next != "c" {
		t.Fatalf("good page: %v, %q, %v", items, next, err)
	}
	for raw, want := range map[string]string{
		`null`:                              "not an object",
		`[]`:                                "not an object",
		`{"tools":{"name":"a"}}`:            `"tools" is not an array`,
		`{"tools":[],"nextCursor":7}`:       "nextCursor is not a string",
		`{"resources":[],"nextCursor":"x"}`: "", // no tools member: an empty page, as the spec allows nothing else to mean
	} {
		_, _, err := mcp.DecodePage(mcp.MethodToolsList, json.RawMessage(raw))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: err %v, want %q", raw, err, want)
		}
	}
	if _, _, err := mcp.DecodePage("tools/call", json.RawMessage(`{}`)); err == nil {
		t.Error("tools/call decoded as a page")
	}
}

// WithResponse sees every response a request gets, error responses too.
func TestWithResponseSeesTheResponse(t *testing.T) {
	c := mcp.NewClient(fake("paginate"), mcp.Options{Timeout: 5 * time.Second})
	defer func() { _ = c.Close() }()
	go func() {
		for range c.Events() {
		}
	}()
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	var frames []*mcp.Frame
	items, pages, err := c.ListAll(context.Background(), mcp.MethodToolsList, mcp.WithResponse(func(r *mcp.Response) { frames = append(frames, r.Frame) }))
	if err != nil || pages != 2 || len(items) != 2 {
		t.Fatalf("ListAll: %d items, %d pages, %v", len(items), pages, err)
	}
	if len(frames) != 2 || frames[1] == nil || frames[1].Seq <= frames[0].Seq {
		t.Fatalf("responses seen: %v", frames)
	}
	var seen *mcp.Response
	_, err = c.Call(context.Background(), "no/such", nil, mcp.WithResponse(func(r *mcp.Response) { seen = r }))
	if err == nil || seen == nil || seen.Error == nil {
		t.Fatalf("error response not seen: err %v, seen %+v", err, seen)
	}
}

func TestByViewMarksTheRequestAndItsAnswer(t *testing.T) {
	c, col := connect(t, fake("paginate"), mcp.Options{})
	if _, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "own"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "view"}}, mcp.ByView()); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	var marked []string
	for _, f := range frames(col.wait(t)) {
		if f.ByView {
			marked = append(marked, f.Dir.String()+" "+f.Kind.String())
			if f.Dir == mcp.Outbound && !strings.Contains(string(f.Raw), `"view"`) {
				t.Errorf("marked the wrong request: %s", f.Raw)
			}
		}
	}
	if len(marked) != 2 {
		t.Errorf("frames marked as the view's: %q, want its request and answer", marked)
	}
}
