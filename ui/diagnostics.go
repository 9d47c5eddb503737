package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/panes"
)

// maxDoctorEvents bounds the events kept for the connection doctor: what
// happened before a failed handshake is short; a session that connected
// keeps none.
const maxDoctorEvents = 512

// connectDoctor is the root model's record of the current connection for the
// protocol doctor: until the handshake is done, its events, which the
// connection doctor reads when connecting fails. (Diagnostics name frames
// by Seq, which restarts on reconnect: the log finds them among the
// current connection's frames, FrameBySeq.)
type connectDoctor struct {
	events []mcp.Event
	// err is the failed Connect's error; cause and fix explain it.
	err        error
	cause, fix string
	// logged is set once the explanation is in the log.
	logged bool
	// ready stops recording events: the connection is up.
	ready bool
}

func (d *connectDoctor) reset() { *d = connectDoctor{} }

// observe records one event of the current connection.
func (d *connectDoctor) observe(ev mcp.Event) {
	switch ev.(type) {
	case mcp.HandshakeEvent:
		d.ready, d.events = true, nil
	}
	if !d.ready && len(d.events) < maxDoctorEvents {
		d.events = append(d.events, ev)
	}
}

func (m *Model) initDiagnostics() {
	m.diags = panes.NewDiagnostics(m.theme, m.keys)
	m.logPane.SetDiagnostics(m.diags.Of)
	m.detail.SetDiagnostics(m.diags.Of)
	m.detail.SetPreviewable(m.previewable)
	m.doc.reset()
}

// addDiagnostic files a diagnostic under its rule and marks its frames.
func (m *Model) addDiagnostic(d *mcp.Diagnostic) {
	if d == nil {
		return
	}
	frames := make([]*mcp.Frame, len(d.Frames))
	for i, seq := range d.Frames {
		frames[i] = m.logPane.FrameBySeq(seq)
	}
	m.diags.Add(d, frames)
	m.logPane.Invalidate()
}

// showFrame answers enter on a diagnostic: the log's cursor goes to the
// frame and the frame opens in the detail view.
func (m *Model) showFrame(f *mcp.Frame) {
	m.logPane.SelectFrame(f)
	m.setFocus(focusLog)
	m.closeModal()
	m.detail.SetFrame(f)
	m.openModal(modalDetail)
}

// connectFailed explains a failed Connect with the connection doctor. The
// events of the failure may still be on their way (the stream ends after
// them), so the explanation is refined when the stream ends.
func (m *Model) connectFailed(err error) {
	m.doc.err = err
	m.doc.cause, m.doc.fix = doctor.ExplainConnectError(err, m.doc.events)
	m.lastError = ""
	if m.ended {
		m.explainFailure()
	}
}

// explainFailure puts the connection doctor's cause and fix in the log,
// once, with every event of the failed connection in hand.
func (m *Model) explainFailure() {
	d := &m.doc
	if d.err == nil || d.logged {
		return
	}
	d.logged = true
	d.cause, d.fix = doctor.ExplainConnectError(d.err, d.events)
	// Notes are one row each: wrap to the log's width (the time and the
	// note mark take 18 cells) so the whole explanation can be read.
	w := max(m.layout.log.Dx()-2-18, 30)
	now := time.Now()
	note := func(prefix, text string) {
		for i, line := range strings.Split(ansi.Wrap(prefix+text, w, ""), "\n") {
			if i > 0 {
				line = "  " + line
			}
			m.logPane.AppendNote(now, line)
		}
	}
	for i, line := range strings.Split(d.cause, "\n") {
		prefix := "  "
		if i == 0 {
			prefix = "connection failed: "
		}
		note(prefix, strings.TrimSpace(line))
	}
	note("likely fix: ", d.fix)
}

// doctorLine is the status bar's account of a failed connection: the
// cause on one line, and the fix.
func (m *Model) doctorLine() (cause, fix string, ok bool) {
	if m.doc.err == nil {
		return "", "", false
	}
	lines := strings.Split(m.doc.cause, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " "), m.doc.fix, true
}

// diagCounts is "3 errors · 2 warnings" for the header, or "".
func (m *Model) diagCounts() string { return panes.CountText(m.diags.Counts()) }
