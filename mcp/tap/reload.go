package tap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/child"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/surfacediff"
	"github.com/mcpscope/mcpscope/mcp/watch"
)

// Hot reload behind a stdio tap (tap --watch): the real client keeps its
// connection while the server behind the tap is replaced. The copy is no
// longer blind: the tap reads whole messages both ways, to know the
// client's handshake, its subscriptions and its requests in flight. At a
// restart it
//
//   - answers the client's requests still in flight with a JSON-RPC error
//     (RestartErrorCode), so that nothing waits for an answer the old
//     server will never send;
//   - starts the new server and replays to it the client's initialize
//     (same params, the tap's own id) and notifications/initialized, then
//     the client's active resources/subscribe: their answers go to the
//     record, never to the client;
//   - ends the connection, as the server would by exiting, when the new
//     handshake is not the one the client was given (another protocol
//     version, a capability withdrawn that the client uses), saying so on
//     stderr and in the record;
//   - lists what the new server offers and sends the client
//     notifications/tools/list_changed (resources, prompts) for each list
//     whose content changed.
//
// Every frame the tap writes itself is marked (Frame.ByTap) in the record,
// and the restart and its surface diff are rows of the record (the
// viewer shows them as the TUI's --watch does). A client in the modern era
// (no initialize) just gets the new server.

// ReloadOptions make a stdio tap restart its server when files change.
type ReloadOptions struct {
	Watch watch.Options
	// Build runs before each restart ("" for none) in Dir; when it fails
	// the running server is kept.
	Build string
	Dir   string
	// StartTimeout bounds the new server's answer to the replayed
	// initialize; 10 s when zero.
	StartTimeout time.Duration
}

// RestartErrorCode is the JSON-RPC error code of the answer the tap gives
// a request still in flight when it restarts the server (and any request
// while no server runs): -32000, which the TypeScript SDK's clients read
// as ConnectionClosed (the connection the request went on is gone), in the
// range JSON-RPC leaves to implementations.
const RestartErrorCode = -32000

// tapIDPrefix starts the ids of the requests the tap sends itself, which no
// client's id is expected to start with.
const tapIDPrefix = "mcpscope-tap-"

// reloadTap is a stdio tap that can replace its server.
type reloadTap struct {
	o   StdioOptions
	r   *ReloadOptions
	rec *recorder

	cw sync.Mutex // the client's stdout: the server's messages and the tap's own

	mu     sync.Mutex
	cur    *tappedServer // nil while no server runs (a restart that failed)
	gen    int
	nextID int
	// The client's side, as it spoke.
	initParams json.RawMessage // its initialize's params; nil in the modern era
	initSeen   bool            // notifications/initialized
	subs       map[string]bool // resources it subscribes to
	used       map[string]bool // capabilities it used (tools, resources, prompts, logging, completions, resources.subscribe)
	inflight   map[string]string
	// serverReqs: the server's requests awaiting the client's answer, by
	// id, with the server generation that asked.
	serverReqs map[string]int
	// The handshake the client was given: the first initialize's result.
	given *handshakeInfo
	// waiting are the tap's own requests awaiting their answers.
	waiting map[string]chan []byte
	ended   bool
	// restarting: the old server is stopping or the new one is taking the
	// client's handshake; requests meanwhile get the restart's error.
	restarting bool
	end        chan struct{} // closed when the tap ends (client gone, or an incompatible restart)
	endOnce    sync.Once
	// lists are the lists as the last server gave them to the tap.
	lists map[string][]json.RawMessage
}

// handshakeInfo is what an initialize result says.
type handshakeInfo struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    json.RawMessage    `json:"capabilities"`
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	raw             json.RawMessage
}

func (h *handshakeInfo) has(capability string) bool {
	return (&mcp.Handshake{ServerCapabilities: h.Capabilities}).HasCapability(strings.Split(capability, ".")...)
}

