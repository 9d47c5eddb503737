package tap

import (
	"encoding/json"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
)

// eventQueue is an unbounded FIFO feeding a channel, as the client's and
// the session's are: the viewer never drops an event, and the file reader
// never waits for the UI.
type eventQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []mcp.Event
	closed  bool
	out     chan mcp.Event
	started bool
}

func newEventQueue() *eventQueue {
	q := &eventQueue{out: make(chan mcp.Event, 64)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *eventQueue) push(evs ...mcp.Event) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, evs...)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
}

func (q *eventQueue) channel() <-chan mcp.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.started {
		q.started = true
		go q.run()
	}
	return q.out
}

func (q *eventQueue) run() {
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

func params(raw []byte) json.RawMessage {
	var env struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Params
}
