package tap

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// A WebSocket upgrade through the HTTP tap is passed on byte for byte by
// the reverse proxy; wsConn sits on its connection to the server and
// follows each direction's frames far enough to hand the recorder every
// whole message: the client's unmasked, fragments joined, and inflated
// when the two sides agreed on permessage-deflate. What the proxy copies
// is never changed.
type wsConn struct {
	io.ReadWriteCloser
	fromServer, toServer *wsStream
}

// Read is the server's side: its bytes on their way to the client.
func (c *wsConn) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	if n > 0 {
		c.fromServer.feed(p[:n])
	}
	return n, err
}

// Write is the client's side: its bytes on their way to the server. They
// are recorded before they are sent: recorded after, a fast server's
// answer, read on the other goroutine, could reach the record before the
// request it answers. A write that fails has lost the connection anyway.
func (c *wsConn) Write(p []byte) (int, error) {
	c.toServer.feed(p)
	return c.ReadWriteCloser.Write(p)
}

func (c *wsConn) Close() error {
	c.fromServer.end()
	c.toServer.end()
	return c.ReadWriteCloser.Close()
}

// newWSConn wraps the server's side of an upgraded connection; resp is the
// server's 101 answer (its extensions say whether messages are deflated).
func newWSConn(rwc io.ReadWriteCloser, rec *recorder, stream string, resp *http.Response) *wsConn {
	deflate, serverNoTakeover, clientNoTakeover := wsDeflate(resp.Header)
	mk := func(dir mcp.Direction, noTakeover bool) *wsStream {
		s := &wsStream{rec: rec, dir: dir, stream: stream}
		if deflate {
			s.inflate = &wsInflater{noTakeover: noTakeover}
		}
		return s
	}
	return &wsConn{ReadWriteCloser: rwc,
		fromServer: mk(mcp.Inbound, serverNoTakeover),
		toServer:   mk(mcp.Outbound, clientNoTakeover)}
}

// wsDeflate reads the permessage-deflate agreement from the server's
// Sec-WebSocket-Extensions (RFC 7692).
func wsDeflate(h http.Header) (on, serverNoTakeover, clientNoTakeover bool) {
	for _, v := range h.Values("Sec-WebSocket-Extensions") {
		for _, ext := range strings.Split(v, ",") {
			params := strings.Split(ext, ";")
			if strings.TrimSpace(params[0]) != "permessage-deflate" {
				continue
			}
			on = true
			for _, p := range params[1:] {
				switch strings.TrimSpace(strings.SplitN(p, "=", 2)[0]) {
				case "server_no_context_takeover":
					serverNoTakeover = true
				case "client_no_context_takeover":
					clientNoTakeover = true
				}
			}
		}
	}
	return on, serverNoTakeover, clientNoTakeover
}

// wsStream is one direction of a WebSocket connection (RFC 6455 frames).
type wsStream struct {
	rec    *recorder
	dir    mcp.Direction
	stream string

	mu      sync.Mutex
	buf     []byte // bytes not yet a whole frame
	msg     []byte // the message being assembled from its fragments
	binary  bool   // the message is a binary one
	deflate bool   // the message's first frame had RSV1 (compressed)
	inMsg   bool
	inflate *wsInflater // permessage-deflate was agreed
	broken  bool        // the stream could not be followed: say so once, then stop
	ended   bool
}

func (s *wsStream) feed(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken || s.ended {
		return
	}
	s.buf = append(s.buf, b...)
	off := 0
	for {
		n := s.frame(s.buf[off:])
		if n == 0 || s.broken {
			break
		}
		off += n
	}
	// Keep only the unfinished frame, in a buffer of its own size.
	s.buf = append(s.buf[:0], s.buf[off:]...)
	if cap(s.buf) > 1<<20 && len(s.buf) < 64<<10 {
		s.buf = append([]byte(nil), s.buf...)
	}
}

