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
