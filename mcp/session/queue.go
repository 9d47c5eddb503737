package session

import (
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
)

// queue is an unbounded FIFO feeding a channel, like the client's own: the
// session never drops an event and never blocks its producers on a slow
// reader.
type queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []mcp.Event
	closed  bool
	out     chan mcp.Event
	started bool
}

func newQueue() *queue {
	q := &queue{out: make(chan mcp.Event, mcp.EventBuffer)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) push(evs ...mcp.Event) {
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

// close ends the stream once what is queued is delivered.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
}

func (q *queue) channel() <-chan mcp.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.started {
		q.started = true
		go q.run()
	}
	return q.out
}

func (q *queue) run() {
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
