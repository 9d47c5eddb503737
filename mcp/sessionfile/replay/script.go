// Package replay runs the client side of a recorded session again against
// a server (the same build, or the next one) and compares each answer with
// the recorded one: `mcpscope replay`. The recording is read as every
// consumer reads it (mcp/sessionfile/reading), whatever wrote it: the
// recorded client's probes are sent again as probes before the handshake
// (Claude Code's server/discover), the handshake is the recorded one
// (era, offered protocol version, client capabilities and info) and is
// compared with the recorded handshake, the requests are the recorded
// ones in the recorded order, and the server's
// own requests (sampling, elicitation, roots) are answered as they were
// answered in the recording. Answers are compared as JSON, with volatile
// values (ids, timestamps, progress tokens, _meta, session ids) ignored.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Script is what a recording asks of a server.
type Script struct {
	Era                mcp.Era
	ProtocolVersion    string // what the recorded client offered
	ClientCapabilities json.RawMessage
	ClientInfo         mcp.Implementation
	// Probes are what the recorded client sent before its handshake to
	// learn how to talk (Claude Code's server/discover, answered -32601
	// by a legacy server): sent again as probes, before the handshake,
	// and their answers compared with the recorded ones.
	Probes []Request
	// Handshake is the recorded handshake result (initialize or
	// server/discover), compared like any answer; HandshakeSeq its frame.
	Handshake    json.RawMessage
	HandshakeSeq int64
	Requests     []Request
	// answers are the recorded answers to the server's requests, by
	// method, in order.
	answers map[string][]json.RawMessage

	mu     sync.Mutex
	probed []probed // the probes' replayed answers, as Connect got them
}

type probed struct {
	answer json.RawMessage
	err    error
}

// Request is one recorded request and the answer it got.
type Request struct {
	Seq    int64 // the recorded request frame
	Method string
	Params json.RawMessage
	// Answer is the recorded response message (result or error), after
	// the request's retries (the modern era's input rounds); nil when
	// none came (a local error such as a timeout was recorded).
	Answer json.RawMessage
	// Label names the request for people: "tools/call add".
	Label string
	// PastCut says the file was cut (it ends mid-line) before the
	// request's answer: none is recorded, and none is known to be missing.
	PastCut bool
}

// FromSession builds the script of a recorded session's first
// connection: its probes, its handshake, its requests (retries folded
// into the request they send again; mcpscope's own probes after the
// handshake, such as keep-alive pings, left out) and the client's answers
// to the server's requests.
func FromSession(rs *reading.Session) (*Script, error) {
	c, err := rs.First()
	if err != nil {
		return nil, fmt.Errorf("%w: there is nothing to replay", err)
	}
	hs := c.Handshake
	s := &Script{answers: map[string][]json.RawMessage{}, Era: hs.Era, ProtocolVersion: hs.OfferedVersion,
		ClientCapabilities: hs.ClientCapabilities, ClientInfo: hs.ClientInfo}
	if x := c.HandshakeExchange; x != nil {
		s.Handshake, s.HandshakeSeq = x.Answer(), x.Request.Seq
	} else {
		s.Handshake = resultAnswer(hs.Result)
	}
	for _, x := range c.Probes() {
		s.Probes = append(s.Probes, Request{Seq: x.Request.Seq, Method: x.Request.Method, Params: x.Params(),
			Answer: x.Answer(), Label: "probe " + x.Label()})
	}
	for _, x := range c.Requests() {
		f := x.Final()
		s.Requests = append(s.Requests, Request{Seq: x.Request.Seq, Method: x.Request.Method, Params: x.Params(),
			Answer: f.Answer(), Label: x.Label(), PastCut: rs.Cut != nil && f.Response == nil && f.Local == nil})
	}
	for _, x := range c.ServerRequests() {
		if x.Response != nil {
			s.answers[x.Request.Method] = append(s.answers[x.Request.Method], x.Answer())
		}
	}
	return s, nil
}

// FromEvents builds the script of a recorded session from its events (see
// FromSession).
func FromEvents(events []mcp.Event) (*Script, error) {
	return FromSession(reading.FromEvents("", record.Entry{}, events))
}

// ClientOptions sets what the recorded client was on top of base (the
// transport's timeouts, the recorder): the era, the offered version, the
// capabilities and the client info; no discovery (the recorded lists are
// among the requests); the server's requests answered as recorded.
func (s *Script) ClientOptions(base mcp.Options) mcp.Options {
	o := base
	o.Era, o.ProtocolVersion, o.Discover = s.Era, s.ProtocolVersion, false
	if len(s.ClientCapabilities) > 0 {
		o.Capabilities = s.ClientCapabilities
	}
	if s.ClientInfo.Name != "" {
		info := s.ClientInfo
		o.ClientInfo = &info
	}
	o.Handler = &recordedAnswers{answers: s.answers, next: map[string]int{}}
	o.Probes = nil
	s.mu.Lock()
	s.probed = make([]probed, len(s.Probes))
	s.mu.Unlock()
	for i, p := range s.Probes {
		o.Probes = append(o.Probes, mcp.Probe{Method: p.Method, Params: p.Params, Answer: func(resp *mcp.Response, err error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if resp != nil && resp.Frame != nil {
				s.probed[i] = probed{answer: AnswerOf(resp.Frame.Raw)}
			} else {
				s.probed[i] = probed{err: err}
			}
		}})
	}
	return o
}

// recordedAnswers answers the server's requests with the recorded
// answers, in order per method; past the last one it repeats the last.
type recordedAnswers struct {
	mu      sync.Mutex
	answers map[string][]json.RawMessage
	next    map[string]int
}

func (r *recordedAnswers) HandleServerRequest(_ context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.answers[req.Method]
	if len(list) == 0 {
		return nil, &mcp.RPCError{Code: -32601, Message: "the recording has no answer to " + req.Method}
	}
	i := r.next[req.Method]
	if i >= len(list) {
		i = len(list) - 1
	}
	r.next[req.Method] = i + 1
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *mcp.RPCError   `json:"error"`
	}
	_ = json.Unmarshal(list[i], &msg)
	if msg.Error != nil {
		return nil, msg.Error
	}
	return msg.Result, nil
}

// AnswerOf keeps the part of a response that is the answer: result or
// error (the id and jsonrpc are the envelope). What Compare compares.
func AnswerOf(raw []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return json.RawMessage(raw)
	}
	out := map[string]json.RawMessage{}
	for _, k := range []string{"result", "error"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	b, _ := json.Marshal(out)
	return b
}