// frame handles the frame at the start of b and returns its length, or 0
// while it is incomplete.
func (s *wsStream) frame(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	fin, rsv1, op := b[0]&0x80 != 0, b[0]&0x40 != 0, b[0]&0x0f
	masked := b[1]&0x80 != 0
	n, h := uint64(b[1]&0x7f), 2
	switch n {
	case 126:
		if len(b) < 4 {
			return 0
		}
		n, h = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return 0
		}
		n, h = binary.BigEndian.Uint64(b[2:]), 10
	}
	var key [4]byte
	if masked {
		if len(b) < h+4 {
			return 0
		}
		copy(key[:], b[h:])
		h += 4
	}
	if n > maxBody || (op < 8 && uint64(len(s.msg))+n > maxBody) {
		s.fail(fmt.Sprintf("a WebSocket message longer than %d bytes: the rest of this direction is passed on but not recorded", maxBody))
		return 0
	}
	if uint64(len(b)-h) < n {
		return 0
	}
	payload := b[h : h+int(n)]
	if masked {
		for i := range payload {
			payload[i] ^= key[i&3] // our copy of the bytes, never the proxy's
		}
	}
	switch {
	case op == 0x8: // close
		s.closeFrame(payload)
	case op >= 0x8: // ping, pong and reserved controls carry no message
	case op == 0x0: // a continuation
		if !s.inMsg {
			s.fail("a WebSocket continuation frame with no message to continue")
			return 0
		}
		s.msg = append(s.msg, payload...)
	default: // text (1), binary (2), reserved data opcodes
		if s.inMsg {
			s.fail("a WebSocket message began before the previous one ended")
			return 0
		}
		s.inMsg, s.binary, s.deflate = true, op != 0x1, rsv1
		s.msg = append(s.msg[:0], payload...)
	}
	if op < 0x8 && fin {
		s.message()
	}
	return h + int(n)
}

// message hands the assembled message to the recorder.
func (s *wsStream) message() {
	data, problem := s.msg, ""
	s.inMsg = false
	if s.deflate {
		if s.inflate == nil {
			problem = "a compressed WebSocket message though no compression was agreed"
		} else if out, err := s.inflate.inflate(data); err != nil {
			problem = "a compressed WebSocket message that does not inflate: " + err.Error()
		} else {
			data = out
		}
	}
	if s.binary && problem == "" {
		problem = "a binary WebSocket frame: MCP messages are sent as text frames"
	}
	s.rec.push(chunk{kind: chunkFrame, dir: s.dir, data: bytes.Clone(data), at: time.Now(), stream: s.stream, problem: problem})
	s.msg = s.msg[:0]
	if cap(s.msg) > 1<<20 {
		s.msg = nil
	}
}

func (s *wsStream) closeFrame(p []byte) {
	who := "the client"
	if s.dir == mcp.Inbound {
		who = "the server"
	}
	summary := "WebSocket closed by " + who
	var fields []mcp.Field
	if len(p) >= 2 {
		code := binary.BigEndian.Uint16(p)
		summary += fmt.Sprintf(" (%d)", code)
		fields = append(fields, mcp.Field{Key: "code", Value: fmt.Sprint(code)})
		if len(p) > 2 {
			fields = append(fields, mcp.Field{Key: "reason", Value: string(p[2:])})
		}
	}
	s.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "websocket", Summary: summary, Fields: fields}})
}

func (s *wsStream) fail(why string) {
	s.broken = true
	s.buf, s.msg = nil, nil
	s.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "websocket", Summary: why}})
}

// end records a message cut off by the connection's end.
func (s *wsStream) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	if s.inMsg && !s.broken {
		s.rec.push(chunk{kind: chunkFrame, dir: s.dir, data: bytes.Clone(s.msg), at: time.Now(), stream: s.stream,
			problem: "the WebSocket connection ended in the middle of this message"})
	}
}

// wsInflater inflates one direction's permessage-deflate messages. With
// context takeover, a message may refer to the previous 32 KiB of the
// direction's inflated bytes, which it keeps as the next dictionary.
type wsInflater struct {
	noTakeover bool
	dict       []byte
}

// deflateTail is the end of a sync flush, which the sender removed from
// each message (RFC 7692, 7.2.1).
var deflateTail = []byte{0x00, 0x00, 0xff, 0xff}

func (f *wsInflater) inflate(p []byte) ([]byte, error) {
	in := io.MultiReader(bytes.NewReader(p), bytes.NewReader(deflateTail))
	var r io.ReadCloser
	if f.noTakeover || len(f.dict) == 0 {
		r = flate.NewReader(in)
	} else {
		r = flate.NewReaderDict(in, f.dict)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	_ = r.Close()
	// The message ends in the middle of the deflate stream (after a sync
	// flush), where the reader finds its input ended: that is the end.
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	if len(out) > maxBody {
		return nil, fmt.Errorf("inflates to more than %d bytes", maxBody)
	}
	if !f.noTakeover {
		f.dict = append(f.dict, out...)
		if len(f.dict) > 32<<10 {
			f.dict = append([]byte(nil), f.dict[len(f.dict)-32<<10:]...)
		}
	}
	return out, nil
}
