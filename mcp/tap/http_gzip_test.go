package tap

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// compressingWriter is what a server's compression middleware does
// (Express's compression, Starlette's GZipMiddleware): the answer's
// bytes go out compressed, flushed whenever the handler flushes, so an
// event stream stays live.
type compressingWriter struct {
	http.ResponseWriter
	z interface {
		io.Writer
		Flush() error
		Close() error
	}
}

func (c *compressingWriter) WriteHeader(code int) {
	c.Header().Del("Content-Length")
	c.ResponseWriter.WriteHeader(code)
}
func (c *compressingWriter) Write(p []byte) (int, error) { return c.z.Write(p) }
func (c *compressingWriter) Flush() {
	_ = c.z.Flush()
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// compressing answers in enc ("gzip" or "deflate") every request that
// accepts it.
func compressing(enc string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), enc) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Encoding", enc)
		cw := &compressingWriter{ResponseWriter: w}
		if enc == "gzip" {
			cw.z = gzip.NewWriter(w)
		} else {
			cw.z = zlib.NewWriter(w)
		}
		next.ServeHTTP(cw, r)
		_ = cw.z.Close()
	})
}

// A server that compresses its answers (a client's Accept-Encoding asks
// for it: Go's and Node's HTTP clients send one by default) reaches the
// client unchanged through the tap, and the record holds the frames the
// client decoded, JSON answers and event streams alike, not the
// compressed bytes.
func TestHTTPTapRecordsCompressedAnswersDecoded(t *testing.T) {
	for _, enc := range []string{"gzip"} {
		t.Run(enc, func(t *testing.T) {
			dir := privateDirs(t)
			var mu sync.Mutex
			compressed := 0
			handler := compressing(enc, demo.HTTPHandler())
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.Header.Get("Accept-Encoding"), enc) {
					mu.Lock()
					compressed++
					mu.Unlock()
				}
				handler.ServeHTTP(w, r)
			}))
			defer upstream.Close()

			local, stop := startHTTPTap(t, upstream.URL+"/mcp")
			// Go's client sends "Accept-Encoding: gzip" and decodes the
			// answer itself.
			tapped := converseHTTP(t, local, mcp.EraLegacy)
			stop()
			mu.Lock()
			if compressed == 0 {
				t.Fatal("no request asked for gzip: the test proves nothing")
			}
			mu.Unlock()

			files, _ := os.ReadDir(dir)
			if len(files) != 1 {
				t.Fatalf("session files %v", files)
			}
			b, err := os.ReadFile(dir + "/" + files[0].Name())
			if err != nil {
				t.Fatal(err)
			}
			entries, err := record.Read(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			var in [][]byte
			for _, e := range entries {
				if e.Type == "frame" && e.Dir == "in" {
					raw, _ := e.RawBytes()
					in = append(in, raw)
				}
			}
			if len(in) != len(tapped) {
				t.Fatalf("the record holds %d server frames; the client got %d", len(in), len(tapped))
			}
			for i := range in {
				if !bytes.Equal(in[i], tapped[i].Raw) {
					t.Errorf("recorded frame %d: %.200q, the client got %.200q", i, in[i], tapped[i].Raw)
				}
			}
			if !bytes.Contains(b, []byte(`"Content-Encoding","Value":"gzip"`)) {
				t.Error("no event shows the answers' Content-Encoding")
			}
		})
	}
}

