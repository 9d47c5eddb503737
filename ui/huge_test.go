package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/panes"
)

// memServer is an MCP server in memory for the huge-result benchmark: its
// answers reach the client's sink as a transport's reader hands them over
// (one goroutine, wire order), with no pipe or process in the way. It
// serves one tool, "big", whose result is fixed.
type memServer struct {
	result string // the tools/call result member

	mu     sync.Mutex
	handed time.Time // when the last tools/call answer went to the sink
}

// handedAt is when the last tools/call answer was handed to the client.
func (s *memServer) handedAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handed
}

func (s *memServer) Name() string { return "stdio" }

func (s *memServer) Start(_ context.Context, sink mcp.Sink) (mcp.Conn, error) {
	c := &memConn{s: s, sink: sink, lines: make(chan memLine, 16), done: make(chan struct{})}
	go func() {
		for l := range c.lines {
			if l.call {
				s.mu.Lock()
				s.handed = time.Now()
				s.mu.Unlock()
			}
			sink.Receive(l.raw, "", "")
		}
		sink.Closed(nil)
		close(c.done)
	}()
	return c, nil
}

type memLine struct {
	raw  []byte
	call bool // the answer to tools/call
}

type memConn struct {
	s     *memServer
	sink  mcp.Sink
	mu    sync.Mutex
	shut  bool
	lines chan memLine
	done  chan struct{}
}

