package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON-RPC and MCP error codes (mcp-protocol.md §4).
const (
	CodeParseError                 = -32700
	CodeInvalidRequest             = -32600
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeInternalError              = -32603
	CodeResourceNotFound           = -32002
	CodeURLElicitationRequired     = -32042
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)

// ID is a JSON-RPC request id exactly as it appeared on the wire: the raw JSON
// token (`1`, `"abc"`, `null`, or something invalid such as `1.5`). Keeping the
// token rather than a parsed value lets the UI show id type drift (a request
// sent with 1 answered with "1").
type ID string

// String returns the id as it appeared on the wire.
func (id ID) String() string { return string(id) }

// IsZero reports whether no id was present.
func (id ID) IsZero() bool { return id == "" }

// intID builds the id the client uses for its own requests.
func intID(n int64) ID { return ID(fmt.Sprint(n)) }

// RPCError is a JSON-RPC error object sent by the server. It is an error the
// peer sent, never one made up locally: local failures are [LocalError].
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("server error %d: %s (data: %s)", e.Code, e.Message, compactJSON(e.Data))
	}
	return fmt.Sprintf("server error %d: %s", e.Code, e.Message)
}

// envelope is the loose shape used to classify a message. Each field is raw
// so that a wrong type (a numeric method, a string error) is visible instead
// of failing the whole decode.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
