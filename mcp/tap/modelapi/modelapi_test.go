package modelapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// want is what one exchange of an API says, written compactly: tools as
// name:schema, calls as id:name:arguments, results as id:name:content.
type want struct {
	tools, calls, results []string
	usage                 Usage
}

func check(t *testing.T, api API, reqBody string, stream bool, respBody string, w want) {
	t.Helper()
	req, err := ParseRequest(api, []byte(reqBody))
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	resp, err := ParseResponse(api, stream, []byte(respBody))
	if err != nil {
		t.Fatalf("response: %v", err)
	}
	var tools, calls, results []string
	for _, tl := range req.Tools {
		tools = append(tools, tl.Name+":"+tl.Description+":"+string(tl.Schema))
	}
	for _, c := range resp.Calls {
		calls = append(calls, c.ID+":"+c.Name+":"+string(c.Arguments))
	}
	for _, r := range req.Results {
		results = append(results, r.ID+":"+r.Name+":"+string(r.Content))
	}
	eq := func(what string, got, want []string) {
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got  %q\n want %q", what, got, want)
		}
	}
	eq("tools", tools, w.tools)
	eq("calls", calls, w.calls)
	eq("results", results, w.results)
	if resp.Usage == nil || *resp.Usage != w.usage {
		t.Errorf("usage %+v, want %+v", resp.Usage, w.usage)
	}
}

const anthropicReq = `{"model":"claude-sonnet-4-5","stream":true,"tools":[
 {"name":"Bash","description":"Run a command.","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}},
 {"name":"mcp__wx__get_weather","description":"Weather.","input_schema":{"type":"object"},"defer_loading":true},
 {"type":"web_search_20250305","name":"web_search"}],
 "messages":[{"role":"user","content":"weather?"},
  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__wx__get_weather","input":{"city":"Paris"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"sunny"}]},{"type":"text","text":"and?"}]}]}`

func TestAnthropicMessages(t *testing.T) {
	tools := []string{`Bash:Run a command.:{"type":"object","properties":{"command":{"type":"string"}}}`, `mcp__wx__get_weather:Weather.:{"type":"object"}`, `web_search::`}
	results := []string{`toolu_1::[{"type":"text","text":"sunny"}]`}
	t.Run("json", func(t *testing.T) {
		check(t, AnthropicMessages, anthropicReq, false,
			`{"id":"msg_1","type":"message","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_2","name":"mcp__wx__get_weather","input":{"city":"Oslo"}}],"stop_reason":"tool_use","usage":{"input_tokens":2095,"output_tokens":503,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}}`,
			want{tools, []string{`toolu_2:mcp__wx__get_weather:{"city":"Oslo"}`}, results, Usage{Input: 2095, Output: 503, CacheRead: 100, CacheCreation: 7}})
	})
	t.Run("sse", func(t *testing.T) {
		sse := "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":25,\"output_tokens\":1,\"cache_read_input_tokens\":3}}}\r\n\r\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"mcp__wx__get_weather\",\"input\":{}}}\n\n" +
			"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Os\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"lo\\\"}\"}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_3\",\"name\":\"Bash\",\"input\":{}}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":15}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
		check(t, AnthropicMessages, anthropicReq, true, sse,
			want{tools, []string{`toolu_2:mcp__wx__get_weather:{"city": "Oslo"}`, `toolu_3:Bash:{}`}, results, Usage{Input: 25, Output: 15, CacheRead: 3}})
	})
}

const chatReq = `{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"tools":[
 {"type":"function","function":{"name":"mcp__wx__get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":false}}],
 "messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"mcp__wx__get_weather","arguments":"{}"}}]},
  {"role":"tool","tool_call_id":"call_a","content":"rain"}]}`

func TestOpenAIChatCompletions(t *testing.T) {
	tools := []string{`mcp__wx__get_weather:Weather.:{"type":"object","properties":{"city":{"type":"string"}}}`}
	results := []string{`call_a::"rain"`}
	t.Run("json", func(t *testing.T) {
		check(t, OpenAIChat, chatReq, false,
			`{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_b","type":"function","function":{"name":"mcp__wx__get_weather","arguments":"{\"city\":\"Rome\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,"prompt_tokens_details":{"cached_tokens":64}}}`,
			want{tools, []string{`call_b:mcp__wx__get_weather:"{\"city\":\"Rome\"}"`}, results, Usage{Input: 82, Output: 17, CacheRead: 64, Total: 99}})
	})
	t.Run("sse", func(t *testing.T) {
		sse := `data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"mcp__wx__get_weather","arguments":""}}]}}],"usage":null}

data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]}}],"usage":null}

data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Rome\"}"}},{"index":1,"id":"call_c","type":"function","function":{"name":"other","arguments":"{}"}}]}}],"usage":null}

data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}

data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[],"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,"completion_tokens_details":{"reasoning_tokens":5}}}

data: [DONE]

`
		check(t, OpenAIChat, chatReq, true, sse,
			want{tools, []string{`call_b:mcp__wx__get_weather:"{\"city\":\"Rome\"}"`, `call_c:other:"{}"`}, results, Usage{Input: 82, Output: 17, Reasoning: 5, Total: 99}})
	})
}

