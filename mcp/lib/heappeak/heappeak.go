// Package heappeak measures how far the Go heap's objects and the
// goroutine stacks rise while a function runs, at their highest: what the
// tests of mcpscope's memory bounds (a deep result, a big SSE line or
// WebSocket message, a huge word to count) hold against a message's size.
package heappeak

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Of runs f and returns how far the heap's objects and the goroutine
// stacks rose above what they held before, at their highest (sampled
// every 200 µs, and once more when f returns), and how long f took.
func Of(f func()) (peak uint64, took time.Duration) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	read := func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() + samples[1].Value.Uint64()
	}
	runtime.GC()
	base := read()
	var high atomic.Uint64
	raise := func(v uint64) {
		if v > high.Load() {
			high.Store(v)
		}
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			raise(read())
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	start := time.Now()
	f()
	took = time.Since(start)
	close(stop)
	<-stopped
	raise(read())
	return high.Load() - min(base, high.Load()), took
}
