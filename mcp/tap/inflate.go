package tap

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strings"
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

// errInflaterDone ends the writes to an inflater whose reader stopped.
var errInflaterDone = errors.New("the tap stopped decoding this stream")

// inflater decodes a compressed event stream as it passes, on a goroutine
// of its own, for the recorder. The bytes forwarded to the client are not
// touched: a write returns once the decoder has read them, and a stream
// that stops decoding stops being recorded, never being forwarded.
type inflater struct {
	pw   *io.PipeWriter
	done chan struct{}
}

// newInflater starts decoding: out gets the decoded bytes in order (each
// slice its own), failed the fault of a stream that does not decode.
func newInflater(enc string, out func([]byte), failed func(error)) *inflater {
	pr, pw := io.Pipe()
	in := &inflater{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(in.done)
		err := inflate(enc, pr, out)
		if err != nil {
			failed(err)
		}
		// Later writes return at once.
		_ = pr.CloseWithError(errInflaterDone)
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

// write hands the decoder bytes as sent.
func (in *inflater) write(b []byte) { _, _ = in.pw.Write(b) }

// close ends the stream and waits until everything decoded is out.
func (in *inflater) close() {
	_ = in.pw.Close()
	<-in.done
}