const responsesReq = `{"model":"gpt-5-codex","stream":true,"instructions":"x","tools":[
 {"type":"function","name":"shell","description":"Runs a command.","strict":false,"parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}}}},
 {"type":"function","name":"mcp__wx__get_weather","description":"Weather.","parameters":{"type":"object"}},
 {"type":"web_search"}],
 "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},
  {"type":"function_call","call_id":"call_1","name":"mcp__wx__get_weather","arguments":"{}"},
  {"type":"function_call_output","call_id":"call_1","output":"sunny"}]}`

func TestOpenAIResponses(t *testing.T) {
	tools := []string{`shell:Runs a command.:{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}}}`, `mcp__wx__get_weather:Weather.:{"type":"object"}`, `::`}
	results := []string{`call_1::"sunny"`}
	t.Run("json", func(t *testing.T) {
		check(t, OpenAIResponses, responsesReq, false,
			`{"id":"resp_1","object":"response","model":"gpt-5-codex","output":[{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","id":"fc_1","call_id":"call_2","name":"mcp__wx__get_weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"}],"usage":{"input_tokens":328,"input_tokens_details":{"cached_tokens":0},"output_tokens":52,"output_tokens_details":{"reasoning_tokens":32},"total_tokens":380}}`,
			want{tools, []string{`call_2:mcp__wx__get_weather:"{\"city\":\"Oslo\"}"`}, results, Usage{Input: 328, Output: 52, Reasoning: 32, Total: 380}})
	})
	t.Run("sse", func(t *testing.T) {
		sse := `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"gpt-5-codex","output":[],"usage":null}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_2","name":"mcp__wx__get_weather","arguments":""}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"city\":\"Oslo\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_2","name":"mcp__wx__get_weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"}}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","model":"gpt-5-codex","output":[{"type":"function_call","id":"fc_1","call_id":"call_2","name":"mcp__wx__get_weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"}],"usage":{"input_tokens":328,"output_tokens":52,"total_tokens":380}}}

`
		check(t, OpenAIResponses, responsesReq, true, sse,
			want{tools, []string{`call_2:mcp__wx__get_weather:"{\"city\":\"Oslo\"}"`}, results, Usage{Input: 328, Output: 52, Total: 380}})
	})
}

const geminiReq = `{"contents":[{"role":"user","parts":[{"text":"weather?"}]},
 {"role":"model","parts":[{"functionCall":{"name":"mcp_wx_get_weather","args":{"city":"Paris"}}}]},
 {"role":"user","parts":[{"functionResponse":{"id":"fr-1","name":"mcp_wx_get_weather","response":{"output":"sunny"}}}]}],
 "tools":[{"functionDeclarations":[{"name":"read_file","description":"Reads.","parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}}}},
  {"name":"mcp_wx_get_weather","description":"Weather.","parameters":{"type":"OBJECT"}}]},{"googleSearch":{}}]}`

func TestGemini(t *testing.T) {
	tools := []string{`read_file:Reads.:{"type":"object","properties":{"path":{"type":"string"}}}`, `mcp_wx_get_weather:Weather.:{"type":"OBJECT"}`, `::`}
	results := []string{`fr-1:mcp_wx_get_weather:{"output":"sunny"}`}
	chunk1 := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"mcp_wx_get_weather","args":{"city":"Oslo"}}}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-pro"}`
	chunk2 := `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8021,"candidatesTokenCount":12,"totalTokenCount":8100,"thoughtsTokenCount":67},"modelVersion":"gemini-2.5-pro"}`
	calls := []string{`:mcp_wx_get_weather:{"city":"Oslo"}`}
	u := Usage{Input: 8021, Output: 12, Reasoning: 67, Total: 8100}
	t.Run("generateContent", func(t *testing.T) {
		one := strings.Replace(chunk1, `"index":0}]`, `"index":0}],"usageMetadata":{"promptTokenCount":8021,"candidatesTokenCount":12,"totalTokenCount":8100,"thoughtsTokenCount":67}`, 1)
		check(t, Gemini, geminiReq, false, one, want{tools, calls, results, u})
	})
	t.Run("sse", func(t *testing.T) {
		check(t, Gemini, geminiReq, true, "data: "+chunk1+"\r\n\r\ndata: "+chunk2+"\r\n\r\n", want{tools, calls, results, u})
	})
	t.Run("array", func(t *testing.T) {
		check(t, Gemini, geminiReq, false, "["+chunk1+",\r\n"+chunk2+"]", want{tools, calls, results, u})
	})
}

