package doctor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/errline"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
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
	if e.Err == nil {
		return
	}
	req := l.pending[e.Err.ReqSeq]
	if req != nil && req.probe {
		return
	}
	what := e.Err.Method
	if req != nil && req.toolName != "" {
		what = e.Err.Method + " " + QuoteName(req.toolName)
	}
	switch e.Err.Kind {
	case mcp.Timeout:
		// Progress may reset a timeout (basic/lifecycle §timeouts): a call
		// that was still reporting progress when mcpscope's maximum ran
		// out is not the server's fault.
		switch {
		case e.Err.Method != mcp.MethodToolsCall || e.Err.AtMax:
		case e.Err.Progressed:
			l.report("tools/call-timeout", fmt.Sprintf("%s sent progress, then nothing for %s; mcpscope gave up after %s and sent notifications/cancelled.", what, e.Err.Silent.Round(100*time.Millisecond), e.Err.Elapsed.Round(100*time.Millisecond)), e.Err.ReqSeq)
		default:
			l.report("tools/call-timeout", fmt.Sprintf("%s got no answer and no progress within %s; mcpscope gave up and sent notifications/cancelled.", what, e.Err.Elapsed.Round(100*time.Millisecond)), e.Err.ReqSeq)
		}
	case mcp.ConnectionLost:
		var closed *mcp.StdoutClosedError
		if errors.As(e.Err.Err, &closed) && !l.stdoutClosed {
			// No exit follows (the process lived on): this is the report.
			l.stdoutClosed = true
			msg := fmt.Sprintf("The server closed its stdout but kept running (pid %d) while %s was in flight: the answer can never arrive.", closed.PID, what)
			if h := errline.Pick(closed.LastStderr); h != "" {
				msg += fmt.Sprintf(" Its stderr says: %q.", h)
			}
			if tail := lastLines(closed.LastStderr, 3); tail != "" {
				msg += " Its last stderr lines: " + tail
			}
			l.report("stdio/stdout-closed", msg, e.Err.ReqSeq)
		}
		l.stranded++
		if len(l.strandedMethods) < 5 {
			l.strandedMethods = append(l.strandedMethods, what)
		}
	}
}

// observeExit judges how a stdio server ended.
func (l *Linter) observeExit(e mcp.ExitEvent) {
	x := e.Exit
	if x.ClientSignal != "" {
		// The client ended the server with a signal (through a tap): how
		// the server went is the client's shutdown, not the server's fault.
		return
	}
	if x.Expected && x.Forced == "" && x.Signal == "SIGTERM" {
		// The client closed stdin and then sent SIGTERM to the server
		// itself, past the tap (opencode and Copilot CLI find it with
		// pgrep -P): the spec's shutdown, done by the client.
		return
	}
	// The spec's shutdown is stdin closed, then SIGTERM, then SIGKILL: a
	// server that ends on SIGTERM did what it asks. Only one that outlived
	// SIGTERM's grace (not a kill in mcpscope's own hurry) is reported.
	if x.Forced == "SIGKILL" && !x.Hurried {
		l.report("stdio/forced-exit", "The server exited neither when its stdin was closed nor on SIGTERM; mcpscope had to send SIGKILL.")
	}
	var what []string
	if x.Code > 0 {
		what = append(what, fmt.Sprintf("exited with status %d", x.Code))
	} else if x.Signal != "" && x.Forced == "" {
		what = append(what, "was killed by "+x.Signal)
	}
	if !x.Expected && l.stranded > 0 {
		// It died while serving: the request in flight is lost for good.
		status := fmt.Sprintf("exited with status %d", x.Code)
		if x.Code < 0 && x.Signal != "" {
			status = "was killed by " + x.Signal
		}
		msg := fmt.Sprintf("The server process %s while %s was in flight (%s left unanswered).", status, strings.Join(l.strandedMethods, ", "), plural.S(l.stranded, "request"))
		if h := x.Headline(); h != "" {
			msg += fmt.Sprintf(" Its stderr says: %q.", h)
		}
		if tail := lastLines(x.LastStderr, 3); tail != "" {
			msg += " Its last stderr lines: " + tail
		} else {
			msg += " It wrote nothing to stderr."
		}
		l.report("stdio/died-during-request", msg)
		return
	}
	if len(what) > 0 {
		msg := "The server process " + strings.Join(what, " and ") + "."
		if h := x.Headline(); h != "" {
			msg += fmt.Sprintf(" Its stderr says: %q", h)
		}
		l.report("stdio/abnormal-exit", msg)
	}
}

// lastLines quotes the last n lines, joined with " | ".
func lastLines(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	q := make([]string, len(lines))
	for i, line := range lines {
		q[i] = preview([]byte(line))
	}
	return strings.Join(q, " | ")
}
