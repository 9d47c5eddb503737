package panes

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// The exchanges view (x) shows one row per request with what became of
// it, as the MCP Inspector's protocol tab does: its answer (folded into
// the request's row), or the local error that ended it. Notifications,
// stderr, transport and the other rows stay as they are. It is a second
// index over the same entries: nothing is copied, and a row is drawn only
// when it is on screen.

// exchangeStatus is what became of a request.
type exchangeStatus uint8

const (
	exPending   exchangeStatus = iota // no answer yet
	exOK                              // a result
	exError                           // the server's JSON-RPC error, or a tool's isError
	exLocal                           // mcpscope gave up: timeout, cancel, lost connection
	exToolError                       // a tools/call result with isError: true
)

// isRow reports whether an entry is a row of the current view: with
// exchanges, an answer and a local error are part of their request's row.
func (l *Log) isRow(e *logEntry) bool {
	if !l.paired {
		return true
	}
	switch e.kind {
	case entryFrame:
		k, p := l.store.Kind(int(e.ref)), l.partner[e.ref]
		return !((k == mcp.KindResponse || k == mcp.KindErrorResponse) && p != 0 && l.partner[p-1] == e.ref+1)
	case entryLocalError:
		_, folded := l.localReq[l.data(e).local]
		return !folded
	}
	return true
}

// requestOf is the store index of the request whose row a folded entry
// belongs to, or -1.
func (l *Log) requestOf(e *logEntry) int32 {
	switch e.kind {
	case entryFrame:
		return l.partner[e.ref] - 1
	case entryLocalError:
		if req, ok := l.localReq[l.data(e).local]; ok {
			return req
		}
	}
	return -1
}

// entryOfRequest finds the entry of the request a folded entry belongs
// to, looking back from it (the request always comes first).
func (l *Log) entryOfRequest(e *logEntry) (int32, bool) {
	req := l.requestOf(e)
	if req < 0 {
		return 0, false
	}
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].kind == entryFrame && l.entries[i].ref == req {
			return int32(i), true
		}
	}
	return 0, false
}

// pairLocal links a local error with the request it ended, and returns
// the request's entry (-1 when the request was never logged: a write that
// never started).
func (l *Log) pairLocal(le *mcp.LocalError) int32 {
	if le == nil || le.ReqSeq == 0 {
		return -1
	}
	ri, ok := l.requests[le.ReqSeq]
	if !ok {
		return -1
	}
	req := l.entries[ri].ref
	l.localOf[req], l.localReq[le] = le, req
	return ri
}

// completed redraws a request's row when its answer or local error
// arrives, and shows it when the filter now matches the exchange (an
// error answer under kind:error).
func (l *Log) completed(ri int32) {
	l.forgetRow(ri)
	if !l.paired {
		return
	}
	at := sort.Search(len(l.shown), func(i int) bool { return l.shown[i] >= ri })
	if at < len(l.shown) && l.shown[at] == ri {
		return
	}
	if !l.visible(&l.entries[ri]) {
		return
	}
	// The row goes in above whatever came after the request: the list
	// keeps the cursor on the row it was on (or on the last, following).
	l.sync()
	l.shown = append(l.shown, 0)
	copy(l.shown[at+1:], l.shown[at:])
	l.shown[at] = ri
	l.list.Insert(at, 1)
}

// exchange is what became of a request.
func (l *Log) exchange(req *mcp.Frame) (exchangeStatus, *mcp.Frame, *mcp.LocalError) {
	resp, le := l.Paired(req), l.localOf[int32(l.indexOf(req))]
	switch {
	case le != nil:
		return exLocal, resp, le
	case resp == nil:
		return exPending, nil, nil
	case resp.Kind == mcp.KindErrorResponse:
		return exError, resp, nil
	case l.toolError(resp):
		return exToolError, resp, nil
	}
	return exOK, resp, nil
}

// toolError reports, once per frame, whether a tools/call result says
// isError.
func (l *Log) toolError(resp *mcp.Frame) bool {
	if resp.ReplyToMethod != mcp.MethodToolsCall {
		return false
	}
	i := int32(l.indexOf(resp))
	if i < 0 {
		return mcp.ResultIsError(resp)
	}
	bad, ok := l.toolErr[i]
	if !ok {
		bad = mcp.ResultIsError(resp)
		l.toolErr[i] = bad
	}
	return bad
}

