package record

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func TestRoundTripKeepsExactBytes(t *testing.T) {
	raws := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"tab\there"}}`),
		[]byte("not json \x1b[2J with an escape"),
		{0xff, 0xfe, '{', '}'}, // invalid UTF-8
	}
	var buf bytes.Buffer
	w := NewWriter(nopCloser{&buf}, Session{Target: "x", Env: []string{"API_TOKEN=s3cret", "EMPTY="}})
	for i, raw := range raws {
		w.Event(mcp.FrameEvent{Frame: &mcp.Frame{Seq: int64(i + 1), Time: time.Now(), Dir: mcp.Inbound, Raw: raw, Kind: mcp.KindInvalid}})
	}
	w.Event(mcp.StderrEvent{Time: time.Now(), Line: "hello"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "s3cret") {
		t.Fatal("an environment value reached the session file")
	}
	entries, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1+len(raws)+1 {
		t.Fatalf("got %d entries", len(entries))
	}
	if entries[0].Env["API_TOKEN"] != Redacted {
		t.Errorf("env = %v", entries[0].Env)
	}
	for i, raw := range raws {
		got, err := entries[i+1].RawBytes()
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("frame %d: got %q (%v), want %q", i, got, err, raw)
		}
	}
	if entries[len(entries)-1].Type != "stderr" || entries[len(entries)-1].Line != "hello" {
		t.Errorf("last entry = %+v", entries[len(entries)-1])
	}
}

func TestKeepSecrets(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(nopCloser{&buf}, Session{Env: []string{"API_TOKEN=s3cret"}, KeepSecrets: true})
	_ = w.Close()
	if !strings.Contains(buf.String(), "s3cret") {
		t.Error("KeepSecrets did not keep the value")
	}
}

func TestReadRejectsOtherFiles(t *testing.T) {
	if _, err := Read(strings.NewReader(`{"type":"frame"}` + "\n")); err == nil {
		t.Error("a file without a session header was accepted")
	}
}

// A run of SSE keep-alives is one line, written when it ends, and reads
// back as the run it was.
func TestKeepAliveRunIsOneLine(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(nopCloser{&buf}, Session{Target: "x"})
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := 1; i <= 3; i++ {
		r := &mcp.KeepAliveRun{ID: 7, Stream: "POST /mcp tools/call (id 2)", Comment: "k", Count: i * 1000, Bytes: int64(i * 5000),
			Started: start, Last: start.Add(time.Duration(i) * time.Second), Done: i == 3}
		w.Event(r.Event(r.Last))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("%d lines for a header and one run:\n%s", n, buf.String())
	}
	f, err := ReadEvents(&buf, false)
	if err != nil || len(f.Events) != 1 {
		t.Fatalf("%d events (%v)", len(f.Events), err)
	}
	te, ok := f.Events[0].(mcp.TransportEvent)
	if !ok || te.Run == nil {
		t.Fatalf("read back as %#v", f.Events[0])
	}
	r := te.Run
	if !r.Done || r.Count != 3000 || r.Bytes != 15000 || !r.Started.Equal(start) || !r.Last.Equal(start.Add(3*time.Second)) ||
		r.Stream != "POST /mcp tools/call (id 2)" || r.Comment != "k" || !strings.Contains(te.Summary, "3,000 keep-alives") {
		t.Errorf("read back as %+v, %q", r, te.Summary)
	}
}

// Every kind of local error is read back as written (a failed sign-in
// came back as a lost connection once the kinds grew).
func TestLocalErrorKindsRoundTrip(t *testing.T) {
	for k := mcp.Timeout; k <= mcp.SignInFailed; k++ {
		e := FromEvent(mcp.LocalErrorEvent{Time: time.Now(), Err: &mcp.LocalError{Kind: k, Method: "initialize", ID: "1"}})
		got, ok := NewRebuilder().Event(e).(mcp.LocalErrorEvent)
		if !ok || got.Err.Kind != k {
			t.Errorf("%v was read back as %+v", k, got)
		}
	}
}
