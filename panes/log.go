package panes

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// entryKind says what a log entry is: the log is one timeline of frames,
// stderr lines and connection events.
type entryKind uint8

const (
	entryFrame entryKind = iota + 1
	entryStderr
	entryState
	entryLocalError
	entryExit
	entrySeparator
	entryNote      // something mcpscope noticed: what a re-list changed
	entryTransport // an HTTP exchange, SSE event, reconnect or OAuth step
)

// logEntry is one row of the log, 16 bytes. It stores the event, not
// rendered text: rendering happens only for the rows on screen, so a long
// log costs memory for its data and nothing per frame drawn. A frame is
// kept in the log's FrameStore (about its size in bytes, outside the Go
// heap) and rebuilt when its row is drawn (frameOf); any other entry's
// event is in the log's others.
type logEntry struct {
	kind entryKind
	ref  int32         // a frame's index in the log's store; any other entry's in others
	rel  time.Duration // since the session's first event
}

// entryData is what an entry other than a frame holds.
type entryData struct {
	// dropped: a stderr entry that stands for that many lines (droppedBytes
	// bytes) no longer kept (stderrKeepLines), in place of its text.
	dropped      int
	droppedBytes int64
	text         string // stderr line, state detail, separator text (raw; sanitised when drawn)
	state        mcp.State
	local        *mcp.LocalError
	exit         *mcp.ExitError
	tr           *mcp.TransportEvent
}

// noData is a frame's entryData: empty.
var noData entryData

// Log is the message log: every frame, stderr line and connection event in
// order, one row each, with a cursor, follow mode and a filter. The rows
// scroll on panes/list, as every list does: cursor, paging, g/G, the
// wheel, W to wrap long rows and ←/→ to scroll them sideways.
type Log struct {
	theme *themes.Theme
	keys  keymap.KeyMap
	w, h  int

	focused bool

	entries []logEntry
	others  []entryData // the events of the entries that are not frames
	frames  int         // frame entries, for the title

	// store holds every logged frame; sessionStart is the index there of
	// the current connection's first frame (Seq restarts on reconnect).
	store        *mcp.FrameStore
	sessionStart int
	scratch      [2]mcp.Frame // frames read for the filter, not kept

	// shown holds the indices into entries that pass the filter and the
	// stderr toggle. It is extended as entries arrive and rebuilt only when
	// the filter changes.
	shown []int32
	// list scrolls over shown: its cursor and first row are indices into
	// shown. It learns of rows appended to shown when it is next used
	// (sync), so a flood costs one settle per draw, not one per frame.
	list *list.Model

	follow        bool
	hideStderr    bool
	hideTransport bool
	// paired shows one row per exchange (a request and its answer or its
	// local error) instead of one per frame; see log_pairs.go.
	paired bool
	// rowCount is how many entries are rows in the current view (every
	// entry with frames; without the answers and local errors folded into
	// their request with exchanges): shown is at most rowCount, and the
	// difference is what the toggles and the filter hide.
	rowCount int

	filter      logFilter
	filterText  string
	filtering   bool // the filter input has focus
	filterInput textinput.Model

	// Per-session bookkeeping: the time origin for "+1.234s" and the
	// entry index of each unanswered request by seq, to pair responses
	// (and local errors) with their requests.
	origin   time.Time
	requests map[int64]int32
	// partner pairs frames by store index, plus one (0: none): a
	// response's request, and a request's first response.
	partner []int32
	// locals are the local errors (timeout, cancel, lost) that ended a
	// request, both ways: request -> error, error -> request (by the
	// request's store index).
	localOf  map[int32]*mcp.LocalError
	localReq map[*mcp.LocalError]int32
	// toolErr memoises whether a tools/call result says isError (it is
	// found by scanning the result, once, when its row is first drawn).
	toolErr map[int32]bool

	// rowCache holds rendered unselected rows by entry index: an entry
	// never changes once logged, so a row is styled once per width and
	// theme. It is bounded by clearing, and holds only rows recently drawn.
	// fullCache is the same for rows drawn whole (not fitted to the
	// width), which the list wraps or scrolls sideways.
	rowCache      map[int32]string
	fullCache     map[int32]string
	rowCacheWidth int

	// diagsOf, when set, lists the protocol doctor's diagnostics of a
	// frame (the diagnostics pane knows): such frames carry a badge.
	diagsOf func(*mcp.Frame) []*mcp.Diagnostic

	// runs are the rows of the SSE keep-alive runs under way, by run ID:
	// each report of a run updates its one row.
	runs map[uint64]int32

	// stderrLines and stderrBytes are the stderr lines the log holds (the
	// ring of stderrKeepLines and stderrKeepBytes) and their bytes.
	stderrLines int
	stderrBytes int64
}

// SetDiagnostics sets where the log finds each frame's diagnostics.
func (l *Log) SetDiagnostics(of func(*mcp.Frame) []*mcp.Diagnostic) { l.diagsOf = of }

// Invalidate drops the rendered rows: a diagnostic can mark a frame that
// is already drawn.
func (l *Log) Invalidate() { l.clearRows() }

// clearRows drops every rendered row.
func (l *Log) clearRows() {
	clear(l.rowCache)
	clear(l.fullCache)
}

// forgetRow drops an entry's rendered rows (its exchange completed).
func (l *Log) forgetRow(idx int32) {
	delete(l.rowCache, idx)
	delete(l.fullCache, idx)
}

// SelectFrame puts the cursor on a frame (leaving follow mode), clearing
// the filter if it hides the frame. It reports whether the frame is logged.
func (l *Log) SelectFrame(f *mcp.Frame) bool {
	ref := int32(l.indexOf(f))
	if ref < 0 {
		return false
	}
	for pass := 0; pass < 2; pass++ {
		for i, idx := range l.shown {
			if e := &l.entries[idx]; e.kind == entryFrame && e.ref == ref {
				l.sync()
				l.setFollow(false)
				l.list.Select(i)
				return true
			}
		}
		if pass == 0 && (l.filterText != "" || l.hideStderr) {
			l.filterText, l.hideStderr = "", false
			l.SetFilter("")
		}
		if l.paired && (f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse) && l.partner[ref] != 0 {
			ref = l.partner[ref] - 1 // the answer is part of its request's row
		}
	}
	return false
}