// tappedServer is one server process.
type tappedServer struct {
	gen    int
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	wmu    sync.Mutex
	exited chan struct{}
	drain  sync.WaitGroup
	exit   *mcp.ExitError
	// retiring: the tap is stopping it (a restart, the client's end).
	retiring bool
}

func (s *tappedServer) write(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.stdin.Write(line)
	return err
}

// runReloading is RunStdio with hot reload.
func runReloading(ctx context.Context, o StdioOptions) (*Outcome, error) {
	w, err := watch.New(o.Reload.Watch)
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.Close() }()
	info := &Info{Name: o.Name, Transport: "stdio", Command: append([]string{o.Command}, o.Args...)}
	cap := startCapture(info, os.Environ(), o.Recording)
	cap.rec.onFrame = o.onFrame
	out := &Outcome{File: info.File}
	t := &reloadTap{o: o, r: o.Reload, rec: cap.rec, subs: map[string]bool{}, used: map[string]bool{},
		inflight: map[string]string{}, serverReqs: map[string]int{}, waiting: map[string]chan []byte{},
		end: make(chan struct{}), lists: map[string][]json.RawMessage{}}
	if t.r.StartTimeout <= 0 {
		t.r.StartTimeout = 10 * time.Second
	}
	srv, err := t.start()
	if err != nil {
		out.StartErr, out.Code = err, startFailureCode(err)
		o.Warn(err.Error())
		cap.rec.push(chunk{kind: chunkEvent, ev: mcp.ExitEvent{Time: time.Now(), Exit: &mcp.ExitError{Code: out.Code, Err: err}}})
		cap.close()
		return out, nil
	}
	ignoreSIGPIPE()
	t.mu.Lock()
	t.cur = srv
	t.mu.Unlock()
	go t.readClient()
	loopCtx, stopLoop := context.WithCancel(ctx)
	loop := &watch.Loop{Watcher: w, Build: t.r.Build, Dir: t.r.Dir, Failed: t.buildFailed, Restart: t.restart,
		Note: func(what string) {
			t.o.Warn(what) // on stderr, as a failed build is, and in the record
			t.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportWatch, Summary: what}})
		}}
	loopDone := make(chan struct{})
	go func() { defer close(loopDone); loop.Run(loopCtx) }()
	for ended := false; !ended; {
		select {
		case <-t.end:
			ended = true
		case <-ctx.Done():
			t.finish()
		case sig := <-o.Signals:
			// The client's way to close a server: the tap ends it too.
			// Written at once, as the plain tap does (forward): the
			// client may kill the tap right after.
			t.rec.w.Event(mcp.TransportEvent{Time: time.Now(), Kind: record.TransportClientSignal,
				Summary: "the tap got " + signalName(sig) + " (from its client) and ends the server"})
			_ = t.rec.w.Flush()
			t.finish()
		}
	}
	stopLoop()
	<-loopDone
	t.mu.Lock()
	last := t.cur
	t.cur = nil
	t.mu.Unlock()
	if last != nil {
		t.stop(last, o.Grace, o.TermGrace)
		if last.exit != nil {
			out.Code = last.exit.Code
		}
	}
	if c, ok := o.Stdout.(io.Closer); ok && o.Stdout != os.Stdout {
		_ = c.Close()
	}
	cap.close()
	return out, nil
}

// finish ends the tap once.
func (t *reloadTap) finish() {
	t.endOnce.Do(func() {
		t.mu.Lock()
		t.ended = true
		t.mu.Unlock()
		close(t.end)
	})
}

