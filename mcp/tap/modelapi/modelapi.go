// Package modelapi reads what a client and its model API said to each
// other, for the model tap: the tool definitions a request gives the
// model, the tool results it passes back, the tool calls the model made
// (from a JSON answer or a stream of server-sent events) and the usage
// the API reported. It knows four shapes: the Anthropic Messages API,
// OpenAI's Chat Completions and Responses APIs, and the Gemini API
// (generateContent and streamGenerateContent). It only reads: the tap
// forwards the bytes it was given, whatever this package makes of them.
package modelapi

import (
	"encoding/json"
	"strings"
)

// API names one request shape.
type API string

// The shapes a model request can have.
const (
	AnthropicMessages API = "anthropic-messages"
	OpenAIChat        API = "openai-chat"
	OpenAIResponses   API = "openai-responses"
	Gemini            API = "gemini"
)

// Classify says which API a request path belongs to ("" for one this
// package does not read: a model list, a token count, a probe). Paths
// are matched by their end, so a base URL with a prefix of its own
// (/v1, /openai/v1, /v1beta/models/NAME) is read the same.
func Classify(method, path string) API {
	if method != "POST" {
		return ""
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	path = strings.TrimSuffix(path, "/")
	switch {
	case strings.HasSuffix(path, "/messages"):
		return AnthropicMessages
	case strings.HasSuffix(path, "/chat/completions"):
		return OpenAIChat
	case strings.HasSuffix(path, "/responses"):
		return OpenAIResponses
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		return Gemini
	}
	return ""
}

// Tool is one tool definition as the client sent it to the model.
type Tool struct {
	// Name is the name the model sees (after the client renamed it).
	Name string `json:"name"`
	// Type is the API's kind of tool when it is not a plain function
	// ("custom", "web_search", "bash_20250124", "googleSearch"...).
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
	// Schema is the input schema as sent (a capture's encoder drops its
	// insignificant whitespace).
	Schema json.RawMessage `json:"schema,omitempty"`
	// Deferred: the client asked the API to load the tool only when the
	// model searches for it (Anthropic's defer_loading).
	Deferred bool `json:"deferred,omitempty"`
	// Namespace is the namespace the Responses API groups it in (Codex
	// sends its tools as namespaces in an additional_tools input item).
	Namespace string `json:"namespace,omitempty"`
}

// Call is one tool call the model made.
type Call struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Type is the kind of call when it is not a client's function
	// ("server_tool_use", "custom_tool_call"...).
	Type string `json:"type,omitempty"`
	// Arguments as the model gave them: a JSON object, or the string the
	// OpenAI APIs carry them in (assembled from a stream's deltas).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Via names the tool whose script holds this call when the model
	// did not call the tool itself: Codex's code mode, where the model
	// writes tools.NAME(...) in JavaScript for its exec tool. The call
	// shares that call's ID, whose output is what the model got back.
	Via string `json:"via,omitempty"`
}

// Result is one tool result the client passed back to the model.
type Result struct {
	// ID is the call it answers (tool_use_id, tool_call_id, call_id; a
	// Gemini functionResponse's id when it has one).
	ID string `json:"id,omitempty"`
	// Name is the function's (Gemini names the call it answers).
	Name    string `json:"name,omitempty"`
	IsError bool   `json:"isError,omitempty"`
	// Content is what the model was given, as sent, up to MaxContent
	// bytes; Size is its whole length and Cut says it was shortened.
	Content json.RawMessage `json:"content,omitempty"`
	Size    int             `json:"size"`
	Cut     bool            `json:"cut,omitempty"`
}

// MaxContent bounds how much of one tool result is kept: the model tap
// records what the model was given, and a client may pass a large result
// back on every turn.
const MaxContent = 64 << 10

// Usage is what the API said a request cost, in tokens.
type Usage struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cacheRead,omitempty"`
	CacheCreation int64 `json:"cacheCreation,omitempty"`
	Reasoning     int64 `json:"reasoning,omitempty"`
	Total         int64 `json:"total,omitempty"`
}

// Request is what a model request says.
type Request struct {
	Model   string   `json:"model,omitempty"`
	Stream  bool     `json:"stream,omitempty"`
	Tools   []Tool   `json:"tools,omitempty"`
	Results []Result `json:"results,omitempty"`
}

// Response is what a model response says.
type Response struct {
	Calls []Call `json:"calls,omitempty"`
	// Usage is nil when the API reported none.
	Usage *Usage `json:"usage,omitempty"`
	// Model is the model the API says answered, when it says.
	Model string `json:"model,omitempty"`
}

// ParseRequest reads a request body of the given API. An error says the
// body is not one this package can read; what was read before it is
// returned with it.
func ParseRequest(api API, body []byte) (Request, error) {
	switch api {
	case AnthropicMessages:
		return anthropicRequest(body)
	case OpenAIChat:
		return chatRequest(body)
	case OpenAIResponses:
		return responsesRequest(body)
	case Gemini:
		return geminiRequest(body)
	}
	return Request{}, nil
}

// ParseResponse reads a response body of the given API: one JSON
// object, or server-sent events (stream), or, for Gemini's
// streamGenerateContent without alt=sse, a JSON array of responses.
func ParseResponse(api API, stream bool, body []byte) (Response, error) {
	switch api {
	case AnthropicMessages:
		if stream {
			return anthropicStream(body)
		}
		return anthropicResponse(body)
	case OpenAIChat:
		if stream {
			return chatStream(body)
		}
		return chatResponse(body)
	case OpenAIResponses:
		if stream {
			return responsesStream(body)
		}
		return responsesResponse(body)
	case Gemini:
		return geminiResponse(stream, body)
	}
	return Response{}, nil
}

// result makes a Result of content as sent, kept up to MaxContent.
func result(id, name string, isError bool, content json.RawMessage) Result {
	r := Result{ID: id, Name: name, IsError: isError, Size: len(content)}
	if len(content) > MaxContent {
		// Kept as a JSON string of the first bytes: a cut JSON value
		// would not be JSON.
		b, _ := json.Marshal(string(content[:MaxContent]))
		content, r.Cut = b, true
	}
	r.Content = content
	return r
}