// NewLog makes an empty log in follow mode.
func NewLog(t *themes.Theme, k keymap.KeyMap) *Log {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "method:tools/ dir:in kind:error -kind:http id:3 text"
	ti.SetStyles(t.TextInput)
	l := &Log{
		theme:       t,
		keys:        k,
		filterInput: ti,
		store:       mcp.NewFrameStore(),
		requests:    map[int64]int32{},
		localOf:     map[int32]*mcp.LocalError{},
		localReq:    map[*mcp.LocalError]int32{},
		toolErr:     map[int32]bool{},
		rowCache:    map[int32]string{},
		fullCache:   map[int32]string{},
	}
	l.list = list.New(logScrollKeys(k), l.wholeRow)
	l.list.SetSelecting(true)
	l.setFollow(true)
	return l
}

// logScrollKeys are the list's keys with the log's own bindings for moving
// the cursor (they are the same by default).
func logScrollKeys(k keymap.KeyMap) keymap.Scroll {
	s := k.Scroll
	s.Up, s.Down, s.PageUp, s.PageDown, s.Top, s.Bottom = k.Log.Up, k.Log.Down, k.Log.PageUp, k.Log.PageDown, k.Log.Top, k.Log.Bottom
	return s
}

// setFollow says whether the log sticks to its newest row; the list keeps
// its cursor on the last row as rows arrive while it does.
func (l *Log) setFollow(on bool) {
	l.follow = on
	l.list.SetFollow(on)
}

// sync tells the list about the rows appended to shown since it last
// looked. Only appends are told this late: anything else that changes
// shown (rebuild, an exchange completing) syncs first and tells the list
// at once.
func (l *Log) sync() {
	if l.list.Len() != len(l.shown) {
		l.list.SetLen(len(l.shown))
	}
}

// sizeList gives the list the rows inside the border (and above the
// filter line).
func (l *Log) sizeList() {
	l.list.SetSize(max(l.w-2, 0), l.rows())
}

// cursor is the index into shown of the row under the cursor, or -1.
func (l *Log) cursor() int {
	l.sync()
	if len(l.shown) == 0 {
		return -1
	}
	return l.list.Cursor()
}

// highlight reports whether the cursor's row is drawn selected: while
// the log has the focus, or when it is paused on a row.
func (l *Log) highlight() bool { return l.focused || !l.follow }

// SetTheme switches the theme (light/dark detection arrives after start).
func (l *Log) SetTheme(t *themes.Theme) {
	l.theme = t
	l.filterInput.SetStyles(t.TextInput)
	l.clearRows()
}

// Title names the pane with its counts: the frames logged (every frame
// on the wire, whatever is shown) and, when rows are hidden, how many:
// the rows of the current view (frames or exchanges) that the stderr and
// transport toggles and the filter leave out; paused, the cursor's row of
// the rows shown. Each count names its unit, so they cannot be read as
// one another.
func (l *Log) Title() string {
	head, tail := l.titleParts()
	return head + tail
}

// titleParts is the title's counts and state, then where the window is
// (the cursor's row, sideways, wrap): a narrow pane cuts the first.
func (l *Log) titleParts() (head, tail string) {
	s := "Log · "
	if l.paired {
		s += "exchanges · "
	}
	if l.frames == 1 {
		s += "1 frame"
	} else {
		s += fmt.Sprintf("%d frames", l.frames)
	}
	if n := l.Hidden(); n > 0 {
		s += " · " + plural.Of(n, "row hidden", "rows hidden")
	}
	if l.follow {
		s += " · following"
	} else {
		s += " · paused"
	}
	// Paused, where the cursor is ("row 12/300": rows, not frames: notes,
	// stderr and transport rows are rows too); and whether the rows are
	// scrolled sideways ("→30") or wrapped, as the list says them.
	l.sync()
	switch {
	case !l.follow && len(l.shown) > 0:
		tail = " · row " + l.list.Position()
	default:
		if n := l.list.Left(); n > 0 {
			tail += fmt.Sprintf(" · →%d", n)
		}
		if l.list.Wrapping() {
			tail += " · wrap"
		}
	}
	return s, tail
}

func (l *Log) SetSize(w, h int) {
	l.w, l.h = w, h
	l.filterInput.SetWidth(max(w-6, 1))
	l.sizeList()
}

func (l *Log) Focus() { l.focused = true }
func (l *Log) Blur()  { l.focused = false; l.stopFiltering() }

// Capturing is true while the filter input has the keyboard.
func (l *Log) Capturing() bool { return l.filtering }

// Len is the number of entries (frames and other rows).
func (l *Log) Len() int { return len(l.entries) }

// Rows is the number of rows of the current view: every entry with
// frames; with exchanges, one per exchange (an answer and a local error
// are part of their request's row), one per notification and other row.
func (l *Log) Rows() int { return l.rowCount }

// Shown is the number of rows drawn from (at most Rows).
func (l *Log) Shown() int { return len(l.shown) }

// Hidden is the number of rows the toggles and the filter leave out.
func (l *Log) Hidden() int { return l.rowCount - len(l.shown) }

// Frames is the number of frames logged.
func (l *Log) Frames() int { return l.frames }

// Following reports whether the log sticks to the newest entry.
func (l *Log) Following() bool { return l.follow }

