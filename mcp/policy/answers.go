// Package policy answers what a server asks of the client (elicitation,
// sampling, roots) without a person: the headless commands use it, and the
// TUI falls back to it when the user set a policy flag. Each answer is an
// ordinary mcp.Handler, so the client neither knows nor cares whether a
// person or a policy replied.
package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
)

// Root is one entry of a roots/list answer.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// Elicitation says how elicitation/create is answered.
type Elicitation string

const (
	// ElicitNone leaves elicitation to the next handler (or refuses it).
	ElicitNone Elicitation = ""
	// ElicitAcceptDefaults accepts a form with every field's default (SEP-1034);
	// fields without one are left out. URL mode is declined: nobody is there
	// to open the page.
	ElicitAcceptDefaults Elicitation = "accept-defaults"
	// ElicitDecline declines every elicitation.
	ElicitDecline Elicitation = "decline"
)

// Sampling says how sampling/createMessage is answered.
type Sampling struct {
	// Decline answers with an error the server can show ("the user declined").
	Decline bool
	// Reply is the assistant's text when not declining.
	Reply string
	// Set is false when no sampling policy was given.
	Set bool
}

// Answers is a handler built from policies. A request no policy covers goes
// to Next (nil: a JSON-RPC error saying which flag would answer it).
type Answers struct {
	Elicitation Elicitation
	Sampling    Sampling
	// Roots answers roots/list. RootsSet tells an empty list apart from
	// "no policy".
	Roots    []Root
	RootsSet bool
	Next     mcp.Handler
}

// HandleServerRequest answers one server request by policy.
func (a *Answers) HandleServerRequest(ctx context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
	switch req.Method {
	case mcp.MethodRootsList:
		if a.RootsSet {
			return RootsResult(a.Roots), nil
		}
	case mcp.MethodElicitationCreate:
		switch a.Elicitation {
		case ElicitDecline:
			return json.RawMessage(`{"action":"decline"}`), nil
		case ElicitAcceptDefaults:
			return AcceptDefaults(req.Params)
		}
	case mcp.MethodSamplingCreateMessage:
		if a.Sampling.Set {
			if a.Sampling.Decline {
				return nil, &mcp.RPCError{Code: -1, Message: "the user declined the sampling request (--sampling decline)"}
			}
			return SamplingReply(a.Sampling.Reply, "endTurn"), nil
		}
	}
	if a.Next != nil {
		return a.Next.HandleServerRequest(ctx, req)
	}
	return nil, &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "mcpscope has no answer configured for " + req.Method + " (" + flagFor(req.Method) + ")"}
}

func flagFor(method string) string {
	switch method {
	case mcp.MethodRootsList:
		return "use --root PATH"
	case mcp.MethodElicitationCreate:
		return "use --elicitation accept-defaults|decline"
	case mcp.MethodSamplingCreateMessage:
		return "use --sampling reply=TEXT|decline"
	}
	return "mcpscope does not answer this method"
}

// AcceptDefaults answers a form-mode elicitation by accepting it with each
// property's default value (SEP-1034). URL mode is declined.
func AcceptDefaults(params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Mode            string `json:"mode"`
		RequestedSchema struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "elicitation params are not an object: " + err.Error()}
	}
	if p.Mode == "url" {
		return json.RawMessage(`{"action":"decline"}`), nil
	}
	content := map[string]json.RawMessage{}
	keys := make([]string, 0, len(p.RequestedSchema.Properties))
	for k := range p.RequestedSchema.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if d := p.RequestedSchema.Properties[k].Default; len(d) > 0 && string(d) != "null" {
			content[k] = d
		}
	}
	return json.Marshal(map[string]any{"action": "accept", "content": content})
}

// SamplingReply is a sampling/createMessage result with one text block.
func SamplingReply(text, stopReason string) json.RawMessage {
	res := map[string]any{
		"role":    "assistant",
		"content": map[string]string{"type": "text", "text": text},
		"model":   "mcpscope-human",
	}
	if stopReason != "" {
		res["stopReason"] = stopReason
	}
	b, _ := json.Marshal(res)
	return b
}

// RootsResult is a roots/list result.
func RootsResult(roots []Root) json.RawMessage {
	if roots == nil {
		roots = []Root{}
	}
	b, _ := json.Marshal(map[string]any{"roots": roots})
	return b
}

// RootFromPath makes a root from a --root value: an absolute file:// URI
// named after the directory. A value that already is a URI is kept.
func RootFromPath(p string) (Root, error) {
	if u, err := url.Parse(p); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return Root{URI: p, Name: filepath.Base(u.Path)}, nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Root{}, fmt.Errorf("root %q: %w", p, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return Root{URI: u.String(), Name: filepath.Base(abs)}, nil
}

// Neutral is the answer of a client with nobody to ask: no roots, and
// elicitation and sampling declined. Headless commands use it for what no
// flag covers, so a server that asks gets a well-formed refusal instead of
// -32601 for a capability mcpscope declared. Told, when set, hears of each
// method the first time it is answered so, to say it on stderr.
type Neutral struct {
	Told func(method, answer string)

	mu   sync.Mutex
	seen map[string]bool
}

// HandleServerRequest answers roots/list, elicitation/create and
// sampling/createMessage neutrally; anything else is -32601.
func (n *Neutral) HandleServerRequest(ctx context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
	switch req.Method {
	case mcp.MethodRootsList:
		n.tell(req.Method, "answered with no roots (use --root PATH to offer some)")
		return RootsResult(nil), nil
	case mcp.MethodElicitationCreate:
		n.tell(req.Method, "declined (use --elicitation accept-defaults to accept with defaults)")
		return json.RawMessage(`{"action":"decline"}`), nil
	case mcp.MethodSamplingCreateMessage:
		n.tell(req.Method, "declined (use --sampling reply=TEXT to answer)")
		return nil, &mcp.RPCError{Code: -1, Message: "the user declined the sampling request (mcpscope has no model; --sampling reply=TEXT answers)"}
	}
	return nil, &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "mcpscope does not answer " + req.Method}
}

func (n *Neutral) tell(method, answer string) {
	// Told is called under the lock: server requests are handled on
	// goroutines of their own, and two methods told at once would write
	// to the same stderr together (a data race seen under -race).
	n.mu.Lock()
	defer n.mu.Unlock()
	first := !n.seen[method]
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	n.seen[method] = true
	if first && n.Told != nil {
		n.Told(method, answer)
	}
}
