package ui

import (
	"fmt"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/watch"
	"github.com/mcpscope/mcpscope/panes"
)

// Hot reload (--watch): the source replaces its server under one stream
// (mcp/watch.Source), so what the UI does is show it: the restart row is
// the log's separator and starts a new connection's state, the surface row
// is a row to open, each breaking change a diagnostic counted in the
// header until the Diagnostics pane is looked at, and a rerun's comparison
// goes with its answer to the result view. A session file or a tap's
// record with restarts in it shows the same way.

// reloader is a source that restarts its server when asked (the reload
// key) instead of being replaced by a new one.
type reloader interface {
	Reload(who string)
	Reloads() bool
}

// reloads reports whether the reconnect key rebuilds and restarts.
func (m *Model) reloads() (reloader, bool) {
	r, ok := m.src.(reloader)
	return r, ok && r.Reloads()
}

// applyReload shows one of hot reload's events; ok is false for the
// others (and for the surface row and the diagnostics, which apply shows
// as it shows any row and diagnostic, after this has counted them).
func (m *Model) applyReload(ev mcp.Event) (ok bool) {
	switch ev := ev.(type) {
	case mcp.TransportEvent:
		if ev.Kind == mcp.TransportWatch {
			m.setNote(ev.Summary, false)
			return false // and its row, as any row
		}
		if ev.Kind == mcp.TransportBuild {
			m.setNote(ev.Summary+" (enter on its row in the log shows the output)", false)
			return false // and its row, as any row
		}
		if ev.Kind != mcp.TransportRestart {
			return false
		}
		// A new server: its frames are numbered from 1 again, and what
		// the header and the connection doctor knew was the old one's.
		m.logPane.AppendSeparator(ev.Time, ev.Summary)
		m.logPane.SetFollow(true)
		m.state, m.stateDetail = 0, ""
		m.handshake, m.exit, m.lastError, m.lastStderr, m.toolStatus = nil, nil, "", nil, ""
		m.sessionHandshakes = nil
		m.doc.reset()
		m.setNote(ev.Summary, true)
		return true
	case watch.BuildingEvent:
		m.setNote(fmt.Sprintf("building (%s) after %s…", ev.Command, ev.Cause), true)
		return true
	case watch.RerunEvent:
		if m.reruns == nil {
			m.reruns = map[int64]watch.RerunEvent{}
		}
		m.reruns[int64(ev.Op)] = ev
		return true
	case mcp.DiagnosticEvent:
		if ev.Diagnostic != nil && ev.Diagnostic.Rule == watch.BreakingRule {
			m.unseenBreaking++
		}
	}
	return false
}

// breakingBadge is the header's count of breaking changes not yet seen in
// the Diagnostics pane, or "".
func (m *Model) breakingBadge() string {
	if m.unseenBreaking == 0 {
		return ""
	}
	s := fmt.Sprintf("%d breaking change", m.unseenBreaking)
	if m.unseenBreaking > 1 {
		s += "s"
	}
	return m.theme.Status.Error.Render("⚠ " + s)
}

// sawBreaking clears the count once the Diagnostics pane is shown.
func (m *Model) sawBreaking() {
	if m.focus == focusDiagnostics {
		m.unseenBreaking = 0
	}
}

// reload asks a reloading source to rebuild and restart.
func (m *Model) reload(r reloader) {
	r.Reload("r pressed")
	m.setNote("restarting the server (r)…", true)
}

// rerunOf is the comparison a rerun's answer comes with, for the result
// view; nil when the operation is not a rerun.
func (m *Model) rerunOf(op int64) *panes.Comparison {
	ev, ok := m.reruns[op]
	if !ok {
		return nil
	}
	delete(m.reruns, op)
	c := &panes.Comparison{Title: ev.Label + " sent again after the restart", NoAnswer: ev.After == nil}
	for _, d := range ev.Differences {
		c.Differences = append(c.Differences, panes.Difference{Path: d.Path, Before: d.Recorded, After: d.Replayed})
	}
	return c
}

// comparisonLines are a rerun's comparison for the content view (a read
// or a prompt sent again).
func comparisonLines(m *Model, c *panes.Comparison) []string {
	if c == nil {
		return nil
	}
	return append(panes.ComparisonLines(m.theme, c), "")
}
