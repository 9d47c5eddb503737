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
