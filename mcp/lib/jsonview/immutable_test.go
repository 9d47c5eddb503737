package jsonview

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The end of a long string in immutable bytes is found once and kept:
// every later reader, through any view of the bytes, gets the answers
// bytes no one declared immutable get, a view cut inside the string
// included, and an invalid long string stays invalid.
func TestImmutableKeepsLongStringEnds(t *testing.T) {
	text, _ := json.Marshal(strings.Repeat(`{"k":"v\"w","n":[1,2]},`, 8000)) // 190 KB, dense escapes
	bad := `"` + strings.Repeat(`\"x`, 40000) + "\x01" + `"`                 // a control character deep inside
	frame := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + string(text) + `}],"bad":"short"}}`)
	badFrame := []byte(`{"a":` + bad + `}`)
	plain := bytes.Clone(frame)
	Immutable(frame)
	Immutable(badFrame)

	at := bytes.Index(frame, text)
	if !Valid(frame) || !json.Valid(frame) {
		t.Fatal("the frame is valid")
	}
	if _, _, n := keptEnd(frame, at, true); n != len(text) {
		t.Fatalf("after Valid the text's end is kept as %d, want %d", n, len(text))
	}
	// Every view agrees with the same bytes not declared immutable.
	for k := 0; k < 3; k++ { // again and again: from the kept end
		if got, want := skipString(frame, at), scanString(plain, at); got != want || got != at+len(text) {
			t.Fatalf("skipString = %d, the bytes say %d", got, want)
		}
		res, _ := Member(frame, "result")
		want, _ := Member(plain, "result")
		if !bytes.Equal(res, want) {
			t.Fatal("Member(result) differs from the same bytes not kept")
		}
		content, _ := Member(res, "content")
		blocks, ok := Array(content)
		if !ok || len(blocks) != 1 {
			t.Fatalf("content: %d blocks", len(blocks))
		}
		got, _ := Member(blocks[0], "text")
		if !bytes.Equal(got, text) {
			t.Fatalf("the text view is %d bytes, want %d", len(got), len(text))
		}
	}
	// A view cut inside the string does not reach the kept end.
	cut := frame[:at+len(text)/2]
	if end := skipString(cut, at); end != len(cut) {
		t.Fatalf("in a view cut inside it, the string ends at %d, want the view's end %d", end, len(cut))
	}
	if Valid(cut) {
		t.Fatal("a view cut inside the string is valid")
	}
	// An invalid long string is not kept as valid, and stays invalid.
	for range 2 {
		if Valid(badFrame) || json.Valid(badFrame) {
			t.Fatal("a control character in a long string: valid")
		}
	}
	if _, _, n := keptEnd(badFrame, 5, true); n != 0 {
		t.Fatal("an invalid string's end was kept as checked")
	}
	// Only the most recent buffers are kept.
	for range immutableKept {
		Immutable(bytes.Repeat([]byte{' '}, longString))
	}
	if b, _, _ := keptEnd(frame, at, false); b != nil {
		t.Fatal("an old buffer is still kept")
	}
	if got := skipString(frame, at); got != at+len(text) {
		t.Fatalf("without the kept end, skipString = %d", got)
	}
}