func TestClassify(t *testing.T) {
	for path, want := range map[string]API{
		"/v1/messages?beta=true":    AnthropicMessages,
		"/v1/messages/count_tokens": "",
		"/v1/chat/completions":      OpenAIChat,
		"/openai/v1/responses":      OpenAIResponses,
		"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse": Gemini,
		"/v1beta/models/gemini-2.5-flash:generateContent":             Gemini,
		"/v1beta/models/gemini-2.5-flash:countTokens":                 "",
		"/v1/models": "",
	} {
		if got := Classify("POST", path); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	if got := Classify("GET", "/v1/messages"); got != "" {
		t.Errorf("a GET is %q", got)
	}
}

// A result over MaxContent is kept as a JSON string of its first bytes,
// with its whole size.
func TestLargeResultIsCut(t *testing.T) {
	big := strings.Repeat("x", 300<<10)
	body, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "t", "content": big}}}}})
	req, err := ParseRequest(AnthropicMessages, body)
	if err != nil || len(req.Results) != 1 {
		t.Fatalf("%v %+v", err, req.Results)
	}
	r := req.Results[0]
	if !r.Cut || r.Size != len(big)+2 || len(r.Content) > MaxContent+16 || !json.Valid(r.Content) {
		t.Errorf("cut %v, size %d, kept %d bytes, valid %v", r.Cut, r.Size, len(r.Content), json.Valid(r.Content))
	}
}

// codexReq is the shape of Codex 0.169.0's Responses requests: no tools
// member; its tools in an additional_tools input item, in namespaces;
// the exec tool a custom one.
const codexReq = `{"model":"gpt-6.1-sol","stream":true,"input":[
 {"type":"additional_tools","id":"at_1","role":"developer","tools":[
  {"type":"namespace","name":"functions","description":"","tools":[
   {"type":"custom","name":"exec","description":"Run JavaScript.","format":{"type":"grammar"}},
   {"type":"function","name":"wait","description":"Waits.","strict":false,"parameters":{"type":"object"}}]},
  {"type":"namespace","name":"clock","description":"Time.","tools":[
   {"type":"function","name":"sleep","description":"Sleeps.","strict":false,"parameters":{"type":"object","properties":{}}}]}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"say ok"}]},
 {"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"exec","input":"text(1)"},
 {"type":"custom_tool_call_output","call_id":"call_1","output":[{"type":"input_text","text":"1"}]}]}`

// Codex's code mode: the tools of its namespaces are recorded, and the
// MCP tools the model's exec script calls are recorded as calls via
// exec, sharing the exec call's ID (its output is their result).
func TestOpenAIResponsesCodexCodeMode(t *testing.T) {
	tools := []string{`exec:Run JavaScript.:`, `wait:Waits.:{"type":"object"}`, `sleep:Sleeps.:{"type":"object","properties":{}}`}
	results := []string{`call_1::[{"type":"input_text","text":"1"}]`}
	script := `const r = await tools.mcp__wx__big({});\nconst s = await tools["mcp__wx__get_weather"]({city: "Oslo"});\nawait tools.mcp__wx__big({});\ntext(r.content[0].text); // tools.length`
	quoted, _ := json.Marshal(script)
	item := `{"type":"custom_tool_call","id":"ctc_2","call_id":"call_2","name":"exec","input":` + string(quoted) + `}`
	sse := "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":" + item + "}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"total_tokens\":2}}}\n\n"
	check(t, OpenAIResponses, codexReq, true, sse, want{tools, []string{
		"call_2:exec:" + string(quoted),
		"call_2:mcp__wx__big:", "call_2:mcp__wx__get_weather:"}, results, Usage{Input: 1, Output: 1, Total: 2}})
	req, _ := ParseRequest(OpenAIResponses, []byte(codexReq))
	if ns := []string{req.Tools[0].Namespace, req.Tools[1].Namespace, req.Tools[2].Namespace}; strings.Join(ns, ",") != "functions,functions,clock" {
		t.Errorf("namespaces %q", ns)
	}
	resp, _ := ParseResponse(OpenAIResponses, true, []byte(sse))
	for i, c := range resp.Calls {
		if want := map[bool]string{true: "", false: "exec"}[i == 0]; c.Via != want {
			t.Errorf("call %d %s: via %q, want %q", i, c.Name, c.Via, want)
		}
	}
}
