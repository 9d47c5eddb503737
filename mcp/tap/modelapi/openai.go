package modelapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"sync"
)

type openAIUsage struct {
	// Chat Completions.
	PromptTokens     *int64 `json:"prompt_tokens"`
	CompletionTokens *int64 `json:"completion_tokens"`
	PromptDetails    *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// Responses.
	InputTokens  *int64 `json:"input_tokens"`
	OutputTokens *int64 `json:"output_tokens"`
	InputDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens *int64 `json:"total_tokens"`
}

func (u *openAIUsage) usage() *Usage {
	if u == nil {
		return nil
	}
	out := &Usage{}
	for _, p := range []struct {
		dst *int64
		v   *int64
	}{{&out.Input, u.PromptTokens}, {&out.Output, u.CompletionTokens}, {&out.Input, u.InputTokens}, {&out.Output, u.OutputTokens}, {&out.Total, u.TotalTokens}} {
		if p.v != nil {
			*p.dst = *p.v
		}
	}
	if u.PromptDetails != nil {
		out.CacheRead = u.PromptDetails.CachedTokens
	}
	if u.InputDetails != nil {
		out.CacheRead = u.InputDetails.CachedTokens
	}
	if u.CompletionDetails != nil {
		out.Reasoning = u.CompletionDetails.ReasoningTokens
	}
	if u.OutputDetails != nil {
		out.Reasoning = u.OutputDetails.ReasoningTokens
	}
	return out
}

func chatRequest(body []byte) (Request, error) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
			Custom struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"custom"`
		} `json:"tools"`
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return Request{}, fmt.Errorf("an OpenAI Chat Completions request: %w", err)
	}
	out := Request{Model: req.Model, Stream: req.Stream}
	for _, t := range req.Tools {
		switch t.Type {
		case "function":
			out.Tools = append(out.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters})
		case "custom":
			out.Tools = append(out.Tools, Tool{Name: t.Custom.Name, Type: t.Type, Description: t.Custom.Description})
		default:
			out.Tools = append(out.Tools, Tool{Type: t.Type})
		}
	}
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out.Results = append(out.Results, result(m.ToolCallID, "", false, m.Content))
		}
	}
	return out, nil
}

type chatToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string  `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

func chatResponse(body []byte) (Response, error) {
	var resp struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				ToolCalls []chatToolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage *openAIUsage `json:"usage"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return Response{}, fmt.Errorf("an OpenAI Chat Completions response: %w", err)
	}
	out := Response{Model: resp.Model, Usage: resp.Usage.usage()}
	for _, c := range resp.Choices {
		for _, tc := range c.Message.ToolCalls {
			out.Calls = append(out.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Arguments: stringArgs(tc.Function.Arguments)})
		}
	}
	return out, nil
}

// stringArgs keeps the OpenAI APIs' arguments as they come: a JSON string.
func stringArgs(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	b, _ := json.Marshal(*s)
	return b
}

// chatStream reads a streamed Chat Completions response: each call comes
// as deltas at its index (the id and name first, then fragments of the
// arguments), the usage in the last chunk when the client asked for it
// (stream_options.include_usage).
func chatStream(body []byte) (Response, error) {
	var out Response
	type open struct {
		call Call
		args bytes.Buffer
		any  bool
	}
	calls := map[int]*open{}
	for _, ev := range events(body) {
		if len(ev.data) == 0 || string(ev.data) == "[DONE]" {
			continue
		}
		var chunk struct {
			Model   string `json:"model"`
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					ToolCalls []chatToolCall `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *openAIUsage `json:"usage"`
		}
		if json.Unmarshal(ev.data, &chunk) != nil {
			continue
		}
		if chunk.Model != "" {
			out.Model = chunk.Model
		}
		if u := chunk.Usage.usage(); u != nil {
			out.Usage = u
		}
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				key := ch.Index<<16 | tc.Index
				o := calls[key]
				if o == nil {
					o = &open{}
					calls[key] = o
				}
				if tc.ID != "" {
					o.call.ID = tc.ID
				}
				if tc.Function.Name != "" {
					o.call.Name += tc.Function.Name
				}
				if tc.Function.Arguments != nil {
					o.args.WriteString(*tc.Function.Arguments)
					o.any = true
				}
			}
		}
	}
	keys := make([]int, 0, len(calls))
	for k := range calls {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		o := calls[k]
		if o.any {
			s := o.args.String()
			o.call.Arguments = stringArgs(&s)
		}
		out.Calls = append(out.Calls, o.call)
	}
	return out, nil
}

// responsesTool is a tool of a Responses request, or a namespace of
// them.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Tools       []responsesTool `json:"tools"`
}

