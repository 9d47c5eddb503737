package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// ClientForwarder sends a view's requests through c, each frame marked as
// the view's (mcp.ByView), so they sit in the same log as mcpscope's own.
func ClientForwarder(c *mcp.Client) Forwarder {
	return func(ctx context.Context, _ *View, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError, error) {
		if len(params) == 0 {
			params = json.RawMessage(`{}`)
		}
		resp, err := c.Call(ctx, method, params, mcp.ByView())
		var rpc *mcp.RPCError
		if errors.As(err, &rpc) {
			return nil, rpc, nil
		}
		if err != nil {
			return nil, nil, err
		}
		return resp.Result, nil, nil
	}
}

// ReadView reads the template of a tool through c and builds its view for
// a call with these arguments and result. listing is the template's
// resources/list entry when the caller has it (nil otherwise).
func ReadView(ctx context.Context, c *mcp.Client, toolEntry, arguments, result, listing json.RawMessage) (View, error) {
	tv := apps.ParseTool(toolEntry)
	if !tv.HasView() {
		return View{}, errors.New("the tool names no template")
	}
	resp, err := c.Call(ctx, mcp.MethodResourcesRead, map[string]string{"uri": tv.URI()})
	if err != nil {
		return View{}, fmt.Errorf("resources/read %s: %w", termsafe.String(tv.URI()), err)
	}
	return NewView(toolEntry, arguments, result, listing, resp.Result)
}

// CapturedRead finds the last resources/read answer for uri among frames
// already seen (a tap's capture, a session file), for a preview that
// cannot read the template again. It looks only at answers to
// resources/read, newest first, and returns the result, or nil.
func CapturedRead(store *mcp.FrameStore, uri string) json.RawMessage {
	for i := store.Len() - 1; i >= 0; i-- {
		if store.Kind(i) != mcp.KindResponse {
			continue
		}
		f := store.Frame(i)
		if f == nil || f.Dir != mcp.Inbound || f.ReplyToMethod != mcp.MethodResourcesRead {
			continue
		}
		var resp struct {
			Result struct {
				Contents []struct {
					URI string `json:"uri"`
				} `json:"contents"`
			} `json:"result"`
		}
		var whole struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(f.Raw, &resp) != nil || json.Unmarshal(f.Raw, &whole) != nil {
			continue
		}
		for _, c := range resp.Result.Contents {
			if c.URI == uri {
				return whole.Result
			}
		}
	}
	return nil
}

// CapturedCall is a tools/call seen in a log: its request and, when it
// was answered with a result, the result.
type CapturedCall struct {
	Name      string
	Arguments json.RawMessage // {} when the request had none
	Result    json.RawMessage // nil when unanswered or answered with an error
}

// ReadCapturedCall reads a tools/call request and its answer (nil when
// none), for a preview from a read-only source. It reads the answer's
// result only when withResult: an answer may be megabytes, and a help bar
// asks only whether the frame is a call. ok is false when req is not a
// tools/call request naming a tool.
func ReadCapturedCall(req, resp *mcp.Frame, withResult bool) (CapturedCall, bool) {
	if req == nil || req.Kind != mcp.KindRequest || req.Method != mcp.MethodToolsCall {
		return CapturedCall{}, false
	}
	var call struct {
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(req.Raw, &call) != nil || call.Params.Name == "" {
		return CapturedCall{}, false
	}
	c := CapturedCall{Name: call.Params.Name, Arguments: call.Params.Arguments}
	if len(c.Arguments) == 0 || string(c.Arguments) == "null" {
		c.Arguments = json.RawMessage(`{}`)
	}
	if withResult && resp != nil && resp.Kind == mcp.KindResponse {
		var answer struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(resp.Raw, &answer) == nil && len(answer.Result) > 0 && string(answer.Result) != "null" {
			c.Result = answer.Result
		}
	}
	return c, true
}
