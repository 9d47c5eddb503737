package session

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

// Request sends any method with its params as given: a result comes back
// whole as an *Answer, an error answer as the server's error with its
// response frame.
func TestRequestSendsParamsAsGiven(t *testing.T) {
	s, c, w := onDemo(t, mcp.EraLegacy)
	o, err := s.Request(mcp.MethodToolsCall, json.RawMessage(`{"name":"add","arguments":{"a":1,"b":2}}`))
	if err != nil || o.Kind != KindRequest || o.Label != "tools/call add" || !o.Tracked() {
		t.Fatalf("op %+v, %v", o, err)
	}
	done, _ := until(t, c, "the answer", func(e OpDoneEvent) bool { return e.Op.ID == o.ID })
	a, ok := done.Result.(*Answer)
	if !ok || done.Err != nil || done.Status != StatusOK || !strings.Contains(string(a.Raw), `"structuredContent":{"sum":3}`) {
		t.Fatalf("done %+v", done)
	}
	if sent := w.sent(mcp.MethodToolsCall); len(sent) != 1 || !strings.Contains(sent[0], `"arguments":{"a":1,"b":2}`) {
		t.Errorf("sent %v", sent)
	}

	o, err = s.Request(mcp.MethodPromptsGet, json.RawMessage(`{"name":"nope"}`))
	if err != nil || o.Label != "prompts/get nope" {
		t.Fatalf("op %+v, %v", o, err)
	}
	done, _ = until(t, c, "the error", func(e OpDoneEvent) bool { return e.Op.ID == o.ID })
	var rpc *mcp.RPCError
	if !errors.As(done.Err, &rpc) || done.Frame == nil || done.Result != nil {
		t.Errorf("an error answer: %+v", done)
	}

	o, err = s.Request(mcp.MethodPing, nil)
	if err != nil || o.Label != "ping" {
		t.Fatalf("ping: %+v, %v", o, err)
	}
	until(t, c, "the pong", func(e OpDoneEvent) bool { return e.Op.ID == o.ID && e.Err == nil })
}

func TestReadOnlyRefusesRequest(t *testing.T) {
	_, err := ReadOnly{Why: "a recording"}.Request(mcp.MethodPing, nil)
	var ro *ReadOnlyError
	if !errors.As(err, &ro) || ro.Method != mcp.MethodPing {
		t.Errorf("err = %v", err)
	}
}
