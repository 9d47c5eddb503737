package record

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
)

// A big frame is written a piece at a time from its own bytes: the line
// is the one encoding/json makes of the whole entry, byte for byte (every
// kind of escape, runes cut by no piece), it reads back as the frame's
// exact bytes, and writing it holds a fraction of the frame, where the
// string copy and the encoder's buffer held it three times more.
func TestBigFrameWrittenFromItsBytes(t *testing.T) {
	unit := "row \"q\" \\ <a>&é\u2028😀\t\x01\n"
	raw := []byte(`{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat(unit, 3<<20/len(unit)) + `"}}`)
	f := &mcp.Frame{Seq: 9, Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Dir: mcp.Inbound, Kind: mcp.KindResponse,
		ID: "7", Raw: raw, Stream: `GET "raw":"x" ?token=abc`, Latency: 1500 * time.Microsecond, ReplyTo: 4}

	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	e := FromEvent(mcp.FrameEvent{Frame: f})
	e.Stream = strings.Replace(e.Stream, "abc", Redacted, 1)
	if err := enc.Encode(e); err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	buf.Grow(want.Len() + 64<<10) // the file's own growth is not the writer's
	w := NewWriter(nopCloser{&buf}, Session{Target: "x"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	head := buf.Len()
	peak, _ := heappeak.Of(func() { w.Event(mcp.FrameEvent{Frame: f}) })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()[head:]
	if !bytes.Equal(got, want.Bytes()) {
		i := 0
		for i < min(len(got), want.Len()) && got[i] == want.Bytes()[i] {
			i++
		}
		t.Fatalf("the line differs from encoding/json's at byte %d of %d: %q, want %q", i, want.Len(), got[i:min(i+40, len(got))], want.Bytes()[i:min(i+40, want.Len())])
	}
	entries, err := Read(io.MultiReader(bytes.NewReader(buf.Bytes()[:head]), bytes.NewReader(got)))
	if err != nil {
		t.Fatal(err)
	}
	back, err := entries[1].RawBytes()
	if err != nil || !bytes.Equal(back, raw) {
		t.Fatalf("the frame reads back as %d bytes (%v), want its %d", len(back), err, len(raw))
	}
	t.Logf("a %d-byte frame written with the heap %d bytes above where it was", len(raw), peak)
	if raceEnabled {
		// The race detector's build allocates far more on this path
		// (13 MB against 0.5 MB without it): the line is checked above,
		// the heap only without the detector, as the ui's memory tests do.
		return
	}
	if peak > uint64(len(raw))/2 {
		t.Errorf("writing a %d-byte frame raised the heap by %d bytes: it was copied whole", len(raw), peak)
	}
}
