package telemetry

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queueSize bounds the spans waiting for the collector, and batchSize how
// many one export carries: with a collector that hangs, memory holds at
// most these two, whatever the traffic.
const (
	queueSize = 2048
	batchSize = 512
)

// queue is the span processor between the SDK and the OTLP exporter. The
// SDK's batch processor drops as this one does but does not say how many;
// this one counts every span it lost, and knows whether the collector
// ever answered, which is how long Close waits for it.
type queue struct {
	exp  sdktrace.SpanExporter
	in   chan sdktrace.ReadOnlySpan
	wait bool // never drop: block the caller (a file export)

	ended, exported, dropped atomic.Int64
	answered                 atomic.Bool // an export succeeded
	failed                   atomic.Bool // the last export failed

	mu        sync.Mutex
	firstErr  error
	onFailure func(error)

	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	// runCtx ends the export in flight when Close stops waiting.
	runCtx    context.Context
	cancelRun context.CancelFunc
}

func newQueue(exp sdktrace.SpanExporter, wait bool) *queue {
	q := &queue{exp: exp, in: make(chan sdktrace.ReadOnlySpan, queueSize), wait: wait,
		stop: make(chan struct{}), done: make(chan struct{})}
	q.runCtx, q.cancelRun = context.WithCancel(context.Background())
	go q.run()
	return q
}

// OnStart does nothing: spans are sent when they end.
func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues the span, or counts it dropped when the queue is full. It
// never waits (unless the queue is a file's).
func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	q.ended.Add(1)
	if q.wait {
		select {
		case q.in <- s:
		case <-q.stop:
			q.dropped.Add(1)
		}
		return
	}
	select {
	case q.in <- s:
	default:
		q.dropped.Add(1)
	}
}

// Shutdown and ForceFlush belong to the SpanProcessor interface; the
// exporter's Close ends the queue itself, once, for every provider.
func (q *queue) Shutdown(context.Context) error   { return nil }
func (q *queue) ForceFlush(context.Context) error { return nil }

func (q *queue) run() {
	defer close(q.done)
	batch := make([]sdktrace.ReadOnlySpan, 0, batchSize)
	for {
		select {
		case s := <-q.in:
			batch = q.fill(append(batch[:0], s))
			q.export(batch)
			clear(batch)
		case <-q.stop:
			// Close: what is queued goes in last batches.
			for {
				batch = q.fill(batch[:0])
				if len(batch) == 0 {
					return
				}
				q.export(batch)
				clear(batch)
			}
		}
	}
}

// fill adds what is queued to batch, up to batchSize, without waiting.
func (q *queue) fill(batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	for len(batch) < batchSize {
		select {
		case s := <-q.in:
			batch = append(batch, s)
		default:
			return batch
		}
	}
	return batch
}

func (q *queue) export(batch []sdktrace.ReadOnlySpan) {
	if q.runCtx.Err() != nil {
		q.dropped.Add(int64(len(batch)))
		return
	}
	err := q.exp.ExportSpans(q.runCtx, batch)
	if err != nil {
		q.dropped.Add(int64(len(batch)))
		q.failed.Store(true)
		q.mu.Lock()
		first := q.firstErr == nil
		if first {
			q.firstErr = err
		}
		q.mu.Unlock()
		if first && q.onFailure != nil && q.runCtx.Err() == nil {
			q.onFailure(err)
		}
		return
	}
	q.failed.Store(false)
	q.answered.Store(true)
	q.exported.Add(int64(len(batch)))
}

// patience is how long Close waits for the last spans after a run of
// this length: see flushWait.
func (q *queue) patience(run time.Duration) time.Duration {
	if q.wait || q.answered.Load() {
		return flushWait
	}
	return run / lateShare
}

// shutdown sends what is queued until ctx ends, then abandons the rest.
func (q *queue) shutdown(ctx context.Context) Report {
	q.stopOnce.Do(func() { close(q.stop) })
	select {
	case <-q.done:
	case <-ctx.Done():
		q.cancelRun()
		q.mu.Lock()
		if q.firstErr == nil {
			q.firstErr = errors.New("the collector did not answer in time")
		}
		q.mu.Unlock()
	}
	q.cancelRun()
	_ = q.exp.Shutdown(context.Background())
	r := Report{Spans: q.ended.Load(), Exported: q.exported.Load()}
	// Whatever was not accepted is lost: still queued, in an export that
	// was abandoned, or dropped on the way.
	r.Dropped = r.Spans - r.Exported
	q.mu.Lock()
	r.Err = q.firstErr
	q.mu.Unlock()
	return r
}