// Append adds one event from the client's stream to the timeline. Events
// the log does not show (handshake results, lists) are ignored.
func (l *Log) Append(ev mcp.Event) {
	if l.origin.IsZero() {
		l.origin = ev.At()
	}
	e := logEntry{rel: ev.At().Sub(l.origin)}
	var d entryData
	req := int32(-1) // the request entry this one completes
	switch ev := ev.(type) {
	case mcp.FrameEvent:
		e.kind, e.ref = entryFrame, int32(l.store.Add(ev.Frame))
		l.partner = append(l.partner, 0)
		l.frames++
		req = l.pair(ev.Frame, int32(len(l.entries)), e.ref)
	case mcp.StderrEvent:
		if ev.Dropped > 0 {
			l.pushDropped(e, ev.Dropped, ev.DroppedBytes)
		}
		e.kind, d.text = entryStderr, ev.Line
		l.stderrLines++
		l.stderrBytes += int64(len(ev.Line) + 1)
	case mcp.StateEvent:
		e.kind, d.state, d.text = entryState, ev.State, ev.Detail
	case mcp.LocalErrorEvent:
		e.kind, d.local = entryLocalError, ev.Err
		req = l.pairLocal(ev.Err)
	case mcp.ExitEvent:
		e.kind, d.exit = entryExit, ev.Exit
	case mcp.TransportEvent:
		if ev.Run != nil && l.updateRun(&ev) {
			return
		}
		e.kind, d.tr = entryTransport, &ev
	default:
		return
	}
	if e.kind == entryFrame {
		l.push(e)
	} else {
		l.pushData(e, d)
	}
	if req >= 0 {
		l.completed(req)
	}
	if l.stderrLines > stderrKeepLines+stderrKeepLines/4 || l.stderrBytes > stderrKeepBytes+stderrKeepBytes/4 {
		l.dropOldStderr()
	}
	if d.tr != nil && d.tr.Run != nil && !d.tr.Run.Done {
		if l.runs == nil {
			l.runs = map[uint64]int32{}
		}
		l.runs[d.tr.Run.ID] = int32(len(l.entries) - 1)
	}
}

// updateRun puts a later report of a keep-alive run in its row; false
// when the run has no row yet.
func (l *Log) updateRun(ev *mcp.TransportEvent) bool {
	idx, ok := l.runs[ev.Run.ID]
	if !ok {
		return false
	}
	l.others[l.entries[idx].ref].tr = ev
	l.forgetRow(idx)
	if ev.Run.Done {
		delete(l.runs, ev.Run.ID)
	}
	return true
}

// AppendSeparator ends a session in the log (on reconnect): a separator row,
// and a fresh time origin and request table for the next session, whose
// sequence numbers start again at 1.
func (l *Log) AppendSeparator(at time.Time, text string) {
	l.pushData(logEntry{kind: entrySeparator, rel: at.Sub(l.origin)}, entryData{text: text})
	l.origin = time.Time{}
	l.requests = map[int64]int32{}
	l.runs = nil
	l.sessionStart = l.store.Len()
}

// AppendNote adds a note to the timeline without ending the session: what
// a list_changed re-list added, removed or changed.
func (l *Log) AppendNote(at time.Time, text string) {
	if l.origin.IsZero() {
		l.origin = at
	}
	l.pushData(logEntry{kind: entryNote, rel: at.Sub(l.origin)}, entryData{text: text})
}

// pushData logs an entry that is not a frame with its event.
func (l *Log) pushData(e logEntry, d entryData) {
	e.ref = int32(len(l.others))
	l.others = append(l.others, d)
	l.push(e)
}

// data is an entry's event (empty for a frame).
func (l *Log) data(e *logEntry) *entryData {
	if e.kind == entryFrame {
		return &noData
	}
	return &l.others[e.ref]
}

func (l *Log) push(e logEntry) {
	l.entries = append(l.entries, e)
	last := &l.entries[len(l.entries)-1]
	if l.isRow(last) {
		l.rowCount++
	}
	if l.visible(last) {
		l.shown = append(l.shown, int32(len(l.entries)-1))
	}
}

// pair links a response with its request, both ways, for the detail view's
// "paired frame" key and the exchanges view. idx is the frame's entry, ref
// its index in the store. It returns the request's entry when f answers
// one, else -1.
func (l *Log) pair(f *mcp.Frame, idx, ref int32) int32 {
	switch f.Kind {
	case mcp.KindRequest:
		if f.Dir == mcp.Outbound || f.Dir == mcp.Inbound {
			l.requests[f.Seq] = idx
		}
	case mcp.KindResponse, mcp.KindErrorResponse:
		if f.ReplyTo == 0 {
			return -1
		}
		if ri, ok := l.requests[f.ReplyTo]; ok {
			req := l.entries[ri].ref
			delete(l.requests, f.ReplyTo)
			l.partner[ref] = req + 1
			if l.partner[req] == 0 { // the first answer is the pair
				l.partner[req] = ref + 1
			}
			return ri
		}
	}
	return -1
}

// indexOf is where a frame is in the store: a frame the log gave out
// knows it; any other (the client's own, from an operation) is looked up
// by its seq in the current connection and must have the same bytes.
func (l *Log) indexOf(f *mcp.Frame) int {
	if f == nil {
		return -1
	}
	if i := l.store.Index(f); i >= 0 {
		return i
	}
	i := l.store.FindSeq(l.sessionStart, f.Seq)
	if i < 0 {
		return -1
	}
	var v mcp.Frame
	l.store.View(i, &v)
	if v.Dir != f.Dir || v.Kind != f.Kind || string(v.Raw) != string(f.Raw) {
		return -1
	}
	return i
}

// Paired is the request of a response or the response of a request, or nil.
func (l *Log) Paired(f *mcp.Frame) *mcp.Frame {
	i := l.indexOf(f)
	if i < 0 || l.partner[i] == 0 {
		return nil
	}
	return l.store.Frame(int(l.partner[i] - 1))
}

// FrameBySeq is the current connection's frame with this seq, or nil.
func (l *Log) FrameBySeq(seq int64) *mcp.Frame {
	i := l.store.FindSeq(l.sessionStart, seq)
	if i < 0 {
		return nil
	}
	return l.store.Frame(i)
}

// Logged is the index in Store of a frame the log was given, or -1 if it
// was not. Nothing is rebuilt: a flood's server log refers to 50,000
// frames by index.
func (l *Log) Logged(f *mcp.Frame) int { return l.indexOf(f) }

// Store is where the log keeps its frames, for panes that show some of
// them again (the server log) without a copy of their own.
func (l *Log) Store() *mcp.FrameStore { return l.store }

