package mcp

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// storeSamples are frames with every field set one way or another: the
// usual shapes, the rare fields, every kind of time zone, an empty and a
// big Raw, names too long to intern.
func storeSamples() []*Frame {
	now := time.Now()
	paris := time.FixedZone("CET", 3600)
	long := strings.Repeat("m", 200)
	return []*Frame{
		{Seq: 1, Time: now, Dir: Outbound, Transport: "stdio", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`), Kind: KindRequest, Method: "initialize", ID: "1"},
		{Seq: 2, Time: now.Add(3 * time.Millisecond), Dir: Inbound, Transport: "stdio", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), Kind: KindResponse, ID: "1", ReplyTo: 1, ReplyToMethod: "initialize", Latency: 3 * time.Millisecond},
		{Seq: 3, Time: now.UTC(), Dir: Inbound, Transport: "http", Raw: []byte(`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`), Kind: KindErrorResponse, ID: `"x"`, ErrorCode: -32601, ErrorMessage: "no", UnknownID: true, Problem: "answers no request mcpscope sent", Stream: "GET#2", ClientSession: 3},
		{Seq: 4, Time: time.Date(2026, 11, 30, 10, 0, 0, 123456789, paris), Dir: Inbound, Transport: "sse", Raw: []byte("not json\x1b[31m"), Kind: KindInvalid, Problem: "not JSON (a log line on stdout?)"},
		{Seq: 5, Dir: Inbound, Transport: "stdio", Raw: []byte(`[{"a":1}]`), Kind: KindBatch},
		{Seq: 6, Time: now, Dir: Inbound, Transport: "stdio", Raw: []byte(`{"a":1}`), Kind: KindInvalid, BatchSeq: 5, Duplicate: true, Probe: true},
		{Seq: 7, Time: now.Add(-time.Hour), Dir: Outbound, Transport: "stdio", Kind: KindNotification, Method: long, Raw: nil},
		{Seq: 8, Time: now, Dir: Inbound, Transport: "stdio", Kind: KindResponse, ID: "2", Raw: append([]byte(`{"jsonrpc":"2.0","id":2,"result":"`), append(bytes.Repeat([]byte("x"), bigFrame), '"', '}')...), ClientSession: 1 << 20, ByTap: true},
		{Seq: 1 << 40, Time: time.Unix(0, 0), Dir: Inbound, Transport: "ws", Method: "notifications/message", Kind: KindNotification, Raw: []byte(`{}`), Latency: -5},
	}
}

func sameFrame(t *testing.T, i int, got, want *Frame) {
	t.Helper()
	if got.Seq != want.Seq || !got.Time.Equal(want.Time) || got.Dir != want.Dir || got.Transport != want.Transport ||
		!bytes.Equal(got.Raw, want.Raw) || got.Kind != want.Kind || got.Method != want.Method || got.ID != want.ID ||
		got.Problem != want.Problem || got.ReplyTo != want.ReplyTo || got.ReplyToMethod != want.ReplyToMethod ||
		got.Latency != want.Latency || got.UnknownID != want.UnknownID || got.Duplicate != want.Duplicate ||
		got.BatchSeq != want.BatchSeq || got.Stream != want.Stream || got.ErrorCode != want.ErrorCode ||
		got.ErrorMessage != want.ErrorMessage || got.Probe != want.Probe || got.ByTap != want.ByTap ||
		got.ClientSession != want.ClientSession {
		t.Fatalf("frame %d rebuilt as\n%+v\nwant\n%+v", i, *got, *want)
	}
	if got.Time.IsZero() != want.Time.IsZero() {
		t.Fatalf("frame %d: zero time %v, want %v", i, got.Time.IsZero(), want.Time.IsZero())
	}
	if !want.Time.IsZero() {
		gn, go_ := got.Time.Zone()
		wn, wo := want.Time.Zone()
		if gn != wn || go_ != wo || got.Time.Format(time.RFC3339Nano) != want.Time.Format(time.RFC3339Nano) {
			t.Fatalf("frame %d: time %s (%s %d), want %s (%s %d)", i, got.Time, gn, go_, want.Time, wn, wo)
		}
	}
}

// Every field of every sample comes back as it went in, through View and
// through Frame, and a Raw cannot be grown into the next record.
func TestFrameStoreKeepsEveryField(t *testing.T) {
	s := NewFrameStore()
	in := storeSamples()
	for i, f := range in {
		if got := s.Add(f); got != i {
			t.Fatalf("Add gave index %d, want %d", got, i)
		}
	}
	if s.Len() != len(in) {
		t.Fatalf("Len %d, want %d", s.Len(), len(in))
	}
	for i, want := range in {
		var v Frame
		s.View(i, &v)
		sameFrame(t, i, &v, want)
		sameFrame(t, i, s.Frame(i), want)
		if s.Seq(i) != want.Seq {
			t.Fatalf("Seq(%d) = %d, want %d", i, s.Seq(i), want.Seq)
		}
	}
	// Appending to a rebuilt Raw must not write into the next record.
	f0 := s.Frame(0)
	_ = append(f0.Raw, "XXXXXXXX"...)
	sameFrame(t, 1, s.Frame(1), in[1])
}

// Many frames fill several chunks and intern only so many names; each
// comes back as it went in.
func TestFrameStoreManyFrames(t *testing.T) {
	s := NewFrameStore()
	const n = 30000
	want := make([]*Frame, n)
	for i := range want {
		want[i] = &Frame{Seq: int64(i + 1), Time: time.Now(), Dir: Inbound, Transport: "stdio", Kind: KindNotification,
			Method: fmt.Sprintf("notifications/m%d", i), Raw: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/m%d","params":{"pad":%q}}`, i, strings.Repeat("p", i%300)))}
		s.Add(want[i])
	}
	if len(s.chunks) < 2 {
		t.Fatalf("%d frames took %d chunk(s): the test does not cross a chunk boundary", n, len(s.chunks))
	}
	if len(s.names) > maxNames {
		t.Fatalf("%d names interned, limit %d", len(s.names), maxNames)
	}
	for i := range want {
		var v Frame
		s.View(i, &v)
		sameFrame(t, i, &v, want[i])
	}
}

// A rebuilt frame keeps its identity while it is held, and a store knows
// its own frames' indices and nobody else's.
func TestFrameStoreIdentity(t *testing.T) {
	s := NewFrameStore()
	for _, f := range storeSamples() {
		s.Add(f)
	}
	a := s.Frame(2)
	if b := s.Frame(2); a != b {
		t.Fatalf("Frame(2) gave two pointers while the first is held")
	}
	if s.Index(a) != 2 {
		t.Fatalf("Index = %d, want 2", s.Index(a))
	}
	if other := NewFrameStore(); other.Index(a) != -1 {
		t.Fatalf("another store claims the frame")
	}
	if s.Index(&Frame{Seq: 3}) != -1 {
		t.Fatalf("a frame that was never stored has an index")
	}
	runtime.KeepAlive(a)
	// Once nobody holds it, the identity entry goes away.
	s.Frame(4)
	for i := 0; i < 20; i++ {
		runtime.GC()
		s.mu.Lock()
		_, held := s.live[4]
		s.mu.Unlock()
		if !held {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the identity entry of a frame nobody holds was never dropped")
}

func TestFrameStoreFindSeq(t *testing.T) {
	s := NewFrameStore()
	// Two connections: seq restarts at 1 after index 5.
	for _, seq := range []int64{1, 2, 3, 4, 5, 1, 2, 3, 7, 6} {
		s.Add(&Frame{Seq: seq, Dir: Inbound, Kind: KindNotification, Raw: []byte("{}")})
	}
	for _, c := range []struct {
		from int
		seq  int64
		want int
	}{{0, 5, 4}, {5, 3, 7}, {5, 1, 5}, {5, 6, 9}, {5, 7, 8}, {5, 4, -1}, {0, 9, -1}, {10, 1, -1}} {
		if got := s.FindSeq(c.from, c.seq); got != c.want {
			t.Errorf("FindSeq(%d, %d) = %d, want %d", c.from, c.seq, got, c.want)
		}
	}
}

// flood is n notifications as the flood server sends them.
func floodFrames(n int) []*Frame {
	out := make([]*Frame, n)
	t0 := time.Now()
	for i := range out {
		out[i] = &Frame{Seq: int64(i + 3), Time: t0.Add(time.Duration(i) * 20 * time.Microsecond), Dir: Inbound, Transport: "stdio",
			Kind: KindNotification, Method: "notifications/message",
			Raw: []byte(fmt.Sprintf(`{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "message %d"}}`, i))}
	}
	return out
}

// storeCost is what a store holds per frame after n flood notifications:
// its arena and index, and what it leaves on the Go heap once the frames
// it was given are let go.
func storeCost(n int) (perFrame, rawPerFrame float64) {
	frames := floodFrames(n)
	raw := 0
	for _, f := range frames {
		raw += len(f.Raw)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewFrameStore()
	for i, f := range frames {
		s.Add(f)
		frames[i] = nil
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	total := float64(max(heap, 0) + s.Footprint() - int64(cap(s.recs))*8) // the index is on the heap, counted there
	runtime.KeepAlive(s)
	return total / float64(n), float64(raw) / float64(n)
}

// TestFrameStoreMemoryPerFrame bounds what a stored notification costs,
// heap and arena together: about its bytes plus 20 (measured: 126 bytes for
// the flood's 107-byte notifications; a *Frame with its own bytes is 391
// on the heap, which the collector lets grow to twice that).
func TestFrameStoreMemoryPerFrame(t *testing.T) {
	per, raw := storeCost(100_000)
	t.Logf("%.0f bytes per stored frame (raw %.0f bytes)", per, raw)
	if per > raw+64 {
		t.Errorf("a stored frame costs %.0f bytes for %.0f bytes of raw (bound: raw + 64)", per, raw)
	}
}

// BenchmarkFrameStoreAdd is the cost of storing one flood notification;
// bytes/frame is what the store keeps for it (heap and arena).
func BenchmarkFrameStoreAdd(b *testing.B) {
	frames := floodFrames(4096)
	s := NewFrameStore()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Add(frames[i%len(frames)])
		i++
	}
	b.StopTimer()
	per, _ := storeCost(100_000)
	b.ReportMetric(per, "bytes/frame")
}
