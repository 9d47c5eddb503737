package mcp

import (
	"strings"
	"testing"
)

func TestSubject(t *testing.T) {
	cases := []struct {
		kind Kind
		raw  string
		want string
	}{
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, "echo"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a.txt"}}`, "file:///a.txt"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://static/1"}}`, "test://static/1"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"greet"}}`, "greet"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"style","value":"w"}}}`, "prompt greet · style"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":""}}}`, "resource file:///{path} · path"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`, "debug"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t-1"}}`, "t-1"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","url":"https://example.com/auth","message":"Sign in"}}`, "https://example.com/auth"},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Your name?\nPlease","requestedSchema":{}}}`, "Your name? …"},
		{KindNotification, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":"x"}}`, "info db"},
		{KindNotification, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///b"}}`, "file:///b"},
		{KindNotification, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"timeout"}}`, "request 7"},
		{KindNotification, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}`, `1`},
		{KindNotification, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":3,"total":10,"message":"indexing"}}`, `3/10 indexing`},
		{KindNotification, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1"}}`, `token "p1"`},
		// Nothing to name, or nothing readable: no subject, never an error.
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, ""},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"nope"}`, ""},
		{KindRequest, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, ""},
		{KindResponse, `{"jsonrpc":"2.0","id":1,"result":{"name":"x"}}`, ""},
	}
	for _, c := range cases {
		p := classify([]byte(c.raw))
		f := &Frame{Kind: c.kind, Method: p.method, Raw: []byte(c.raw)}
		if got := Subject(f); got != c.want {
			t.Errorf("Subject(%s) = %q, want %q", c.raw, got, c.want)
		}
	}
	// Params too large to decode for a row's sake give no subject.
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":"` + strings.Repeat("a", maxSubjectParams) + `"}}}`
	if got := Subject(&Frame{Kind: KindRequest, Method: MethodToolsCall, Raw: []byte(big)}); got != "" {
		t.Errorf("a %d-byte params gave subject %q", len(big), got)
	}
}

func TestResultIsError(t *testing.T) {
	cases := []struct {
		raw  string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\"isError\":true"}]}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"nested":{"isError":true}}}`, false},
		{` { "id" : 1 , "result" : { "IsError" : true } , "jsonrpc":"2.0"}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":[]}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false},
	}
	for _, c := range cases {
		if got := ResultIsError(&Frame{Kind: KindResponse, Raw: []byte(c.raw)}); got != c.want {
			t.Errorf("ResultIsError(%s) = %v, want %v", c.raw, got, c.want)
		}
		// It agrees with the decoder the rest of mcpscope uses.
		if env, err := decodeEnvelope([]byte(strings.TrimSpace(c.raw))); err == nil && IsToolError(env.Result) != c.want {
			t.Errorf("IsToolError disagrees on %s", c.raw)
		}
	}
}
