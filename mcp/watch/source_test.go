package watch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/session"
)

const (
	toolsV1 = `[{"name":"echo","x-answer":"one","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}]`
	// v2: echo needs a new property (breaking), answers otherwise, and a
	// tool is added (compatible).
	toolsV2 = `[{"name":"echo","x-answer":"two","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"lang":{"type":"string"}},"required":["message","lang"]}},` +
		`{"name":"reverse","inputSchema":{"type":"object"}}]`
)

// fakeSource is a reloading source over the fake server whose tools are
// the file tools.
func fakeSource(t *testing.T, tools string, o SourceOptions) *Source {
	t.Helper()
	newInner := func() session.Source {
		c := mcp.NewClient(&mcp.StdioTransport{Command: os.Args[0],
			Env: []string{mcptest.EnvVar + "=tools-file", mcptest.ToolsFileVar + "=" + tools}}, mcp.Options{Discover: true})
		return session.New(context.Background(), c, session.Options{})
	}
	s, err := NewSource(newInner, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// events collects a source's stream.
type events struct {
	ch   chan mcp.Event
	seen []mcp.Event
}

func collect(s *Source) *events {
	e := &events{ch: make(chan mcp.Event, 4096)}
	go func() {
		for ev := range s.Events() {
			e.ch <- ev
		}
		close(e.ch)
	}()
	return e
}

// until reads events until ok says one is the one awaited.
func (e *events) until(t *testing.T, what string, ok func(mcp.Event) bool) mcp.Event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, open := <-e.ch:
			if !open {
				t.Fatalf("the stream ended before %s", what)
			}
			e.seen = append(e.seen, ev)
			if ok(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s within 20 s", what)
		}
	}
}

func toolsListed(n int) func(mcp.Event) bool {
	return func(ev mcp.Event) bool {
		l, ok := ev.(mcp.ListEvent)
		return ok && l.Method == mcp.MethodToolsList && l.Err == nil && len(l.Items) == n
	}
}

func transport(kind string) func(mcp.Event) bool {
	return func(ev mcp.Event) bool { te, ok := ev.(mcp.TransportEvent); return ok && te.Kind == kind }
}

func opDone(ev mcp.Event) bool { _, ok := ev.(session.OpDoneEvent); return ok }