// frameOf is a frame entry's frame, rebuilt from the store.
func (l *Log) frameOf(e *logEntry) *mcp.Frame {
	if e.kind != entryFrame {
		return nil
	}
	return l.store.Frame(int(e.ref))
}

// entryView is an entry with its event, and its frame read from the
// store, for the filter and the row.
type entryView struct {
	*logEntry
	*entryData
	frame   *mcp.Frame // nil unless the entry is a frame
	toolErr bool       // a tools/call result that says isError
}

// view reads an entry's frame into f (not kept) for the filter.
func (l *Log) view(e *logEntry, f *mcp.Frame) *entryView {
	v := &entryView{logEntry: e, entryData: l.data(e)}
	if e.kind == entryFrame {
		l.store.View(int(e.ref), f)
		v.frame = f
		if f.Kind == mcp.KindResponse && f.ReplyToMethod == mcp.MethodToolsCall {
			bad, ok := l.toolErr[e.ref]
			if !ok {
				bad = mcp.ResultIsError(f)
				l.toolErr[e.ref] = bad
			}
			v.toolErr = bad
		}
	}
	return v
}

// rowView is an entry with its event and its frame rebuilt, for drawing.
func (l *Log) rowView(e *logEntry) *entryView {
	return &entryView{logEntry: e, entryData: l.data(e), frame: l.frameOf(e)}
}

// Selected is the frame under the cursor, or nil.
func (l *Log) Selected() *mcp.Frame {
	cur := l.cursor()
	if cur < 0 {
		return nil
	}
	return l.frameOf(&l.entries[l.shown[cur]])
}

// visible applies the view, the toggles and the filter to one entry.
func (l *Log) visible(e *logEntry) bool {
	if l.hideStderr && e.kind == entryStderr {
		return false
	}
	if l.hideTransport && e.kind == entryTransport && !l.data(e).tr.IsReloadRow() {
		return false // hot reload's rows are about the server, not the transport
	}
	if !l.isRow(e) {
		return false
	}
	if !l.filter.active() {
		return true
	}
	v := l.view(e, &l.scratch[0])
	if l.filter.match(v) {
		return true
	}
	// An exchange's row shows when either of its frames matches: kind:error
	// finds the calls the server refused.
	if l.paired && e.kind == entryFrame && v.frame.Kind == mcp.KindRequest {
		if p := l.partner[e.ref]; p != 0 {
			return l.filter.match(l.view(&logEntry{kind: entryFrame, ref: p - 1}, &l.scratch[1]))
		}
	}
	return false
}

// rebuild recomputes the shown index after the filter or toggle changed,
// keeping the cursor on the same entry when it is still shown.
func (l *Log) rebuild() {
	keep := int32(-1)
	if cur := l.cursor(); cur >= 0 {
		keep = l.shown[cur]
	}
	l.rebuildAt(keep)
}

// rebuildAt is rebuild with the cursor kept on entry keep (or the row
// before it that is shown).
func (l *Log) rebuildAt(keep int32) {
	l.shown = l.shown[:0]
	cur := 0
	l.rowCount = 0
	for i := range l.entries {
		if l.isRow(&l.entries[i]) {
			l.rowCount++
		}
		if l.visible(&l.entries[i]) {
			if int32(i) <= keep {
				cur = len(l.shown)
			}
			l.shown = append(l.shown, int32(i))
		}
	}
	l.list.SetLen(len(l.shown)) // first: the list may draw rows as it settles
	l.sizeList()                // the filter line comes and goes with the filter
	if l.follow {
		l.list.End()
	} else {
		l.list.Select(cur)
	}
}

// rows is how many log rows fit inside the border (and above the filter
// line).
func (l *Log) rows() int {
	n := l.h - 2
	if l.statusLine() {
		n--
	}
	return max(n, 0)
}

// statusLine reports whether the bottom line (the filter, and what is
// hidden) is drawn.
func (l *Log) statusLine() bool {
	return l.filtering || l.filterText != "" || l.hideStderr || l.hideTransport
}

// MoveBy moves the cursor; moving up leaves follow mode, reaching the
// bottom resumes it.
func (l *Log) MoveBy(n int) {
	l.sync()
	l.list.Select(l.list.Cursor() + n)
	l.followCursor()
}

// followCursor follows when the cursor is on the last row, and pauses
// when it is not: after the user moved it.
func (l *Log) followCursor() {
	l.setFollow(l.list.Cursor() >= len(l.shown)-1)
}

// ClickRow selects the row at y (0 is the pane's top border).
func (l *Log) ClickRow(y int) {
	l.sync()
	if i := l.list.ItemAt(y - 1); i >= 0 {
		l.list.Select(i)
		l.followCursor()
	}
}

// SetFollow turns follow mode on (jumping to the newest entry) or off.
func (l *Log) SetFollow(on bool) {
	l.setFollow(on)
	if on {
		l.sync()
		l.list.End()
	}
}

// SetFilter applies a filter expression (see parseLogFilter).
func (l *Log) SetFilter(expr string) {
	l.filterText = expr
	l.filter = parseLogFilter(expr)
	l.rebuild()
}

// ToggleStderr hides or shows the server's stderr lines.
func (l *Log) ToggleStderr() {
	l.hideStderr = !l.hideStderr
	l.rebuild()
}

// ToggleTransport hides or shows the transport rows: HTTP exchanges, SSE
// events, reconnects, OAuth steps, process states.
func (l *Log) ToggleTransport() {
	l.hideTransport = !l.hideTransport
	l.rebuild()
}

// TogglePaired switches between one row per frame and one per exchange,
// keeping the cursor on the same exchange.
func (l *Log) TogglePaired() {
	l.paired = !l.paired
	l.clearRows()
	if cur := l.cursor(); l.paired && cur >= 0 {
		// An answer's row folds into its request's: keep the cursor there.
		if e := &l.entries[l.shown[cur]]; !l.isRow(e) {
			if idx, ok := l.entryOfRequest(e); ok {
				l.shown[cur] = idx
			}
		}
	}
	l.rebuild()
}

// Paired reports whether the log shows exchanges rather than frames.
func (l *Log) PairedView() bool { return l.paired }

