package mcp

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// The write path. Every outbound message goes through one writer goroutine
// per connection, in the order it was queued, so the timeline's order is
// the wire's order. Callers never write themselves: they queue a job and
// wait for its outcome, their deadline and their context together, so a
// server that stops reading its input costs a caller its timeout, not
// forever. A message's frame is published when its write starts, never
// before: a request given up while it still waited in the queue was never
// on the wire and does not appear as if it had been.

// Job states: queued until the writer takes it; then writing; dropped when
// its caller gave up before the writer took it.
const (
	jobQueued int32 = iota
	jobWriting
	jobDropped
)

type writeJob struct {
	ctx   context.Context
	frame *Frame // published, with its Seq and Time, when the write starts
	// started runs under the publish lock once the frame has its Seq (a
	// request records it for correlation).
	started func(f *Frame)
	done    chan error // the outcome; buffered so the writer never waits
	state   atomic.Int32
}

// drop takes the job back if its write has not started. It reports whether
// it did: then nothing of the message was written.
func (j *writeJob) drop() bool { return j.state.CompareAndSwap(jobQueued, jobDropped) }

// splitWriter is a Conn whose write has a slow second half that must not
// hold up the messages queued after it: a Streamable HTTP request is
// handed to a POST of its own at once, but its response headers may come
// only when the tool finishes. writeStart does the ordered first half and
// returns a function that waits for the rest (nil when there is none).
type splitWriter interface {
	writeStart(ctx context.Context, raw []byte) (wait func() error, err error)
}

// errWriterStopped fails messages still queued when the connection ended.
var errWriterStopped = errors.New("the connection ended before the message was written")

// send queues one outbound message for the writer. The frame's Seq and
// Time are set when its write starts. It fails at once when the
// connection is closed.
func (c *Client) send(ctx context.Context, f *Frame, started func(*Frame)) (*writeJob, error) {
	j := &writeJob{ctx: ctx, frame: f, started: started, done: make(chan error, 1)}
	if !c.outbox.push(j) {
		if err := c.Err(); err != nil {
			return nil, err
		}
		return nil, ErrClosed
	}
	return j, nil
}

// writeLoop is the writer goroutine: it writes queued messages one by one
// until the connection ends, then fails whatever is left.
func (c *Client) writeLoop(conn Conn) {
	defer c.wg.Done()
	for {
		jobs, ok := c.outbox.take()
		if !ok {
			return
		}
		for _, j := range jobs {
			c.writeOne(conn, j)
		}
	}
}

func (c *Client) writeOne(conn Conn, j *writeJob) {
	if !j.state.CompareAndSwap(jobQueued, jobWriting) {
		return // its caller gave up before it was written
	}
	if err := j.ctx.Err(); err != nil {
		j.done <- err
		return
	}
	c.pubMu.Lock()
	c.mu.Lock()
	cerr := c.closeErr
	c.mu.Unlock()
	if cerr != nil {
		c.pubMu.Unlock()
		j.done <- errWriterStopped
		return
	}
	j.frame.Time = c.clockLocked(time.Now())
	// The frame gets its Seq and started runs before the event is queued:
	// once queued, the recorder and the analyzer read the frame on their
	// own goroutine, so nothing may write to it after that.
	c.numberLocked(j.frame)
	if j.started != nil {
		j.started(j.frame)
	}
	c.q.push(FrameEvent{Frame: j.frame})
	c.pubMu.Unlock()

	if sw, ok := conn.(splitWriter); ok {
		wait, err := sw.writeStart(j.ctx, j.frame.Raw)
		if err != nil || wait == nil {
			j.done <- c.noteWriteErr(err)
			return
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			j.done <- c.noteWriteErr(wait())
		}()
		return
	}
	j.done <- c.noteWriteErr(conn.Write(j.ctx, j.frame.Raw))
}

// noteWriteErr shows a write that could not reach the server as a lost
// connection, at once, and passes err on.
func (c *Client) noteWriteErr(err error) error {
	var unreachable *UnreachableError
	if errors.As(err, &unreachable) {
		c.markLost(unreachable)
	}
	return err
}

// stopWriter fails the messages still queued once the connection ended;
// the writer goroutine then returns. A write in progress ends with the
// connection (its pipe or its HTTP context closes).
func (c *Client) stopWriter() {
	c.outbox.close()
}
