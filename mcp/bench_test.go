package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// nameOnly is a transport that is never started: the benchmarks feed the
// client's sink directly, as the stdio reader would.
type nameOnly struct{}

func (nameOnly) Name() string { return "bench" }
func (nameOnly) Start(context.Context, Sink) (Conn, error) {
	return nil, fmt.Errorf("not for starting")
}

// benchClient is a client whose event stream is drained, so ingestion is
// measured end to end: classify, correlate, publish, deliver.
func benchClient(b *testing.B) (*Client, func()) {
	c := NewClient(nameOnly{}, Options{})
	c.connected = true
	done := make(chan struct{})
	go func() {
		for range c.Events() {
		}
		close(done)
	}()
	return c, func() { c.finish(ErrClosed); <-done }
}

const notification = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"bench","data":"message 12345"}}`

// BenchmarkIngestNotification is the cost of one inbound notification,
// from raw line to event delivered.
func BenchmarkIngestNotification(b *testing.B) {
	c, stop := benchClient(b)
	defer stop()
	sink := clientSink{c}
	line := []byte(notification)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		sink.Receive(append([]byte(nil), line...), "", "")
	}
}

// BenchmarkIngestResponse is the cost of a request and its correlated
// response, the common case of a session.
func BenchmarkIngestResponse(b *testing.B) {
	c, stop := benchClient(b)
	defer stop()
	sink := clientSink{c}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := intID(int64(i + 1))
		c.mu.Lock()
		c.pending[id] = &pending{method: "tools/call", ch: make(chan *Response, 1)}
		c.mu.Unlock()
		sink.Receive([]byte(`{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[{"type":"text","text":"ok"}]}}`), "", "")
	}
}

// TestMemoryPerFrame reports what the client keeps per frame once the UI
// holds it (the Frame and its bytes), for 50,000 notifications. It fails
// above 1 KiB per frame, several times the measured figure.
func TestMemoryPerFrame(t *testing.T) {
	const n = 50_000
	c := NewClient(nameOnly{}, Options{})
	c.connected = true
	kept := make([]*Frame, 0, n)
	done := make(chan struct{})
	go func() {
		for ev := range c.Events() {
			if fe, ok := ev.(FrameEvent); ok {
				kept = append(kept, fe.Frame)
			}
		}
		close(done)
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sink := clientSink{c}
	for i := 0; i < n; i++ {
		sink.Receive([]byte(strings.Replace(notification, "12345", fmt.Sprint(i), 1)), "", "")
	}
	c.finish(ErrClosed)
	<-done
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%d frames kept: %.0f bytes per frame (the raw line is %d bytes)", len(kept), per, len(notification))
	if len(kept) != n {
		t.Fatalf("kept %d frames, want %d", len(kept), n)
	}
	if per > 1024 {
		t.Errorf("%.0f bytes per frame", per)
	}
	runtime.KeepAlive(kept)
}

// BenchmarkLargePayload is a 20 MB response line: read off the pipe,
// classified and correlated.
func BenchmarkLargePayload(b *testing.B) {
	text := strings.Repeat("x", 20<<20)
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + text + `"}]}}` + "\n")
	c, stop := benchClient(b)
	defer stop()
	sink := clientSink{c}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		br := bufio.NewReaderSize(bytes.NewReader(line), 64<<10)
		raw, _, err := readLine(br, 256<<20)
		if err != nil {
			b.Fatal(err)
		}
		c.mu.Lock()
		c.pending["1"] = &pending{method: "tools/call", ch: make(chan *Response, 1)}
		c.mu.Unlock()
		sink.Receive(raw, "", "")
	}
}
