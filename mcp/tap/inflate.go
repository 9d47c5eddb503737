package tap

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
)

// bodyEncoding is a body's Content-Encoding, lower case; "" for none or
// identity.
func bodyEncoding(h http.Header) string {
	enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding")))
	if enc == "identity" {
		return ""
	}
	return enc
}

// decodable says whether the tap decodes a body of this Content-Encoding
// for the record (decoded and inflater): what the standard library reads.
// br and zstd, and a chain of encodings, are not.
func decodable(enc string) bool {
	switch enc {
	case "gzip", "x-gzip", "deflate":
		return true
	}
	return false
}

// decompressor reads r without its Content-Encoding.
func decompressor(enc string, r io.Reader) (io.ReadCloser, error) {
	if enc == "deflate" {
		return zlib.NewReader(r)
	}
	return gzip.NewReader(r)
}

// inflater decodes a compressed event stream for the recorder, on a
// goroutine of its own. The copy to the client only hands it the bytes:
// write queues a copy and returns at once, as the recorder's spool does,
// so the client never waits on the decoding. A stream that stops decoding
// stops being recorded, never being forwarded.
type inflater struct {
	mu     sync.Mutex
	more   *sync.Cond // queued or closed changed
	queued [][]byte
	closed bool // no more writes: the stream ended
	failed bool // the decoder stopped: writes are dropped
	done   chan struct{}
}

// newInflater starts decoding: out gets the decoded bytes in order (each
// slice its own), failed the fault of a stream that does not decode.
func newInflater(enc string, out func([]byte), failed func(error)) *inflater {
	in := &inflater{done: make(chan struct{})}
	in.more = sync.NewCond(&in.mu)
	go func() {
		defer close(in.done)
		if err := inflate(enc, in, out); err != nil {
			failed(err)
		}
		in.mu.Lock()
		in.failed, in.queued = true, nil
		in.mu.Unlock()
	}()
	return in
}

// inflate decodes r into out until r ends.
func inflate(enc string, r io.Reader, out func([]byte)) error {
	z, err := decompressor(enc, r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty body
		}
		return err
	}
	defer func() { _ = z.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := z.Read(buf)
		if n > 0 {
			out(append([]byte(nil), buf[:n]...))
		}
		// A stream that stops short was cut, by the server or because
		// the client went away; the tap records a cut where it sees one,
		// and what decoded is all there is.
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// write queues a copy of bytes as sent for the decoder.
func (in *inflater) write(b []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.failed || in.closed {
		return
	}
	in.queued = append(in.queued, append([]byte(nil), b...))
	in.more.Signal()
}

// Read is the decoder's side: the queued bytes in order, io.EOF once the
// stream has ended and they are all read.
func (in *inflater) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.queued) == 0 && !in.closed {
		in.more.Wait()
	}
	if len(in.queued) == 0 {
		return 0, io.EOF
	}
	n := copy(p, in.queued[0])
	if in.queued[0] = in.queued[0][n:]; len(in.queued[0]) == 0 {
		in.queued = in.queued[1:]
	}
	return n, nil
}

// close ends the stream and waits until everything decoded is out.
func (in *inflater) close() {
	in.mu.Lock()
	in.closed = true
	in.more.Signal()
	in.mu.Unlock()
	<-in.done
}
