package tap

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/export"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Three client sessions through one tap --listen whose requests
// interleave in time: a stateless client (no Mcp-Session-Id) and two
// with a session id, all three sending requests at once with the same
// ids. The capture names each frame's client session, and the reading,
// the exports and the viewer read each session whole: every request
// paired with its own answer, counted in its own conversation under its
// own client's name.
func TestHTTPTapInterleavedClientSessionsAreEachWhole(t *testing.T) {
	tap := startSharedTap(t)
	ctx, connect := tap.ctx, tap.connect
	// sent counts each client's requests after its handshake: the
	// modern client lists every list after server/discover (counted
	// from the capture below), the others list nothing by themselves.
	var mu sync.Mutex
	sent := map[string]int{}
	call := func(name string, c *mcp.Client, method string, params any) error {
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		defer ccancel()
		mu.Lock()
		sent[name]++
		mu.Unlock()
		_, err := c.Call(cctx, method, params)
		return err
	}
	// The stateless client first, then a stateful one opens its session
	// while the stateless one is still talking.
	stateless := connect("copilot-like", mcp.EraModern)
	if err := call("copilot-like", stateless, mcp.MethodToolsList, nil); err != nil {
		t.Fatal(err)
	}
	first := connect("opencode-like", mcp.EraLegacy)
	second := connect("second-opencode", mcp.EraLegacy)
	// All three at once, each a slow call and quick ones beside it: their
	// ids (numbered by each client from the start) collide. Each call
	// asks something else (identical requests waiting at once read as a
	// request sent again).
	clients := map[string]*mcp.Client{"copilot-like": stateless, "opencode-like": first, "second-opencode": second}
	errs := make(chan error, 3*4)
	var wg sync.WaitGroup
	for name, c := range clients {
		wg.Go(func() {
			errs <- call(name, c, mcp.MethodToolsCall, map[string]any{"name": "slow_count", "arguments": map[string]any{"steps": 2, "delay_ms": 200}})
		})
		for i := range 3 {
			wg.Go(func() {
				errs <- call(name, c, mcp.MethodToolsCall, map[string]any{"name": "slow_count", "arguments": map[string]any{"steps": 1, "delay_ms": 10 * (i + 1)}})
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := call("copilot-like", stateless, mcp.MethodToolsList, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range clients {
		_ = c.Close()
	}
	file, raw, entries := tap.capture()
	// Every frame names its client session; the modern client's lists
	// after its discover are its requests too.
	sessions := map[int]bool{}
	for _, e := range entries {
		if e.Type != "frame" {
			continue
		}
		if e.ClientSession == 0 {
			t.Errorf("frame %d (%s %s) names no client session", e.Seq, e.Dir, e.Method)
		}
		sessions[e.ClientSession] = true
		if e.UnknownID || e.Duplicate {
			t.Errorf("frame %d (%s %s) answers no request of its session: %s", e.Seq, e.Dir, e.Method, e.Problem)
		}
	}
	if len(sessions) != 3 {
		t.Errorf("the frames name %d client sessions, want 3", len(sessions))
	}

	rs, err := reading.Read(file, bytes.NewReader(raw), true)
	if err != nil {
		t.Fatal(err)
	}
	byClient := map[string]*reading.Connection{}
	for _, c := range rs.Connections {
		byClient[c.Client()] = c
	}
	total := 0
	for name := range clients {
		c := byClient[name+" 1.0"]
		if c == nil {
			t.Fatalf("no conversation of %s among %d connections", name, len(rs.Connections))
		}
		want := sent[name]
		if c.Handshake != nil && c.Handshake.Era == mcp.EraModern {
			want = 0
			for _, x := range c.Requests() {
				if x.Method() != mcp.MethodToolsCall && !strings.HasSuffix(x.Method(), "/list") {
					t.Errorf("%s sent %s", name, x.Method())
				}
				want++ // the lists the client took itself, and those above
			}
			if want <= sent[name] {
				t.Errorf("%s's conversation has %d requests, fewer than the %d it sent", name, want, sent[name])
			}
		}
		got, answered := 0, 0
		for _, x := range c.Requests() {
			got++
			if x.Final().Response != nil {
				answered++
			}
			if x.Response != nil && x.Response.ClientSession != c.ClientSession {
				t.Errorf("%s's request %d is answered by frame %d of client session %d", name, x.Request.Seq, x.Response.Seq, x.Response.ClientSession)
			}
		}
		if got != want || answered != want {
			t.Errorf("%s (client session %d): %d requests, %d answered; want %d, all answered", name, c.ClientSession, got, answered, want)
		}
		total += want
	}
	if o := rs.Outcome; o.Requests != total || o.Answered != total {
		t.Errorf("the reading counts %d requests, %d answered; want %d, all answered (%s)", o.Requests, o.Answered, total, o)
	}

	// The exports: each client session its own conversation, its client
	// named and its requests counted.
	sf, err := record.ReadEvents(bytes.NewReader(raw), true)
	if err != nil {
		t.Fatal(err)
	}
	es := export.FromEvents(file, sf.Header, sf.Events)
	var page, md, har bytes.Buffer
	if err := export.HTML(&page, es); err != nil {
		t.Fatal(err)
	}
	if err := export.Markdown(&md, es); err != nil {
		t.Fatal(err)
	}
	if err := export.HAR(&har, es, "test"); err != nil {
		t.Fatal(err)
	}
	harSchema, err := os.ReadFile("../sessionfile/export/testdata/har-1.2.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Compile(harSchema)
	if err != nil {
		t.Fatal(err)
	}
	if issues := sch.ValidateJSON(har.Bytes()); len(issues) > 0 {
		t.Errorf("the HAR of several client sessions does not validate: %+v", issues)
	}
	// The client posted to the tap's root: the tap sent it to the server's URL.
	if want := `"url": "` + tap.target + `"`; !strings.Contains(har.String(), want) {
		t.Errorf("the HAR names no request %s", want)
	}
	if !strings.Contains(md.String(), "(client session 1 of 3; each is listed)") {
		t.Errorf("the Markdown does not say whose handshake it shows:\n%s", md.String())
	}
	for _, c := range rs.Connections {
		n := len(c.Requests())
		line := fmt.Sprintf("client session %d: %s — %d requests, %d answered", c.ClientSession, c.Client(), n, n)
		if !strings.Contains(page.String(), line) {
			t.Errorf("the HTML export does not say %q", line)
		}
		if !strings.Contains(md.String(), line) {
			t.Errorf("the Markdown export does not say %q", line)
		}
		if title := fmt.Sprintf(`"title": "client session %d: %s`, c.ClientSession, c.Client()); !strings.Contains(har.String(), title) {
			t.Errorf("the HAR has no page %s", title)
		}
	}

	// The viewer: the doctor and the title follow the session of each
	// frame, and every answer is paired.
	src := NewSource(Listed{Info: Info{File: file}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	announced := 0
	for ev := range src.Events() {
		if fe, ok := ev.(mcp.FrameEvent); ok && (fe.Frame.UnknownID || fe.Frame.Duplicate) {
			t.Errorf("the viewer reads frame %d as answering nothing", fe.Frame.Seq)
		}
		if st, ok := ev.(mcp.StateEvent); ok && st.State == mcp.StateConnecting && strings.Contains(st.Detail, "another client session") {
			announced++
		}
	}
	// The title names the client of the last frame's session.
	last := 0
	for _, e := range entries {
		if e.Type == "frame" {
			last = e.ClientSession
		}
	}
	var lastClient string
	for _, c := range rs.Connections {
		if c.ClientSession == last {
			lastClient = c.Client()
		}
	}
	if name := src.TransportName(); announced != 2 || !strings.Contains(name, lastClient) || !strings.Contains(name, fmt.Sprintf("client session %d of 3", last)) {
		t.Errorf("the viewer announced %d new client sessions (want 2) and is titled %q (want %s, client session %d of 3)", announced, name, lastClient, last)
	}
	_ = src.Close()
}