// tapOnce passes one POST with the given Accept-Encoding through a tap to
// handler and returns the body the client got (as sent, not decoded) and
// the record.
func tapOnce(t *testing.T, acceptEncoding string, handler http.HandlerFunc) (got []byte, entries []record.Entry) {
	t.Helper()
	dir := privateDirs(t)
	upstream := httptest.NewServer(handler)
	defer upstream.Close()
	local, stop := startHTTPTap(t, upstream.URL+"/mcp")
	req, _ := http.NewRequest(http.MethodPost, local, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Accept-Encoding", acceptEncoding)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	client.CloseIdleConnections()
	stop()
	return got, onlyRecord(t, dir)
}

// onlyRecord is every entry of the one session file in dir.
func onlyRecord(t *testing.T, dir string) []record.Entry {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	return readRecord(t, files[0])
}

func inboundFrames(entries []record.Entry) (frames []string, events []string) {
	for _, e := range entries {
		switch {
		case e.Type == "frame" && e.Dir == "in":
			raw, _ := e.RawBytes()
			frames = append(frames, string(raw))
		case e.Type == "transport":
			events = append(events, e.Summary)
		}
	}
	return frames, events
}

const listAnswer = `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`

// The other encodings: deflate is decoded like gzip; br, which the
// standard library does not read, and a gzip stream that breaks, each
// say so in an event, and the client gets every byte as sent.
func TestHTTPTapCompressedAnswersOtherwise(t *testing.T) {
	deflated := func() []byte {
		var b bytes.Buffer
		z := zlib.NewWriter(&b)
		_, _ = z.Write([]byte(listAnswer))
		_ = z.Close()
		return b.Bytes()
	}()
	t.Run("deflate JSON", func(t *testing.T) {
		got, entries := tapOnce(t, "deflate", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "deflate")
			_, _ = w.Write(deflated)
		})
		if !bytes.Equal(got, deflated) {
			t.Errorf("the client got %q, the server sent %q", got, deflated)
		}
		frames, _ := inboundFrames(entries)
		if len(frames) != 1 || frames[0] != listAnswer {
			t.Errorf("recorded %q, want the answer decoded", frames)
		}
	})
	t.Run("br JSON", func(t *testing.T) {
		sent := []byte("\x8b\x02\x80not really brotli")
		got, entries := tapOnce(t, "br", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "br")
			_, _ = w.Write(sent)
		})
		if !bytes.Equal(got, sent) {
			t.Errorf("the client got %q, the server sent %q", got, sent)
		}
		frames, events := inboundFrames(entries)
		if len(frames) != 0 {
			t.Errorf("recorded frames %q of a body the tap cannot decode", frames)
		}
		if !slicesContain(events, "compressed as br, which the tap does not decode") {
			t.Errorf("no event says the tap cannot decode br: %q", events)
		}
	})
	t.Run("gzip bomb", func(t *testing.T) {
		// 80 MiB of JSON in 80 KiB: what is recorded of it stops at the
		// bound of a body sent as it is, not at what it would inflate to.
		var b bytes.Buffer
		z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = z.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"`))
		_, _ = z.Write(bytes.Repeat([]byte("a"), 80<<20))
		_, _ = z.Write([]byte(`"}}`))
		_ = z.Close()
		sent := b.Bytes()
		got, entries := tapOnce(t, "gzip", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(sent)
		})
		if !bytes.Equal(got, sent) {
			t.Errorf("the client got %d bytes, the server sent %d", len(got), len(sent))
		}
		frames, _ := inboundFrames(entries)
		for _, f := range frames {
			if len(f) > maxBody {
				t.Errorf("recorded a frame of %d bytes, over the %d a body is held to", len(f), maxBody)
			}
		}
	})
	t.Run("gzip stream that breaks", func(t *testing.T) {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		_, _ = z.Write([]byte("event: message\ndata: " + listAnswer + "\n\n"))
		_ = z.Close()
		sent := append(b.Bytes(), "this is not gzip"...)
		got, entries := tapOnce(t, "gzip", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(sent)
		})
		if !bytes.Equal(got, sent) {
			t.Errorf("the client got %q, the server sent %q", got, sent)
		}
		frames, events := inboundFrames(entries)
		if len(frames) != 1 || frames[0] != listAnswer {
			t.Errorf("recorded %q, want the one event that decoded", frames)
		}
		if !slicesContain(events, "is compressed as gzip but does not decode") {
			t.Errorf("no event says the stream stopped decoding: %q", events)
		}
	})
}

func slicesContain(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

// A compressed event stream the client leaves in the middle is not a
// stream that fails to decode: the record holds the events that came
// and says nothing of a fault.
func TestHTTPTapCompressedStreamLeftByTheClient(t *testing.T) {
	event := "event: message\ndata: " + listAnswer + "\n\n"
	sentFirst := make(chan struct{})
	release := make(chan struct{})
	dir := privateDirs(t)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		z := gzip.NewWriter(w)
		_, _ = z.Write([]byte(event))
		_ = z.Flush()
		w.(http.Flusher).Flush()
		close(sentFirst)
		<-release // the stream stays open, its gzip unfinished
	}))
	defer upstream.Close()
	defer close(release)
	local, stop := startHTTPTap(t, upstream.URL+"/mcp")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, local, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Accept-Encoding", "gzip")
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-sentFirst
	buf := make([]byte, 1)
	_, _ = resp.Body.Read(buf) // the first bytes are through
	cancel()                   // and the client leaves
	_ = resp.Body.Close()
	client.CloseIdleConnections()
	stop()
	frames, events := inboundFrames(onlyRecord(t, dir))
	if len(frames) != 1 || frames[0] != listAnswer {
		t.Errorf("recorded %q, want the event that came", frames)
	}
	if !slicesContain(events, "POST /") {
		t.Fatalf("the record has no HTTP rows to judge by: %q", events)
	}
	if slicesContain(events, "does not decode") {
		t.Errorf("a stream the client left is reported as one that does not decode: %q", events)
	}
}
