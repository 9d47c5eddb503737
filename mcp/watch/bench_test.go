package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// BenchmarkReload is hot reload's budget: from a saved file to the new
// server's tools listed (what the TUI then draws, within its own 50 ms),
// against the demo server and, with MCPSCOPE_SERVER_EVERYTHING set, the
// npm server-everything. It reports the whole (save-ms) and its parts:
// the debounce and the old server's stop (stop-ms), the new server's
// start to its initialize answer (start-ms), and its listing (list-ms).
// The budget is 500 ms beside the build and the server's own start:
// save-ms minus start-ms.
//
//	go test ./mcp/watch -run X -bench Reload -benchtime 10x
func BenchmarkReload(b *testing.B) {
	b.Run("demo", func(b *testing.B) {
		benchReload(b, &mcp.StdioTransport{Command: os.Args[0], Args: []string{"demo-server"}})
	})
	b.Run("server-everything", func(b *testing.B) {
		script := os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
		if script == "" {
			b.Skip("set MCPSCOPE_SERVER_EVERYTHING (see .ci/run)")
		}
		benchReload(b, &mcp.StdioTransport{Command: "node", Args: []string{script}})
	})
}

func benchReload(b *testing.B, tr mcp.Transport) {
	dir := b.TempDir()
	src := filepath.Join(dir, "server.go")
	if err := os.WriteFile(src, []byte("v0"), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := NewSource(func() session.Source {
		return session.New(context.Background(), mcp.NewClient(tr, mcp.Options{Discover: true}), session.Options{})
	}, SourceOptions{Watch: Options{Paths: []string{src}}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	evs := s.Events()
	wait := func(ok func(mcp.Event) bool) mcp.Event {
		timeout := time.After(60 * time.Second)
		for {
			select {
			case ev := <-evs:
				if ok(ev) {
					return ev
				}
			case <-timeout:
				b.Fatal("timed out")
			}
		}
	}
	tools := func(ev mcp.Event) bool { l, ok := ev.(mcp.ListEvent); return ok && l.Method == mcp.MethodToolsList }
	if err := s.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	wait(func(ev mcp.Event) bool { return transport(mcp.TransportSurface)(ev) || tools(ev) })
	// Let the first connection's discovery finish.
	time.Sleep(200 * time.Millisecond)
	var stop, start, list, whole time.Duration
	b.ResetTimer()
	for i := range b.N {
		// A person's next save, not one right after the restart: those
		// the loop guard spaces out (loopGuard.backoff), which is not
		// what this measures.
		b.StopTimer()
		time.Sleep(loopWithin + 100*time.Millisecond)
		b.StartTimer()
		saved := time.Now()
		if err := os.WriteFile(src, []byte{byte('a' + i%26)}, 0o644); err != nil {
			b.Fatal(err)
		}
		restarted := wait(transport(mcp.TransportRestart)).At()
		hs := wait(func(ev mcp.Event) bool { _, ok := ev.(mcp.HandshakeEvent); return ok }).At()
		wait(tools)
		listed := time.Now()
		stop += restarted.Sub(saved)
		start += hs.Sub(restarted)
		list += listed.Sub(hs)
		whole += listed.Sub(saved)
		wait(transport(mcp.TransportSurface))
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(whole.Milliseconds())/n, "save-ms")
	b.ReportMetric(float64(stop.Milliseconds())/n, "stop-ms")
	b.ReportMetric(float64(start.Milliseconds())/n, "start-ms")
	b.ReportMetric(float64(list.Milliseconds())/n, "list-ms")
}
