package doctor_test

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

func inResponse(seq, replyTo int64, method string, latency time.Duration, at time.Time) mcp.Event {
	return mcp.FrameEvent{Frame: &mcp.Frame{Seq: seq, Time: at, Dir: mcp.Inbound, Transport: "http", Kind: mcp.KindResponse, ID: "1",
		ReplyTo: replyTo, ReplyToMethod: method, Latency: latency, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}}
}

func readResource(uri string) func(ctx context.Context, c *mcp.Client) {
	return func(ctx context.Context, c *mcp.Client) {
		_, _ = c.Call(ctx, "resources/read", map[string]any{"uri": uri}, mcp.WithTimeout(2*time.Second))
	}
}

func nestedAnyOf(depth int) string {
	s := `{"type":"string"}`
	for range depth {
		s = `{"anyOf":[` + s + `,{"type":"null"}]}`
	}
	return s
}

func modernTools(entries ...string) mcptest.Script {
	return mcptest.Script{On: map[string]lines{"server/discover": {{discover(toolsCaps)}}, "tools/list": {{modernList("tools", strings.Join(entries, ","))}}}}
}

func sseEv(stream, id, summary string) mcp.Event {
	fields := []mcp.Field{{Key: "stream", Value: stream}}
	if id != "" {
		fields = append(fields, mcp.Field{Key: "id", Value: id})
	}
	return mcp.TransportEvent{Time: time.Now(), Kind: "sse", Summary: summary, Fields: fields}
}

func legacy1125() mcp.Event {
	return mcp.HandshakeEvent{Handshake: &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: mcp.Version20251125, ServerCapabilities: json.RawMessage(`{}`)}}
}

func oauthEv(summary string, kv ...string) mcp.Event {
	var fields []mcp.Field
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, mcp.Field{Key: kv[i], Value: kv[i+1]})
	}
	return mcp.TransportEvent{Time: time.Now(), Kind: "oauth", Summary: summary, Fields: fields}
}
