package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

func readAllSSE(t *testing.T, stream string) []*sseEvent {
	t.Helper()
	r := newSSEReader(strings.NewReader(stream))
	var evs []*sseEvent
	for {
		ev, err := r.next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		evs = append(evs, ev)
	}
}

func TestSSEReader(t *testing.T) {
	stream := "\xef\xbb\xbf: keep-alive\n\n" +
		"id: ev-1\r\nretry: 50\r\ndata:\r\n\r\n" +
		"event: message\ndata: {\"a\":\ndata:  1}\n\n" +
		"\n\n" +
		"id: x\x00y\nretry: soon\ndata: {}\n\n" +
		"event: endpoint\ndata: /messages?sessionId=1\n\n" +
		"data: {\"cut\":"
	evs := readAllSSE(t, stream)
	if len(evs) != 6 {
		t.Fatalf("got %d events, want 6: %+v", len(evs), evs)
	}
	if c := evs[0].Comments; len(c) != 1 || c[0] != "keep-alive" || evs[0].HasData {
		t.Errorf("comment event (BOM stripped) = %+v", evs[0])
	}
	if p := evs[1]; !p.Priming() || p.ID != "ev-1" || !p.HasRetry || p.Retry != 50*time.Millisecond {
		t.Errorf("priming event = %+v", p)
	}
	if m := evs[2]; string(m.Data) != "{\"a\":\n 1}" || m.Type() != "message" {
		t.Errorf("multi-line data = %q (only one leading space is stripped)", m.Data)
	}
	if bad := evs[3]; bad.HasID || bad.HasRetry || string(bad.Data) != "{}" {
		t.Errorf("an id with NUL and a non-numeric retry must be ignored: %+v", bad)
	}
	if e := evs[4]; e.Type() != "endpoint" || string(e.Data) != "/messages?sessionId=1" {
		t.Errorf("endpoint event = %+v", e)
	}
	if last := evs[5]; !last.Incomplete || string(last.Data) != `{"cut":` {
		t.Errorf("unterminated last event = %+v", last)
	}
}

func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"add":             "add",
		"file:///a b.txt": "file:///a b.txt",
		"héllo":           "=?base64?aMOpbGxv?=",
		" padded":         "=?base64?IHBhZGRlZA==?=",
		"=?base64?abc?=":  "=?base64?PT9iYXNlNjQ/YWJjPz0=?=",
		"line\nbreak":     "=?base64?bGluZQpicmVhaw==?=",
		"":                "",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInspectOutbound(t *testing.T) {
	o := inspectOutbound([]byte(`{"jsonrpc":"2.0","id": 7,"method":"resources/read","params":{"uri":"demo://x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	if o.id != "7" || o.method != "resources/read" || o.version != "2026-07-28" || !o.hasName || o.name != "demo://x" {
		t.Errorf("inspectOutbound = %+v", o)
	}
	n := inspectOutbound([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`))
	if n.isRequest() || n.cancelID != `"a"` {
		t.Errorf("cancel notification = %+v", n)
	}
}

func TestAnswers(t *testing.T) {
	if !answers([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`), "3") {
		t.Error("a result for id 3 does not answer 3")
	}
	if answers([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`), "3") {
		t.Error("a server request with id 3 must not count as the answer to our 3")
	}
	if !answers([]byte(`[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":"3","error":{"code":1,"message":"m"}}]`), `"3"`) {
		t.Error("a batch holding the error answer does not answer")
	}
	if answers([]byte(`{"jsonrpc":"2.0","id":"3","result":{}}`), "3") {
		t.Error(`id "3" answers 3: the JSON types differ`)
	}
	// What json.Unmarshal into a struct made of it, which answers did.
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{`{"ID":3,"Result":null}`, true},
		{`{"id":3,"method":null,"result":1}`, true},
		{`{"id":3,"method":5,"result":1}`, false},
		{`{"id":3}`, false},
		{`{"id":4,"id":3,"error":{}}`, true},
		{`{"id":3,"result":{}`, false},
		{`"id"`, false},
	} {
		if got := answers([]byte(tc.msg), "3"); got != tc.want {
			t.Errorf("answers(%s) = %v", tc.msg, got)
		}
	}
}

