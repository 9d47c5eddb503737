package mcp

import "sync"

// EventStream is an unbounded FIFO of events feeding a channel: producers
// never block on a slow reader and nothing is dropped. The session layer
// and the tap's viewer source each publish through one; the client has its
// own queue, which also runs the recorder and the doctor (event.go).
type EventStream struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []Event
	closed  bool
	out     chan Event
	started bool
}

// NewEventStream returns an open, empty stream.
func NewEventStream() *EventStream {
	q := &EventStream{out: make(chan Event, EventBuffer)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Push queues events in order; after Close it drops them.
func (q *EventStream) Push(evs ...Event) {
	if len(evs) == 0 {
		return
	}
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, evs...)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

// Close ends the stream once what is queued is delivered.
func (q *EventStream) Close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
}

// Channel is the stream's reading end, the same on every call; it is
// closed after Close once everything queued has been read.
func (q *EventStream) Channel() <-chan Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.started {
		q.started = true
		go q.run()
	}
	return q.out
}

func (q *EventStream) run() {
	defer close(q.out)
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.items) == 0 && q.closed {
			q.mu.Unlock()
			return
		}
		batch := q.items
		q.items = nil
		q.mu.Unlock()
		for i, ev := range batch {
			q.out <- ev
			batch[i] = nil
		}
	}
}