// start starts a server and its readers.
func (t *reloadTap) start() (*tappedServer, error) {
	cmd, stdin, stdout, stderr, err := startServer(t.o.Command, t.o.Args)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.gen++
	s := &tappedServer{gen: t.gen, cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	t.mu.Unlock()
	s.drain.Add(2)
	go func() { defer s.drain.Done(); t.readServer(s, stdout) }()
	go func() { defer s.drain.Done(); copyStderr(stderr, t.o.Stderr, t.rec) }()
	go t.wait(s)
	return s, nil
}

// wait collects a server's exit and records it; a server that ends on
// its own leaves the tap without a server until the next restart.
func (t *reloadTap) wait(s *tappedServer) {
	exit, _ := exitOf(s.cmd.Wait())
	done := make(chan struct{})
	go func() { s.drain.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(500 * time.Millisecond):
	}
	signalGroup(s.cmd, sigKill)
	child.Ended(s.cmd)
	t.mu.Lock()
	exit.Expected = s.retiring
	if s.retiring {
		exit.StoppedFor = "the reload"
	}
	s.exit = exit
	alone := t.cur == s && !s.retiring
	if alone {
		t.cur = nil
	}
	t.mu.Unlock()
	t.rec.push(chunk{kind: chunkExit, ev: mcp.ExitEvent{Time: time.Now(), Exit: exit}})
	close(s.exited)
	if alone {
		t.o.Warn("the server ended (" + exit.Error() + "); the client stays connected: save a watched file to start it again")
		t.failInflight("the server ended while this request was in flight")
	}
}

// stop ends a server in the spec's order: stdin closed, then after grace
// SIGTERM, then after termGrace SIGKILL.
func (t *reloadTap) stop(s *tappedServer, grace, termGrace time.Duration) {
	t.mu.Lock()
	s.retiring = true
	t.mu.Unlock()
	s.wmu.Lock()
	_ = s.stdin.Close()
	s.wmu.Unlock()
	for i, sig := range []os.Signal{nil, sigTerm, sigKill} {
		if sig != nil {
			signalGroup(s.cmd, sig)
		}
		wait := grace
		if i > 0 {
			wait = termGrace
		}
		select {
		case <-s.exited:
			return
		case <-time.After(wait):
		}
	}
	<-s.exited
}

// envelope is what the tap reads of a message: its id (raw), method, and
// whether it is an answer.
type envelope struct {
	id     string
	method string
	answer bool
}

func peek(line []byte) envelope {
	var e envelope
	// Only the envelope: a result is seen, not read (one scan of a big
	// answer, no copy).
	jsonview.Each(line, func(k []byte, v json.RawMessage) bool {
		switch jsonview.Key(k) {
		case "id":
			if s := string(bytes.TrimSpace(v)); s != "null" {
				e.id = s
			}
		case "method":
			e.method, _ = jsonview.String(v)
		case "result", "error":
			e.answer = true
		}
		return true
	})
	return e
}

// toClient writes a message to the client (the server's, or the tap's own)
// and records it.
func (t *reloadTap) toClient(line []byte, byTap bool) error {
	body := bytes.TrimRight(line, "\r\n")
	t.rec.push(chunk{kind: chunkFrame, dir: mcp.Inbound, data: append([]byte(nil), body...), at: time.Now(), byTap: byTap})
	t.cw.Lock()
	defer t.cw.Unlock()
	_, err := t.o.Stdout.Write(append(append([]byte(nil), body...), '\n'))
	return err
}

// toServer writes a message to a server and records it.
func (t *reloadTap) toServer(s *tappedServer, line []byte, byTap bool) error {
	body := bytes.TrimRight(line, "\r\n")
	t.rec.push(chunk{kind: chunkFrame, dir: mcp.Outbound, data: append([]byte(nil), body...), at: time.Now(), byTap: byTap})
	return s.write(append(append([]byte(nil), body...), '\n'))
}

// readLines calls each with every line of r (its newline kept).
func readLines(r io.Reader, each func([]byte) bool) {
	br := bufio.NewReaderSize(r, copyBuf)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long) < maxLine {
				long = append(long, chunk...)
			}
			continue
		}
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
			long = long[:0]
		}
		if len(bytes.TrimSpace(line)) > 0 && !each(line) {
			return
		}
		if err != nil {
			return
		}
	}
}

