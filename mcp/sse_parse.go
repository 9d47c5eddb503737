package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// sseEvent is one server-sent event as it was framed on the wire: the block
// of lines up to a blank line (WHATWG HTML, "server-sent events").
//
// Unlike a browser's EventSource, mcpscope keeps what a browser drops: the
// comments (keep-alives), the id and retry of an event without data (an MCP
// priming event, SEP-1699), and an event cut off by the end of the stream,
// because each of those is something a server author debugs.
type sseEvent struct {
	ID       string
	HasID    bool
	Event    string // the event type; empty means "message"
	Data     []byte // data lines joined with "\n", exactly as sent
	HasData  bool   // at least one data line
	Retry    time.Duration
	HasRetry bool
	// Comments are the event's first sseKeptComments comment lines;
	// CommentCount and CommentBytes count them all. A server can send
	// millions of keep-alive comments without a blank line between them:
	// each must cost what it weighs on the wire, not a string and a
	// timeline field of its own.
	Comments     []string
	CommentCount int
	CommentBytes int
	// Incomplete is set for a final event the stream ended inside of,
	// before its terminating blank line. A browser would drop it.
	Incomplete bool
	// Cut says why the event's data is not all there: a line over
	// sseMaxLine, or data over sseMaxEvent. The rest was read and dropped.
	Cut string
	// Size is what the event took on the wire: its lines with their line
	// ends and the blank line that ended it (a cut line counts what was
	// kept of it).
	Size int
}

// Problem is what a frame made of this event's data must say about it.
func (e *sseEvent) Problem() string {
	switch {
	case e.Cut != "":
		return e.Cut
	case e.Incomplete:
		return "the SSE stream ended before this event's closing blank line"
	}
	return ""
}

// Type is the event type with the default applied.
func (e *sseEvent) Type() string {
	if e.Event == "" {
		return "message"
	}
	return e.Event
}

// Priming reports an event that carries an id but no data: the server's way
// of giving the client a Last-Event-ID before anything else (SEP-1699).
func (e *sseEvent) Priming() bool { return e.HasID && len(e.Data) == 0 }

// sseReader splits a text/event-stream body into events. Lines end in "\n"
// or "\r\n"; a lone "\r" as a line end (allowed by the SSE grammar, used by
// no MCP server seen so far) is not recognised.
type sseReader struct {
	br       *bufio.Reader
	maxLine  int
	maxEvent int
	started  bool
}

// The documented limits of an SSE stream (docs/limits.md). Beyond them
// the event's data is cut, read to its end and dropped, and the frame says
// so (a Problem): nothing within the limits is lost.
const (
	// sseMaxLine caps one SSE line (one data line is one JSON message in
	// practice): the same ceiling as a stdio line.
	sseMaxLine = 256 << 20
	// sseMaxEvent caps the data of one event (its data lines joined).
	sseMaxEvent = 256 << 20
	// sseKeptComments is how many comment lines of one event are kept
	// (the rest are counted).
	sseKeptComments = 16
	// sseMaxComment caps one kept comment's text.
	sseMaxComment = 1 << 10
)

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10), maxLine: sseMaxLine, maxEvent: sseMaxEvent}
}

// next returns the next event. At the end of the stream it returns the
// unterminated last event (Incomplete set) if there was one, then io.EOF;
// a read error is returned as is.
func (r *sseReader) next() (*sseEvent, error) {
	var ev *sseEvent
	for {
		line, cut, err := readLine(r.br, r.maxLine)
		if err != nil && len(line) == 0 {
			if ev != nil {
				ev.Incomplete = true
				return ev, nil
			}
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, err
		}
		var done bool
		if ev, done = r.step(ev, line, cut); done {
			return ev, nil
		}
		if err != nil && ev != nil {
			// The stream ended in the middle of this line: keep what came.
			ev.Incomplete = true
			return ev, nil
		}
	}
}

