package demo

import (
	"context"
	"encoding/json"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewServerWithClock is NewServer with a fast demo://clock, so subscription
// tests do not wait seconds.
func NewServerWithClock(interval time.Duration) *sdkmcp.Server {
	o := defaultOptions()
	o.clockInterval = interval
	return newServer(o)
}

// Serve exposes serve so the end-of-input behaviour of RunStdio can be tested
// without touching the process's real stdin.
func Serve(ctx context.Context, s *sdkmcp.Server, t sdkmcp.Transport) error { return serve(ctx, s, t) }

// InputSchemas are the raw schemas each tool must list, byte for byte.
var InputSchemas = map[string]json.RawMessage{
	"book_trip":  bookTripSchema,
	"add":        addSchema,
	"echo":       echoSchema,
	"slow_count": slowCountSchema,
	"log_burst":  logBurstSchema,
	"ask_user":   askUserSchema,
	"ask_model":  askModelSchema,
	"list_roots": emptySchema,
	"fail":       failSchema,
	"image":      emptySchema,
	"markdown":   emptySchema,
}

var AddOutputSchema = addOutputSchema