// readServer passes a server's messages to the client, except the answers
// to the tap's own requests.
func (t *reloadTap) readServer(s *tappedServer, r *os.File) {
	defer func() { _ = r.Close() }()
	readLines(r, func(line []byte) bool {
		e := peek(line)
		t.mu.Lock()
		if e.answer && strings.HasPrefix(e.id, `"`+tapIDPrefix) {
			ch := t.waiting[e.id]
			delete(t.waiting, e.id)
			t.mu.Unlock()
			t.rec.push(chunk{kind: chunkFrame, dir: mcp.Inbound, data: bytes.Clone(bytes.TrimRight(line, "\r\n")), at: time.Now(), byTap: true})
			if ch != nil {
				ch <- bytes.Clone(line)
			}
			return true
		}
		switch {
		case e.answer:
			if m, ok := t.inflight[e.id]; ok {
				delete(t.inflight, e.id)
				if m == mcp.MethodInitialize && t.given == nil {
					t.given = handshakeOf2(line)
				}
			}
		case e.method != "" && e.id != "":
			t.serverReqs[e.id] = s.gen
		}
		t.mu.Unlock()
		if err := t.toClient(line, false); err != nil {
			t.finish() // the client went away without closing stdin
			return false
		}
		return true
	})
}

// handshakeOf2 reads an initialize answer.
func handshakeOf2(line []byte) *handshakeInfo {
	res, ok := jsonview.Member(line, "result")
	if !ok {
		return nil
	}
	var h handshakeInfo
	if json.Unmarshal(res, &h) != nil {
		return nil
	}
	h.raw = bytes.Clone(res)
	return &h
}

// capabilityOf is the server capability a client's request relies on.
func capabilityOf(method string) string {
	switch {
	case method == mcp.MethodResourcesSubscribe || method == mcp.MethodResourcesUnsubscribe:
		return "resources.subscribe"
	case strings.HasPrefix(method, "tools/"):
		return "tools"
	case strings.HasPrefix(method, "resources/"):
		return "resources"
	case strings.HasPrefix(method, "prompts/"):
		return "prompts"
	case method == mcp.MethodLoggingSetLevel:
		return "logging"
	case method == mcp.MethodCompletionComplete:
		return "completions"
	}
	return ""
}

// readClient passes the client's messages to the current server, and
// learns from them what a restart must replay.
func (t *reloadTap) readClient() {
	readLines(t.o.Stdin, func(line []byte) bool {
		e := peek(line)
		t.mu.Lock()
		cur := t.cur
		switch {
		case e.answer:
			gen, ok := t.serverReqs[e.id]
			delete(t.serverReqs, e.id)
			if ok && (cur == nil || gen != cur.gen) {
				t.mu.Unlock()
				// The server that asked is gone: its successor never asked.
				t.rec.push(chunk{kind: chunkFrame, dir: mcp.Outbound, data: bytes.Clone(bytes.TrimRight(line, "\r\n")), at: time.Now()})
				t.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "tap",
					Summary: "the client answered a request of the server before the restart: not passed on to the new one"}})
				return true
			}
		case e.method == mcp.MethodInitialize && t.initParams == nil:
			if p, ok := jsonview.Member(line, "params"); ok {
				t.initParams = bytes.Clone(p)
			}
		case e.method == mcp.NotifyInitialized:
			t.initSeen = true
		}
		if c := capabilityOf(e.method); c != "" {
			t.used[c] = true
			if c == "resources.subscribe" {
				t.used["resources"] = true
			}
		}
		if e.method == mcp.MethodResourcesSubscribe || e.method == mcp.MethodResourcesUnsubscribe {
			if uri := paramString(line, "uri"); uri != "" {
				if e.method == mcp.MethodResourcesSubscribe {
					t.subs[uri] = true
				} else {
					delete(t.subs, uri)
				}
			}
		}
		if e.id != "" && e.method != "" {
			if cur == nil {
				why := "no server is running behind the tap (the last start failed): save a watched file to start it again"
				if t.restarting {
					why = "the server is being restarted (mcpscope tap --watch): send it again"
				}
				t.mu.Unlock()
				t.rec.push(chunk{kind: chunkFrame, dir: mcp.Outbound, data: bytes.Clone(bytes.TrimRight(line, "\r\n")), at: time.Now()})
				_ = t.toClient(errorAnswer(e.id, why), true)
				return true
			}
			t.inflight[e.id] = e.method
		}
		t.mu.Unlock()
		if cur == nil {
			t.rec.push(chunk{kind: chunkFrame, dir: mcp.Outbound, data: bytes.Clone(bytes.TrimRight(line, "\r\n")), at: time.Now()})
			return true // a notification for no server
		}
		_ = t.toServer(cur, line, false) // a server that stopped reading is ending; its exit says so
		return true
	})
	// The client closed stdin: the end, as for a plain tap.
	t.rec.push(chunk{kind: chunkEOF, dir: mcp.Outbound, at: time.Now()})
	t.finish()
}