func (c *memConn) Write(_ context.Context, raw []byte) error {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return err
	}
	if req.ID == nil {
		return nil
	}
	var result string
	switch req.Method {
	case "initialize":
		result = `{"protocolVersion":"` + req.Params.ProtocolVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"mem","version":"1"}}`
	case "tools/list":
		result = `{"tools":[{"name":"big","inputSchema":{"type":"object"}}]}`
	case "tools/call":
		result = c.s.result
	default:
		result = `{}`
	}
	// One allocation of the line's size, so a test can tell the server's
	// bytes from what the client allocates.
	line := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(req.ID)+len(result))
	line = append(append(append(append(append(line, `{"jsonrpc":"2.0","id":`...), req.ID...), `,"result":`...), result...), '}')
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shut {
		return mcp.ErrClosed
	}
	c.lines <- memLine{raw: line, call: req.Method == "tools/call"}
	return nil
}

func (c *memConn) Close(context.Context) error {
	c.mu.Lock()
	if !c.shut {
		c.shut = true
		close(c.lines)
	}
	c.mu.Unlock()
	<-c.done
	return nil
}

// hugeText is n bytes of text in lines of about 80 bytes.
func hugeText(n int) string {
	var b strings.Builder
	b.Grow(n + 100)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %07d: the quick brown fox jumps over the lazy dog, again and again\\n", i)
	}
	return b.String()
}

// pacedLoop plays the program loop without a terminal through the Paced
// wrapper: commands run on goroutines, their messages go to Update, and
// View follows every Update as in Bubble Tea, until done(view) holds.
type pacedLoop struct {
	p    *Paced
	msgs chan tea.Msg
}

func newPacedLoop(m *Model) *pacedLoop {
	return &pacedLoop{p: m.Paced(), msgs: make(chan tea.Msg, 256)}
}

func (l *pacedLoop) run(c tea.Cmd) {
	if c == nil {
		return
	}
	go func() {
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				l.run(c)
			}
			return
		}
		if msg != nil {
			l.msgs <- msg
		}
	}()
}

func (l *pacedLoop) until(tb testing.TB, limit time.Duration, done func(tea.View) bool) {
	tb.Helper()
	deadline := time.After(limit)
	for {
		select {
		case msg := <-l.msgs:
			_, c := l.p.Update(msg)
			l.run(c)
			if done(l.p.View()) {
				return
			}
		case <-deadline:
			tb.Fatalf("timed out; screen:\n%s", l.p.View().Content)
		}
	}
}

// startMem connects a model to a memServer and waits for its tool list.
func startMem(tb testing.TB, result string) (*Model, *memServer, *pacedLoop) {
	srv := &memServer{result: result}
	m := New(Config{Target: "mem", Theme: "dark", NewClient: func() *mcp.Client {
		// As runTUI makes it: the doctor reads every frame.
		return mcp.NewClient(srv, mcp.Options{Discover: true, Timeout: 30 * time.Second, Analyzer: doctor.New(doctor.Options{})})
	}})
	tb.Cleanup(m.Close)
	l := newPacedLoop(m)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	l.run(m.Init())
	l.until(tb, 10*time.Second, func(tea.View) bool { return len(m.lists[mcp.MethodToolsList]) == 1 })
	return m, srv, l
}

// callHuge calls "big" through the UI, as the tools pane does, and
// returns how long after the response frame arrived its first line was on
// screen.
func callHuge(tb testing.TB, srv *memServer, l *pacedLoop, firstLine string) time.Duration {
	_, cmd := l.p.Update(panes.CallToolMsg{Name: "big", Args: json.RawMessage(`{}`)})
	l.run(cmd)
	l.until(tb, 60*time.Second, func(v tea.View) bool { return strings.Contains(v.Content, firstLine) })
	return time.Since(srv.handedAt())
}

// BenchmarkHugeResultToScreen is a 20 MB result: from the
// response's bytes handed to the client to its first lines drawn in the
// result view (reader checks, doctor, session, UI, result pane), with its
// allocations. ms-to-screen is the time from the frame's arrival to the
// frame drawn that shows it.
func BenchmarkHugeResultToScreen(b *testing.B) {
	text := hugeText(20 << 20)
	result := `{"content":[{"type":"text","text":"` + text + `"}]}`
	m, srv, l := startMem(b, result)
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	var total time.Duration
	cpu := processCPU()
	for b.Loop() {
		total += callHuge(b, srv, l, "line 0000000: the quick brown fox")
		m.closeModal()
	}
	reportToScreen(b, total, processCPU()-cpu)
}

// reportToScreen reports the time from the response's arrival to its
// first line drawn, and the CPU time per call (all of it: the server's
// side too, which is building and handing over the line).
func reportToScreen(b *testing.B, toScreen, cpu time.Duration) {
	b.ReportMetric(float64(toScreen.Milliseconds())/float64(b.N), "ms-to-screen")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// hugeJSONText is n bytes of JSON (an array of records), as a tool that
// returns a query's rows as text sends it; the result view pretty-prints
// it.
func hugeJSONText(n int) string {
	var b strings.Builder
	b.Grow(n + 200)
	b.WriteString(`[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(`,`)
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"row %07d","tags":["a","b"],"score":%d.5,"ok":true}`, i, i, i%100)
	}
	b.WriteString(`]`)
	return b.String()
}

// BenchmarkHugeJSONResultToScreen is the 20 MB result whose text is JSON:
// the view shows it pretty-printed.
func BenchmarkHugeJSONResultToScreen(b *testing.B) {
	text, _ := json.Marshal(hugeJSONText(20 << 20))
	result := `{"content":[{"type":"text","text":` + string(text) + `}]}`
	m, srv, l := startMem(b, result)
	_ = m
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	var total time.Duration
	cpu := processCPU()
	for b.Loop() {
		total += callHuge(b, srv, l, "row 0000000")
		m.closeModal()
	}
	reportToScreen(b, total, processCPU()-cpu)
}

// A huge result is read without copies on its way to the screen: the
// frame's bytes (the reader's), the text decoded once for the view, and
// small change; each copy is a decode this test catches. ms-to-screen is
// logged; BenchmarkHugeResultToScreen measures it.
func TestHugeResultIsDecodedOnceToShow(t *testing.T) {
	const size = 8 << 20
	text := hugeText(size)
	result := `{"content":[{"type":"text","text":"` + text + `"}]}`
	m, srv, l := startMem(t, result)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	took := callHuge(t, srv, l, "line 0000000: the quick brown fox")
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc - uint64(len(result)) // the server's line
	ratio := float64(allocated) / float64(len(result))
	t.Logf("a %d MB result: on screen %v after it was handed over; %.1f MB allocated on the way (%.2fx its size)",
		len(result)>>20, took.Round(time.Millisecond), float64(allocated)/(1<<20), ratio)
	// The frame (1x) and the decoded text (under 1x: its escapes are
	// gone) are needed, and the line index (0.3x for 80-byte lines); the
	// guard leaves twice that, as a loaded machine's collector may keep
	// more, and BenchmarkHugeResultToScreen reports the figure.
	if ratio > 3 {
		t.Errorf("%.2fx the result's size allocated between its bytes and the screen: something decodes or copies it again", ratio)
	}
	if !strings.Contains(m.result.View(), "line 0000001: the quick brown fox") {
		t.Fatalf("the result view does not show the text's lines:\n%s", m.result.View())
	}
}

// rssAnonKiB is this process's private memory (RssAnon) in KiB, or 0
// where /proc does not say.
func rssAnonKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// A 20 MB JSON result costs about its size in private memory, not a
// multiple of it: through a real stdio pipe (the line kept where it was
// read, as the TUI keeps it), the doctor, the session, the log and the
// result view's pretty-printed lines, to its first screen and its token
// count. The budget is 1.5x the response above what was held before the
// call: the frame's bytes, and half as much again for everything else.
// What comes on top of the frame is guarded at twice today's (0.42-0.57x
// the response): at 1.2x; the decoded copy of the text, and the line
// held twice while it was read, took it to 1.65-1.9x (.ci/huge-tui.sh
// measures the real TUI).
func TestHugeJSONResultPrivateMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads RssAnon from /proc")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is part of RssAnon")
	}
	if os.Getenv("MCPSCOPE_MEMORY_ALONE") == "" {
		// Measured in a process of its own: what the tests before it
		// left live would raise the collector's goal, and so the peak.
		cmd := exec.Command(os.Args[0], "-test.run=^TestHugeJSONResultPrivateMemory$", "-test.v")
		cmd.Env = append(os.Environ(), "MCPSCOPE_MEMORY_ALONE=1")
		out, err := cmd.CombinedOutput()
		for l := range strings.Lines(string(out)) {
			if strings.Contains(l, "huge_test.go") {
				t.Log(strings.TrimSpace(l))
			}
		}
		if err != nil {
			t.Fatalf("the measuring process failed (%v):\n%s", err, out)
		}
		return
	}
	// As runTUI sets it.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	const size = 20 << 20
	m := New(Config{Target: "big", Theme: "dark", NewClient: func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], KeepLongLines: true, Grace: 200 * time.Millisecond,
			Env: []string{mcptest.EnvVar + "=big-json", "MCPSCOPE_FAKE_BIG=" + strconv.Itoa(size)}}
		return mcp.NewClient(tr, mcp.Options{Discover: true, Timeout: 30 * time.Second, Analyzer: doctor.New(doctor.Options{})})
	}})
	t.Cleanup(m.Close)
	l := newPacedLoop(m)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	l.run(m.Init())
	l.until(t, 10*time.Second, func(tea.View) bool { return len(m.lists[mcp.MethodToolsList]) == 1 })
	// The tokenizer's tables are built by the first count (the tools
	// pane's, of the list, which may still be under way): what the TUI
	// holds before any result.
	tokens.Count("warm")
	runtime.GC()
	debug.FreeOSMemory()
	idle := rssAnonKiB()
	var peak atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			peak.Store(max(peak.Load(), rssAnonKiB()))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	_, cmd := l.p.Update(panes.CallToolMsg{Name: "echo", Args: json.RawMessage(`{}`)})
	l.run(cmd)
	// Shown, and counted (the token count runs after the first screen).
	l.until(t, 60*time.Second, func(v tea.View) bool {
		return strings.Contains(v.Content, "row 0000000") && strings.Contains(v.Content, "tok to the model")
	})
	close(stop)
	<-stopped
	// The response is the biggest frame the log holds.
	var line int64
	store := m.logPane.Store()
	for i := range store.Len() {
		var f mcp.Frame
		store.View(i, &f)
		line = max(line, int64(len(f.Raw)))
	}
	if line < size {
		t.Fatalf("the biggest frame logged is %d bytes, the response is over %d", line, size)
	}
	grew := (peak.Load() - idle) << 10
	t.Logf("a %.1f MiB response: private memory %.1f MiB before the call, %.1f MiB at its peak: %.2fx the response",
		float64(line)/(1<<20), float64(idle)/1024, float64(peak.Load())/1024, float64(grew)/float64(line))
	if beyond := grew - line; beyond > line*6/5 {
		t.Errorf("private memory grew by %.1f MiB for a %.1f MiB response: %.2fx the response beside the frame's own bytes (budget 0.5x, guarded at 1.2x): the result is held more than once",
			float64(grew)/(1<<20), float64(line)/(1<<20), float64(beyond)/float64(line))
	}
}
