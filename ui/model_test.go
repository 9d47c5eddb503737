package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/panes"
)

func newTestModel(theme string, w, h int) *Model {
	m := New(Config{Target: "test server", Theme: theme})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func feed(m *Model, evs []mcp.Event) {
	for len(evs) > 0 {
		n := min(len(evs), maxBatch)
		m.Update(eventsMsg{gen: m.gen, events: evs[:n]})
		evs = evs[n:]
	}
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "pgup":
			msg = tea.KeyPressMsg{Code: tea.KeyPgUp}
		default:
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		_, cmd := m.Update(msg)
		// Run the command chain the way the program would, for messages
		// that come back to the model (open a frame, close a modal).
		for cmd != nil {
			out := cmd()
			if out == nil {
				break
			}
			if _, isBatch := out.(tea.BatchMsg); isBatch {
				break
			}
			_, cmd = m.Update(out)
		}
	}
}

func content(m *Model) string { return m.View().Content }

func requireScreen(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("line %d is %d wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

func TestRootView(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 35}, {200, 60}} {
			t.Run(fmt.Sprintf("%s/%dx%d", theme, sz.w, sz.h), func(t *testing.T) {
				m := newTestModel(theme, sz.w, sz.h)
				feed(m, sessionEvents())
				v := content(m)
				requireScreen(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)
			})
		}
	}
}

func TestRootViewModals(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"detail", []string{"up", "enter"}},
		{"handshake", []string{"H"}},
		{"help", []string{"?"}},
		{"tab-caps", []string{"tab"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel("dark", 120, 35)
			feed(m, sessionEvents())
			press(m, c.keys...)
			v := content(m)
			requireScreen(t, v, 120, 35)
			golden.RequireEqual(t, ansi.Strip(v))
		})
	}
}

func TestDetailOpensAndCloses(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	press(m, "up", "enter")
	if m.modal != modalDetail || m.detail.Frame() == nil || m.detail.Frame().Seq != 4 {
		t.Fatalf("enter on tools/list did not open it (modal %d)", m.modal)
	}
	if !strings.Contains(ansi.Strip(content(m)), `"method": "tools/list"`) {
		t.Fatal("the detail does not show the frame")
	}
	press(m, "p")
	if m.detail.Frame().Seq != 5 {
		t.Fatalf("p opened #%d, want the response #5", m.detail.Frame().Seq)
	}
	press(m, "esc")
	if m.modal != modalNone {
		t.Fatal("esc did not close the detail")
	}
}

func TestTabsAtNarrowWidth(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	if !m.layout.tabbed {
		t.Fatal("80 columns should use tabs")
	}
	press(m, "tab", "tab")
	if m.focus != focusTools || !strings.Contains(ansi.Strip(content(m)), "echo") {
		t.Fatalf("two tabs should show the tools pane, focus=%v", m.focus)
	}
	wide := newTestModel("dark", 120, 35)
	if wide.layout.tabbed {
		t.Fatal("120 columns should show panes side by side")
	}
}

func TestMouseFocusAndWheel(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	feed(m, notifications(100, 200))
	c := m.layout.caps.Min
	m.Update(tea.MouseClickMsg{X: c.X + 2, Y: c.Y + 2, Button: tea.MouseLeft})
	if m.focus != focusCaps {
		t.Fatalf("click in caps focused %v", m.focus)
	}
	lg := m.layout.log.Min
	m.Update(tea.MouseWheelMsg{X: lg.X + 3, Y: lg.Y + 3, Button: tea.MouseWheelUp})
	if m.logPane.Following() {
		t.Fatal("wheel up over the log did not scroll it")
	}
	m.Update(tea.MouseClickMsg{X: lg.X + 3, Y: lg.Y + 3, Button: tea.MouseLeft})
	if m.focus != focusLog {
		t.Fatal("click in the log did not focus it")
	}
}

