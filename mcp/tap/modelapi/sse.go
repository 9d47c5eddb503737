package modelapi

import (
	"bytes"
	"strings"
)

// event is one server-sent event: its name and its data lines joined.
type event struct {
	name string
	data []byte
}

// events splits an SSE body into its events, as the HTML standard's
// parser does: lines end in CRLF, LF or CR; a blank line ends an event;
// data lines are joined with LF; a comment (":") is skipped. An event
// the stream ended in the middle of is kept: it is what arrived.
func events(body []byte) []event {
	var out []event
	var cur event
	var data [][]byte
	have := false
	flush := func() {
		if have {
			cur.data = bytes.Join(data, []byte("\n"))
			out = append(out, cur)
		}
		cur, data, have = event{}, nil, false
	}
	for len(body) > 0 {
		i := bytes.IndexAny(body, "\r\n")
		line := body
		if i < 0 {
			body = nil
		} else {
			line = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		if len(line) == 0 {
			flush()
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			cur.name, have = strings.Clone(string(value)), true
		case "data":
			data, have = append(data, value), true
		}
	}
	flush()
	return out
}