// step applies one line (its newline removed; cut when it was longer than
// maxLine) to the event being built, nil before the event's first line.
// done says the line was the blank one that ends the event.
func (r *sseReader) step(ev *sseEvent, line []byte, cut bool) (_ *sseEvent, done bool) {
	size := len(line) + 1 // with its newline
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !r.started {
		r.started = true
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a BOM may open the stream
	}
	if len(line) == 0 {
		if ev != nil {
			ev.Size += size
		}
		return ev, ev != nil // blank lines between events end nothing
	}
	if ev == nil {
		ev = &sseEvent{}
	}
	ev.Size += size
	r.field(ev, line)
	if cut && ev.Cut == "" {
		ev.Cut = fmt.Sprintf("an SSE line longer than mcpscope's limit of %d bytes was cut there (the rest was read and dropped)", r.maxLine)
	}
	return ev, false
}

// field applies one non-blank line to the event being built.
func (r *sseReader) field(ev *sseEvent, line []byte) {
	if line[0] == ':' {
		c := bytes.TrimPrefix(line[1:], []byte(" "))
		ev.CommentCount++
		ev.CommentBytes += len(line) + 1
		if len(ev.Comments) < sseKeptComments {
			if len(c) > sseMaxComment {
				c = c[:sseMaxComment]
			}
			ev.Comments = append(ev.Comments, string(c))
		}
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "data":
		if ev.HasData && ev.Cut == "" && len(ev.Data)+1+len(value) > r.maxEvent {
			ev.Cut = fmt.Sprintf("an SSE event's data passed mcpscope's limit of %d bytes and was cut there (the rest was read and dropped)", r.maxEvent)
		}
		if ev.Cut != "" && ev.HasData {
			return
		}
		if ev.HasData {
			ev.Data = append(ev.Data, '\n')
		}
		if ev.Data == nil {
			// One data line is the usual event: keep it as read, without
			// append's spare capacity.
			ev.Data = value
		} else {
			ev.Data = append(ev.Data, value...)
		}
		ev.HasData = true
	case "event":
		ev.Event = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 { // the SSE grammar ignores an id holding NUL
			ev.ID, ev.HasID = string(value), true
		}
	case "retry":
		if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil {
			ev.Retry, ev.HasRetry = time.Duration(ms)*time.Millisecond, true
		}
	}
}

// sseClassify is what a client makes of one SSE event on a stream: the
// timeline rows for what the event carried besides a message, and whether
// its data is a message to deliver. legacy is the 2024-11-05 transport's
// event stream once its endpoint event has come. mcpscope's transports and
// a tap watching a real client's stream both judge events here, so one
// stream reads the same either way.
func sseClassify(stream string, ev *sseEvent, legacy bool) (rows []TransportEvent, deliver bool) {
	if te, ok := sseTransportEvent(stream, ev); ok {
		rows = append(rows, te)
	}
	if len(ev.Data) == 0 {
		// A priming event (an id, no data), a keep-alive, a retry: nothing
		// to deliver, and nothing wrong.
		return rows, false
	}
	switch {
	case ev.Type() == "message":
		return rows, true
	case legacy && ev.Type() == "endpoint":
		return append(rows, TransportEvent{Kind: "sse", Summary: "SSE: a second endpoint event, ignored", Fields: []Field{{"stream", stream}, {"data", string(ev.Data)}}}), false
	}
	return append(rows, TransportEvent{Kind: "sse", Summary: "SSE event of type " + ev.Type() + " ignored: MCP messages come as message events",
		Fields: []Field{{"stream", stream}, {"event", ev.Type()}, {"data", snippet(ev.Data)}}}), false
}

// sseEndpointRow is the row for the legacy transport's endpoint event.
func sseEndpointRow(stream string, data []byte) TransportEvent {
	return TransportEvent{Kind: "sse", Summary: "SSE endpoint event: POST to " + strings.TrimSpace(string(data)),
		Fields: []Field{{"stream", stream}, {"event", "endpoint"}, {"data", string(data)}}}
}

