package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
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
	Comments []string
	// Incomplete is set for a final event the stream ended inside of,
	// before its terminating blank line. A browser would drop it.
	Incomplete bool
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
	br      *bufio.Reader
	maxLine int
	started bool
}

// sseMaxLine caps one SSE line (one data line is one JSON message in
// practice): the same ceiling as a stdio line.
const sseMaxLine = 256 << 20

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10), maxLine: sseMaxLine}
}

// next returns the next event. At the end of the stream it returns the
// unterminated last event (Incomplete set) if there was one, then io.EOF;
// a read error is returned as is.
func (r *sseReader) next() (*sseEvent, error) {
	var ev *sseEvent
	get := func() *sseEvent {
		if ev == nil {
			ev = &sseEvent{}
		}
		return ev
	}
	for {
		line, _, err := readLine(r.br, r.maxLine)
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
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a BOM may open the stream
		}
		if len(line) == 0 {
			if ev != nil {
				return ev, nil
			}
			continue // blank lines between events
		}
		r.field(get(), line)
		if err != nil {
			// The stream ended in the middle of this line: keep what came.
			ev.Incomplete = true
			return ev, nil
		}
	}
}

// field applies one non-blank line to the event being built.
func (r *sseReader) field(ev *sseEvent, line []byte) {
	if line[0] == ':' {
		ev.Comments = append(ev.Comments, string(bytes.TrimPrefix(line[1:], []byte(" "))))
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "data":
		if ev.HasData {
			ev.Data = append(ev.Data, '\n')
		}
		ev.Data = append(ev.Data, value...)
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