// exchangeSegments draws a request's row in the exchanges view: its
// status, method and subject, id, sizes (request→answer), latency, and
// why it failed. A server's error and a local one look different, as
// everywhere: the server's in the error colour, ours in reverse video.
func (l *Log) exchangeSegments(req *mcp.Frame) []segment {
	t := &l.theme.Log
	dir := t.Incoming
	if req.Dir == mcp.Outbound {
		dir = t.Outgoing
	}
	st, resp, le := l.exchange(req)
	segs := []segment{{text: req.Dir.Arrow(), style: dir}}
	switch st {
	case exPending:
		segs = append(segs, segment{text: "… pending", style: t.StatusPending})
	case exOK:
		segs = append(segs, segment{text: "✓        ", style: t.StatusOK})
	case exError, exToolError:
		segs = append(segs, segment{text: "✗ error  ", style: t.BadgeError})
	case exLocal:
		segs = append(segs, segment{text: "✗ local", style: t.BadgeLocalError}, segment{text: " ", style: t.Time})
	}
	if req.Probe {
		segs = append(segs, segment{text: "PROBE", style: t.BadgeProbe})
	}
	segs = append(segs, l.diagBadges(req)...)
	if resp != nil {
		segs = append(segs, l.diagBadges(resp)...)
	}
	method := termsafe.String(req.Method)
	segs = append(segs, segment{text: method, style: t.Method, flex: true, shorter: labelForms(method)})
	if subj := l.subject(req); subj != "" {
		segs = append(segs, segment{text: subj, style: t.Method.Bold(true), flex: true})
	}
	if !req.ID.IsZero() {
		segs = append(segs, segment{text: "#" + termsafe.String(req.ID.String()), style: t.ID})
	}
	size := fmtSize(req.Size())
	if resp != nil {
		size += "→" + fmtSize(resp.Size())
	}
	segs = append(segs, segment{text: size, style: t.Size, spare: true})
	switch {
	case resp != nil && resp.Latency > 0:
		segs = append(segs, segment{text: fmtLatency(resp.Latency), style: t.Latency, spare: true})
	case le != nil:
		segs = append(segs, segment{text: fmtLatency(le.Elapsed), style: t.Latency, spare: true})
	}
	switch st {
	case exError:
		text := fmt.Sprintf("%d", resp.ErrorCode)
		if resp.ErrorMessage != "" {
			text += " " + termsafe.String(resp.ErrorMessage)
		}
		segs = append(segs, segment{text: text, style: t.BadgeError.UnsetBold(), tail: true})
	case exToolError:
		segs = append(segs, segment{text: "isError: the tool reported a failure", style: t.BadgeError.UnsetBold(), tail: true})
	case exLocal:
		text := le.Kind.String() + " (local)"
		if resp != nil {
			text += "; the answer came late"
		}
		segs = append(segs, segment{text: text, style: t.LocalError, tail: true})
	}
	return segs
}

// hiddenLine is the bottom line when rows are hidden: the filter as
// typed, and how many rows are hidden by what.
func (l *Log) hiddenLine() string {
	t := &l.theme.Log
	var line string
	if l.filterText != "" {
		line = t.FilterPrompt.Render("/ ") + t.Method.Render(termsafe.String(l.filterText)) + "  "
	}
	var why []string
	if l.filter.active() {
		why = append(why, "filter")
	}
	if l.hideStderr {
		why = append(why, "stderr (s)")
	}
	if l.hideTransport {
		why = append(why, "transport (t)")
	}
	return line + t.Empty.Render(plural.Of(l.Hidden(), "row hidden", "rows hidden")+": "+strings.Join(why, ", "))
}

// OpenExchangeMsg asks the root model to show an exchange: the request and
// its answer (or the local error that ended it) one under the other.
type OpenExchangeMsg struct {
	Request  *mcp.Frame
	Response *mcp.Frame      // nil while pending or after a local error
	Local    *mcp.LocalError // nil unless mcpscope gave up on it
}

// openExchange opens the exchange under the cursor, or returns nil when
// the row is not a request.
func (l *Log) openExchange() tea.Cmd {
	f := l.Selected()
	if f == nil || f.Kind != mcp.KindRequest {
		return nil
	}
	msg := OpenExchangeMsg{Request: f, Response: l.Paired(f), Local: l.localOf[int32(l.indexOf(f))]}
	return func() tea.Msg { return msg }
}