func paramString(line []byte, key string) string {
	p, ok := jsonview.Member(line, "params")
	if !ok {
		return ""
	}
	v, ok := jsonview.Member(p, key)
	if !ok {
		return ""
	}
	s, _ := jsonview.String(v)
	return s
}

// errorAnswer is the tap's answer to a request that cannot be answered.
func errorAnswer(id, why string) []byte {
	msg, _ := json.Marshal(why)
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + strconv.Itoa(RestartErrorCode) + `,"message":` + string(msg) + `}}`)
}

// failInflight answers every request in flight with the tap's error.
func (t *reloadTap) failInflight(why string) {
	t.mu.Lock()
	ids := make([]string, 0, len(t.inflight))
	for id := range t.inflight {
		ids = append(ids, id)
	}
	t.inflight = map[string]string{}
	t.mu.Unlock()
	for _, id := range ids {
		_ = t.toClient(errorAnswer(id, why+": send it again"), true)
	}
}

// call sends one request of the tap's own to s and waits for its answer.
func (t *reloadTap) call(s *tappedServer, method string, params json.RawMessage, timeout time.Duration) ([]byte, error) {
	t.mu.Lock()
	t.nextID++
	id := strconv.Quote(tapIDPrefix + strconv.Itoa(t.nextID))
	ch := make(chan []byte, 1)
	t.waiting[id] = ch
	t.mu.Unlock()
	req := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if len(params) > 0 {
		req += `,"params":` + string(params)
	}
	if err := t.toServer(s, []byte(req+"}"), true); err != nil {
		return nil, err
	}
	select {
	case ans := <-ch:
		if e, ok := jsonview.Member(ans, "error"); ok {
			return nil, fmt.Errorf("%s: the server answered an error: %s", method, e)
		}
		return ans, nil
	case <-s.exited:
		return nil, fmt.Errorf("%s: the server ended before it answered", method)
	case <-time.After(timeout):
		return nil, fmt.Errorf("%s: no answer in %s", method, timeout)
	}
}

// listAll lists every page of a list on s.
func (t *reloadTap) listAll(s *tappedServer, method string) ([]json.RawMessage, error) {
	l, _ := mcp.LookupList(method)
	var items []json.RawMessage
	cursor := ""
	for range 100 {
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		ans, err := t.call(s, method, params, 5*time.Second)
		if err != nil {
			return items, err
		}
		res, _ := jsonview.Member(ans, "result")
		var page map[string]json.RawMessage
		var got []json.RawMessage
		if json.Unmarshal(res, &page) != nil || json.Unmarshal(page[l.ItemsKey], &got) != nil {
			return items, fmt.Errorf("%s: the answer is not a list", method)
		}
		items = append(items, got...)
		cursor = ""
		_ = json.Unmarshal(page["nextCursor"], &cursor)
		if cursor == "" {
			return items, nil
		}
	}
	return items, fmt.Errorf("%s: more than 100 pages", method)
}