func (l *Log) startFiltering() tea.Cmd {
	l.filtering = true
	l.filterInput.SetValue(l.filterText)
	l.filterInput.CursorEnd()
	l.sizeList()
	return l.filterInput.Focus()
}

func (l *Log) stopFiltering() {
	l.filtering = false
	l.filterInput.Blur()
	l.sizeList()
}

// Update handles keys and mouse wheel for the focused log.
func (l *Log) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if l.filtering {
			return l.updateFilter(msg)
		}
		return l.handleKey(msg)
	case tea.MouseWheelMsg:
		l.sync()
		if l.list.Update(msg) {
			l.followCursor()
		}
	}
	return nil
}

func (l *Log) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := l.keys.Log
	switch {
	case key.Matches(msg, k.Follow):
		l.SetFollow(true)
	case key.Matches(msg, k.Filter):
		return l.startFiltering()
	case key.Matches(msg, k.ToggleStderr):
		l.ToggleStderr()
	case key.Matches(msg, k.ToggleTransport):
		l.ToggleTransport()
	case key.Matches(msg, k.Pairs):
		l.TogglePaired()
	case key.Matches(msg, k.ClearFilter):
		if l.filterText != "" {
			l.SetFilter("")
		}
	case key.Matches(msg, k.Open):
		if l.paired {
			if cmd := l.openExchange(); cmd != nil {
				return cmd
			}
		}
		if f := l.Selected(); f != nil {
			return func() tea.Msg { return OpenFrameMsg{Frame: f} }
		}
		if ev := l.selectedTransport(); ev != nil {
			title, lines := TransportLines(l.theme, ev)
			return func() tea.Msg { return OpenLinesMsg{Title: title, Lines: lines} }
		}
	default:
		// The scroll keys, as in every list: ↑/↓, PgUp/PgDn, g/G, ←/→, W.
		l.sync()
		if l.list.Update(msg) {
			l.followCursor()
		}
	}
	return nil
}

// selectedTransport is the transport event under the cursor, if it is one.
func (l *Log) selectedTransport() *mcp.TransportEvent {
	cur := l.cursor()
	if cur < 0 {
		return nil
	}
	return l.data(&l.entries[l.shown[cur]]).tr
}

// OpenLinesMsg asks the root model to show ready lines in a modal: the
// detail of something that is not a JSON-RPC frame.
type OpenLinesMsg struct {
	Title string
	Lines []string
	// Fold shows the lines wrapped to the view from the start (prose to
	// read whole, such as a prompt's description).
	Fold bool
	// Doc, when set, is what Lines were made from, with its Markdown
	// parts to render at the view's width (Content.SetDoc).
	Doc []DocPart
}

// TransportLines shows an HTTP exchange, SSE event, reconnect or OAuth step
// in full: its summary, its error, and every field (headers with their
// values; Authorization is already redacted by the transport).
func TransportLines(t *themes.Theme, ev *mcp.TransportEvent) (string, []string) {
	title := ev.Kind + " · " + termsafe.String(firstLine(ev.Summary))
	lines := []string{t.Detail.Title.Render(termsafe.String(ev.Summary)),
		t.Detail.Label.Render("at ") + t.Detail.Value.Render(ev.Time.Format("15:04:05.000"))}
	if ev.Err != nil {
		lines = append(lines, t.Log.LocalError.Render("error: "+termsafe.String(ev.Err.Error())))
	}
	if len(ev.Fields) > 0 {
		lines = append(lines, "")
	}
	for _, f := range ev.Fields {
		if f.Key == "" { // a line of output (a build's), shown as it is
			lines = append(lines, "  "+t.Detail.Value.Render(termsafe.String(f.Value)))
			continue
		}
		lines = append(lines, t.Detail.Label.Render(termsafe.String(f.Key)+": ")+t.Detail.Value.Render(termsafe.String(f.Value)))
	}
	return title, lines
}

// updateFilter edits the filter; the log follows each keystroke so the
// user sees the effect while typing.
func (l *Log) updateFilter(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, l.keys.Log.ApplyFilter):
		l.stopFiltering()
		return nil
	case key.Matches(msg, l.keys.Log.ClearFilter):
		l.stopFiltering()
		l.SetFilter("")
		return nil
	}
	var cmd tea.Cmd
	l.filterInput, cmd = l.filterInput.Update(msg)
	if v := l.filterInput.Value(); v != l.filterText {
		l.SetFilter(v)
	}
	return cmd
}

// ShortHelp lists the log's main keys.
func (l *Log) ShortHelp() []key.Binding {
	k := l.keys.Log
	if l.filtering {
		return []key.Binding{k.ApplyFilter, k.ClearFilter}
	}
	sc := l.keys.Scroll
	// f goes back to following. Sideways stays offered: measuring the
	// rows here would draw them at every event batch of a flood.
	follow := k.Follow
	follow.SetEnabled(!l.follow)
	b := []key.Binding{k.Up, k.Down, k.Open, k.Filter, k.Pairs, k.ToggleTransport, k.ToggleStderr, follow}
	if l.filterText != "" {
		b = append(b, k.ClearFilter)
	}
	return append(b, sc.Left, sc.Wrap)
}

// FullHelp lists every log key.
func (l *Log) FullHelp() [][]key.Binding {
	k, sc := l.keys.Log, l.keys.Scroll
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, sc.Left, sc.Wrap},
		{k.Open, k.Filter, k.ClearFilter, k.Follow, k.Pairs, k.ToggleTransport, k.ToggleStderr},
	}
}

