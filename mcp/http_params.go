package mcp

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Mcp-Param-{Name} headers (modern era, SEP-2243): a tool's inputSchema may
// mark a property with "x-mcp-header": "Name", and every tools/call of that
// tool must then repeat the argument's value in the header Mcp-Param-Name so
// gateways can route without reading the body. The transport learns the
// annotations from the tools/list results passing through it.

// paramHeader binds one argument (a path of property names) to a header.
type paramHeader struct {
	path   []string
	header string
}

// schemaProps is the part of a JSON Schema the annotations live in.
type schemaProps struct {
	Properties map[string]struct {
		XMCPHeader json.RawMessage `json:"x-mcp-header"`
		schemaProps
	} `json:"properties"`
}

// paramHeadersOf reads the tools of a tools/list result and returns their
// bindings by tool name (tools without annotations are left out).
func paramHeadersOf(raw []byte) map[string][]paramHeader {
	var m struct {
		Result struct {
			Tools []struct {
				Name        string      `json:"name"`
				InputSchema schemaProps `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(trimBody(raw), &m) != nil {
		return nil
	}
	out := map[string][]paramHeader{}
	for _, tool := range m.Result.Tools {
		if b := collectParamHeaders(tool.InputSchema, nil, nil); len(b) > 0 {
			out[tool.Name] = b
		}
	}
	return out
}

func collectParamHeaders(s schemaProps, prefix []string, out []paramHeader) []paramHeader {
	for name, prop := range s.Properties {
		path := append(append([]string(nil), prefix...), name)
		var header string
		if json.Unmarshal(prop.XMCPHeader, &header) == nil && header != "" {
			out = append(out, paramHeader{path: path, header: header})
		}
		out = collectParamHeaders(prop.schemaProps, path, out)
	}
	return out
}

// paramHeaderValues computes the Mcp-Param-* headers of one tools/call from
// its params. A null, absent or non-primitive argument gets no header; so
// does a number that is not a JavaScript-safe integer (the spec allows
// integers, strings and booleans only).
func paramHeaderValues(bindings []paramHeader, params []byte) map[string]string {
	var p struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || p.Arguments == nil {
		return nil
	}
	out := map[string]string{}
	for _, b := range bindings {
		raw, ok := p.Arguments[b.path[0]]
		for _, part := range b.path[1:] {
			var obj map[string]json.RawMessage
			if !ok || json.Unmarshal(raw, &obj) != nil {
				ok = false
				break
			}
			raw, ok = obj[part]
		}
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case bool:
			s = strconv.FormatBool(v)
		case float64:
			if v != math.Trunc(v) || math.Abs(v) > 1<<53-1 {
				continue
			}
			s = strconv.FormatInt(int64(v), 10)
		default:
			continue
		}
		out["Mcp-Param-"+strings.TrimSpace(b.header)] = headerValue(s)
	}
	return out
}
