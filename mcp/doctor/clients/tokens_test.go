package clients_test

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
)

// Every client's view counts a tool as the client sends it on: a tool a
// server wrote with \u escapes (Python's json.dumps) costs what the same
// tool written plainly costs, and `<`, `>`, `&` cost what they are, not
// what Go's HTML escapes (\u003c) would.
func TestViewsCountWhatTheClientSends(t *testing.T) {
	plain := `{"name":"get_weather","description":"東京の天気 <b> & </b>","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"都市名（例：東京）"}}}}`
	escaped := `{"name": "get_weather", "description": "\u6771\u4eac\u306e\u5929\u6c17 \u003cb\u003e \u0026 \u003c/b\u003e", "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "\u90fd\u5e02\u540d\uff08\u4f8b\uff1a\u6771\u4eac\uff09"}}}}`
	angles := strings.Repeat("<a href> & </a> ", 20)
	bare := `{"name":"t","inputSchema":{"type":"object"}}`
	withAngles := `{"name":"t","description":"` + angles + `","inputSchema":{"type":"object"}}`
	for _, id := range clients.All() {
		view := func(tool string) clients.View {
			return clients.Present(id, clients.Input{Server: "wx", Tools: tools(t, tool)})
		}
		p, e := view(plain), view(escaped)
		// The schema a view predicts is the one the client sends: the
		// server's escapes decoded, as in the plain tool.
		if sc := string(e.Tools[0].Schema); sc != "" && (!strings.Contains(sc, `"description":"都市名（例：東京）"`) || strings.Contains(sc, `\u`)) {
			t.Errorf("%s: the schema shown is %s, not the one the client sends", id, sc)
		}
		if len(p.Tools) != 1 || p.Tools[0].Tokens == 0 || p.Tools[0].Tokens != e.Tools[0].Tokens || p.Tokens != e.Tokens {
			t.Errorf("%s: plain %d tokens (list %d), escaped %d (list %d)", id, p.Tools[0].Tokens, p.Tokens, e.Tools[0].Tokens, e.Tokens)
		}
		// The description's cost is about that of its text; with HTML
		// escapes it would be several times as much.
		extra := view(withAngles).Tools[0].Tokens - view(bare).Tools[0].Tokens
		if own := tokens.Count(angles); extra > own+6 {
			t.Errorf("%s: a description of %d tokens adds %d", id, own, extra)
		}
	}
}
