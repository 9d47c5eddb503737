package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/coder/websocket"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

const (
	clockTool = `{"name":"clock","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://clock/view.html"}}}`
	clockHTML = `<!doctype html><p>clock</p>`
)

// capturedCall is a tap's capture of a client that listed the tools, read
// the clock's template (when withRead) and called the clock: the frames and
// the list as a watched session publishes them.
func capturedCall(withRead bool) []mcp.Event {
	evs := sessionEvents()[:8] // the handshake
	listRes := frame(5, 19, mcp.Inbound, mcp.KindResponse, "", "2", `{"jsonrpc":"2.0","id":2,"result":{"tools":[`+clockTool+`]}}`)
	listRes.ReplyTo, listRes.ReplyToMethod = 4, mcp.MethodToolsList
	evs = append(evs,
		mcp.FrameEvent{Frame: frame(4, 16, mcp.Outbound, mcp.KindRequest, mcp.MethodToolsList, "2", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)},
		mcp.FrameEvent{Frame: listRes},
		mcp.ListEvent{Time: at(19), Method: mcp.MethodToolsList, Pages: 1, Items: []json.RawMessage{json.RawMessage(clockTool)}})
	if withRead {
		html, _ := json.Marshal(clockHTML)
		readRes := frame(7, 22, mcp.Inbound, mcp.KindResponse, "", "3",
			`{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"ui://clock/view.html","mimeType":"text/html;profile=mcp-app","text":`+string(html)+`}]}}`)
		readRes.ReplyTo, readRes.ReplyToMethod = 6, mcp.MethodResourcesRead
		evs = append(evs,
			mcp.FrameEvent{Frame: frame(6, 20, mcp.Outbound, mcp.KindRequest, mcp.MethodResourcesRead, "3", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"ui://clock/view.html"}}`)},
			mcp.FrameEvent{Frame: readRes})
	}
	callRes := frame(9, 30, mcp.Inbound, mcp.KindResponse, "", "4", `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"12:00"}]}}`)
	callRes.ReplyTo, callRes.ReplyToMethod = 8, mcp.MethodToolsCall
	// The capture ends as a tap's does, with how the server ended: the
	// preview's answers must show over it.
	return append(evs,
		mcp.FrameEvent{Frame: frame(8, 25, mcp.Outbound, mcp.KindRequest, mcp.MethodToolsCall, "4", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"clock","arguments":{"tz":"UTC"}}}`)},
		mcp.FrameEvent{Frame: callRes},
		mcp.ExitEvent{Time: at(40), Exit: &mcp.ExitError{Code: 0, Expected: true}})
}

// captureProgram shows a capture as `mcpscope taps` does: a read-only
// source, with --no-open.
func captureProgram(t *testing.T, withRead bool) *program {
	t.Helper()
	m := New(Config{Target: "tap", Theme: "dark", NoOpen: true, NewSource: func() session.Source {
		return session.NewReplay(capturedCall(withRead), "stdio", "this is a tap's capture: nothing can be sent")
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the capture", func() bool { return m.ended && len(m.tools.Tools()) == 1 })
	return p
}

// openDetail opens the detail of the frame with this seq, as enter on its
// log row does.
func (p *program) openDetail(seq int64) {
	p.t.Helper()
	f := p.m.logPane.FrameBySeq(seq)
	if f == nil {
		p.t.Fatalf("no frame #%d in the log", seq)
	}
	p.send(panes.OpenFrameMsg{Frame: f})
	if p.m.modal != modalDetail {
		p.t.Fatalf("frame #%d's detail did not open", seq)
	}
}

func helpBar(m *Model) string {
	var keys []string
	for _, b := range m.ShortHelp() {
		keys = append(keys, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(keys, " · ")
}

// viewPage is the host page's end of a view's bridge, as the page's script
// speaks it: the view's messages go up the WebSocket, the host's come down.
type viewPage struct {
	t *testing.T
	c *websocket.Conn
}

func dialView(t *testing.T, viewURL string) *viewPage {
	t.Helper()
	origin, rest, ok := strings.Cut(strings.TrimPrefix(viewURL, "http://"), "/")
	if !ok {
		t.Fatalf("not a view URL: %s", viewURL)
	}
	ws := "ws://" + origin + "/" + strings.Replace(rest, "/view/", "/ws/", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + origin}}})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return &viewPage{t: t, c: c}
}

func (v *viewPage) send(msg string) {
	v.t.Helper()
	b, _ := json.Marshal(map[string]any{"from": "view", "msg": json.RawMessage(msg)})
	if err := v.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		v.t.Fatal(err)
	}
}

// next is the next message posted to the view. The bridge's goroutine may
// be waiting on the TUI (an open-link prompt), so the program keeps
// running while it waits.
func (v *viewPage) next(p *program) map[string]any {
	v.t.Helper()
	got := make(chan map[string]any, 1)
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, data, err := v.c.Read(ctx)
			cancel()
			if err != nil {
				got <- nil
				return
			}
			var env struct {
				Post map[string]any `json:"post"`
			}
			if json.Unmarshal(data, &env) == nil && env.Post != nil {
				got <- env.Post
				return
			}
		}
	}()
	var m map[string]any
	deadline := time.After(15 * time.Second)
	for m == nil {
		select {
		case m = <-got:
			if m == nil {
				v.t.Fatal("the bridge closed")
			}
		case msg := <-p.msgs:
			_, cmd := p.m.Update(msg)
			p.run(cmd)
		case <-deadline:
			v.t.Fatal("timed out waiting for the host's next message to the view")
		}
	}
	return m
}