// addResponsesTools adds the tools, those of a namespace each with the
// namespace's name (the namespace itself is no tool the model calls).
func addResponsesTools(out []Tool, tools []responsesTool, namespace string) []Tool {
	for _, t := range tools {
		if t.Type == "namespace" {
			out = addResponsesTools(out, t.Tools, t.Name)
			continue
		}
		typ := t.Type
		if typ == "function" {
			typ = ""
		}
		out = append(out, Tool{Name: t.Name, Type: typ, Description: t.Description, Schema: t.Parameters, Namespace: namespace})
	}
	return out
}

func responsesRequest(body []byte) (Request, error) {
	var req struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Tools  []responsesTool `json:"tools"`
		Input  json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return Request{}, fmt.Errorf("an OpenAI Responses request: %w", err)
	}
	out := Request{Model: req.Model, Stream: req.Stream}
	out.Tools = addResponsesTools(out.Tools, req.Tools, "")
	if len(req.Input) > 0 && req.Input[0] == '[' {
		var items []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
			// Tools of an additional_tools item: Codex 0.169.0 sends its
			// tools there, in namespaces, and none in tools.
			Tools []responsesTool `json:"tools"`
		}
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return out, fmt.Errorf("an OpenAI Responses request's input: %w", err)
		}
		for _, it := range items {
			switch it.Type {
			case "function_call_output", "custom_tool_call_output", "mcp_call_output":
				out.Results = append(out.Results, result(it.CallID, "", false, it.Output))
			case "additional_tools":
				out.Tools = addResponsesTools(out.Tools, it.Tools, "")
			}
		}
	}
	return out, nil
}

type responsesItem struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	CallID    string  `json:"call_id"`
	Name      string  `json:"name"`
	Arguments *string `json:"arguments"`
	Input     *string `json:"input"`
}

// calls are the tool calls of an output item: the item's own, and for
// a script of Codex's exec tool, each tool it names as tools.NAME(...)
// (or tools["NAME"](...)), in order, once each.
func (it responsesItem) calls() []Call {
	switch it.Type {
	case "function_call":
		return []Call{{ID: it.CallID, Name: it.Name, Arguments: stringArgs(it.Arguments)}}
	case "custom_tool_call":
		out := []Call{{ID: it.CallID, Name: it.Name, Type: it.Type, Arguments: stringArgs(it.Input)}}
		if it.Name == "exec" && it.Input != nil {
			for _, name := range scriptCalls(*it.Input) {
				out = append(out, Call{ID: it.CallID, Name: name, Via: it.Name})
			}
		}
		return out
	}
	return nil
}

// scriptCall is a call of a tool of the exec tool's tools object in
// JavaScript: tools.NAME( or tools["NAME"]( (await or not).
var scriptCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\btools(?:\.([A-Za-z_$][A-Za-z0-9_$]*)|\[\s*["']([^"'\]]+)["']\s*\])\s*\(`)
})

func scriptCalls(script string) []string {
	var out []string
	for _, m := range scriptCall().FindAllStringSubmatch(script, -1) {
		if name := m[1] + m[2]; !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func responsesResponse(body []byte) (Response, error) {
	var resp struct {
		Model  string          `json:"model"`
		Output []responsesItem `json:"output"`
		Usage  *openAIUsage    `json:"usage"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return Response{}, fmt.Errorf("an OpenAI Responses response: %w", err)
	}
	out := Response{Model: resp.Model, Usage: resp.Usage.usage()}
	for _, it := range resp.Output {
		out.Calls = append(out.Calls, it.calls()...)
	}
	return out, nil
}

// responsesStream reads a streamed Responses response: each finished
// output item comes whole in response.output_item.done, and the whole
// response, with its usage, in response.completed. Items the stream
// finished are taken from there; response.completed (when the stream got
// that far) is the authority.
func responsesStream(body []byte) (Response, error) {
	var out Response
	var done []responsesItem
	completed := false
	for _, ev := range events(body) {
		var e struct {
			Type     string        `json:"type"`
			Item     responsesItem `json:"item"`
			Response *struct {
				Model  string          `json:"model"`
				Output []responsesItem `json:"output"`
				Usage  *openAIUsage    `json:"usage"`
			} `json:"response"`
		}
		if len(ev.data) == 0 || json.Unmarshal(ev.data, &e) != nil {
			continue
		}
		switch e.Type {
		case "response.output_item.done":
			done = append(done, e.Item)
		case "response.completed", "response.incomplete", "response.failed":
			if e.Response != nil {
				completed = true
				out.Model, out.Usage = e.Response.Model, e.Response.Usage.usage()
				if len(e.Response.Output) > 0 {
					done = e.Response.Output
				}
			}
		case "response.created":
			if e.Response != nil && !completed {
				out.Model = e.Response.Model
			}
		}
	}
	for _, it := range done {
		out.Calls = append(out.Calls, it.calls()...)
	}
	return out, nil
}
