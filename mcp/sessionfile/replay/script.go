// Package replay runs the client side of a recorded session again against
// a server (the same build, or the next one) and compares each answer with
// the recorded one: `mcpscope replay`. The handshake is the recorded one
// (era, offered protocol version, client capabilities and info), the
// requests are the recorded ones in the recorded order, and the server's
// own requests (sampling, elicitation, roots) are answered as they were
// answered in the recording. Answers are compared as JSON, with volatile
// values (ids, timestamps, progress tokens, _meta, session ids) ignored.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
)

// Script is what a recording asks of a server.
type Script struct {
	Era                mcp.Era
	ProtocolVersion    string // what the recorded client offered
	ClientCapabilities json.RawMessage
	ClientInfo         mcp.Implementation
	// Handshake is the recorded handshake result (initialize or
	// server/discover), compared like any answer.
	Handshake json.RawMessage
	Requests  []Request
	// answers are the recorded answers to the server's requests, by
	// method, in order.
	answers map[string][]json.RawMessage
}

// Request is one recorded request and the answer it got.
type Request struct {
	Seq    int64 // the recorded request frame
	Method string
	Params json.RawMessage
	// Answer is the recorded response message (result or error); nil when
	// none came (a local error such as a timeout was recorded).
	Answer json.RawMessage
	// Label names the request for people: "tools/call add".
	Label string
}

// FromEvents builds the script of a recorded session. A recording with
// several connections (reconnects) replays the first.
func FromEvents(events []mcp.Event) (*Script, error) {
	s := &Script{answers: map[string][]json.RawMessage{}}
	var hs *mcp.Handshake
	bySeq := map[int64]int{}    // request seq -> index in Requests
	byID := map[string]string{} // server request id -> method
	var handshakeSeq int64
	connections := 0
	for _, ev := range events {
		switch e := ev.(type) {
		case mcp.StateEvent:
			if e.State == mcp.StateConnecting {
				connections++
			}
		case mcp.HandshakeEvent:
			if hs == nil {
				hs = e.Handshake
			}
		case mcp.FrameEvent:
			if connections > 1 {
				continue
			}
			f := e.Frame
			switch {
			case f.Dir == mcp.Outbound && f.Kind == mcp.KindRequest:
				if f.Probe {
					continue
				}
				if f.Method == mcp.MethodInitialize || f.Method == mcp.MethodServerDiscover {
					handshakeSeq = f.Seq
					continue
				}
				params := paramsOf(f.Raw)
				if isRetry(params) && len(s.Requests) > 0 {
					// A modern-era retry with input responses: the client
					// sends it again on its own; its answer is the
					// original request's final answer.
					bySeq[f.Seq] = bySeq[s.Requests[len(s.Requests)-1].Seq]
					continue
				}
				bySeq[f.Seq] = len(s.Requests)
				s.Requests = append(s.Requests, Request{Seq: f.Seq, Method: f.Method, Params: params, Label: label(f.Method, params)})
			case f.Dir == mcp.Inbound && (f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse):
				if f.ReplyTo == handshakeSeq && handshakeSeq != 0 {
					if s.Handshake == nil {
						s.Handshake = answerOf(f.Raw)
					}
					continue
				}
				if i, ok := bySeq[f.ReplyTo]; ok {
					s.Requests[i].Answer = answerOf(f.Raw)
				}
			case f.Dir == mcp.Inbound && f.Kind == mcp.KindRequest:
				byID[string(f.ID)] = f.Method
			case f.Dir == mcp.Outbound && (f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse):
				if m, ok := byID[string(f.ID)]; ok {
					s.answers[m] = append(s.answers[m], answerOf(f.Raw))
				}
			}
		}
	}
	if hs == nil {
		return nil, errors.New("the recording has no completed handshake: there is nothing to replay")
	}
	s.Era, s.ProtocolVersion, s.ClientCapabilities, s.ClientInfo = hs.Era, hs.OfferedVersion, hs.ClientCapabilities, hs.ClientInfo
	return s, nil
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

func paramsOf(raw []byte) json.RawMessage {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Params
}

// answerOf keeps the part of a response that is the answer: result or
// error (the id and jsonrpc are the envelope).
func answerOf(raw []byte) json.RawMessage {
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

func isRetry(params json.RawMessage) bool {
	return bytes.Contains(params, []byte(`"inputResponses"`)) || bytes.Contains(params, []byte(`"requestState"`))
}

func label(method string, params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	switch {
	case p.Name != "":
		return method + " " + p.Name
	case p.URI != "":
		return method + " " + p.URI
	}
	return method
}