// exchangePreview bounds what ExchangeLines formats of one frame: both
// frames are formatted at once on the UI goroutine, so a 20 MB answer is
// shown in part (the frame view, x then enter, has all of it).
const exchangePreview = syncFormatLimit

// ExchangeLines shows an exchange in full: a line about the request, its
// JSON, then a line about the answer (or the local error), and its JSON.
// The JSON is coloured as it is drawn.
func ExchangeLines(t *themes.Theme, msg OpenExchangeMsg) (string, *LazyLines) {
	req := msg.Request
	title := req.Method
	if s := mcp.Subject(req); s != "" {
		title += " " + s
	}
	title = termsafe.String(title)
	if !req.ID.IsZero() {
		title += " #" + termsafe.String(req.ID.String())
	}
	switch resp := msg.Response; {
	case msg.Local != nil:
		title += " · ✗ local " + msg.Local.Kind.String()
	case resp == nil:
		title += " · pending"
	case resp.Kind == mcp.KindErrorResponse:
		title += fmt.Sprintf(" · ✗ error %d · %s", resp.ErrorCode, fmtLatency(resp.Latency))
	case resp.ReplyToMethod == mcp.MethodToolsCall && mcp.ResultIsError(resp):
		title += " · ✗ error isError · " + fmtLatency(resp.Latency)
	default:
		title += " · ✓ " + fmtLatency(resp.Latency)
	}
	d := t.Detail
	lines := NewLazyLines(t)
	lines.Add(d.Title.Render(fmt.Sprintf("%s request", req.Dir.Arrow())) +
		d.Label.Render(fmt.Sprintf("  frame #%d · %s · at %s", req.Seq, fmtSize(req.Size()), req.Time.Format("15:04:05.000"))))
	frameLines(t, lines, req)
	lines.Add("")
	switch resp := msg.Response; {
	case msg.Local != nil:
		why := " mcpscope gave up after " + fmtLatency(msg.Local.Elapsed) + " (local; the server sent no error)"
		if msg.Local.Kind == mcp.SignInFailed {
			why = " the sign-in failed after " + fmtLatency(msg.Local.Elapsed) + " (local)"
			if msg.Local.Err != nil {
				why += ": " + termsafe.String(msg.Local.Err.Error())
			}
		}
		lines.Add(t.Log.BadgeLocalError.Render(" "+strings.ToUpper(msg.Local.Kind.String())+" ") + t.Log.LocalError.Render(why))
		if resp == nil {
			break
		}
		lines.Add("")
		fallthrough
	case resp != nil:
		head := d.Title.Render(fmt.Sprintf("%s %s", resp.Dir.Arrow(), resp.Kind)) +
			d.Label.Render(fmt.Sprintf("  frame #%d · %s · %s · at %s", resp.Seq, fmtSize(resp.Size()), fmtLatency(resp.Latency), resp.Time.Format("15:04:05.000")))
		lines.Add(head)
		if resp.Kind == mcp.KindErrorResponse {
			lines.Add(d.Problem.Render(fmt.Sprintf("server error %d: ", resp.ErrorCode)) + d.Value.Render(termsafe.String(resp.ErrorMessage)))
		}
		frameLines(t, lines, resp)
	default:
		lines.Add(d.Label.Render("no answer yet"))
	}
	return title, lines
}

// frameLines adds a frame's JSON, indented, to be highlighted as it is
// drawn, or its raw bytes when it is not JSON; beyond exchangePreview
// only the start.
func frameLines(t *themes.Theme, out *LazyLines, f *mcp.Frame) {
	if len(f.Raw) > exchangePreview {
		raw := string(f.Raw[:exchangePreview])
		out.Add(t.Detail.Hint.Render(fmt.Sprintf("%s: the first %s shown (x, then enter on the frame, shows all of it)", fmtSize(f.Size()), fmtSize(exchangePreview))),
			t.Detail.Raw.Render(termsafe.String(cutBytes(raw, maxLineBytes))+"…"))
		return
	}
	msg := formatFrame(f)
	if !msg.ok {
		out.Add(t.Detail.Raw.Render(termsafe.String(string(f.Raw))))
		return
	}
	for i, line := range msg.pretty {
		if len(line) > maxLineBytes {
			line = cutBytes(line, maxLineBytes) + "…"
		}
		msg.pretty[i] = termsafe.String(line)
	}
	out.AddJSON(msg.pretty...)
}

// cutBytes is s cut to at most n bytes at a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