// surfaceOf lists what s offers under the handshake h.
func (t *reloadTap) surfaceOf(s *tappedServer, h *handshakeInfo) (*surfacediff.Surface, error) {
	sf := &surfacediff.Surface{Label: h.ServerInfo.Name, Server: h.ServerInfo, Era: mcp.EraLegacy.String(),
		ProtocolVersion: h.ProtocolVersion, Capabilities: h.Capabilities, Lists: map[string][]json.RawMessage{}}
	var errs []error
	for _, l := range mcp.DiscoveryLists() {
		if !h.has(l.Capability) {
			continue
		}
		items, err := t.listAll(s, l.Method)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sf.Lists[l.Method] = items
	}
	return sf, errors.Join(errs...)
}

func (t *reloadTap) note(summary string, fields ...mcp.Field) {
	t.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "tap", Summary: summary, Fields: fields}})
}

// buildFailed says so on stderr and in the record; the server runs on.
func (t *reloadTap) buildFailed(r watch.Round) {
	b := r.Build
	t.o.Warn(fmt.Sprintf("build failed (%v) after %s; the running server is kept:\n%s", b.Err, r.Cause, bytes.TrimRight(b.Output, "\n")))
	fields := []mcp.Field{{Key: "command", Value: b.Command}, {Key: "cause", Value: r.Cause.String()}, {Key: "took", Value: watch.Seconds(b.Duration)}}
	for _, l := range strings.Split(strings.TrimRight(string(b.Output), "\n"), "\n") {
		fields = append(fields, mcp.Field{Value: l})
	}
	t.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportBuild,
		Summary: buildFailedSummary(b, "the running server is kept"), Err: b.Err, Fields: fields}})
}

// buildFailedSummary is a failed build's row: its status, the line of
// its output that says what failed, and what the tap does.
func buildFailedSummary(b *watch.Build, then string) string {
	s := "build failed (" + b.Err.Error() + ")"
	if h := b.Headline(); h != "" {
		s += ": " + h
	}
	return s + "; " + then
}

