package mcp

import (
	"time"
)

// Observer classifies and correlates frames that someone else sent: the
// traffic between a real client and a server, watched from the side (a
// tap). It uses the same classification as [Client], so a watched frame and
// a frame mcpscope sent look alike everywhere; Outbound means "from the
// client to the server", as it does for mcpscope's own frames.
//
// It correlates both ways: the server's responses with the client's
// requests, and the client's responses with the server's requests. An
// Observer is not safe for concurrent use; one goroutine feeds it the frames
// in the order they crossed the tap.
type Observer struct {
	transport string
	// seq numbers the frames; observers forked from one share it.
	seq *int64
	// pending holds the requests awaiting an answer, by the direction they
	// travelled (index Outbound or Inbound) and id.
	pending [3]map[ID]observed
	// answered remembers recently answered ids per direction, so that a
	// second answer is a duplicate rather than an unknown id.
	answered [3]map[ID]observed
	order    [3][]answeredID // oldest first, to bound the memory
	// initialized is set once the client has sent initialize: a
	// server/discover before it is the client's era probe.
	initialized bool
}

type answeredID struct {
	id  ID
	seq int64
}

type observed struct {
	seq    int64
	method string
	sent   time.Time
	probe  bool
}

// observerMemory bounds how many answered ids each direction remembers.
const observerMemory = 4096

// NewObserver makes an observer for one conversation over one transport.
func NewObserver(transport string) *Observer {
	return newObserver(transport, new(int64))
}

func newObserver(transport string, seq *int64) *Observer {
	o := &Observer{transport: transport, seq: seq}
	for _, d := range []Direction{Outbound, Inbound} {
		o.pending[d] = map[ID]observed{}
		o.answered[d] = map[ID]observed{}
	}
	return o
}

// Fork is an observer for another conversation seen by the same watcher
// (another client session through one HTTP tap): its own handshake and
// ids, the same sequence of frames. Neither may be used while the other
// is.
func (o *Observer) Fork() *Observer { return newObserver(o.transport, o.seq) }

// Frames turns one message that crossed the wire (without its line
// delimiter) into frames: one, or a batch followed by its elements. Each
// gets the next sequence number. problem says what the transport found odd
// (e.g. "last line has no trailing newline"); stream names the HTTP stream
// an inbound message came on.
func (o *Observer) Frames(dir Direction, raw []byte, problem, stream string, at time.Time) []*Frame {
	p := classify(raw)
	f := &Frame{Time: at, Dir: dir, Transport: o.transport, Raw: raw, Kind: p.kind, Method: p.method, ID: p.id,
		Problem: joinProblems(problem, p.problem), Stream: stream}
	*o.seq++
	f.Seq = *o.seq
	o.correlate(f, p)
	if p.kind != KindBatch {
		return []*Frame{f}
	}
	out := []*Frame{f}
	for _, elem := range p.batch {
		ep := classify(elem)
		ef := &Frame{Time: at, Dir: dir, Transport: o.transport, Raw: elem, Kind: ep.kind, Method: ep.method, ID: ep.id,
			Problem: ep.problem, BatchSeq: f.Seq, Stream: stream}
		if ep.kind == KindBatch {
			ef.Kind, ef.Problem = KindInvalid, "a batch inside a batch"
		}
		*o.seq++
		ef.Seq = *o.seq
		o.correlate(ef, ep)
		out = append(out, ef)
	}
	return out
}

func other(d Direction) Direction {
	if d == Outbound {
		return Inbound
	}
	return Outbound
}

func peerName(d Direction) string {
	if d == Outbound {
		return "the client"
	}
	return "the server"
}

func (o *Observer) correlate(f *Frame, p parsed) {
	switch f.Kind {
	case KindRequest:
		if f.Dir == Outbound {
			switch {
			case f.Method == MethodInitialize:
				o.initialized = true
			case f.Method == MethodServerDiscover && !o.initialized:
				// A client that speaks both eras (Claude Code) asks this
				// first and falls back to initialize, as mcpscope's own
				// auto era does: its frames are marked as mcpscope marks
				// its own probe's, so the doctor judges them alike.
				f.Probe = true
			}
		}
		if f.ID != "" && f.ID != "null" {
			o.pending[f.Dir][f.ID] = observed{seq: f.Seq, method: f.Method, sent: f.Time, probe: f.Probe}
		}
	case KindResponse, KindErrorResponse:
		if p.errObj != nil {
			f.ErrorCode, f.ErrorMessage = p.errObj.Code, p.errObj.Message
		}
		reqDir := other(f.Dir)
		if req, ok := o.pending[reqDir][f.ID]; ok {
			delete(o.pending[reqDir], f.ID)
			f.ReplyTo, f.ReplyToMethod, f.Latency, f.Probe = req.seq, req.method, f.Time.Sub(req.sent), req.probe
			o.remember(reqDir, f.ID, req)
			return
		}
		if req, ok := o.answered[reqDir][f.ID]; ok {
			f.ReplyTo, f.ReplyToMethod = req.seq, req.method
			f.Duplicate = true
			f.Problem = joinProblems(f.Problem, "a second answer to the same id")
			return
		}
		f.UnknownID = true
		f.Problem = joinProblems(f.Problem, "answers no request "+peerName(reqDir)+" sent")
	}
}

func (o *Observer) remember(d Direction, id ID, req observed) {
	o.answered[d][id] = req
	o.order[d] = append(o.order[d], answeredID{id, req.seq})
	if len(o.order[d]) > observerMemory {
		old := o.order[d][0]
		o.order[d] = o.order[d][1:]
		if o.answered[d][old.id].seq == old.seq { // not since reused
			delete(o.answered[d], old.id)
		}
	}
}
