package modelapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

func geminiRequest(body []byte) (Request, error) {
	var req struct {
		Model string                       `json:"model"`
		Tools []map[string]json.RawMessage `json:"tools"`
		// Contents: the conversation; function responses are parts.
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return Request{}, fmt.Errorf("a Gemini request: %w", err)
	}
	out := Request{Model: req.Model}
	for _, t := range req.Tools {
		for _, key := range slices.Sorted(maps.Keys(t)) {
			v := t[key]
			if key != "functionDeclarations" {
				out.Tools = append(out.Tools, Tool{Type: key})
				continue
			}
			var fds []struct {
				Name             string          `json:"name"`
				Description      string          `json:"description"`
				Parameters       json.RawMessage `json:"parameters"`
				ParametersSchema json.RawMessage `json:"parametersJsonSchema"`
			}
			if err := json.Unmarshal(v, &fds); err != nil {
				return out, fmt.Errorf("a Gemini request's functionDeclarations: %w", err)
			}
			for _, fd := range fds {
				schema := fd.ParametersSchema
				if schema == nil {
					schema = fd.Parameters
				}
				out.Tools = append(out.Tools, Tool{Name: fd.Name, Description: fd.Description, Schema: schema})
			}
		}
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				out.Results = append(out.Results, result(fr.ID, fr.Name, false, fr.Response))
			}
		}
	}
	return out, nil
}

type geminiChunk struct {
	ModelVersion string `json:"modelVersion"`
	Candidates   []struct {
		Content struct {
			Parts []struct {
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
	} `json:"candidates"`
	Usage *struct {
		Prompt     int64 `json:"promptTokenCount"`
		Candidates int64 `json:"candidatesTokenCount"`
		Cached     int64 `json:"cachedContentTokenCount"`
		Thoughts   int64 `json:"thoughtsTokenCount"`
		Total      int64 `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

// geminiResponse reads a generateContent answer (one object), or a
// streamGenerateContent one: server-sent events with alt=sse, else a
// JSON array of the same objects. Each chunk's calls are whole; the
// usage of the last chunk that has one is the response's.
func geminiResponse(stream bool, body []byte) (Response, error) {
	var chunks []geminiChunk
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(trimmed, &chunks); err != nil {
			return Response{}, fmt.Errorf("a Gemini streamed response: %w", err)
		}
	case stream || len(trimmed) > 0 && trimmed[0] != '{':
		for _, ev := range events(body) {
			var c geminiChunk
			if len(ev.data) > 0 && json.Unmarshal(ev.data, &c) == nil {
				chunks = append(chunks, c)
			}
		}
	default:
		var c geminiChunk
		if err := json.Unmarshal(trimmed, &c); err != nil {
			return Response{}, fmt.Errorf("a Gemini response: %w", err)
		}
		chunks = append(chunks, c)
	}
	var out Response
	for _, c := range chunks {
		if c.ModelVersion != "" {
			out.Model = c.ModelVersion
		}
		for _, cand := range c.Candidates {
			for _, p := range cand.Content.Parts {
				if fc := p.FunctionCall; fc != nil {
					out.Calls = append(out.Calls, Call{ID: fc.ID, Name: fc.Name, Arguments: fc.Args})
				}
			}
		}
		if u := c.Usage; u != nil {
			out.Usage = &Usage{Input: u.Prompt, Output: u.Candidates, CacheRead: u.Cached, Reasoning: u.Thoughts, Total: u.Total}
		}
	}
	return out, nil
}
