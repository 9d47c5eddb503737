package policy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

func TestAcceptDefaultsFillsDefaultsOnly(t *testing.T) {
	a := &Answers{Elicitation: ElicitAcceptDefaults}
	res, err := a.HandleServerRequest(context.Background(), &mcp.ServerRequest{Method: "elicitation/create",
		Params: json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"age":{"type":"integer"},"ok":{"type":"boolean","default":true}}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res), `{"action":"accept","content":{"name":"Ada","ok":true}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	res, _ = a.HandleServerRequest(context.Background(), &mcp.ServerRequest{Method: "elicitation/create",
		Params: json.RawMessage(`{"mode":"url","url":"https://x","elicitationId":"1","message":"m"}`)})
	if string(res) != `{"action":"decline"}` {
		t.Fatalf("url mode: %s", res)
	}
}

func TestSamplingAndRootsAndFallthrough(t *testing.T) {
	a := &Answers{Sampling: Sampling{Set: true, Reply: "hi"}, RootsSet: true, Roots: []Root{{URI: "file:///tmp", Name: "tmp"}}}
	res, err := a.HandleServerRequest(context.Background(), &mcp.ServerRequest{Method: "sampling/createMessage"})
	if err != nil || !strings.Contains(string(res), `"text":"hi"`) || !strings.Contains(string(res), `"stopReason":"endTurn"`) {
		t.Fatalf("sampling: %s %v", res, err)
	}
	res, err = a.HandleServerRequest(context.Background(), &mcp.ServerRequest{Method: "roots/list"})
	if err != nil || string(res) != `{"roots":[{"uri":"file:///tmp","name":"tmp"}]}` {
		t.Fatalf("roots: %s %v", res, err)
	}
	_, err = a.HandleServerRequest(context.Background(), &mcp.ServerRequest{Method: "elicitation/create"})
	var rpc *mcp.RPCError
	if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "--elicitation") {
		t.Fatalf("unanswered elicitation: %v", err)
	}
	a.Sampling.Decline = true
	if _, err := a.HandleServerRequest(context.Background(), &mcp.ServerRequest{Method: "sampling/createMessage"}); !errors.As(err, &rpc) {
		t.Fatalf("declined sampling: %v", err)
	}
}

func TestRootFromPath(t *testing.T) {
	r, err := RootFromPath("/tmp/x y")
	if err != nil || r.URI != "file:///tmp/x%20y" || r.Name != "x y" {
		t.Fatalf("%+v %v", r, err)
	}
	r, _ = RootFromPath("file:///srv")
	if r.URI != "file:///srv" {
		t.Fatalf("%+v", r)
	}
}
