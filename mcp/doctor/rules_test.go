package doctor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// ruleCase stages one mistake. Most are real stdio traffic from the
// scripted fake server; the HTTP rules, whose transport is not in this
// package's reach, are fed as synthetic events.
type ruleCase struct {
	rule   string
	script mcptest.Script
	opts   mcp.Options
	lint   doctor.Options
	act    func(ctx context.Context, c *mcp.Client)
	// events, when set, are fed to Observe directly instead.
	events []mcp.Event
}

type lines = [][]string

func afterInit(l ...string) map[string]lines {
	return map[string]lines{"notifications/initialized": {l}}
}

const toolsCaps = `{"tools":{}}`

var noClientCaps = json.RawMessage(`{}`)

func ruleCases() []ruleCase {
	many := make([]string, 130)
	for i := range many {
		many[i] = tool(fmt.Sprintf("t%d", i), "")
	}
	outSchema := `"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	modern := mcp.Options{Era: mcp.EraModern}
	return append([]ruleCase{
		// Framing.
		{rule: "framing/non-json-stdout", script: mcptest.Script{Start: []string{"Server listening on stdio"}}},
		{rule: "framing/line-over-limit", events: []mcp.Event{mcp.FrameEvent{Frame: &mcp.Frame{Seq: 1, Dir: mcp.Inbound, Transport: "stdio",
			Kind: mcp.KindInvalid, Raw: []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"xxxx`),
			Problem: mcp.CutLineProblem(300<<20, 256<<20) + "; invalid JSON: unexpected end of JSON input"}}}},
		{rule: "framing/jsonrpc-version", script: mcptest.Script{On: map[string]lines{"ping": {{`{"jsonrpc":"1.0","id":{{id}},"result":{}}`}}}}},
		{rule: "framing/id-type", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`)}},
		{rule: "framing/result-and-error", script: mcptest.Script{On: map[string]lines{"ping": {{`{"jsonrpc":"2.0","id":{{id}},"result":{},"error":{"code":1,"message":"x"}}`}}}}},
		{rule: "framing/error-object", script: mcptest.Script{On: map[string]lines{"ping": {{`{"jsonrpc":"2.0","id":{{id}},"error":{"code":"bad"}}`}}}}},
		{rule: "framing/result-not-object", script: mcptest.Script{On: map[string]lines{"ping": {{res(`[]`)}}}}},
		{rule: "framing/unknown-id", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":777,"result":{}}`)}},
		{rule: "framing/duplicate-response", script: mcptest.Script{On: map[string]lines{"ping": {{res(`{}`), res(`{}`)}}}}},
		{rule: "framing/batch-forbidden", script: mcptest.Script{On: afterInit(`[` + notif("notifications/message", `{"level":"info","data":"x"}`) + `]`)}},
		{rule: "framing/notification-with-id", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"n1","method":"notifications/tools/list_changed"}`)}},
		{rule: "framing/reused-request-id", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"r","method":"ping"}`, `{"jsonrpc":"2.0","id":"r","method":"ping"}`)}},
		{rule: "framing/id-type-drift", script: mcptest.Script{On: map[string]lines{"ping": {{`{"jsonrpc":"2.0","id":"{{id}}","result":{}}`}}}},
			act: call("ping", mcp.WithTimeout(300*time.Millisecond))},
		{rule: "framing/null-id-error", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)}},

		// Lifecycle.
		{rule: "lifecycle/initialize-result-fields", script: mcptest.Script{On: map[string]lines{"initialize": {{res(`{"protocolVersion":"{{version}}","capabilities":{}}`)}}}}},
		{rule: "lifecycle/capabilities-not-object", script: mcptest.Script{Capabilities: json.RawMessage(`{"tools":true}`)}},
		{rule: "lifecycle/version-not-offered", script: mcptest.Script{On: map[string]lines{"initialize": {{res(`{"protocolVersion":"2025-13-01","capabilities":{},"serverInfo":{"name":"t","version":"1"}}`)}}}}},
		{rule: "lifecycle/early-message", script: mcptest.Script{On: map[string]lines{"initialize": {{notif("notifications/tools/list_changed", ""), initRes(`{"tools":{"listChanged":true}}`)}}}}},
		{rule: "lifecycle/ping-result", script: mcptest.Script{On: map[string]lines{"ping": {{res(`{"ok":true}`)}}}}},

		// Capabilities and lists.
		{rule: "capabilities/undeclared-method", script: mcptest.Script{On: map[string]lines{"tools/list": {{tools(tool("a", ""))}}}},
			act: func(ctx context.Context, c *mcp.Client) { _, _, _ = c.ListAll(ctx, "tools/list", mcp.AsProbe()) }},
		{rule: "capabilities/declared-not-served", script: mcptest.Script{Capabilities: json.RawMessage(`{"prompts":{}}`)}, act: listAll("prompts/list")},
		{rule: "capabilities/list-changed-without-capability", script: mcptest.Script{Capabilities: json.RawMessage(toolsCaps), On: afterInit(notif("notifications/tools/list_changed", ""))}},
		{rule: "capabilities/notification-without-capability", script: mcptest.Script{On: afterInit(notif("notifications/message", `{"level":"info","data":"hello"}`))}},
		{rule: "lists/changed-without-notification", script: mcptest.Script{Capabilities: json.RawMessage(toolsCaps),
			On: map[string]lines{"tools/list": {{tools(tool("a", ""))}, {tools(tool("a", ""), tool("b", ""))}}}}, act: listTwice("tools/list")},

		// Tools.
		{rule: "tools/input-schema-not-object", script: toolList(`{"name":"a","inputSchema":{"type":"string"}}`), act: listAll("tools/list")},
		{rule: "tools/invalid-schema", script: toolList(`{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"nope"}}}}`), act: listAll("tools/list")},
		{rule: "tools/unsupported-dialect", script: toolList(`{"name":"a","inputSchema":{"$schema":"https://example.com/my-dialect","type":"object"}}`), act: listAll("tools/list")},
		{rule: "tools/network-ref", script: toolList(`{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}}`), act: listAll("tools/list")},
		{rule: "tools/output-schema-not-object", script: toolList(tool("a", `"outputSchema":{"type":"array"}`)), act: listAll("tools/list")},
		{rule: "tools/duplicate-name", script: toolList(tool("a", ""), tool("a", "")), act: listAll("tools/list")},
		{rule: "tools/name-characters", script: toolList(tool("my tool!", "")), act: listAll("tools/list")},
		{rule: "tools/structured-content-mismatch", script: toolCall(tool("a", outSchema), res(`{"content":[{"type":"text","text":"{\"n\":\"x\"}"}],"structuredContent":{"n":"x"}}`)), act: callTool("a")},
		{rule: "tools/missing-text-fallback", script: toolCall(tool("a", outSchema), res(`{"content":[{"type":"text","text":"done"}],"structuredContent":{"n":1}}`)), act: callTool("a")},
		{rule: "tools/task-support-without-capability", script: toolList(tool("a", `"execution":{"taskSupport":"required"}`)), act: listAll("tools/list")},
		{rule: "tools/contradictory-annotations", script: toolList(tool("a", `"annotations":{"readOnlyHint":true,"destructiveHint":true}`)), act: listAll("tools/list")},
		{rule: "tools/error-as-protocol-error", script: toolCall(tool("a", ""), rpcErr(-32602, "n must be an integer", "")), act: callTool("a")},

		// Content, completion, logging.
		{rule: "content/invalid", script: toolCall(tool("a", ""), res(`{"content":[{"type":"image","data":"!!not base64!!","mimeType":"image/png"}]}`)), act: callTool("a")},
		{rule: "content/type-not-in-version", opts: mcp.Options{ProtocolVersion: mcp.Version20241105},
			script: toolCall(tool("a", ""), res(`{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}`)), act: callTool("a")},
		{rule: "completion/too-many-values", script: mcptest.Script{Capabilities: json.RawMessage(`{"completions":{}}`),
			On: map[string]lines{"completion/complete": {{res(`{"completion":{"values":[` + strings.TrimSuffix(strings.Repeat(`"v",`, 101), ",") + `]}}`)}}}}, act: call("completion/complete")},
		{rule: "logging/invalid-level", script: mcptest.Script{Capabilities: json.RawMessage(`{"logging":{}}`), On: afterInit(notif("notifications/message", `{"level":"verbose","data":"x"}`))}},
		{rule: "security/control-characters", script: toolList(tool("a", `"description":"Reads files.\u001b[2J\u001b]52;c;ZXZpbA==\u0007"`)), act: listAll("tools/list")},

		// Pagination, progress, cancellation.
		{rule: "pagination/repeated-cursor", script: mcptest.Script{Capabilities: json.RawMessage(toolsCaps),
			On: map[string]lines{"tools/list": {{res(`{"tools":[],"nextCursor":"again"}`)}}}}, act: listAll("tools/list")},
		{rule: "pagination/empty-cursor", script: mcptest.Script{Capabilities: json.RawMessage(toolsCaps),
			On: map[string]lines{"tools/list": {{res(`{"tools":[],"nextCursor":""}`)}}}}, act: listAll("tools/list")},
		{rule: "progress/unknown-token", script: toolCall(tool("a", ""), notif("notifications/progress", `{"progressToken":"nobody","progress":1}`), res(`{"content":[]}`)), act: callTool("a")},
		{rule: "progress/not-increasing", script: toolCall(tool("a", ""),
			notif("notifications/progress", `{"progressToken":{{progressToken}},"progress":2}`),
			notif("notifications/progress", `{"progressToken":{{progressToken}},"progress":1}`), res(`{"content":[]}`)),
			act: callTool("a", mcp.WithProgress(func(mcp.Progress) {}))},
		{rule: "cancel/unknown-request", script: mcptest.Script{On: afterInit(notif("notifications/cancelled", `{"requestId":99,"reason":"x"}`))}},

		// Elicitation, sampling, roots.
		{rule: "elicitation/without-capability", opts: mcp.Options{Capabilities: noClientCaps},
			script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}`)}},
		{rule: "elicitation/schema-not-flat", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{"addr":{"type":"object","properties":{"street":{"type":"string"}}}}}}}`)}},
		{rule: "elicitation/url-mode-fields", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"url","message":"Sign in"}}`)}},
		{rule: "elicitation/sensitive-form-field", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{"password":{"type":"string"}}}}}`)}},
		{rule: "elicitation/unknown-completion", script: mcptest.Script{On: afterInit(notif("notifications/elicitation/complete", `{"elicitationId":"zzz"}`))}},
		{rule: "elicitation/url-required-data", script: toolCall(tool("a", ""), rpcErr(-32042, "URL elicitation required", `{"elicitations":[{"mode":"form","message":"?"}]}`)), act: callTool("a")},
		{rule: "sampling/without-capability", opts: mcp.Options{Capabilities: noClientCaps},
			script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}`)}},
		{rule: "sampling/include-context", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":10,"includeContext":"allServers"}}`)}},
		{rule: "sampling/tool-result-pairing", script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":10,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"f","input":{}}]},{"role":"user","content":{"type":"text","text":"hi"}}]}}`)}},
		{rule: "roots/without-capability", opts: mcp.Options{Capabilities: noClientCaps},
			script: mcptest.Script{On: afterInit(`{"jsonrpc":"2.0","id":"r1","method":"roots/list"}`)}},

		// Modern era.
		{rule: "modern/result-type", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{res(`{"supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}`)}}}}, act: noop},
		{rule: "modern/cache-hints", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{res(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":-1}`)}}}}, act: noop},
		{rule: "modern/server-request", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{discover(toolsCaps), `{"jsonrpc":"2.0","id":"x","method":"ping"}`}}, "tools/list": {{modernList("tools", "")}}}}, act: listAll("tools/list")},
		{rule: "modern/input-required", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{discover(toolsCaps)}}, "tools/list": {{res(`{"resultType":"input_required"}`)}}}}, act: listAll("tools/list")},
		{rule: "modern/server-cancelled", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{discover(toolsCaps), notif("notifications/cancelled", `{"requestId":1}`)}}, "tools/list": {{modernList("tools", "")}}}}, act: listAll("tools/list")},
		{rule: "modern/reserved-error-code", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{discover(`{"resources":{}}`)}}, "resources/read": {{rpcErr(-32002, "Resource not found", "")}}}},
			act: func(ctx context.Context, c *mcp.Client) {
				_, _ = c.Call(ctx, "resources/read", map[string]any{"uri": "x://y"})
			}},
		{rule: "modern/discover-version-unsupported", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{res(`{"resultType":"complete","supportedVersions":["2025-11-25"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}`)}}}}, act: noop},
		{rule: "modern/server-info", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{res(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}`)}}}}, act: noop},

		// HTTP, from synthetic transport events.
		{rule: "http/content-type", events: httpEvents(outFrame(mcp.KindRequest, "tools/list"), httpEv("POST", "200", "text/html"))},
		{rule: "http/accepted-status", events: httpEvents(outFrame(mcp.KindNotification, "notifications/initialized"), httpEv("POST", "200", "application/json"))},
		{rule: "http/get-stream", events: httpEvents(httpEv("GET", "404", "text/plain"))},
		{rule: "http/session-id-characters", events: httpEvents(httpEv("POST", "200", "application/json", "response Mcp-Session-Id", "abc def"))},
		{rule: "http/session-id-changed", events: httpEvents(httpEv("POST", "200", "application/json", "response Mcp-Session-Id", "one"), httpEv("POST", "200", "application/json", "response Mcp-Session-Id", "two"))},
		{rule: "http/modern-session-id", events: httpEvents(mcp.HandshakeEvent{Handshake: &mcp.Handshake{Era: mcp.EraModern, ProtocolVersion: mcp.Version20260728}}, httpEv("POST", "200", "application/json", "response Mcp-Session-Id", "s1"))},
		{rule: "http/auth-challenge", events: httpEvents(httpEv("POST", "401", "application/json", "WWW-Authenticate", `Bearer realm="x"`))},

		// Timing.
		{rule: "lifecycle/ping-slow", events: []mcp.Event{outFrame(mcp.KindRequest, "ping"), inResponse(2, 1, "ping", 6*time.Second, time.Now())}},
		{rule: "cancel/late-response", script: toolCall(tool("a", ""), "@sleep:1600ms", res(`{"content":[]}`)),
			act: func(ctx context.Context, c *mcp.Client) {
				_, _, _ = c.ListAll(ctx, "tools/list")
				_, _ = c.Call(ctx, "tools/call", map[string]any{"name": "a", "arguments": map[string]any{}}, mcp.WithTimeout(200*time.Millisecond))
				_, _ = c.Call(ctx, "ping", nil, mcp.WithTimeout(5*time.Second))
			}},

		// Resources.
		{rule: "resources/not-found-code", script: mcptest.Script{Capabilities: json.RawMessage(`{"resources":{}}`),
			On: map[string]lines{"resources/read": {{rpcErr(-32603, "Resource not found: x://y", "")}}}}, act: readResource("x://y")},
		{rule: "resources/invalid-uri-template", script: mcptest.Script{Capabilities: json.RawMessage(`{"resources":{}}`),
			On: map[string]lines{"resources/templates/list": {{res(`{"resourceTemplates":[{"name":"t","uriTemplate":"file:///{path"}]}`)}}}}, act: listAll("resources/templates/list")},

		// Tool shapes.
		{rule: "tools/unbounded-composition", script: toolList(`{"name":"a","inputSchema":{"type":"object","properties":{"x":` + nestedAnyOf(7) + `}}}`), act: listAll("tools/list")},
		{rule: "tools/invalid-mcp-header", opts: modern, script: modernTools(`{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}`), act: listAll("tools/list")},
		{rule: "tools/sensitive-mcp-header", opts: modern, script: modernTools(`{"name":"a","inputSchema":{"type":"object","properties":{"token":{"type":"string","x-mcp-header":"Token"}}}}`), act: listAll("tools/list")},
		{rule: "modern/tool-order", opts: modern, script: mcptest.Script{On: map[string]lines{"server/discover": {{discover(toolsCaps)}},
			"tools/list": {{modernList("tools", tool("a", "")+","+tool("b", ""))}, {modernList("tools", tool("b", "")+","+tool("a", ""))}}}}, act: listTwice("tools/list")},

		// SSE, from the events the HTTP transport emits.
		{rule: "http/sse-unresumable", events: []mcp.Event{
			sseEv("POST /mcp tools/call (id 3)", "", "SSE comment on POST /mcp tools/call (id 3)"),
			mcp.TransportEvent{Kind: "http", Summary: "POST /mcp tools/call (id 3): stream closed by the server before the answer; the server gave no event id to resume from",
				Fields: []mcp.Field{{Key: "stream", Value: "POST /mcp tools/call (id 3)"}, {Key: "request id", Value: "3"}}, Err: fmt.Errorf("tools/call (id 3): %w", mcp.ErrStreamBroken)}}},
		{rule: "http/sse-no-priming", events: []mcp.Event{legacy1125(), sseEv("POST /mcp tools/call (id 3)", "7", "SSE id 7 on POST /mcp tools/call (id 3)")}},
		{rule: "http/sse-no-retry", events: []mcp.Event{legacy1125(), mcp.TransportEvent{Kind: "reconnect", Summary: "POST /mcp tools/call (id 3): stream closed by the server before the answer; reconnecting in 1s with Last-Event-ID 7",
			Fields: []mcp.Field{{Key: "stream", Value: "POST /mcp tools/call (id 3)"}, {Key: "delay", Value: "1s"}, {Key: "Last-Event-ID", Value: "7"}, {Key: "retry from server", Value: "false"}}}}},
		{rule: "http/response-on-get-stream", events: []mcp.Event{mcp.FrameEvent{Frame: &mcp.Frame{Seq: 9, Dir: mcp.Inbound, Transport: "http", Kind: mcp.KindResponse, ID: "4",
			Raw: []byte(`{"jsonrpc":"2.0","id":4,"result":{}}`), Stream: "GET /mcp " + mcp.StandaloneStream}}}},
		{rule: "http/duplicate-event-id", events: []mcp.Event{sseEv("POST /mcp ping (id 1)", "e1", "SSE priming event, id e1 on POST /mcp ping (id 1)"), sseEv("POST /mcp ping (id 2)", "e1", "SSE priming event, id e1 on POST /mcp ping (id 2)")}},

		// stdio process.
		{rule: "stdio/forced-exit", script: mcptest.Script{OnEOF: []string{"@sleep:20s"}, IgnoreTerm: true}},
		{rule: "stdio/abnormal-exit", script: mcptest.Script{OnEOF: []string{"@exit:3"}}},
		{rule: "stdio/died-during-request", script: toolCall(tool("a", ""), "@stderr:panic: boom", "@exit:3"), act: callTool("a")},
		{rule: "stdio/stdout-closed", script: toolCall(tool("a", ""), "@stderr:closing stdout", "@close-stdout"), act: callTool("a")},
		{rule: "tools/call-timeout", script: toolCall(tool("a", ""), "@sleep:2s", res(`{"content":[]}`)),
			act: func(ctx context.Context, c *mcp.Client) {
				_, _, _ = c.ListAll(ctx, "tools/list")
				_, _ = c.Call(ctx, "tools/call", map[string]any{"name": "a", "arguments": map[string]any{}}, mcp.WithTimeout(200*time.Millisecond))
			}},

		// Authorization, from the OAuth steps of package mcp/auth.
		{rule: "auth/no-resource-metadata", events: []mcp.Event{
			oauthEv("no resource_metadata in WWW-Authenticate: probing the well-known locations"),
			oauthEv("GET /.well-known/oauth-protected-resource/mcp → 404 (protected resource metadata not here)", "url", "https://x/.well-known/oauth-protected-resource/mcp"),
			oauthEv("no protected resource metadata: treating the server's origin as the authorization server (2025-03-26 behaviour)", "issuer", "https://x"),
			mcp.HandshakeEvent{Handshake: &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: mcp.Version20250618}}}},
		{rule: "auth/prm-no-authorization-servers", events: []mcp.Event{oauthEv("GET /.well-known/oauth-protected-resource → 200 (protected resource metadata)", "url", "https://x/.well-known/oauth-protected-resource", "document", `{"resource":"https://x/mcp"}`)}},
		{rule: "auth/prm-resource-mismatch", events: []mcp.Event{oauthEv("PRM resource does not match the server URL", "resource", "https://other/mcp", "server", "https://x/mcp")}},
		{rule: "auth/no-pkce-s256", events: []mcp.Event{oauthEv("GET /.well-known/oauth-authorization-server → 200 (authorization server metadata)", "url", "https://as/.well-known/oauth-authorization-server",
			"document", `{"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t","code_challenge_methods_supported":["plain"]}`)}},
		{rule: "auth/issuer-mismatch", events: []mcp.Event{outFrame(mcp.KindRequest, "server/discover"),
			oauthEv("warning: the metadata's issuer differs from the issuer it was fetched for (accepted for 2025-03-26 compatibility; the 2026-07-28 rules reject it)", "expected", "https://as", "issuer", "https://evil")}},
		{rule: "auth/insufficient-scope-without-scope", events: []mcp.Event{oauthEv("403 insufficient_scope: stepping up", "status", "403 Forbidden", "error", "insufficient_scope")}},

		// Client profiles.
		{rule: "profile/chatgpt-list-frozen", lint: doctor.Options{Profile: doctor.ProfileChatGPT}, script: mcptest.Script{Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`)}},
		{rule: "profile/claude-tool-name", lint: doctor.Options{Profile: doctor.ProfileClaude}, script: toolList(tool("files.read", "")), act: listAll("tools/list")},
		{rule: "profile/claude-list-changed", lint: doctor.Options{Profile: doctor.ProfileClaude}, script: mcptest.Script{Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`)}},
		{rule: "profile/vscode-tool-count", lint: doctor.Options{Profile: doctor.ProfileVSCode}, script: toolList(many...), act: listAll("tools/list")},
		{rule: "profile/claude-presents", lint: doctor.Options{Profile: doctor.ProfileClaude}, script: toolList(tool("find", `"description":"`+strings.Repeat("d", 5000)+`","_meta":{"anthropic/alwaysLoad":true}`)), act: listAll("tools/list")},
		{rule: "profile/gemini-presents", lint: doctor.Options{Profile: doctor.ProfileGemini}, script: toolList(tool("echo", "")), act: listAll("tools/list")},
		{rule: "profile/codex-presents", lint: doctor.Options{Profile: doctor.ProfileCodex}, script: toolList(tool("echo", "")), act: listAll("tools/list")},
		{rule: "profile/opencode-presents", lint: doctor.Options{Profile: doctor.ProfileOpenCode}, script: toolList(tool("get.weather", "")), act: listAll("tools/list")},
		{rule: "profile/copilot-presents", lint: doctor.Options{Profile: doctor.ProfileCopilot}, script: toolList(tool("echo", "")), act: listAll("tools/list")},
		{rule: "profile/vscode-presents", lint: doctor.Options{Profile: doctor.ProfileVSCode}, script: toolList(tool("echo", "")), act: listAll("tools/list")},
	}, appRuleCases()...)
}

func noop(context.Context, *mcp.Client) {}

func toolList(entries ...string) mcptest.Script {
	return mcptest.Script{Capabilities: json.RawMessage(toolsCaps), On: map[string]lines{"tools/list": {{tools(entries...)}}}}
}

func toolCall(def string, reply ...string) mcptest.Script {
	sc := toolList(def)
	sc.On["tools/call"] = lines{reply}
	return sc
}

func outFrame(kind mcp.Kind, method string) mcp.Event {
	return mcp.FrameEvent{Frame: &mcp.Frame{Seq: 1, Dir: mcp.Outbound, Transport: "http", Kind: kind, Method: method, ID: "1",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`)}}
}

