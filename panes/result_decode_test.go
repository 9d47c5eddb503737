package panes

import (
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"
)

var resultDecodeSeeds = []string{
	`{"content":[{"type":"text","text":"hi\nthere"}],"isError":false}`,
	`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}],"structuredContent":{"a":1},"_meta":{"k":"v"}}`,
	`{"content":null,"structuredContent":null}`,
	`{"CONTENT":[1,"x"],"IsError":true,"isError":false}`,
	`{"content":{"type":"text"}}`, `{"content":"text"}`, `{"isError":"yes"}`, `{"isError":null}`,
	`[]`, `null`, `"text"`, `{}`,
	`{"type":"text","text":5}`, `{"type":"text","text":null,"TEXT":"last"}`, `{"type":1}`,
	`{"type":"resource","resource":{"uri":"file:///a","text":"x"}}`, `{"type":"text","data":[1]}`,
	`{"t\u0065xt":"escaped name","type":"text"}`, `{"TEXT":"first","text":null}`, `{"content":[1],"Content":null}`, `{"text":5,"TEXT":"x"}`,
}

// The result view's decoders answer as json.Unmarshal would: the same
// fields, and an error exactly when it gives one.
func checkResultDecode(t *testing.T, raw []byte) {
	if !json.Valid(raw) {
		_, _ = decodeCallResult(raw) // anything else: no panic
		_, _ = decodeContent(raw)
		return
	}
	var want callResult
	wantErr := json.Unmarshal(raw, &want)
	got, err := decodeCallResult(raw)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("decodeCallResult(%q) error %v, json.Unmarshal %v", raw, err, wantErr)
	}
	if err == nil && fmt.Sprintf("%q %q %v %q", got.Content, got.StructuredContent, got.IsError, got.Meta) !=
		fmt.Sprintf("%q %q %v %q", want.Content, want.StructuredContent, want.IsError, want.Meta) {
		t.Fatalf("decodeCallResult(%q) = %+v, json.Unmarshal gives %+v", raw, got, want)
	}
	var wantC contentFields
	wantErr = json.Unmarshal(raw, &wantC)
	gotC, err := decodeContent(raw)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("decodeContent(%q) error %v, json.Unmarshal %v", raw, err, wantErr)
	}
	if err == nil && fmt.Sprintf("%+v", gotC) != fmt.Sprintf("%+v", wantC) {
		t.Fatalf("decodeContent(%q) = %+v, json.Unmarshal gives %+v", raw, gotC, wantC)
	}
}

func TestResultDecodersAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range resultDecodeSeeds {
		checkResultDecode(t, []byte(s))
	}
}

func FuzzResultDecode(f *testing.F) {
	for _, s := range resultDecodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkResultDecode(t, raw) })
}

// A text block without escapes is kept once: the decoded text is the
// frame's own bytes, not a copy (a 100 MB result held two copies).
func TestContentTextIsAViewOfTheFrame(t *testing.T) {
	text := "plain text " + fmt.Sprint(1<<20)
	raw := []byte(`{"type":"text","text":"` + text + `"}`)
	c, err := decodeContent(raw)
	if err != nil || c.Text != text {
		t.Fatalf("decoded %q, %v", c.Text, err)
	}
	start := uintptr(unsafe.Pointer(&raw[0]))
	if p := uintptr(unsafe.Pointer(unsafe.StringData(c.Text))); p < start || p >= start+uintptr(len(raw)) {
		t.Fatal("the text was copied out of the frame's bytes")
	}
	esc, err := decodeContent([]byte(`{"type":"text","text":"a\nb"}`))
	if err != nil || esc.Text != "a\nb" {
		t.Fatalf("an escaped text decoded as %q, %v", esc.Text, err)
	}
}
