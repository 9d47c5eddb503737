package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// FuzzClassify: the frame classifier never panics and says why a frame is
// invalid, whatever a server writes.
func FuzzClassify(f *testing.F) {
	for _, s := range append(envelopeSeeds, `[{"jsonrpc":"2.0","method":"a"},1]`, `{"jsonrpc":"2.0","id":[1],"method":"m"}`,
		"\xef\xbb\xbf{}", "not json", `{"method":1}`, `{"id":1.5,"method":"x","jsonrpc":"2.0"}`, "\xff") {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := classify(raw)
		if p.kind == KindInvalid && p.problem == "" {
			t.Fatalf("%q: invalid without a problem", raw)
		}
		if p.kind == KindResponse && p.result == nil {
			t.Fatalf("%q: a response without a result", raw)
		}
	})
}

// FuzzSSEReader: any byte stream is split into events without a panic,
// every event within the limits, and the reader reaches the end.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n", ": keep\n: alive\n\ndata: a\ndata: b\n\n", "id: 1\nretry: 10\n\n", "event: endpoint\ndata: /x\r\n\r\n",
		"\xef\xbb\xbfdata: x\n\n", "data: cut", "data: 0123456789abcdef\n\n", "id: \x00\n\n", "retry: 99999999999\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// A tap's reader, fed in two pieces, makes what the client's makes.
		at := time.Now()
		want := sseItems(&sseReader{br: bufio.NewReader(bytes.NewReader(body)), maxLine: 16, maxEvent: 24}, at)
		if got := watchItems(body, []int{len(body) / 3}, 16, 24, at); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: the tap's reader made\n %q\nthe client's\n %q", body, got, want)
		}
		r := newSSEReader(bytes.NewReader(body))
		r.maxLine, r.maxEvent = 16, 24
		for n := 0; ; n++ {
			ev, err := r.next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("%q: %v", body, err)
				}
				return
			}
			if n > len(body) {
				t.Fatalf("%q: more events than bytes", body)
			}
			if len(ev.Data) > r.maxEvent || len(ev.Comments) > sseKeptComments || ev.CommentCount < len(ev.Comments) {
				t.Fatalf("%q: event over the limits: %d data bytes, %d comments", body, len(ev.Data), len(ev.Comments))
			}
			_, _ = sseTransportEvent("s", ev)
		}
	})
}