func httpEv(method, status, ctype string, kv ...string) mcp.Event {
	fields := []mcp.Field{{Key: "method", Value: method}, {Key: "status", Value: status}, {Key: "Content-Type", Value: ctype}}
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, mcp.Field{Key: kv[i], Value: kv[i+1]})
	}
	return mcp.TransportEvent{Time: time.Now(), Kind: "http", Summary: method + " /mcp → " + status + " " + ctype, Fields: fields}
}

func httpEvents(evs ...mcp.Event) []mcp.Event { return evs }

// TestEveryRuleFires stages each rule's mistake and checks the rule fires.
func TestEveryRuleFires(t *testing.T) {
	for _, tc := range ruleCases() {
		t.Run(tc.rule, func(t *testing.T) {
			t.Parallel()
			var s *session
			if tc.events != nil {
				l := doctor.New(tc.lint)
				s = &session{}
				for _, ev := range tc.events {
					s.diags = append(s.diags, l.Observe(ev)...)
				}
			} else {
				s = run(t, scripted(tc.script), tc.opts, tc.lint, tc.act)
			}
			if !s.fired(tc.rule) {
				t.Errorf("rule %s did not fire (connect error: %v); diagnostics:\n  %s", tc.rule, s.connectErr, strings.Join(s.rules(), "\n  "))
			}
			for _, d := range s.diags {
				r, ok := doctor.Rule(d.Rule)
				if !ok {
					t.Errorf("diagnostic with unknown rule %q", d.Rule)
					continue
				}
				if d.Severity != r.Severity || d.Message == "" || d.Why == "" || d.Fix == "" || d.SpecRef == "" {
					t.Errorf("incomplete diagnostic: %+v", d)
				}
			}
		})
	}
}