// View draws the visible rows only: its cost depends on the pane's height,
// never on how many entries the log holds.
func (l *Log) View() string {
	if l.w <= 0 || l.h <= 0 {
		return ""
	}
	inner := max(l.w-2, 0)
	rows := l.rows()
	body := make([]string, 0, l.h-2)
	if len(l.shown) == 0 {
		msg := "waiting for the first frame…"
		if len(l.entries) > 0 {
			msg = "nothing matches the filter"
		}
		body = append(body, l.theme.Log.Empty.Render(msg))
	}
	if l.rowCacheWidth != inner || len(l.rowCache)+len(l.fullCache) > 8*max(rows, 16) {
		l.clearRows()
		l.rowCacheWidth = inner
	}
	l.sync()
	cur := l.list.Cursor()
	if !l.list.Wrapping() && l.list.Left() == 0 {
		// Unscrolled, each row is fitted to the width: a long subject
		// gives way so that the id, size and latency stay on screen.
		for i, top := l.list.Top(), l.list.Top(); i < len(l.shown) && i < top+rows; i++ {
			idx := l.shown[i]
			if i == cur && l.highlight() {
				body = append(body, l.renderRow(&l.entries[idx], inner, true, false))
				continue
			}
			row, ok := l.rowCache[idx]
			if !ok {
				row = l.renderRow(&l.entries[idx], inner, false, false)
				l.rowCache[idx] = row
			}
			body = append(body, row)
		}
	} else {
		// Wrapped or scrolled sideways, the rows are drawn whole and the
		// list folds or cuts them.
		sel, prev := l.theme.Log.Selected, -1
		for _, r := range l.list.RenderRows() {
			text := r.Text
			if r.Item == cur && l.highlight() {
				if r.Item == prev {
					// A wrapped row's next lines: the selection, plain.
					text = sel.Render(ansi.Strip(text))
				}
				if pad := inner - ansi.StringWidth(text); pad > 0 {
					text += sel.Render(strings.Repeat(" ", pad))
				}
			}
			prev = r.Item
			body = append(body, text)
		}
	}
	if l.statusLine() {
		for len(body) < rows {
			body = append(body, "")
		}
		if l.filtering {
			body = append(body, termsafe.Rendered(l.filterInput.View()))
		} else {
			body = append(body, l.hiddenLine())
		}
	}
	head, tail := l.titleParts()
	return Box(l.theme, TitleKeeping(head, tail, l.w), l.focused, l.w, l.h, body)
}

// segment is a piece of a row with its style, so a selected row can put the
// selection background under every piece.
type segment struct {
	text  string
	style lipgloss.Style
	// flex marks the piece that gives way when the row is too wide (a
	// request's subject), so the pieces after it (id, size, latency) stay
	// on screen; tail marks the pieces after those (an error message),
	// which are cut at the row's end instead.
	flex, tail bool
	// spare marks a piece that goes before the subject is cut below
	// subjectFloor (a size, a latency: the detail has them).
	spare bool
	// shorter are the flexible piece's shorter forms, best first ("tools/
	// call" for "result of tools/call"), tried before anything is cut.
	shorter []string
}

// labelForms are a method label's shorter forms: without "result of "
// (the kind column says it is an answer). The method itself is never
// shortened: "list" could be any of four lists, "call" a tool or a task.
func labelForms(label string) []string {
	if rest, ok := strings.CutPrefix(label, "result of "); ok {
		return []string{rest}
	}
	return nil
}

// wholeRow is shown row i drawn whole, for the list to wrap or scroll
// sideways: every piece in full, nothing fitted to the width.
func (l *Log) wholeRow(i int) string {
	if i >= len(l.shown) {
		return "" // never asked for: the list's length follows shown
	}
	idx := l.shown[i]
	e := &l.entries[idx]
	inner := max(l.w-2, 0)
	if i == l.list.Cursor() && l.highlight() {
		return l.renderRow(e, inner, true, true)
	}
	row, ok := l.fullCache[idx]
	if !ok {
		row = l.renderRow(e, inner, false, true)
		l.fullCache[idx] = row
	}
	return row
}

// separatorRule follows a separator's words, cut to the pane's width.
var separatorRule = " " + strings.Repeat("─", 400)

// renderRow draws an entry's row in w cells, the flexible pieces giving
// way when it is too wide; whole, it is drawn in full (the list wraps or
// cuts it) but for a separator, a rule as wide as the pane.
func (l *Log) renderRow(e *logEntry, w int, selected, whole bool) string {
	segs := l.rowSegments(l.rowView(e))
	fit := !whole || e.kind == entrySeparator
	if fit {
		segs = fitFlex(segs, w)
	}
	var b strings.Builder
	left := w
	sel := l.theme.Log.Selected
	for i, s := range segs {
		if fit && left <= 0 {
			break
		}
		text := s.text
		if i > 0 {
			text = " " + text
		}
		if fit {
			if ansi.StringWidth(text) > left {
				tail := "…"
				if e.kind == entrySeparator && ansi.StringWidth(strings.TrimSuffix(text, separatorRule)) < left {
					tail = "" // its words fit: the rule after them is cut to fit
				}
				text = ansi.Truncate(text, left, tail)
			}
			left -= ansi.StringWidth(text)
		}
		st := s.style
		if selected {
			st = st.Inherit(sel)
		}
		b.WriteString(st.Render(text))
	}
	if selected && fit && left > 0 {
		b.WriteString(sel.Render(strings.Repeat(" ", left)))
	}
	return b.String()
}

