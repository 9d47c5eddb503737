package mcp

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		kind    Kind
		method  string
		id      ID
		problem string // substring; "" means no problem expected
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, KindRequest, "tools/list", "1", ""},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"ping"}`, KindRequest, "ping", `"a"`, ""},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, KindResponse, "", "1", ""},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`, KindErrorResponse, "", "1", ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, "notifications/initialized", "", ""},
		{"batch", `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":2,"result":{}}]`, KindBatch, "", "", ""},
		{"log line", `Server running on stdio`, KindInvalid, "", "", "not JSON"},
		{"invalid json", `{"jsonrpc":"2.0","id":`, KindInvalid, "", "", "invalid JSON"},
		{"bare number", `42`, KindInvalid, "", "", "not a JSON-RPC object"},
		{"bom", "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"a\"}", KindInvalid, "", "", "byte order mark"},
		{"not utf8", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", KindInvalid, "", "", "UTF-8"},
		{"empty", ``, KindInvalid, "", "", "empty"},
		{"no jsonrpc", `{"id":1,"result":{}}`, KindResponse, "", "1", `missing "jsonrpc"`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","method":"a"}`, KindNotification, "a", "", `not "2.0"`},
		{"null id request", `{"jsonrpc":"2.0","id":null,"method":"a"}`, KindRequest, "a", "null", "id is null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"a"}`, KindRequest, "a", "1.5", "not an integer"},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, KindErrorResponse, "", "1", "both"},
		{"bad error object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, KindErrorResponse, "", "1", "not a JSON-RPC error object"},
		{"numeric method", `{"jsonrpc":"2.0","method":5}`, KindInvalid, "", "", "not a string"},
		{"neither", `{"jsonrpc":"2.0","id":1}`, KindInvalid, "", "1", "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := classify([]byte(tt.raw))
			if p.kind != tt.kind {
				t.Errorf("kind = %v, want %v (problem %q)", p.kind, tt.kind, p.problem)
			}
			if p.method != tt.method {
				t.Errorf("method = %q, want %q", p.method, tt.method)
			}
			if p.id != tt.id {
				t.Errorf("id = %q, want %q", p.id, tt.id)
			}
			if tt.problem == "" && p.problem != "" {
				t.Errorf("unexpected problem %q", p.problem)
			}
			if tt.problem != "" && !strings.Contains(p.problem, tt.problem) {
				t.Errorf("problem = %q, want it to mention %q", p.problem, tt.problem)
			}
		})
	}
}

func TestReadLine(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 20<<20)
	tests := []struct {
		name   string
		input  io.Reader
		max    int
		lines  []string
		cut    []bool
		errEOF bool // the last line came without a newline
	}{
		{"two lines", strings.NewReader("a\nb\n"), 100, []string{"a", "b"}, []bool{false, false}, false},
		{"partial reads", iotest.OneByteReader(strings.NewReader("{\"a\":1}\n{\"b\":2}\n")), 100, []string{`{"a":1}`, `{"b":2}`}, []bool{false, false}, false},
		{"no trailing newline", strings.NewReader("a\nlast"), 100, []string{"a", "last"}, []bool{false, false}, true},
		{"crlf kept", strings.NewReader("a\r\n"), 100, []string{"a\r"}, []bool{false}, false},
		{"cut", strings.NewReader("0123456789\nok\n"), 4, []string{"0123", "ok"}, []bool{true, false}, false},
		{"empty line", strings.NewReader("\nx\n"), 100, []string{"", "x"}, []bool{false, false}, false},
		{"20 MB line", io.MultiReader(bytes.NewReader(big), strings.NewReader("\nnext\n")), 256 << 20, []string{string(big), "next"}, []bool{false, false}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(tt.input, 64<<10)
			for i, want := range tt.lines {
				line, cut, err := readLine(br, tt.max)
				last := i == len(tt.lines)-1
				if err != nil && (!last || !tt.errEOF) {
					t.Fatalf("line %d: unexpected error %v", i, err)
				}
				if string(line) != want {
					t.Fatalf("line %d = %.40q (len %d), want %.40q (len %d)", i, line, len(line), want, len(want))
				}
				if cut != tt.cut[i] {
					t.Fatalf("line %d cut = %v, want %v", i, cut, tt.cut[i])
				}
			}
		})
	}
}

// The spec's methods are shared strings, not decoded per frame; any other
// spelling (escapes, unknown names) is decoded as before.
func TestClassifySharesKnownMethods(t *testing.T) {
	for quoted, name := range knownMethods() {
		p := classify([]byte(`{"jsonrpc":"2.0","method":` + quoted + `}`))
		if p.method != name || p.kind != KindNotification {
			t.Fatalf("%s classified as %q (%v)", quoted, p.method, p.kind)
		}
		if unsafe.StringData(p.method) != unsafe.StringData(name) {
			t.Fatalf("%s: a new string, not the shared one", quoted)
		}
	}
	for raw, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"notifications\/message"}`:     "notifications/message",
		`{"jsonrpc":"2.0","method":"notifications\u002fmessage"}`: "notifications/message",
		`{"jsonrpc":"2.0","method":"x-custom/thing"}`:             "x-custom/thing",
	} {
		if p := classify([]byte(raw)); p.method != want {
			t.Errorf("%s classified as method %q, want %q", raw, p.method, want)
		}
	}
}