// TestEveryRuleHasACase keeps the staged cases and the catalogue in step.
func TestEveryRuleHasACase(t *testing.T) {
	staged := map[string]bool{}
	for _, tc := range ruleCases() {
		staged[tc.rule] = true
	}
	for _, r := range doctor.Rules() {
		if !staged[r.ID] {
			t.Errorf("rule %s has no staged case", r.ID)
		}
	}
}

// TestProfileRulesNeedTheirProfile checks the generic profile stays quiet
// about client quirks.
func TestProfileRulesNeedTheirProfile(t *testing.T) {
	s := run(t, scripted(toolList(tool("files.read", ""))), mcp.Options{}, doctor.Options{}, listAll("tools/list"))
	for _, d := range s.diags {
		if strings.HasPrefix(d.Rule, "profile/") {
			t.Errorf("generic profile reported %s", d.Rule)
		}
	}
}

// TestDiagnosticFollowsItsFrame checks detection is live: each diagnostic
// is published right after the event that revealed it, so a UI draining
// the stream receives both in the same batch.
func TestDiagnosticFollowsItsFrame(t *testing.T) {
	s := run(t, scripted(mcptest.Script{Start: []string{"hello from stdout"}, On: afterInit(notif("notifications/message", `{"level":"info","data":"x"}`))}), mcp.Options{}, doctor.Options{}, nil)
	if len(s.diags) == 0 {
		t.Fatal("no diagnostics")
	}
	for i, ev := range s.events {
		de, ok := ev.(mcp.DiagnosticEvent)
		if !ok {
			continue
		}
		j := i - 1
		for j >= 0 {
			if _, isDiag := s.events[j].(mcp.DiagnosticEvent); !isDiag {
				break
			}
			j--
		}
		if len(de.Diagnostic.Frames) == 0 {
			if _, isFrame := s.events[j].(mcp.FrameEvent); !isFrame {
				continue // about the process or the transport, not a frame
			}
		}
		fe, ok := s.events[j].(mcp.FrameEvent)
		if !ok || len(de.Diagnostic.Frames) == 0 || de.Diagnostic.Frames[0] != fe.Frame.Seq {
			t.Errorf("diagnostic %s (frames %v) does not follow its frame; previous event %T", de.Diagnostic.Rule, de.Diagnostic.Frames, s.events[j])
		}
	}
}

// TestCleanScriptedServer: a well-behaved scripted server gets no
// diagnostics at all.
func TestCleanScriptedServer(t *testing.T) {
	sc := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{},"logging":{}}`), On: map[string]lines{
		"tools/list": {{tools(tool("a", `"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))}},
		"tools/call": {{notif("notifications/progress", `{"progressToken":{{progressToken}},"progress":1}`), res(`{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}`)}},
	}}
	s := run(t, scripted(sc), mcp.Options{}, doctor.Options{}, callTool("a", mcp.WithProgress(func(mcp.Progress) {})))
	if len(s.diags) > 0 {
		t.Errorf("diagnostics on a clean server:\n  %s", strings.Join(s.rules(), "\n  "))
	}
}