// SSEWatch reads an event stream that a tap copies between a real client
// and its server, in the pieces the copy hands it, with mcpscope's own SSE
// reader and classifier: what a tap records of a stream is what mcpscope's
// client would have shown of it.
type SSEWatch struct {
	stream string
	get    bool // a GET stream: an endpoint event first makes it HTTP+SSE
	legacy bool // it is: its endpoint event came
	r      sseReader
	ev     *sseEvent
	line   []byte // the line so far (at most maxLine bytes of it)
	cut    bool   // the line so far is longer than maxLine
	// ka follows the keep-alive runs, reported each when it ends (the
	// report lands in rows until it is handed on).
	ka   *keepAlives
	rows []TransportEvent
}

// SSEItem is one thing a client makes of a stream: a timeline row (Row
// set), or a message to deliver with what its frame must say (Problem).
type SSEItem struct {
	Row     *TransportEvent
	Message []byte
	Problem string
}

// NewSSEWatch reads one response's event stream; get says it answers a GET
// (the standalone stream, or the legacy transport's event stream).
func NewSSEWatch(stream string, get bool) *SSEWatch {
	w := &SSEWatch{stream: stream, get: get, r: sseReader{maxLine: sseMaxLine, maxEvent: sseMaxEvent}}
	w.ka = &keepAlives{stream: stream, quiet: true, emit: func(te TransportEvent) { w.rows = append(w.rows, te) }}
	return w
}

// endRun hands on the report of the keep-alive run that ended at at.
func (w *SSEWatch) endRun(at time.Time, emit func(SSEItem)) {
	w.ka.end(at)
	for i := range w.rows {
		emit(SSEItem{Row: &w.rows[i]})
	}
	w.rows = nil
}

// Feed takes the stream's next bytes and hands emit, in order, what the
// events they complete come to. b is not kept.
func (w *SSEWatch) Feed(b []byte, at time.Time, emit func(SSEItem)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		piece := b
		if i >= 0 {
			piece = b[:i]
		}
		if room := w.r.maxLine - len(w.line); !w.cut && len(piece) > room {
			w.line, w.cut = append(w.line, piece[:room]...), true
		} else if !w.cut {
			w.line = append(w.line, piece...)
		}
		if i < 0 {
			return
		}
		b = b[i+1:]
		line, cut := w.line, w.cut
		w.line, w.cut = nil, false // the event may keep line's bytes
		var done bool
		if w.ev, done = w.r.step(w.ev, line, cut); done {
			ev := w.ev
			w.ev = nil
			w.emit(ev, at, emit)
		}
	}
}

// End says the stream ended: an event it ended inside of is handed on as
// the client's reader hands it on (incomplete).
func (w *SSEWatch) End(at time.Time, emit func(SSEItem)) {
	defer w.endRun(at, emit)
	if len(w.line) > 0 || w.cut {
		line, cut := w.line, w.cut
		w.line, w.cut = nil, false
		var done bool
		if w.ev, done = w.r.step(w.ev, line, cut); done {
			ev := w.ev
			w.ev = nil
			w.emit(ev, at, emit)
			return
		}
	}
	if w.ev != nil {
		ev := w.ev
		w.ev = nil
		ev.Incomplete = true
		w.emit(ev, at, emit)
	}
}

func (w *SSEWatch) emit(ev *sseEvent, at time.Time, emit func(SSEItem)) {
	if ev.isKeepAlive() {
		w.ka.add(ev, at)
		return
	}
	w.endRun(at, emit)
	if w.get && !w.legacy && ev.Type() == "endpoint" && len(ev.Data) > 0 {
		// The 2024-11-05 transport's stream: its first endpoint event
		// says where to POST, as mcpscope's SSE transport reports it.
		w.legacy = true
		row := sseEndpointRow(w.stream, ev.Data)
		row.Time = at
		emit(SSEItem{Row: &row})
		return
	}
	rows, deliver := sseClassify(w.stream, ev, w.legacy)
	for i := range rows {
		rows[i].Time = at
		emit(SSEItem{Row: &rows[i]})
	}
	if deliver {
		emit(SSEItem{Message: ev.Data, Problem: ev.Problem()})
	}
}
