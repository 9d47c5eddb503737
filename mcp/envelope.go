package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// decodeEnvelope reads a JSON-RPC object's top-level members as
// json.Unmarshal(data, &env) would, except that each member's value is a
// view of data, not a copy: a 100 MB result is kept once (the frame's
// bytes), not twice. data must start with '{'. It is the reader's one
// check of a frame (jsonview.Valid, json.Valid's answer at several times
// its speed); invalid JSON gets json.Unmarshal's own error.
func decodeEnvelope(data []byte) (envelope, error) {
	var env envelope
	if !jsonview.Valid(data) {
		return env, json.Unmarshal(data, &env)
	}
	i := skipSpace(data, 1)
	for i < len(data) && data[i] != '}' {
		kEnd := skipString(data, i)
		key := data[i+1 : kEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			_ = json.Unmarshal(data[i:kEnd], &s)
			key = []byte(s)
		}
		i = skipSpace(data, kEnd) + 1 // the colon
		i = skipSpace(data, i)
		vEnd := skipValue(data, i)
		val := json.RawMessage(data[i:vEnd:vEnd])
		switch {
		case bytes.EqualFold(key, []byte("jsonrpc")):
			env.JSONRPC = val
		case bytes.EqualFold(key, []byte("id")):
			env.ID = val
		case bytes.EqualFold(key, []byte("method")):
			env.Method = val
		case bytes.EqualFold(key, []byte("params")):
			env.Params = val
		case bytes.EqualFold(key, []byte("result")):
			env.Result = val
		case bytes.EqualFold(key, []byte("error")):
			env.Error = val
		}
		i = skipSpace(data, vEnd)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return env, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at data[i] ('"').
func skipString(data []byte, i int) int { return jsonview.Skip(data, i) }

// skipValue returns the index after the (valid) JSON value at data[i]:
// jsonview's, which finds the end of a 20 MB string of escaped JSON (a
// tool's JSON text) 64 bytes at a time.
func skipValue(data []byte, i int) int { return jsonview.Skip(data, i) }

// ParamsView returns a message's "params" as a view of raw (no copy; nil
// when absent), with json.Unmarshal's error for a message that is not a
// JSON object. Code that keeps params for as long as the frame (a log
// line, a progress note) keeps no second copy of them this way.
func ParamsView(raw []byte) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		var env envelope
		return nil, json.Unmarshal(trimmed, &env)
	}
	env, err := decodeEnvelope(trimmed)
	return env.Params, err
}