// Telling whether a message is the answer reads it in place: a copy of
// its result was a third copy of a 200 MB answer (a 200 MB SSE line took
// call to 615 MB, now 421 MB).
func TestAnswersDoesNotCopyTheResult(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + strings.Repeat("a", 8<<20) + `"}]}}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ok := answers(msg, "3")
	runtime.ReadMemStats(&after)
	if !ok {
		t.Fatal("not the answer")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("answers allocated %d bytes for a %d-byte message", grew, len(msg))
	}
}

// sseItems is what the client makes of a whole stream read by its reader:
// the same items an SSEWatch hands on, so the two can be compared.
func sseItems(r *sseReader, at time.Time) []string {
	var out []string
	ka := newKeepAlives("s", func(te TransportEvent) {
		if te.Run.Done { // what a recorder writes of a run
			out = append(out, fmt.Sprintf("row %s %v", te.Summary, te.Fields))
		}
	})
	for {
		ev, err := r.next()
		if err != nil {
			ka.end(at)
			return out
		}
		if ev.isKeepAlive() {
			ka.add(ev, at)
			continue
		}
		ka.end(at)
		rows, deliver := sseClassify("s", ev, false)
		for _, te := range rows {
			out = append(out, fmt.Sprintf("row %s %v", te.Summary, te.Fields))
		}
		if deliver {
			out = append(out, fmt.Sprintf("message %q %s", ev.Data, ev.Problem()))
		}
	}
}

// watchItems feeds body to an SSEWatch in the given pieces.
func watchItems(body []byte, cuts []int, maxLine, maxEvent int, at time.Time) []string {
	w := NewSSEWatch("s", false)
	w.r.maxLine, w.r.maxEvent = maxLine, maxEvent
	var out []string
	emit := func(it SSEItem) {
		if it.Row != nil {
			out = append(out, fmt.Sprintf("row %s %v", it.Row.Summary, it.Row.Fields))
			return
		}
		out = append(out, fmt.Sprintf("message %q %s", it.Message, it.Problem))
	}
	prev := 0
	for _, c := range append(cuts, len(body)) {
		w.Feed(body[prev:c], at, emit)
		prev = c
	}
	w.End(at, emit)
	return out
}

// A tap reads a stream in whatever pieces the copy hands it; what it makes
// of them must be what the client's reader makes of the whole.
func TestSSEWatchReadsAsTheClientReader(t *testing.T) {
	body := []byte("\xef\xbb\xbf: keep-alive\n\n" +
		"id: ev-1\r\nretry: 50\r\ndata:\r\n\r\n" +
		"id: 57e27d29\ndata: \n\n" +
		"event: message\nid: 0ed7\ndata: {\"a\":\ndata:  1}\n\n" +
		"event: notice\ndata: {}\n\n" +
		"data: 0123456789abcdefghijklmnopqrstuvwxyz\n\n" +
		"data: {\"cut\":")
	at := time.Now()
	want := sseItems(&sseReader{br: bufio.NewReader(bytes.NewReader(body)), maxLine: 32, maxEvent: 64}, at)
	if len(want) < 7 {
		t.Fatalf("the reader made only %q", want)
	}
	for i := 0; i <= len(body); i++ {
		if got := watchItems(body, []int{i}, 32, 64, at); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("split at %d:\n got  %q\n want %q", i, got, want)
		}
	}
	every := make([]int, len(body))
	for i := range every {
		every[i] = i
	}
	if got := watchItems(body, every, 32, 64, at); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("byte by byte:\n got  %q\n want %q", got, want)
	}
	for _, it := range want {
		if strings.Contains(it, `message ""`) {
			t.Errorf("a priming event became a message: %q", want)
		}
	}
}

// A tap watching a keep-alive flood records one row for the run, when it
// ends, and the message after it.
func TestSSEWatchCoalescesKeepAlives(t *testing.T) {
	body := []byte(strings.Repeat(": ping\n\n", 100_000) + "data: {}\n\n" + ": k\n\n")
	got := watchItems(body, []int{len(body) / 2, len(body) - 3}, sseMaxLine, sseMaxEvent, time.Now())
	if len(got) != 3 || !strings.Contains(got[0], `SSE 100,000 keep-alives "ping" (comment-only events, 781.2 KiB`) ||
		got[1] != `message "{}" ` || !strings.Contains(got[2], `SSE keep-alive "k" (a comment-only event, 5 B)`) {
		t.Fatalf("items:\n%s", strings.Join(got, "\n"))
	}
}
