package modelapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

type anthropicUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
}

// into sets the fields u reports; a stream's message_delta repeats only
// some of them, and its counts are the final ones.
func (u *anthropicUsage) into(out **Usage) {
	if u == nil {
		return
	}
	if *out == nil {
		*out = &Usage{}
	}
	set := func(dst *int64, v *int64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&(*out).Input, u.InputTokens)
	set(&(*out).Output, u.OutputTokens)
	set(&(*out).CacheCreation, u.CacheCreationInputTokens)
	set(&(*out).CacheRead, u.CacheReadInputTokens)
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func anthropicRequest(body []byte) (Request, error) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Defer       bool            `json:"defer_loading"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return Request{}, fmt.Errorf("an Anthropic Messages request: %w", err)
	}
	out := Request{Model: req.Model, Stream: req.Stream}
	for _, t := range req.Tools {
		typ := t.Type
		if typ == "custom" {
			typ = ""
		}
		out.Tools = append(out.Tools, Tool{Name: t.Name, Type: typ, Description: t.Description, Schema: t.InputSchema, Deferred: t.Defer})
	}
	for _, m := range req.Messages {
		if m.Role != "user" || len(m.Content) == 0 || m.Content[0] != '[' {
			continue
		}
		var blocks []anthropicBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out.Results = append(out.Results, result(b.ToolUseID, "", b.IsError, b.Content))
			}
		}
	}
	return out, nil
}

func anthropicResponse(body []byte) (Response, error) {
	var resp struct {
		Model   string           `json:"model"`
		Content []anthropicBlock `json:"content"`
		Usage   *anthropicUsage  `json:"usage"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return Response{}, fmt.Errorf("an Anthropic Messages response: %w", err)
	}
	out := Response{Model: resp.Model}
	for _, b := range resp.Content {
		if c, ok := anthropicCall(b); ok {
			c.Arguments = b.Input
			out.Calls = append(out.Calls, c)
		}
	}
	resp.Usage.into(&out.Usage)
	return out, nil
}

// anthropicCall is the call a content block makes, if it is one.
func anthropicCall(b anthropicBlock) (Call, bool) {
	switch b.Type {
	case "tool_use":
		return Call{ID: b.ID, Name: b.Name}, true
	case "server_tool_use", "mcp_tool_use":
		return Call{ID: b.ID, Name: b.Name, Type: b.Type}, true
	}
	return Call{}, false
}

// anthropicStream reads a streamed Messages response: a call's input
// comes as input_json_delta fragments of its content block, the usage in
// message_start and (final counts) message_delta.
func anthropicStream(body []byte) (Response, error) {
	var out Response
	type open struct {
		call  Call
		input bytes.Buffer
		given json.RawMessage // the block's own input, when no delta came
	}
	blocks := map[int]*open{}
	for _, ev := range events(body) {
		var e struct {
			Type         string          `json:"type"`
			Index        int             `json:"index"`
			ContentBlock anthropicBlock  `json:"content_block"`
			Message      json.RawMessage `json:"message"`
			Delta        struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
			Usage *anthropicUsage `json:"usage"`
		}
		if len(ev.data) == 0 || json.Unmarshal(ev.data, &e) != nil {
			continue
		}
		switch e.Type {
		case "message_start":
			var m struct {
				Model string          `json:"model"`
				Usage *anthropicUsage `json:"usage"`
			}
			_ = json.Unmarshal(e.Message, &m)
			out.Model = m.Model
			m.Usage.into(&out.Usage)
		case "content_block_start":
			if c, ok := anthropicCall(e.ContentBlock); ok {
				blocks[e.Index] = &open{call: c, given: e.ContentBlock.Input}
			}
		case "content_block_delta":
			if b := blocks[e.Index]; b != nil && e.Delta.Type == "input_json_delta" {
				b.input.WriteString(e.Delta.PartialJSON)
			}
		case "message_delta":
			e.Usage.into(&out.Usage)
		}
	}
	idx := make([]int, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		b := blocks[i]
		b.call.Arguments = b.given
		if b.input.Len() > 0 {
			b.call.Arguments = rawOrString(b.input.Bytes())
		}
		out.Calls = append(out.Calls, b.call)
	}
	return out, nil
}

// rawOrString is b as JSON when it is valid JSON, else as a JSON string
// of it (a stream cut in the middle of a call's arguments).
func rawOrString(b []byte) json.RawMessage {
	if json.Valid(b) {
		return json.RawMessage(bytes.Clone(b))
	}
	s, _ := json.Marshal(string(b))
	return s
}