// fitFlex shortens the flexible pieces of a row so that the pieces up to
// the tail fit in w cells. A row's flexible pieces are the method's label
// ("result of tools/call") and then its subject (a tool, a URI, a progress
// value). The label takes its shorter form (the method alone); the subject
// is cut down to subjectFloor cells; then the spare pieces go (latency,
// then size); then the subject is cut to exactly the cells left, and goes
// whole rather than leave a lone "…" ("notifications/pr… …" once read so).
// The method is never cut from the front ("list" could be any of four
// lists); what still does not fit is cut at the row's end.
func fitFlex(segs []segment, w int) []segment {
	var flex []int
	need := 0
	for i, s := range segs {
		if s.tail {
			break
		}
		if s.flex {
			flex = append(flex, i)
		}
		need += ansi.StringWidth(s.text)
		if i > 0 {
			need++
		}
	}
	if need <= w || len(flex) == 0 {
		return segs
	}
	segs = append([]segment(nil), segs...)
	label, subject := flex[0], -1
	if len(flex) > 1 {
		subject = flex[len(flex)-1]
	}
	for _, short := range segs[label].shorter {
		if need <= w {
			break
		}
		need -= ansi.StringWidth(segs[label].text) - ansi.StringWidth(short)
		segs[label].text = short
	}
	if need <= w {
		return segs
	}
	if subject < 0 {
		// No subject to cut: the spare pieces go rather than show as "…".
		for i := len(segs) - 1; i > label && need > w; i-- {
			if segs[i].spare {
				need -= ansi.StringWidth(segs[i].text) + 1
				segs = append(segs[:i], segs[i+1:]...)
			}
		}
		return segs
	}
	// rest is the row without its subject.
	sw := ansi.StringWidth(segs[subject].text)
	rest := need - sw - 1
	for i := len(segs) - 1; i > label && rest+1+min(sw, subjectFloor) > w; i-- {
		if segs[i].spare {
			rest -= ansi.StringWidth(segs[i].text) + 1
			segs = append(segs[:i], segs[i+1:]...)
		}
	}
	switch room := w - rest - 1; {
	case room >= sw:
	case room >= 2:
		// The ellipsis follows a word, not the separator before the next
		// ("prompt greet · …").
		segs[subject].text = strings.TrimRight(ansi.Truncate(segs[subject].text, room-1, ""), " ·") + "…"
	default:
		segs = append(segs[:subject], segs[subject+1:]...)
	}
	return segs
}

// subjectFloor is the fewest cells a row's subject is cut to before the
// size and latency give way.
const subjectFloor = 12

func (l *Log) rowSegments(e *entryView) []segment {
	t := &l.theme.Log
	segs := make([]segment, 0, 9)
	segs = append(segs, segment{text: fmt.Sprintf("%9s", relTime(e.rel)), style: t.Time})
	switch e.kind {
	case entryFrame:
		f := e.frame
		if l.paired && f.Kind == mcp.KindRequest {
			return append(segs, l.exchangeSegments(f)...)
		}
		return append(segs, l.frameSegments(f)...)
	case entryStderr:
		if e.dropped > 0 {
			return append(segs, segment{text: "»", style: t.Stderr}, segment{text: "stderr", style: t.Stderr},
				segment{text: droppedText(e.dropped, e.droppedBytes), style: t.Stderr.Italic(true)})
		}
		return append(segs, segment{text: "»", style: t.Stderr}, segment{text: "stderr", style: t.Stderr}, segment{text: termsafe.String(e.text), style: t.Stderr})
	case entryState:
		return append(segs, segment{text: "●", style: t.State}, segment{text: e.state.String(), style: t.State.Bold(true)}, segment{text: termsafe.String(firstLine(e.text)), style: t.State})
	case entryLocalError:
		le := e.local
		segs = append(segs,
			segment{text: "✗", style: t.LocalError},
			segment{text: " " + strings.ToUpper(le.Kind.String()) + " ", style: t.BadgeLocalError},
			segment{text: termsafe.String(le.Method), style: t.LocalError, flex: true, shorter: labelForms(termsafe.String(le.Method))})
		if req, ok := l.localReq[le]; ok {
			if subj := l.subject(l.store.Frame(int(req))); subj != "" {
				segs = append(segs, segment{text: subj, style: t.LocalError.Bold(true), flex: true})
			}
		}
		why := "no answer from the server after " + fmtLatency(le.Elapsed) + " (local)"
		if le.Kind == mcp.SignInFailed {
			// The server may be well: mcpscope could not sign in to it.
			why = "the sign-in failed after " + fmtLatency(le.Elapsed) + " (local)"
			if le.Err != nil { // a recording keeps the kind, not the cause
				why += ": " + termsafe.String(le.Err.Error())
			}
		}
		return append(segs,
			segment{text: "#" + termsafe.String(le.ID.String()), style: t.ID},
			segment{text: why, style: t.LocalError, tail: true})
	case entryExit:
		text := termsafe.String(exitSummary(e.exit))
		return append(segs, segment{text: "■", style: t.Exit}, segment{text: text, style: t.Exit})
	case entryNote:
		return append(segs, segment{text: "◆", style: t.Notification}, segment{text: "note", style: t.Notification.Bold(true)}, segment{text: termsafe.String(e.text), style: t.Notification})
	case entryTransport:
		// Transport steps are not JSON-RPC frames: a symbol and style of
		// their own, and errors in the local-error style (nothing the
		// server sent as a JSON-RPC error).
		st, text := t.Transport, termsafe.String(e.tr.Summary)
		if e.tr.Err != nil {
			st = t.LocalError
			text += ": " + termsafe.String(e.tr.Err.Error())
		}
		return append(segs, segment{text: "⇄", style: st}, segment{text: fmt.Sprintf("%-6s", e.tr.Kind), style: st.Bold(true)}, segment{text: text, style: st})
	case entrySeparator:
		return append(segs, segment{text: "──── " + termsafe.String(e.text) + separatorRule, style: t.Separator})
	}
	return segs
}

