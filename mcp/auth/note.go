package auth

import (
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
)

// noteFunc reports OAuth steps to the transport's timeline. Callers build
// summaries and fields from non-secret values only; secrets appear as
// "[redacted]".
type noteFunc func(mcp.TransportEvent)

const redacted = redact.Marker

func (n noteFunc) step(summary string, fields ...mcp.Field) {
	if n == nil {
		return
	}
	n(mcp.TransportEvent{Time: time.Now(), Kind: "oauth", Summary: summary, Fields: nonEmpty(fields)})
}

func (n noteFunc) fail(summary string, err error, fields ...mcp.Field) {
	if n == nil {
		return
	}
	n(mcp.TransportEvent{Time: time.Now(), Kind: "oauth", Summary: summary, Fields: nonEmpty(fields), Err: err})
}

func field(k, v string) mcp.Field { return mcp.Field{Key: k, Value: v} }

func nonEmpty(fs []mcp.Field) []mcp.Field {
	out := fs[:0:0]
	for _, f := range fs {
		if f.Value != "" {
			out = append(out, f)
		}
	}
	return out
}