// restart replaces the server (see the file's comment).
func (t *reloadTap) restart(ctx context.Context, r watch.Round) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	old, given, legacy := t.cur, t.given, t.initParams != nil && t.initSeen
	t.mu.Unlock()

	// What the old server offers, to tell the client what changed.
	var before *surfacediff.Surface
	if old != nil && legacy && given != nil {
		before, _ = t.surfaceOf(old, given)
	}
	// From here until the new server has the client's handshake, the
	// client's requests get the restart's error at once.
	t.mu.Lock()
	t.cur, t.restarting = nil, true
	t.mu.Unlock()
	up := func(s *tappedServer) {
		t.mu.Lock()
		t.cur, t.restarting = s, false
		t.mu.Unlock()
	}
	if old != nil {
		// Replaced on purpose: hot reload's budget, not a client's grace.
		t.stop(old, watch.DefaultStopBudget*2/3, watch.DefaultStopBudget/3)
	}
	t.failInflight("the server was restarted (mcpscope tap --watch) while this request was in flight")
	summary := r.Summary()
	t.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportRestart, Summary: summary,
		Fields: []mcp.Field{{Key: "cause", Value: r.Cause.String()}}}})
	s, err := t.start()
	if err != nil {
		up(nil)
		t.o.Warn("restart failed: " + err.Error() + "; the client stays connected: save a watched file to try again")
		return
	}
	t.mu.Lock()
	// The answers the old server owed are owed by nobody now.
	t.serverReqs = map[string]int{}
	t.mu.Unlock()
	if !legacy {
		up(s)
		t.o.Warn(summary)
		return // the modern era has no handshake to replay
	}
	giveUp := func() {
		t.stop(s, watch.DefaultStopBudget*2/3, watch.DefaultStopBudget/3)
		up(nil)
	}
	ans, err := t.call(s, mcp.MethodInitialize, t.initParams, t.r.StartTimeout)
	var now *handshakeInfo
	if err == nil {
		now = handshakeOf2(ans)
	}
	if now == nil {
		why := "the restarted server did not answer the client's initialize"
		if err != nil {
			why += ": " + err.Error()
		}
		t.o.Warn(why + "; the client stays connected: save a watched file to try again")
		t.note(why)
		giveUp()
		return
	}
	if why := incompatible(given, now, t.usedCapabilities()); why != "" {
		msg := "the restarted server's handshake is not the one the client was given: " + why + "; ending the connection, as the server would"
		t.o.Warn(msg)
		t.note(msg)
		giveUp()
		t.finish()
		return
	}
	_ = t.toServer(s, []byte(`{"jsonrpc":"2.0","method":"`+mcp.NotifyInitialized+`"}`), true)
	t.mu.Lock()
	subs := make([]string, 0, len(t.subs))
	for uri := range t.subs {
		subs = append(subs, uri)
	}
	t.mu.Unlock()
	for _, uri := range subs {
		p, _ := json.Marshal(map[string]string{"uri": uri})
		if _, err := t.call(s, mcp.MethodResourcesSubscribe, p, 5*time.Second); err != nil {
			t.note("the client's subscription to " + uri + " could not be replayed: " + err.Error())
		}
	}
	up(s)
	after, lerr := t.surfaceOf(s, now)
	for _, l := range mcp.DiscoveryLists() {
		if before != nil && sameItems(before.Lists[l.Method], after.Lists[l.Method]) && listedIn(before, l.Method) == listedIn(after, l.Method) {
			continue
		}
		if l.ListChanged == "" || (!now.has(l.Capability) && (given == nil || !given.has(l.Capability))) {
			continue
		}
		_ = t.toClient([]byte(`{"jsonrpc":"2.0","method":"`+l.ListChanged+`"}`), true)
	}
	diff := "lists not compared"
	if before != nil {
		rep := surfacediff.Compare(before, after)
		diff = watch.SurfaceSummary(rep)
		ev := mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportSurface, Summary: diff}
		for _, ch := range rep.Changes {
			ev.Fields = append(ev.Fields, mcp.Field{Key: string(ch.Class), Value: ch.What})
		}
		if lerr != nil {
			ev.Fields = append(ev.Fields, mcp.Field{Key: "skipped", Value: lerr.Error()})
		}
		t.rec.push(chunk{kind: chunkEvent, ev: ev})
		for _, ch := range rep.Changes {
			if ch.Class == surfacediff.Breaking {
				t.rec.push(chunk{kind: chunkEvent, ev: mcp.DiagnosticEvent{Time: time.Now(), Diagnostic: &mcp.Diagnostic{
					Rule: watch.BreakingRule, Severity: mcp.SeverityWarning, Message: "after the restart (" + r.Cause.String() + "): " + ch.What,
					Why: "the client listed the server before the change and may send what the new server refuses",
					Fix: "keep the change compatible where you can, or let the client list again"}}})
			}
		}
	}
	t.o.Warn(summary + "; " + diff)
}

func listedIn(s *surfacediff.Surface, method string) bool { _, ok := s.Lists[method]; return ok }

func sameItems(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		var x, y bytes.Buffer
		if json.Compact(&x, a[i]) != nil || json.Compact(&y, b[i]) != nil || !bytes.Equal(x.Bytes(), y.Bytes()) {
			return false
		}
	}
	return true
}

// usedCapabilities are the capabilities the client has relied on.
func (t *reloadTap) usedCapabilities() map[string]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]bool{}
	for k := range t.used {
		out[k] = true
	}
	return out
}

// incompatible says why a new handshake breaks what the client was told:
// another protocol version, or a capability withdrawn that the client
// used; "" when it does not.
func incompatible(given, now *handshakeInfo, used map[string]bool) string {
	if given == nil {
		return ""
	}
	if given.ProtocolVersion != now.ProtocolVersion {
		return fmt.Sprintf("protocol version %s, not %s", now.ProtocolVersion, given.ProtocolVersion)
	}
	var gone []string
	for _, c := range []string{"tools", "resources", "prompts", "logging", "completions", "resources.subscribe"} {
		if used[c] && given.has(c) && !now.has(c) {
			gone = append(gone, c)
		}
	}
	if len(gone) > 0 {
		return "it no longer declares " + strings.Join(gone, ", ") + ", which the client uses"
	}
	return ""
}
