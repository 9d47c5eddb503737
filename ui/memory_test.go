package ui

import (
	tea "charm.land/bubbletea/v2"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// floodBatch is notifications/message frames seq..seq+n-1 as a live
// session delivers them: each frame, then the LogMessageEvent derived from
// it (its params a view of the frame's bytes), as the flood server sends
// them (about 100 bytes each).
func floodBatch(seq int64, n int) []mcp.Event {
	evs := make([]mcp.Event, 0, 2*n)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)
	for i := range n {
		s := seq + int64(i)
		params := fmt.Sprintf(`{"level": "info", "data": "message %d"}`, s)
		raw := []byte(`{"jsonrpc": "2.0", "method": "notifications/message", "params": ` + params + `}`)
		f := &mcp.Frame{Seq: s, Time: t0.Add(time.Duration(s) * 20 * time.Microsecond), Dir: mcp.Inbound, Transport: "stdio",
			Kind: mcp.KindNotification, Method: mcp.NotifyMessage, Raw: raw}
		evs = append(evs, mcp.FrameEvent{Frame: f},
			session.LogMessageEvent{Time: f.Time, Params: json.RawMessage(raw[len(raw)-len(params)-1 : len(raw)-1]), Frame: f})
	}
	return evs
}

// modelCost feeds n flood notifications to the root model in batches (the
// batches are let go as they are applied, as the program does) and
// returns what the model keeps per frame: the Go heap it grew by, and the
// log's store outside the heap, and the raw bytes per frame.
func modelCost(n int) (heap, offHeap, raw float64) {
	m := newTestModel("dark", 120, 35)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rawBytes := 0
	for seq := int64(1); seq <= int64(n); seq += maxBatch / 2 {
		evs := floodBatch(seq, min(maxBatch/2, n-int(seq)+1))
		for _, ev := range evs {
			if fe, ok := ev.(mcp.FrameEvent); ok {
				rawBytes += len(fe.Frame.Raw)
			}
		}
		m.Update(eventsMsg{gen: m.gen, events: evs})
	}
	_ = m.View()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if got := m.logPane.Frames(); got != n {
		panic(fmt.Sprintf("the log holds %d frames, want %d", got, n))
	}
	if got := m.serverLog.Len(); got != n {
		panic(fmt.Sprintf("the server log holds %d lines, want %d", got, n))
	}
	heap = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	offHeap = float64(m.logPane.Store().Mapped()) / float64(n)
	runtime.KeepAlive(m)
	return heap, offHeap, float64(rawBytes) / float64(n)
}

// TestMemoryPerLoggedFrame bounds what the TUI keeps for one notification
// of a flood: the log's row, the server log's line and the frame in the
// log's store, heap and arena together. Measured: 185 bytes for a
// 107-byte notification at 100,000 (59 of heap, 126 in the store's
// arena); before the store it was 531 bytes of heap, which the collector
// lets grow to twice that. The bound is the raw bytes plus 128.
func TestMemoryPerLoggedFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds 100,000 frames")
	}
	heap, off, raw := modelCost(100_000)
	t.Logf("per frame: %.0f bytes of heap + %.0f in the store's arena = %.0f (raw %.0f)", heap, off, heap+off, raw)
	if heap+off > raw+128 {
		t.Errorf("a logged notification costs %.0f bytes for %.0f bytes of raw (bound: raw + 128)", heap+off, raw)
	}
}

// BenchmarkLogFlood is 10,000 flood notifications into the root model;
// bytes/frame is what it keeps per frame (heap and the store's arena).
func BenchmarkLogFlood(b *testing.B) {
	batches := make([][]mcp.Event, 0)
	for seq := int64(1); seq <= 10_000; seq += maxBatch / 2 {
		batches = append(batches, floodBatch(seq, min(maxBatch/2, 10_001-int(seq))))
	}
	b.ReportAllocs()
	for b.Loop() {
		m := newTestModel("dark", 120, 35)
		for _, evs := range batches {
			m.Update(eventsMsg{gen: m.gen, events: evs})
		}
	}
	b.StopTimer()
	heap, off, _ := modelCost(100_000)
	b.ReportMetric(heap+off, "bytes/frame")
}

// A flood's notifications/message reaches the server log as a reference
// to the frame in the log's store, read there in place: applying a frame
// and its LogMessageEvent allocates nothing per frame but the log's and
// the server log's growing slices. Before, the log rebuilt a *mcp.Frame
// for each line only for the server log to find its index again (5.0
// allocations and 578 bytes a frame, against 0.02 and 215 now), which a
// flood's collector had to keep up with.
func TestLoggedNotificationAllocatesNothingPerFrame(t *testing.T) {
	const n = 20_000
	m := newTestModel("dark", 120, 35)
	evs := floodBatch(1, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < len(evs); i += maxBatch {
		m.Update(eventsMsg{gen: m.gen, events: evs[i:min(i+maxBatch, len(evs))]})
	}
	runtime.ReadMemStats(&after)
	allocs := float64(after.Mallocs-before.Mallocs) / n
	bytes := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("per frame: %.2f allocations, %.0f bytes", allocs, bytes)
	if m.serverLog.Len() != n {
		t.Fatalf("the server log holds %d lines, want %d", m.serverLog.Len(), n)
	}
	if allocs > 0.5 {
		t.Errorf("%.2f allocations per logged notification: something is made for each frame", allocs)
	}
	// Every line still opens its frame, the log's own.
	m.serverLog.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if f := m.serverLog.Selected(); f == nil || f.Seq != 1 || f != m.logPane.FrameBySeq(1) {
		t.Fatalf("the first line opens %+v, not the log's frame 1", f)
	}
}