// Server strings must never reach the terminal raw.
func TestServerStringsAreEscaped(t *testing.T) {
	const (
		title = "\x1b]0;pwned\x07"
		clear = "\x1b[2J"
		clip  = "\x1b]52;c;aGVsbG8=\x07"
	)
	m := newTestModel("dark", 120, 35)
	evs := sessionEvents()
	hs := evs[6].(mcp.HandshakeEvent).Handshake
	hs.ServerInfo.Name = "evil" + title
	evil := frame(6, 30, mcp.Inbound, mcp.KindNotification, "notify"+title+clear, "", `{"jsonrpc":"2.0","method":"x","params":{"s":"`+clip+`"}}`)
	bad := frame(7, 31, mcp.Inbound, mcp.KindInvalid, "", "", "garbage "+clear+clip)
	bad.Problem = "not JSON" + clear
	evs = append(evs,
		mcp.FrameEvent{Frame: evil},
		mcp.FrameEvent{Frame: bad},
		mcp.StderrEvent{Time: at(32), Line: "err" + clip + clear},
		mcp.ListEvent{Time: at(33), Method: "tools/list", Items: []json.RawMessage{
			json.RawMessage(`{"name":"evil\u001b]0;pwned\u0007","description":"clears \u001b[2J and copies \u001b]52;c;aGk=\u0007","inputSchema":{"type":"object"}}`),
		}},
	)
	feed(m, evs)
	check := func(name, v string) {
		t.Helper()
		for _, seq := range []string{"\x1b]", "\x1b[2J", "\x07", "\x1bP"} {
			if strings.Contains(v, seq) {
				t.Errorf("%s: rendered view contains raw %q", name, seq)
			}
		}
		// Every ESC left must start an SGR sequence (lipgloss's colours).
		for i := strings.IndexByte(v, 0x1b); i >= 0; i = strings.IndexByte(v, 0x1b) {
			rest := v[i:]
			end := strings.IndexByte(rest, 'm')
			if !strings.HasPrefix(rest, "\x1b[") || end < 0 || strings.ContainsAny(rest[2:end], "JHK\x07]") {
				t.Fatalf("%s: non-SGR escape at %q", name, rest[:min(len(rest), 12)])
			}
			v = rest[end+1:]
		}
	}
	v := content(m)
	check("log", v)
	if s := ansi.Strip(v); !strings.Contains(s, `\x1b]0;pwned\x07`) || !strings.Contains(s, `\x1b[2J`) {
		t.Errorf("escaped sequences are not visible:\n%s", s)
	}
	check("window title", m.View().WindowTitle)
	// The detail of the evil frame, pretty and raw, and the invalid one.
	press(m, "up", "up", "enter")
	check("detail pretty", content(m))
	press(m, "v")
	check("detail raw", content(m))
	if !strings.Contains(ansi.Strip(content(m)), `\x1b]52;c;`) && !strings.Contains(ansi.Strip(content(m)), `\u001b]52;c;`) {
		t.Errorf("the clipboard sequence is not shown escaped:\n%s", ansi.Strip(content(m)))
	}
	press(m, "esc", "down", "enter")
	check("invalid detail", content(m))
	press(m, "esc", "H")
	check("handshake", content(m))
	press(m, "esc", "tab", "tab")
	v = content(m)
	check("tools", v)
	if !strings.Contains(ansi.Strip(v), `evil\x1b]0;pwned\x07`) {
		t.Errorf("the evil tool name is not shown escaped:\n%s", ansi.Strip(v))
	}
}

