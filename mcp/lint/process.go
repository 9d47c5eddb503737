package lint

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// Thresholds of the timing rules.
const (
	// pingSlow is how long a ping answer may take before it is flagged.
	pingSlow = 5 * time.Second
	// lateAfterCancel is how long after notifications/cancelled an answer
	// must come to be clearly more than a race.
	lateAfterCancel = time.Second
)

// outboundCancel remembers when mcpscope cancelled a request.
func (l *Linter) outboundCancel(f *mcp.Frame) {
	env, _ := parseEnvelope(f.Raw)
	if id, ok := object(env.Params)["requestId"]; ok {
		t := f.Time
		if t.IsZero() {
			t = time.Now()
		}
		l.cancelledAt.set(compact(id), t)
	}
}

// timing checks when an answer came: a slow ping, or an answer long after
// mcpscope cancelled the request.
func (l *Linter) timing(f *mcp.Frame, req *outRequest) {
	if req.method == mcp.MethodPing && !l.modern && f.Latency > pingSlow {
		l.report("lifecycle/ping-slow", fmt.Sprintf("ping took %s to answer; a live server answers at once.", f.Latency.Round(time.Millisecond)), f.Seq, f.ReplyTo)
	}
	if req.id == "" || f.Time.IsZero() {
		return
	}
	at, ok := l.cancelledAt.get(compact([]byte(req.id)))
	if !ok {
		return
	}
	if late := f.Time.Sub(at); late > lateAfterCancel {
		l.report("cancel/late-response", fmt.Sprintf("The server answered %s (id %s) %s after mcpscope cancelled it.", orUnknown(req.method), req.id, late.Round(time.Millisecond)), f.Seq, f.ReplyTo)
	}
}

func (l *Linter) observeLocalError(e mcp.LocalErrorEvent) {
	if e.Err == nil || e.Err.Kind != mcp.ConnectionLost {
		return
	}
	if req := l.pending[e.Err.ReqSeq]; req != nil && req.probe {
		return
	}
	l.stranded++
	if len(l.strandedMethods) < 5 {
		l.strandedMethods = append(l.strandedMethods, e.Err.Method)
	}
}

// observeExit judges how a stdio server ended.
func (l *Linter) observeExit(e mcp.ExitEvent) {
	x := e.Exit
	if x.Forced != "" {
		l.report("stdio/forced-exit", fmt.Sprintf("The server did not exit after its stdin was closed; mcpscope had to send %s.", x.Forced))
	}
	var what []string
	if x.Code > 0 {
		what = append(what, fmt.Sprintf("exited with status %d", x.Code))
	} else if x.Signal != "" && x.Forced == "" {
		what = append(what, "was killed by "+x.Signal)
	}
	if !x.Expected && l.stranded > 0 {
		what = append(what, fmt.Sprintf("left %d request(s) unanswered (%s)", l.stranded, strings.Join(l.strandedMethods, ", ")))
	}
	if len(what) > 0 {
		msg := "The server process " + strings.Join(what, " and ") + "."
		if len(x.LastStderr) > 0 {
			msg += " Its last stderr line: " + preview([]byte(x.LastStderr[len(x.LastStderr)-1]))
		}
		l.report("stdio/abnormal-exit", msg)
	}
}
