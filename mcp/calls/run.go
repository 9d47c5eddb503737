package calls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
)

// Outcome is how one call went.
type Outcome struct {
	Name     string    `json:"name"`
	Method   string    `json:"method"`
	Line     int       `json:"line,omitempty"`
	Pass     bool      `json:"pass"`
	Failures []Failure `json:"failures,omitempty"`
	// Error is set when no answer came (a timeout, a lost connection):
	// mcpscope's doing, not the server's.
	Error   string `json:"error,omitempty"`
	Timeout bool   `json:"timeout,omitempty"`
	// Stale says why the call may no longer fit the server (see Stale).
	Stale string `json:"stale,omitempty"`
	// Ms is how long the answer took, in milliseconds.
	Ms float64 `json:"ms"`
	// Updated is set when --update rewrote the call's snapshot.
	Updated bool `json:"updated,omitempty"`
	// Answer is what the server sent ({"result": ...} or {"error": ...}).
	Answer json.RawMessage `json:"-"`
}

// Reason is the outcome in one line: why it failed, or "".
func (o *Outcome) Reason() string {
	switch {
	case o.Error != "":
		return "no answer: " + o.Error
	case len(o.Failures) == 0:
		return ""
	case len(o.Failures) == 1:
		return o.Failures[0].String()
	}
	return fmt.Sprintf("%s (and %d more)", o.Failures[0].String(), len(o.Failures)-1)
}

// Judge is the outcome of a call from its answer, with Check.
func Judge(c Call, a Answer, tools []mcp.Tool) Outcome {
	o := Outcome{Name: c.Name, Method: c.Method, Line: c.Line, Ms: millis(a.Latency), Stale: Stale(c, tools), Answer: a.Message()}
	o.Failures = Check(c, a, tools)
	o.Pass = len(o.Failures) == 0
	return o
}

// Report is a whole run.
type Report struct {
	File     string    `json:"file"`
	Target   string    `json:"target"`
	Outcomes []Outcome `json:"calls"`
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	Updated  int       `json:"updated,omitempty"`
	// Interrupted says why the run stopped early (the connection was
	// lost); the calls not sent are failed outcomes that say so.
	Interrupted string `json:"interrupted,omitempty"`
	// Server is the name the server tested gave itself; Skipped are the
	// calls saved for other servers, not run against it.
	Server  string        `json:"server,omitempty"`
	Skipped []SkippedCall `json:"skipped,omitempty"`
	// snaps are the new snapshots of an --update run, by call name.
	snaps map[string]json.RawMessage
}

// SkippedCall is a call not run because it was saved for another server.
type SkippedCall struct {
	Name   string `json:"name"`
	Method string `json:"method"`
	Server string `json:"server"`
	Line   int    `json:"line,omitempty"`
}

// Snapshots are the new snapshots an --update run took, by call name
// (for File.WithSnapshots).
func (r *Report) Snapshots() map[string]json.RawMessage { return r.snaps }

// TimedOut reports whether some call got no answer in time.
func (r *Report) TimedOut() bool {
	return slices.ContainsFunc(r.Outcomes, func(o Outcome) bool { return o.Timeout })
}

// Options narrow a run.
type Options struct {
	// Only runs the calls of these names (every call when empty).
	Only []string
	// Update takes each answer that differs from its call's snapshot as
	// the new snapshot (the report's Updated; the caller writes them with
	// File.WithSnapshots).
	Update bool
	// Server is the name of the server the calls are sent to (its
	// serverInfo.name): the calls saved for another server are skipped,
	// unless Only names them.
	Server string
}

// Select is the calls of f a run with o sends, in file order: the calls
// named in Only, or else those for o.Server. A name in Only that no call
// has is an error naming the ones there are.
func Select(f *File, o Options) ([]Call, error) {
	if len(o.Only) == 0 {
		var out []Call
		for _, c := range f.Calls {
			if c.For(o.Server) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	for _, n := range o.Only {
		if _, ok := f.Find(n); !ok {
			return nil, fmt.Errorf("--only %q: %s has no call of that name; it has: %s", n, f.Path, strings.Join(quoted(f.Names()), ", "))
		}
	}
	var out []Call
	for _, c := range f.Calls {
		if slices.Contains(o.Only, c.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// needsTools reports whether checking these calls needs the tool list.
func needsTools(cs []Call) bool {
	return slices.ContainsFunc(cs, func(c Call) bool { return c.Method == mcp.MethodToolsCall })
}

// Run sends each selected call of f in order on c, which must be
// connected, and judges each answer. The tool list is read first when a
// tools/call is among them (for schema "output", and to mark calls whose
// tool is gone). A lost connection ends the run: the report says so, and
// the calls not sent fail.
func Run(ctx context.Context, c *mcp.Client, f *File, o Options) (*Report, error) {
	sel, err := Select(f, o)
	if err != nil {
		return nil, err
	}
	r := &Report{File: f.Path, Server: o.Server}
	if len(o.Only) == 0 {
		for _, c := range f.Calls {
			if !c.For(o.Server) {
				r.Skipped = append(r.Skipped, SkippedCall{Name: c.Name, Method: c.Method, Server: c.Server, Line: c.Line})
			}
		}
	}
	var tools []mcp.Tool
	if needsTools(sel) {
		if items, _, err := c.ListAll(ctx, mcp.MethodToolsList); err == nil {
			tools = mcp.ParseTools(items)
		}
	}
	snaps := map[string]json.RawMessage{}
	for i, call := range sel {
		start := time.Now()
		var params any
		if call.Params != nil {
			params = call.Params
		}
		resp, err := c.Call(ctx, call.Method, params)
		var out Outcome
		switch {
		case resp != nil && resp.Frame != nil:
			latency := resp.Frame.Latency
			if latency <= 0 {
				latency = time.Since(start)
			}
			out = Judge(call, AnswerOf(resp.Frame.Raw, latency), tools)
		default:
			out = Outcome{Name: call.Name, Method: call.Method, Line: call.Line, Ms: millis(time.Since(start)), Stale: Stale(call, tools)}
			if err == nil {
				err = errors.New("no response")
			}
			out.Error = err.Error()
			var le *mcp.LocalError
			out.Timeout = errors.As(err, &le) && le.Kind == mcp.Timeout
		}
		if o.Update && out.Error == "" && len(call.Expect.Snapshot) > 0 && hasSnapshotFailure(out.Failures) {
			snaps[call.Name] = out.Answer
			out.Updated = true
			out.Failures = slices.DeleteFunc(out.Failures, func(f Failure) bool { return f.Check == "snapshot" })
			out.Pass = len(out.Failures) == 0
			r.Updated++
		}
		r.add(out)
		if c.Err() != nil {
			r.Interrupted = c.Err().Error()
			for _, rest := range sel[i+1:] {
				r.add(Outcome{Name: rest.Name, Method: rest.Method, Line: rest.Line, Error: "not sent: the connection was lost"})
			}
			return r, fmt.Errorf("the connection was lost after %s: %w", plural.S(i+1, "call"), c.Err())
		}
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
	}
	if len(snaps) > 0 {
		r.snaps = snaps
	}
	return r, nil
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func hasSnapshotFailure(fs []Failure) bool {
	return slices.ContainsFunc(fs, func(f Failure) bool { return f.Check == "snapshot" })
}

func (r *Report) add(o Outcome) {
	r.Outcomes = append(r.Outcomes, o)
	if o.Pass {
		r.Passed++
	} else {
		r.Failed++
	}
}