// A flood of 50,000 notifications in batches: all logged, the count
// shown, a key answered at once afterwards, memory bounded.
func TestFlood(t *testing.T) {
	const n = 50000
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	evs := notifications(1, n) // counted: the frames are what the log holds

	m := newTestModel("dark", 120, 35)
	start := time.Now()
	for len(evs) > 0 {
		k := min(len(evs), maxBatch)
		m.Update(eventsMsg{gen: m.gen, events: evs[:k]})
		_ = content(m) // the program renders after each batch
		evs = evs[k:]
	}
	flood := time.Since(start)

	if got := m.logPane.Frames(); got != n {
		t.Fatalf("log holds %d frames, want %d", got, n)
	}
	if !strings.Contains(ansi.Strip(content(m)), "50000 frames") {
		t.Fatal("the frame count is not shown")
	}
	start = time.Now()
	press(m, "up")
	_ = content(m)
	if key := time.Since(start); key > time.Second {
		t.Errorf("a key after the flood took %v", key)
	}
	if m.logPane.Following() {
		t.Error("the key was not handled")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	delta := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("flood of %d: %v (%d batches), heap in use +%.1f MB", n, flood, (n+maxBatch-1)/maxBatch, float64(delta)/1e6)
	if delta > 100<<20 {
		t.Errorf("heap grew by %d MB", delta>>20)
	}
	runtime.KeepAlive(m)
}

// The pump drains a burst into batches and re-arms once per batch.
func TestPumpBatches(t *testing.T) {
	ch := make(chan mcp.Event, 5000)
	for _, ev := range notifications(1, 5000) {
		ch <- ev
	}
	close(ch)
	var sizes []int
	for {
		msg := waitForEvents(1, ch)().(eventsMsg)
		sizes = append(sizes, len(msg.events))
		if msg.closed {
			break
		}
	}
	total := 0
	for _, s := range sizes {
		total += s
		if s > maxBatch {
			t.Fatalf("batch of %d exceeds %d", s, maxBatch)
		}
	}
	if total != 5000 || len(sizes) > 4 {
		t.Fatalf("5000 events came as %v", sizes)
	}
}

// A real program, a real client, a real (fake) server subprocess.
func TestProgramSmoke(t *testing.T) {
	tm := teatest.NewTestModel(t, New(Config{Theme: "dark", Target: "fake", NewClient: fakeClient("")}), teatest.WithInitialTermSize(120, 35))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("tools/list")) && bytes.Contains(b, []byte("ready"))
	}, teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	m := tm.FinalModel(t).(*Model)
	m.Close()
	if m.handshake == nil || m.logPane.Frames() < 4 {
		t.Fatalf("handshake %v, %d frames", m.handshake, m.logPane.Frames())
	}
}

// A server that exits leaves its status and stderr on screen.
func TestServerExitStaysOnScreen(t *testing.T) {
	m := New(Config{Theme: "dark", Target: "fake", NewClient: fakeClient("exit-at-start")})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	runUntil(t, m, m.Init(), func() bool { return m.ended })
	s := ansi.Strip(content(m))
	for _, want := range []string{"exited with status 3", "fatal: config file not found", "r to restart"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// r starts the server again, behind a separator.
	runUntil(t, m, m.reconnect(), func() bool { return m.gen == 2 && m.ended })
	if s := ansi.Strip(content(m)); !strings.Contains(s, "reconnected") {
		t.Errorf("no separator after reconnect:\n%s", s)
	}
	m.Close()
}

func fakeClient(behaviours string) func() *mcp.Client {
	return func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], Env: []string{mcptest.EnvVar + "=" + behaviours},
			Grace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond}
		return mcp.NewClient(tr, mcp.Options{Discover: true, Timeout: 5 * time.Second})
	}
}

// runUntil plays the program loop without a terminal: run commands (in
// goroutines, like Bubble Tea) and feed their messages to Update until
// done is true.
func runUntil(t *testing.T, m *Model, cmd tea.Cmd, done func() bool) {
	t.Helper()
	msgs := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			if msg != nil {
				msgs <- msg
			}
		}()
	}
	run(cmd)
	deadline := time.After(10 * time.Second)
	for !done() {
		select {
		case msg := <-msgs:
			_, c := m.Update(msg)
			run(c)
		case <-deadline:
			t.Fatalf("timed out; screen:\n%s", ansi.Strip(content(m)))
		}
	}
}

