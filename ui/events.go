package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// applySession shows one of the session's events (ok is false for the
// client's own events, which apply handles). The session has done the
// protocol work: decoding, polling, coalescing, diffing; this only says
// which pane shows what.
func (m *Model) applySession(ev mcp.Event, stale bool) (cmd tea.Cmd, ok bool) {
	switch ev := ev.(type) {
	case session.OpStartedEvent:
		return m.opStarted(ev.Op), true
	case session.OpDoneEvent:
		return m.opDone(ev, stale), true
	case session.ProgressEvent:
		m.activity.SetNow(ev.Time)
		m.activity.Progress(ev.Token, ev.Progress, ev.Total, ev.Message)
	case session.LogMessageEvent:
		if i := m.logPane.Logged(ev.Frame); i >= 0 {
			m.serverLog.AppendLogged(ev.Time, ev.Params, i) // the log's copy: the server log refers to it
		} else {
			m.serverLog.Append(ev.Time, ev.Params, ev.Frame)
		}
	case session.ResourceUpdatedEvent:
		m.resources.Updated(ev.URI)
	case session.TaskEvent:
		m.activity.SetTask(ev.Task.ID, ev.Task.Status, ev.Task.StatusMessage, ev.Time)
	case session.SubscriptionEvent:
		m.resources.SetSubscribed(ev.URI, ev.On, ev.Err)
		if ev.Method == mcp.MethodSubscriptionsListen && ev.Err == nil {
			if len(ev.Listening) == 0 {
				m.setNote("unsubscribed "+ev.URI+" (subscriptions/listen stream closed)", true)
			} else {
				m.setNote("listening for updates of "+strings.Join(ev.Listening, ", ")+" (subscriptions/listen)", true)
			}
		}
	case session.LogLevelEvent:
		m.serverLog.SetLevel(ev.Level)
		if ev.PerRequest {
			m.setNote("log level "+ev.Level+" will be sent in each request's _meta (2026-07-28 has no logging/setLevel)", true)
		} else {
			m.setNote("log level set to "+ev.Level, true)
		}
	case session.ElicitationEvent:
		switch {
		case !ev.Completed:
			m.setNote("URL elicitation accepted; waiting for notifications/elicitation/complete", true)
		case ev.Known:
			m.setNote("URL elicitation "+ev.ID+" completed", true)
		default:
			m.setNote("notifications/elicitation/complete for an unknown elicitation "+ev.ID, false)
		}
	case session.ListChangedEvent:
		if stale {
			return nil, true
		}
		switch {
		case ev.Err != nil:
		case !ev.Known:
			m.logPane.AppendNote(ev.Time, ev.Method+" after list_changed: "+plural.S(len(ev.Items), "item"))
		case !ev.Diff.Empty():
			m.logPane.AppendNote(ev.Time, ev.Method+" changed: "+ev.Diff.String())
		default:
			m.logPane.AppendNote(ev.Time, ev.Method+" re-listed after list_changed: no change")
		}
		return m.applyList(ev.Method, ev.Items, ev.Err), true
	case session.ListChangeIgnoredEvent:
		m.logPane.AppendNote(ev.Time, "ignored a list_changed for "+ev.Capability+": the server did not declare the "+ev.Capability+" capability")
	case session.UnreadableEvent:
		m.logPane.AppendNote(ev.Time, fmt.Sprintf("%s (frame %d) could not be read: %v", ev.Method, ev.Seq, ev.Err))
	case session.NotifiedEvent:
		if ev.Err != nil {
			m.setNote(ev.Method+": "+ev.Err.Error(), false)
		} else {
			m.setNote("roots changed: sent "+ev.Method, true)
		}
	default:
		return nil, false
	}
	return nil, true
}

// applyGates tells each explorer pane what the server declared: a correct
// client never calls what the server did not declare, so a pane whose
// capability is missing says so, and offers to send anyway.
func (m *Model) applyGates() {
	can := session.AllowedBy(m.handshake)
	gate := func(ok bool, capability, what string) panes.Gate {
		if ok {
			return panes.Gate{OK: true}
		}
		return panes.Gate{Why: fmt.Sprintf("the server did not declare the %q capability, so it offers no %s", capability, what)}
	}
	m.tools.SetGate(gate(can.Tools, "tools", "tools"))
	m.resources.SetGate(gate(can.Resources, "resources", "resources"), can.Subscribe, can.Completions)
	m.prompts.SetGate(gate(can.Prompts, "prompts", "prompts"), can.Completions)
	m.serverLog.SetGate(gate(can.Logging, "logging", "log messages (logging/setLevel)"), can.PerRequestLogLevel)
}
