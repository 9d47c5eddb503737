package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
)

// Options narrow and tune a replay.
type Options struct {
	// Only replays the requests of these methods (all when empty).
	Only []string
	// Ignore are extra paths whose values are not compared (see NewMatcher).
	Ignore []string
	// Strict compares the volatile values too.
	Strict bool
}

// Exchange is one request sent again, with both answers.
type Exchange struct {
	Label  string `json:"label"`
	Method string `json:"method"`
	// Probe says the request was sent before the handshake, as the
	// recorded client probed the server.
	Probe       bool            `json:"probe,omitempty"`
	RecordedSeq int64           `json:"recordedSeq,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"`
	Recorded    json.RawMessage `json:"recorded,omitempty"`
	Replayed    json.RawMessage `json:"replayed,omitempty"`
	Differences []Difference    `json:"differences,omitempty"`
	// Error is set when the replayed request got no answer (a timeout, a
	// lost connection): mcpscope's doing, not the server's.
	Error string `json:"error,omitempty"`
	// pastCut: the recording was cut before the answer (Request.PastCut).
	pastCut bool
}

// Match reports whether the exchange replayed as recorded.
func (e *Exchange) Match() bool { return len(e.Differences) == 0 && e.Error == "" }

// Result is a whole replay.
type Result struct {
	Source      string     `json:"source"`
	Target      string     `json:"target"`
	Exchanges   []Exchange `json:"exchanges"`
	Matched     int        `json:"matched"`
	Differed    int        `json:"differed"`
	Unsent      int        `json:"unsent,omitempty"` // left out after the connection was lost
	Interrupted string     `json:"interrupted,omitempty"`
}

// ConnectError is a replay that could not connect (or lost the connection).
type ConnectError struct{ Err error }

func (e *ConnectError) Error() string { return e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// Run connects c (made with s.ClientOptions) and replays the script. A
// failed connection is a *ConnectError; so is a connection lost midway,
// returned with the exchanges done so far.
func Run(ctx context.Context, c *mcp.Client, s *Script, o Options) (*Result, error) {
	m, err := NewMatcher(o.Ignore, o.Strict)
	if err != nil {
		return nil, err
	}
	r := &Result{}
	hs, err := c.Connect(ctx)
	if err != nil {
		return nil, &ConnectError{Err: err}
	}
	s.mu.Lock()
	probes := append([]probed(nil), s.probed...)
	s.mu.Unlock()
	for i, p := range s.Probes {
		if len(o.Only) > 0 && !slices.Contains(o.Only, p.Method) {
			continue
		}
		ex := Exchange{Label: p.Label, Method: p.Method, RecordedSeq: p.Seq, Params: p.Params, Recorded: p.Answer, Probe: true}
		if i < len(probes) {
			ex.Replayed = probes[i].answer
			if probes[i].answer == nil && probes[i].err != nil && p.Answer != nil {
				ex.Error = probes[i].err.Error()
			}
		}
		if p.Answer != nil || ex.Replayed != nil {
			ex.compare(m)
		} // else: unanswered then and now, as a probe of a silent server is

		r.add(ex)
	}
	if len(o.Only) == 0 || slices.Contains(o.Only, handshakeMethod(s.Era)) {
		ex := Exchange{Label: "handshake (" + handshakeMethod(s.Era) + ")", Method: handshakeMethod(s.Era),
			RecordedSeq: s.HandshakeSeq, Recorded: s.Handshake, Replayed: resultAnswer(hs.Result)}
		ex.Differences = m.Compare(ex.Recorded, ex.Replayed)
		r.add(ex)
	}
	for i, req := range s.Requests {
		if len(o.Only) > 0 && !slices.Contains(o.Only, req.Method) {
			continue
		}
		ex := Exchange{Label: req.Label, Method: req.Method, RecordedSeq: req.Seq, Params: req.Params, Recorded: req.Answer, pastCut: req.PastCut}
		resp, err := c.Call(ctx, req.Method, req.Params)
		switch {
		case resp != nil && resp.Frame != nil:
			ex.Replayed = AnswerOf(resp.Frame.Raw)
		case err != nil:
			ex.Error = err.Error()
		}
		ex.compare(m)
		r.add(ex)
		if c.Err() != nil {
			r.Interrupted = c.Err().Error()
			for _, rest := range s.Requests[i+1:] {
				if len(o.Only) == 0 || slices.Contains(o.Only, rest.Method) {
					r.Unsent++
				}
			}
			return r, &ConnectError{Err: fmt.Errorf("the connection was lost after %s: %w", plural.S(len(r.Exchanges), "exchange"), c.Err())}
		}
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
	}
	return r, nil
}

// compare fills the differences of an exchange that got an answer.
func (e *Exchange) compare(m *Matcher) {
	switch {
	case e.Error != "":
	case e.Recorded == nil && e.pastCut:
		e.Differences = []Difference{{Path: "/", Recorded: "(the file was cut before the answer)", Replayed: text(raw(e.Replayed))}}
	case e.Recorded == nil:
		e.Differences = []Difference{{Path: "/", Recorded: "(no answer was recorded)", Replayed: text(raw(e.Replayed))}}
	default:
		e.Differences = m.Compare(e.Recorded, e.Replayed)
	}
}

func raw(m json.RawMessage) any {
	var v any
	if json.Unmarshal(m, &v) != nil {
		return string(m)
	}
	return v
}

func (r *Result) add(ex Exchange) {
	r.Exchanges = append(r.Exchanges, ex)
	if ex.Match() {
		r.Matched++
	} else {
		r.Differed++
	}
}

func handshakeMethod(era mcp.Era) string {
	if era == mcp.EraModern {
		return mcp.MethodServerDiscover
	}
	return mcp.MethodInitialize
}

func resultAnswer(result json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(map[string]json.RawMessage{"result": result})
	return b
}

// IsConnectError reports whether err is a connection failure.
func IsConnectError(err error) bool {
	var ce *ConnectError
	return errors.As(err, &ce)
}