// The help bar shows every key of the focused pane and the global keys,
// even at 80 columns.
func TestHelpBarShowsEveryKey(t *testing.T) {
	for _, w := range []int{80, 120} {
		m := newTestModel("dark", w, 24)
		feed(m, sessionEvents())
		lines := strings.Split(ansi.Strip(content(m)), "\n")
		bar := strings.Join(lines[m.layout.help.Min.Y:], "\n")
		for _, b := range m.ShortHelp() {
			if !b.Enabled() {
				continue // shown only when it applies (X: only while a request runs)
			}
			if want := b.Help().Key + " " + b.Help().Desc; !strings.Contains(bar, want) {
				t.Errorf("w=%d: help bar lacks %q:\n%s", w, want, bar)
			}
		}
	}
}

// A tool call's outcome opens the result view and is summed up in the
// status bar; without a server the call fails locally, saying so.
func TestToolCallResult(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	m.Update(toolCalledMsg{result: panes.ToolResultMsg{Name: "echo", Latency: 21 * time.Millisecond,
		Result: json.RawMessage(`{"content":[{"type":"text","text":"hello back"}]}`)}})
	s := ansi.Strip(content(m))
	if m.modal != modalResult || !strings.Contains(s, "hello back") || !strings.Contains(s, "tools/call echo ok in 21ms") {
		t.Fatalf("result not shown (modal %d):\n%s", m.modal, s)
	}
	press(m, "esc")
	if m.modal != modalNone {
		t.Fatal("esc did not close the result")
	}
	_, cmd := m.Update(panes.CallToolMsg{Name: "echo", Args: json.RawMessage(`{}`)})
	m.Update(cmd())
	if s := ansi.Strip(content(m)); !strings.Contains(s, "tools/call echo failed") {
		t.Fatalf("a call without a server should fail visibly:\n%s", s)
	}
}

// "auto" follows the terminal's background; a pinned theme ignores it;
// NO_COLOR draws no colour at all.
func TestThemeSelection(t *testing.T) {
	white := tea.BackgroundColorMsg{Color: color.White}
	auto := New(Config{Theme: "auto"})
	auto.Update(white)
	if auto.theme.IsDark {
		t.Error("auto stayed dark on a white background")
	}
	pinned := New(Config{Theme: "dark"})
	pinned.Update(white)
	if !pinned.theme.IsDark {
		t.Error("--theme dark switched to light")
	}
	plain := New(Config{Theme: "auto", NoColor: true})
	plain.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	feed(plain, sessionEvents())
	if v := content(plain); strings.Contains(v, "38;2;") || strings.Contains(v, "48;2;") {
		t.Error("NO_COLOR view has colours")
	}
}

// At 80 columns a click on the tab row switches tabs, using the same
// geometry the tab row was drawn with.
func TestTabClick(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	row := strings.Split(ansi.Strip(content(m)), "\n")[m.layout.tabs.Min.Y]
	x := strings.Index(row, "Tools")
	if x < 0 {
		t.Fatalf("no Tools tab in %q", row)
	}
	m.Update(tea.MouseClickMsg{X: ansi.StringWidth(row[:x]), Y: m.layout.tabs.Min.Y, Button: tea.MouseLeft})
	if m.focus != focusTools {
		t.Fatalf("click on the Tools tab focused %v", m.focus)
	}
}

// In the log's exchanges view (x) enter shows the request and its answer
// together, over the body like every modal; esc goes back to the log.
func TestExchangeOpensBothFrames(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	press(m, "x")
	if !m.logPane.PairedView() {
		t.Fatal("x did not switch the log to exchanges")
	}
	// The last row is the tools/list exchange: its answer is folded in.
	press(m, "enter")
	if m.modal != modalContent {
		t.Fatalf("enter on an exchange opened modal %d", m.modal)
	}
	v := ansi.Strip(content(m))
	for _, want := range []string{"tools/list #2 · ✓ 3ms", `"method": "tools/list"`, `"name": "echo"`} {
		if !strings.Contains(v, want) {
			t.Errorf("the exchange lacks %q:\n%s", want, v)
		}
	}
	requireScreen(t, content(m), 120, 35)
	press(m, "esc")
	if m.modal != modalNone || !m.logPane.PairedView() {
		t.Fatal("esc did not go back to the exchanges")
	}
}
