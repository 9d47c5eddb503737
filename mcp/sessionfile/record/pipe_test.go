package record

import "io"

// stepReader hands out scripted chunks; an eof step returns io.EOF once,
// as a file being appended to does when the reader catches up.
type stepReader struct{ steps chan string }

type stepWriter struct{ steps chan string }

func ioPipe() (*stepReader, *stepWriter) {
	ch := make(chan string, 16)
	return &stepReader{ch}, &stepWriter{ch}
}

const eofStep = "\x00eof"

func (w *stepWriter) write(s string) { w.steps <- s }
func (w *stepWriter) eof()           { w.steps <- eofStep }

func (r *stepReader) Read(p []byte) (int, error) {
	s := <-r.steps
	if s == eofStep {
		return 0, io.EOF
	}
	return copy(p, s), nil
}
