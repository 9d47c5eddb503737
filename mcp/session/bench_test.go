package session

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

const logLine = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"bench","data":"message 12345"}}`

// BenchmarkStream is the cost of one inbound notification from the
// transport's sink to the reader of the stream: the client's own stream
// (client) against the session's, which forwards it and derives a
// LogMessageEvent from it (session). The difference is what the session
// layer costs per event.
func BenchmarkStream(b *testing.B) {
	for _, viaSession := range []bool{false, true} {
		name := "client"
		if viaSession {
			name = "session"
		}
		b.Run(name, func(b *testing.B) {
			srv := newScript(func(method string, _ json.RawMessage) string {
				if method == "initialize" {
					return initResult
				}
				return `{}`
			})
			c := mcp.NewClient(srv, mcp.Options{Era: mcp.EraLegacy})
			var events <-chan mcp.Event
			var s *Session
			if viaSession {
				s = New(context.Background(), c, Options{})
				events = s.Events()
			} else {
				events = c.Events()
			}
			var got atomic.Int64
			drained := make(chan struct{})
			go func() {
				defer close(drained)
				for ev := range events {
					if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Method == mcp.NotifyMessage {
						got.Add(1)
					}
				}
			}()
			if _, err := c.Connect(context.Background()); err != nil {
				b.Fatal(err)
			}
			line := []byte(logLine)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				srv.sink.Receive(append([]byte(nil), line...), "", "")
				n++
			}
			for deadline := time.Now().Add(30 * time.Second); got.Load() < int64(n); {
				if time.Now().After(deadline) {
					b.Fatalf("the stream delivered %d of %d notifications", got.Load(), n)
				}
				time.Sleep(50 * time.Microsecond)
			}
			b.StopTimer()
			if s != nil {
				_ = s.Close()
			} else {
				_ = c.Close()
			}
			<-drained
		})
	}
}
