package tap

import (
	"bytes"
	"io"
	"net/url"
	"strings"
)

// maxEventHold bounds one SSE event held back while the rewriter looks
// for an endpoint event; past it, the stream passes through untouched.
const maxEventHold = 64 << 10

// endpointRewriter sits on a legacy HTTP+SSE stream between the server and
// the client. The server's first `endpoint` event names the URL the client
// is to POST its messages to; when that is an absolute URL on the server's
// host, the client would POST there directly and bypass the tap, so the
// event's data is changed to the same path on the tap's address. Nothing
// else is changed: events are held back only until their blank line (an
// SSE client dispatches nothing before it), and once the endpoint event has
// passed, the stream is copied as it comes.
type endpointRewriter struct {
	io.ReadCloser
	// rewrite returns the data to send instead, or false to leave it.
	rewrite func(data string) (string, bool)

	in      []byte // bytes not yet a whole line
	ev      []byte // the current event's lines, held back
	out     []byte // ready for the client
	err     error
	through bool // the endpoint event has passed: copy as it comes
	buf     []byte
}

func (e *endpointRewriter) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if e.err != nil {
			return 0, e.err
		}
		if e.buf == nil {
			e.buf = make([]byte, 32<<10)
		}
		n, err := e.ReadCloser.Read(e.buf)
		e.take(e.buf[:n])
		if err != nil {
			// What is held back goes to the client as it was.
			e.out = append(append(e.out, e.ev...), e.in...)
			e.ev, e.in = nil, nil
			e.err = err
		}
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	if len(e.out) == 0 {
		e.out = nil
	}
	return n, nil
}

func (e *endpointRewriter) take(b []byte) {
	if e.through {
		e.out = append(e.out, b...)
		return
	}
	e.in = append(e.in, b...)
	if i := bytes.IndexByte(e.in, '\r'); i >= 0 && i+1 < len(e.in) && e.in[i+1] != '\n' {
		// Lines that end in a lone CR (allowed, rare): not followed here,
		// so never held back.
		e.through = true
	}
	for !e.through {
		i := bytes.IndexByte(e.in, '\n')
		if i < 0 {
			break
		}
		line := e.in[:i+1]
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			e.out = append(e.out, e.event()...)
			e.out = append(e.out, line...)
			e.ev = e.ev[:0]
		} else {
			e.ev = append(e.ev, line...)
		}
		e.in = e.in[i+1:]
	}
	if !e.through && len(e.ev)+len(e.in) > maxEventHold {
		e.through = true // not an SSE stream this rewriter can follow
	}
	if e.through {
		e.out = append(append(e.out, e.ev...), e.in...)
		e.ev, e.in = nil, nil
	}
	e.in = append([]byte(nil), e.in...)
}

// event returns the held event's bytes, its data rewritten when it is the
// endpoint event.
func (e *endpointRewriter) event() []byte {
	var typ string
	var dataLines int
	lines := bytes.SplitAfter(e.ev, []byte("\n"))
	for _, l := range lines {
		field, value, _ := strings.Cut(strings.TrimRight(string(l), "\r\n"), ":")
		switch field {
		case "event":
			typ = strings.TrimPrefix(value, " ")
		case "data":
			dataLines++
		}
	}
	if typ != "endpoint" {
		return e.ev
	}
	e.through = true // the first endpoint event is the one the client uses
	if dataLines != 1 {
		return e.ev
	}
	var out []byte
	for _, l := range lines {
		s := string(l)
		if field, value, ok := strings.Cut(strings.TrimRight(s, "\r\n"), ":"); ok && field == "data" {
			if v, ok := e.rewrite(strings.TrimPrefix(value, " ")); ok {
				s = "data: " + v + s[len(strings.TrimRight(s, "\r\n")):]
			}
		}
		out = append(out, s...)
	}
	return out
}

// tapEndpoint is the tap's rewrite of an endpoint URL: an absolute URL on
// the target's host becomes the same path and query on the address the
// client reached the tap at.
func tapEndpoint(target *url.URL, tapHost string, data string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(data))
	if err != nil || !u.IsAbs() || u.Host == "" || !strings.EqualFold(u.Host, target.Host) {
		return "", false
	}
	if u.Path == "" || u.Path == "/" {
		return "", false // the tap's "/" is the target's endpoint, not its root
	}
	u.Scheme, u.Host = "http", tapHost
	return u.String(), true
}
