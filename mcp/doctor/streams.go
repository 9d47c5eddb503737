package doctor

import (
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// streamOf checks the stream an inbound HTTP message came on (§5.7 42):
// a response on the standalone GET stream is not where it belongs.
// Resumptions of a request's stream are named for that request by the
// transport, so they never end with mcp.StandaloneStream.
func (l *Linter) streamOf(f *mcp.Frame) {
	if f.Stream == "" || !strings.HasSuffix(f.Stream, mcp.StandaloneStream) {
		return
	}
	if f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse {
		l.report("http/response-on-get-stream",
			"A response (id "+string(f.ID)+") arrived on the standalone GET stream ("+f.Stream+"), not on the stream of its request.", f.Seq, f.ReplyTo)
	}
}