// previewed presses the preview key on a frame's detail and returns the
// view's URL the status line shows.
func previewed(t *testing.T, p *program, seq int64) string {
	t.Helper()
	p.openDetail(seq)
	if h := helpBar(p.m); !strings.Contains(h, "P preview view") {
		t.Fatalf("frame #%d's help bar does not offer the preview: %s", seq, h)
	}
	p.keys("P")
	p.until("the view's URL", func() bool { return strings.Contains(p.m.note, "the view of clock is at http://127.0.0.1:") })
	if s := ansi.Strip(p.m.renderStatus()); !strings.Contains(s, "the view of clock is at http://127.0.0.1:") {
		t.Fatalf("the status line does not say where the view is: %q", s)
	}
	return p.m.note[strings.Index(p.m.note, "http://"):]
}

// In a tap's viewer, P on a tools/call (its request or its answer) opens
// its view from the capture: the captured arguments and result reach the
// view, and the view's own requests get an error that says the source is
// read-only, which is a row of the log.
func TestPreviewFromACapturedToolCall(t *testing.T) {
	p := captureProgram(t, true)
	// Frames that are no call of a tool with a view do not offer the key.
	p.openDetail(4)
	if h := helpBar(p.m); strings.Contains(h, "preview") {
		t.Errorf("tools/list's detail offers the preview: %s", h)
	}
	p.keys("P")
	if !strings.Contains(p.m.note, "not a tools/call") {
		t.Errorf("P on tools/list says %q", p.m.note)
	}
	p.keys("esc")

	for _, seq := range []int64{8, 9} { // the request, then its answer
		url := previewed(t, p, seq)
		p.keys("esc")
		v := dialView(t, url)
		v.send(`{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready","params":{}}`)
		if m := v.next(p); m["method"] != "ui/notifications/sandbox-resource-ready" || !strings.Contains(m["params"].(map[string]any)["html"].(string), "<p>clock</p>") {
			t.Fatalf("#%d: the view is not the captured HTML: %v", seq, m)
		}
		v.send(`{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"appInfo":{"name":"t","version":"1"},"appCapabilities":{},"protocolVersion":"2026-01-26"}}`)
		if m := v.next(p); m["id"] != float64(1) || m["result"] == nil {
			t.Fatalf("#%d: ui/initialize answered %v", seq, m)
		}
		v.send(`{"jsonrpc":"2.0","method":"ui/notifications/initialized","params":{}}`)
		if m := v.next(p); m["method"] != "ui/notifications/tool-input" || m["params"].(map[string]any)["arguments"].(map[string]any)["tz"] != "UTC" {
			t.Fatalf("#%d: the view got %v, want the captured arguments", seq, m)
		}
		if m := v.next(p); m["method"] != "ui/notifications/tool-result" || !strings.Contains(mustJSON(m["params"]), "12:00") {
			t.Fatalf("#%d: the view got %v, want the captured result", seq, m)
		}
		v.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"clock","arguments":{}}}`)
		m := v.next(p)
		e, _ := m["error"].(map[string]any)
		if m["id"] != float64(2) || e == nil || !strings.Contains(e["message"].(string), "read-only") {
			t.Fatalf("#%d: the view's tools/call answered %v, want the read-only error", seq, m)
		}
	}
	// The view's request and the host's read-only answer are rows of the
	// log, of kind app.
	p.m.logPane.SetFilter("kind:app")
	p.until("the view's rows", func() bool {
		s := ansi.Strip(p.m.logPane.View())
		return strings.Contains(s, "clock view → host: tools/call #2") && strings.Contains(s, "clock host → view: error #2 -32000")
	})
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// A capture without the client's read of the template has no view to
// show: the status line says so, and no host page is started.
func TestPreviewFromACaptureWithoutTheTemplate(t *testing.T) {
	p := captureProgram(t, false)
	p.openDetail(9)
	p.keys("P")
	if s := ansi.Strip(p.m.renderStatus()); !strings.Contains(s, "holds no resources/read of ui://clock/view.html") || p.m.noteOK {
		t.Errorf("the status line says %q", s)
	}
	if p.m.previewer != nil {
		t.Error("a host page was started for a view it cannot show")
	}
}