func (l *Log) frameSegments(f *mcp.Frame) []segment {
	t := &l.theme.Log
	dir := t.Incoming
	if f.Dir == mcp.Outbound {
		dir = t.Outgoing
	}
	// With exchanges, the kind column is as wide as an exchange's status,
	// so the methods line up.
	kindColumn := "%-6s"
	if l.paired {
		kindColumn = "%-9s"
	}
	kindStyle := dir
	if f.Kind == mcp.KindNotification {
		kindStyle = t.Notification
	}
	segs := []segment{
		{text: f.Dir.Arrow(), style: dir},
		{text: fmt.Sprintf(kindColumn, kindShort(f.Kind)), style: kindStyle},
	}
	// Badges come before the method so a narrow pane never cuts them off.
	switch f.Kind {
	case mcp.KindErrorResponse:
		segs = append(segs, segment{text: fmt.Sprintf("ERR %d", f.ErrorCode), style: t.BadgeError})
	case mcp.KindInvalid:
		segs = append(segs, segment{text: "INVALID", style: t.BadgeInvalid})
	}
	if f.UnknownID {
		segs = append(segs, segment{text: "UNKNOWN-ID", style: t.BadgeUnknown})
	}
	if f.Duplicate {
		segs = append(segs, segment{text: "DUP", style: t.BadgeUnknown})
	}
	if f.Probe {
		segs = append(segs, segment{text: "PROBE", style: t.BadgeProbe})
	}
	if f.ByTap {
		segs = append(segs, segment{text: "BY TAP", style: t.BadgeProbe})
	}
	segs = append(segs, l.diagBadges(f)...)
	label := termsafe.String(f.Label())
	segs = append(segs, segment{text: label, style: t.Method, flex: true, shorter: labelForms(label)})
	if subj := l.subject(f); subj != "" {
		segs = append(segs, segment{text: subj, style: t.Method.Bold(true), flex: true})
	}
	if !f.ID.IsZero() {
		segs = append(segs, segment{text: "#" + termsafe.String(f.ID.String()), style: t.ID})
	}
	segs = append(segs, segment{text: fmtSize(f.Size()), style: t.Size, spare: true})
	if (f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse) && f.Latency > 0 {
		segs = append(segs, segment{text: fmtLatency(f.Latency), style: t.Latency, spare: true})
	}
	switch {
	case f.Kind == mcp.KindErrorResponse && f.ErrorMessage != "":
		segs = append(segs, segment{text: termsafe.String(f.ErrorMessage), style: t.BadgeError.UnsetBold(), tail: true})
	case f.Problem != "":
		segs = append(segs, segment{text: termsafe.String(f.Problem), style: t.BadgeInvalid.UnsetBold().UnsetUnderline(), tail: true})
	}
	return segs
}

// subject names what a frame is about, sanitised: a request's tool,
// resource, prompt or reference, and for an answer its request's.
func (l *Log) subject(f *mcp.Frame) string {
	if f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse {
		f = l.Paired(f)
	}
	return termsafe.String(mcp.Subject(f))
}

// diagBadges is one badge per severity among the frame's diagnostics,
// worst first: E, W, H (with a count when there are several).
func (l *Log) diagBadges(f *mcp.Frame) []segment {
	if l.diagsOf == nil {
		return nil
	}
	ds := l.diagsOf(f)
	if len(ds) == 0 {
		return nil
	}
	var n [4]int
	for _, d := range ds {
		if int(d.Severity) < len(n) {
			n[d.Severity]++
		}
	}
	var segs []segment
	for _, s := range []mcp.Severity{mcp.SeverityError, mcp.SeverityWarning, mcp.SeverityHint} {
		if n[s] == 0 {
			continue
		}
		text := SeverityLetter(s)
		if n[s] > 1 {
			text += fmt.Sprint(n[s])
		}
		segs = append(segs, segment{text: text, style: SeverityStyle(l.theme, s)})
	}
	return segs
}

func kindShort(k mcp.Kind) string {
	switch k {
	case mcp.KindRequest:
		return "req"
	case mcp.KindResponse:
		return "resp"
	case mcp.KindErrorResponse:
		return "error"
	case mcp.KindNotification:
		return "notif"
	case mcp.KindBatch:
		return "batch"
	case mcp.KindInvalid:
		return "inval"
	}
	return "?"
}

// relTime is the time since the session began in at most 9 cells, the
// log's time column: "+1.234s" under 100 s, "+12m34.5s" under an hour,
// then "+2h03m04s": plain seconds would push the row of a session left
// open all day past the column.
func relTime(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < 100*time.Second:
		return fmt.Sprintf("+%.3fs", d.Seconds())
	case d < time.Hour:
		d = d.Truncate(100 * time.Millisecond)
		return fmt.Sprintf("+%dm%04.1fs", int(d/time.Minute), (d % time.Minute).Seconds())
	}
	d = d.Truncate(time.Second)
	return fmt.Sprintf("+%dh%02dm%02ds", int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second))
}

func fmtSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%dB", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1fkB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/1000/1000)
	}
}

func fmtLatency(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

// ExitSummary is one line about how the server ended: its status or
// signal, what mcpscope had to send, and the line of its stderr that says
// what went wrong (errline.Pick: not Node's trailer below its error). A
// server mcpscope stopped says so.
func exitSummary(e *mcp.ExitError) string {
	if e == nil {
		return "server exited"
	}
	if e.StoppedFor != "" || e.Expected && e.Err == nil && e.Forced == "" && e.Code == 0 {
		// Its stderr is no cause: mcpscope ended it.
		s := "mcpscope stopped the server"
		if e.StoppedFor != "" {
			s += " for " + e.StoppedFor
		}
		switch {
		case e.Err != nil:
			return fmt.Sprintf("%s (it ended: %v)", s, e.Err)
		case e.Signal != "" && e.Signal == e.Forced:
			return fmt.Sprintf("%s with %s", s, e.Signal)
		case e.Signal != "":
			return fmt.Sprintf("%s (it was killed by %s)", s, e.Signal)
		case e.Forced != "":
			return fmt.Sprintf("%s (it exited with status %d after %s)", s, e.Code, e.Forced)
		}
		return fmt.Sprintf("%s (it exited with status %d)", s, e.Code)
	}
	var b strings.Builder
	switch {
	case e.Err != nil:
		fmt.Fprintf(&b, "server ended: %v", e.Err)
	case e.Signal != "":
		fmt.Fprintf(&b, "server was killed by %s", e.Signal)
	default:
		fmt.Fprintf(&b, "server exited with status %d", e.Code)
	}
	if e.Forced != "" {
		fmt.Fprintf(&b, " (mcpscope sent %s)", e.Forced)
	}
	if e.ClientSignal != "" {
		fmt.Fprintf(&b, " (its client sent %s)", e.ClientSignal)
	}
	if h := e.Headline(); h != "" {
		b.WriteString(" — stderr: ")
		b.WriteString(h)
	} else {
		b.WriteString(" — no stderr output")
	}
	return b.String()
}

// ExitSummary is exitSummary for the root model's status bar.
func ExitSummary(e *mcp.ExitError) string { return termsafe.String(exitSummary(e)) }

// firstLine is s up to its first line break: multi-line details (an exit
// with its stderr tail) get one row; the detail is in the status bar.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSuffix(s[:i], ":") + " …"
	}
	return s
}
