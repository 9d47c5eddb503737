package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// The checked-in files were written by `mcpscope --record` (format 1)
// against the demo server, on stdio and over Streamable HTTP. Every later
// version must keep reading them: this is the format's contract
// (docs/session-files.md).
var format1Files = []struct {
	path      string
	transport string
	calls     int // tools/call exchanges recorded
}{
	{"testdata/format1-demo-stdio.jsonl", "stdio", 2},
	{"testdata/format1-demo-http.jsonl", "http", 1},
}

func TestFormat1FilesStillRead(t *testing.T) {
	for _, tc := range format1Files {
		t.Run(tc.transport, func(t *testing.T) {
			raw, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ReadEvents(bytes.NewReader(raw), false)
			if err != nil {
				t.Fatal(err)
			}
			if f.Header.Format != 1 || f.Header.Type != "session" {
				t.Fatalf("header = %+v", f.Header)
			}
			var hs *mcp.Handshake
			lists := map[string]int{}
			calls, frames := 0, 0
			for _, ev := range f.Events {
				switch e := ev.(type) {
				case mcp.HandshakeEvent:
					hs = e.Handshake
				case mcp.ListEvent:
					lists[e.Method] = len(e.Items)
				case mcp.FrameEvent:
					frames++
					fr := e.Frame
					if fr.Transport != tc.transport {
						t.Errorf("frame %d transport %q", fr.Seq, fr.Transport)
					}
					if !json.Valid(fr.Raw) {
						t.Errorf("frame %d: raw bytes are not the JSON that was sent: %q", fr.Seq, fr.Raw)
					}
					if fr.Kind == mcp.KindResponse && fr.ReplyToMethod == mcp.MethodToolsCall {
						calls++
					}
				}
			}
			if hs == nil || hs.ServerInfo.Name != "mcpscope-demo" || hs.ProtocolVersion != "2025-11-25" || hs.Era != mcp.EraLegacy {
				t.Fatalf("handshake = %+v", hs)
			}
			if hs.ClientInfo.Name != "mcpscope" || !json.Valid(hs.ClientCapabilities) || !hs.HasCapability("tools") {
				t.Errorf("the handshake's client side or capabilities were not rebuilt: %+v", hs)
			}
			want := map[string]int{mcp.MethodToolsList: 10, mcp.MethodPromptsList: 2, mcp.MethodResourcesList: 3, mcp.MethodResourceTemplatesList: 1}
			for m, n := range want {
				if lists[m] != n {
					t.Errorf("%s: %d items rebuilt from the frames, want %d", m, lists[m], n)
				}
			}
			if calls != tc.calls {
				t.Errorf("%d tools/call responses paired, want %d", calls, tc.calls)
			}
			// Every frame line's size is its raw bytes' length.
			entries, err := Read(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range entries {
				if e.Type != "frame" {
					continue
				}
				n++
				b, _ := e.RawBytes()
				if len(b) != e.Size {
					t.Errorf("frame %d: %d bytes, size says %d", e.Seq, len(b), e.Size)
				}
			}
			if n != frames || n == 0 {
				t.Errorf("%d frame lines, %d frame events", n, frames)
			}
		})
	}
}

// What later versions add (fields, entry types) does not stop this
// version; a higher format number does, with a clear error.
func TestFormatEvolution(t *testing.T) {
	later := `{"type":"session","time":"2026-01-01T00:00:00Z","format":1,"newHeaderField":{"x":1}}
{"type":"frame","time":"2026-01-01T00:00:01Z","seq":1,"dir":"out","transport":"stdio","kind":"request","method":"ping","id":"1","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}","newFrameField":true}
{"type":"a-type-from-the-future","time":"2026-01-01T00:00:02Z"}
`
	f, err := ReadEvents(strings.NewReader(later), false)
	if err != nil {
		t.Fatalf("a format-1 file with additions was refused: %v", err)
	}
	if len(f.Events) != 1 {
		t.Fatalf("%d events, want the one frame", len(f.Events))
	}
	newer := `{"type":"session","time":"2026-01-01T00:00:00Z","format":2}` + "\n"
	_, err = ReadEvents(strings.NewReader(newer), false)
	if !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), "newer mcpscope") {
		t.Errorf("a format-2 file: err = %v", err)
	}
}

// A file still being written ends in the middle of a line: the decoder
// keeps that part back until the rest arrives.
func TestDecoderWaitsForTheRestOfALine(t *testing.T) {
	pr, pw := ioPipe()
	d := NewDecoder(pr)
	go func() {
		pw.write(`{"type":"session","time":"2026-01-01T00:00:00Z","format":1}` + "\n" + `{"type":"stderr","time":"2026-01-01T00:00:01Z","li`)
		pw.eof()
		pw.write(`ne":"hello"}` + "\n")
		pw.eof()
	}()
	if e, err := d.Next(); err != nil || e.Type != "session" {
		t.Fatalf("first: %+v %v", e, err)
	}
	if _, err := d.Next(); err == nil {
		t.Fatal("a half line was returned as an entry")
	}
	e, err := d.Next()
	if err != nil || e.Line != "hello" {
		t.Fatalf("after the rest arrived: %+v %v", e, err)
	}
}

// A file being written is followed: entries appended after the reader
// reached the end arrive, a half-written line only once complete.
func TestFollowerFollowsAGrowingFile(t *testing.T) {
	path := t.TempDir() + "/growing.jsonl"
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	write := func(s string) {
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"type":"session","time":"2026-01-01T00:00:00Z","format":1}` + "\n")
	fl, err := OpenFollower(path, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fl.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if e, err := fl.Next(ctx, true); err != nil || e.Type != "session" {
		t.Fatalf("header: %+v %v", e, err)
	}
	got := make(chan Entry, 4)
	go func() {
		for {
			e, err := fl.Next(ctx, true)
			if err != nil {
				close(got)
				return
			}
			got <- e
		}
	}()
	write(`{"type":"stderr","time":"2026-01-01T00:00:01Z","line":"one"}` + "\n" + `{"type":"stderr","time":"2026-01-01T00:00:02Z","li`)
	if e := <-got; e.Line != "one" {
		t.Fatalf("first appended entry: %+v", e)
	}
	select {
	case e := <-got:
		t.Fatalf("a half-written line was returned: %+v", e)
	case <-time.After(50 * time.Millisecond):
	}
	write(`ne":"two"}` + "\n")
	if e := <-got; e.Line != "two" {
		t.Fatalf("completed line: %+v", e)
	}
	// Without follow, the end of the file ends the reading.
	fl2, _ := OpenFollower(path, 0)
	defer func() { _ = fl2.Close() }()
	n := 0
	for {
		_, err := fl2.Next(ctx, false)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("read %d entries without following, want 3", n)
	}
}
