package record

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

// A URL's query secrets, a command's (--api-key X, OPENAI_API_KEY=X) and
// a header's are redacted in the session file (header and transport
// rows), unless KeepSecrets; frames stay exact.
func TestRecordRedactsQuerySecrets(t *testing.T) {
	for _, keep := range []bool{false, true} {
		var b strings.Builder
		w := NewWriter(nopCloser{&b}, Session{Target: "https://h/mcp?api_key=SECRET1 srv --api-key SECRET9",
			Command: []string{"https://h/mcp?token=SECRET2", "--api-key", "SECRET6", "--token=SECRET7", "OPENAI_API_KEY=SECRET8"}, KeepSecrets: keep})
		w.Event(mcp.TransportEvent{Kind: "http", Summary: "POST /mcp?api_key=SECRET3 → 200",
			Fields: []mcp.Field{{Key: "url", Value: "https://h/mcp?api_key=SECRET4"}, {Key: "Cookie", Value: "sid=SECRET10"}}, Err: errors.New("GET https://h/x?secret=SECRET5 failed")})
		w.Event(mcp.FrameEvent{Frame: &mcp.Frame{Raw: []byte(`{"uri":"x?token=WIRE"}`)}})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "WIRE") {
			t.Errorf("keep=%v: a frame was changed", keep)
		}
		for _, s := range []string{"SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6", "SECRET7", "SECRET8", "SECRET9", "SECRET10"} {
			if strings.Contains(out, s) != keep {
				t.Errorf("keep=%v: %s present = %v\n%s", keep, s, !keep, out)
			}
		}
	}
}