func TestSourceRestartsOnAChangeAndSaysWhatChanged(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	write(t, tools, toolsV1)
	var recorded []mcp.Event
	s := fakeSource(t, tools, SourceOptions{Watch: Options{Paths: []string{tools}}, Rerun: true,
		Record: func(ev mcp.Event) { recorded = append(recorded, ev) }})
	e := collect(s)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.until(t, "the first tools/list", toolsListed(1))
	if _, err := s.CallTool("echo", json.RawMessage(`{"message":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	e.until(t, "the call's answer", opDone)

	write(t, tools, toolsV2)
	restart := e.until(t, "the restart row", transport(mcp.TransportRestart)).(mcp.TransportEvent)
	if !strings.HasPrefix(restart.Summary, "restarted after "+tools+" changed") {
		t.Errorf("restart row %q", restart.Summary)
	}
	// The old server's end is mcpscope's doing, and says so.
	var exit *mcp.ExitError
	for _, ev := range e.seen {
		if x, ok := ev.(mcp.ExitEvent); ok {
			exit = x.Exit
		}
	}
	if exit == nil || exit.StoppedFor != "the reload" || !strings.HasPrefix(exit.Error(), "mcpscope stopped the server for the reload") {
		t.Errorf("the old server's exit: %+v", exit)
	}
	for _, ev := range e.seen {
		if st, ok := ev.(mcp.StateEvent); ok && st.State == mcp.StateClosed && st.Detail != "mcpscope stopped the server for the reload" {
			t.Errorf("the old connection's end: %q", st.Detail)
		}
	}
	mark := len(e.seen)
	e.until(t, "the new tools/list", toolsListed(2))
	for _, ev := range e.seen[mark:] {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			if fe.Frame.Seq != 1 {
				t.Errorf("the first frame after the separator is #%d: the old session's events came after it", fe.Frame.Seq)
			}
			break
		}
	}
	surface := e.until(t, "the surface row", transport(mcp.TransportSurface)).(mcp.TransportEvent)
	if !strings.Contains(surface.Summary, "1 breaking") || !strings.Contains(surface.Summary, "new tool reverse") {
		t.Errorf("surface row %q", surface.Summary)
	}
	if surface.Field("breaking") == "" || !strings.Contains(surface.Field("breaking"), "lang") {
		t.Errorf("surface fields %v", surface.Fields)
	}
	diag := e.until(t, "the breaking change's diagnostic", func(ev mcp.Event) bool {
		d, ok := ev.(mcp.DiagnosticEvent)
		return ok && d.Diagnostic.Rule == BreakingRule
	}).(mcp.DiagnosticEvent)
	if !strings.Contains(diag.Diagnostic.Message, "lang") {
		t.Errorf("diagnostic %q", diag.Diagnostic.Message)
	}
	rerun := e.until(t, "the rerun's comparison", func(ev mcp.Event) bool { _, ok := ev.(RerunEvent); return ok }).(RerunEvent)
	if len(rerun.Differences) != 1 || rerun.Differences[0].Path != "/result/content/0/text" ||
		rerun.Differences[0].Recorded != `"one"` || rerun.Differences[0].Replayed != `"two"` {
		t.Errorf("rerun differences %+v", rerun.Differences)
	}
	done := e.until(t, "the rerun's answer", opDone).(session.OpDoneEvent)
	if done.Op.ID != rerun.Op {
		t.Errorf("the rerun event names op %d, the answer after it is op %d", rerun.Op, done.Op.ID)
	}
	kinds := map[string]bool{}
	for _, ev := range recorded {
		if te, ok := ev.(mcp.TransportEvent); ok {
			kinds[te.Kind] = true
		}
	}
	if !kinds[mcp.TransportRestart] || !kinds[mcp.TransportSurface] {
		t.Errorf("recorded %v", kinds)
	}
}

// A failed build is a row with its output, and the server that runs goes
// on answering: nothing is restarted.
func TestSourceKeepsTheServerWhenTheBuildFails(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	write(t, tools, toolsV1)
	s := fakeSource(t, tools, SourceOptions{Watch: Options{Paths: []string{tools}}, Dir: dir,
		Build: `echo checking; test -f ok || { echo "tools.json: not ok" >&2; exit 3; }`})
	e := collect(s)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.until(t, "the first tools/list", toolsListed(1))
	write(t, tools, toolsV2)
	e.until(t, "the build's start", func(ev mcp.Event) bool { _, ok := ev.(BuildingEvent); return ok })
	failed := e.until(t, "the failed build's row", transport(mcp.TransportBuild)).(mcp.TransportEvent)
	if failed.Err == nil || failed.Summary != "build failed (exit status 3): tools.json: not ok; the running server is kept" {
		t.Errorf("build row %q (%v)", failed.Summary, failed.Err)
	}
	var out []string
	for _, f := range failed.Fields {
		if f.Key == "" {
			out = append(out, f.Value)
		}
	}
	if strings.Join(out, "\n") != "checking\ntools.json: not ok" {
		t.Errorf("output fields %q", out)
	}
	if _, err := s.CallTool("echo", json.RawMessage(`{"message":"still there?"}`)); err != nil {
		t.Fatal(err)
	}
	done := e.until(t, "the old server's answer", opDone).(session.OpDoneEvent)
	if done.Err != nil || done.Status != session.StatusOK {
		t.Fatalf("the old server did not answer after the failed build: %v", done.Err)
	}
	for _, ev := range e.seen {
		if transport(mcp.TransportRestart)(ev) {
			t.Fatal("the server was restarted after a failed build")
		}
	}
	// Fixed: the next change restarts.
	write(t, filepath.Join(dir, "ok"), "")
	write(t, tools, toolsV1)
	e.until(t, "the restart after the fix", transport(mcp.TransportRestart))
	e.until(t, "the surface row", transport(mcp.TransportSurface))
}

// The reload key restarts as a change does, without one.
func TestSourceReloadsWhenAsked(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	write(t, tools, toolsV1)
	s := fakeSource(t, tools, SourceOptions{})
	e := collect(s)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.until(t, "the first tools/list", toolsListed(1))
	s.Reload("r pressed")
	restart := e.until(t, "the restart row", transport(mcp.TransportRestart)).(mcp.TransportEvent)
	if restart.Summary != "restarted: r pressed" {
		t.Errorf("restart row %q", restart.Summary)
	}
	surface := e.until(t, "the surface row", transport(mcp.TransportSurface)).(mcp.TransportEvent)
	if !strings.HasPrefix(surface.Summary, "no change") {
		t.Errorf("surface row %q", surface.Summary)
	}
}
