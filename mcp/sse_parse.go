package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
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

// The documented limits of an SSE stream (README, "Limits"). Beyond them
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
	get := func() *sseEvent {
		if ev == nil {
			ev = &sseEvent{}
		}
		return ev
	}
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
		if cut && ev.Cut == "" {
			ev.Cut = fmt.Sprintf("an SSE line longer than mcpscope's limit of %d bytes was cut there (the rest was read and dropped)", r.maxLine)
		}
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
