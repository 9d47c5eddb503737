package record

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

func TestRedactQuerySecrets(t *testing.T) {
	for in, want := range map[string]string{
		"https://h/mcp?api_key=SECRET&page=2":                 "https://h/mcp?api_key=[redacted]&page=2",
		"POST /mcp?access_token=SECRET → 200":                 "POST /mcp?access_token=[redacted] → 200",
		"GET /cb?code=SECRET&state=s1":                        "GET /cb?code=[redacted]&state=s1",
		"x?X-Amz-Signature=SECRET;Password=SECRET#sig=SECRET": "x?X-Amz-Signature=[redacted];Password=[redacted]#sig=[redacted]",
		"https://h/mcp?page=2&q=hello":                        "https://h/mcp?page=2&q=hello",
		"plain text, no query":                                "plain text, no query",
	} {
		if got := RedactQuerySecrets(in); got != want {
			t.Errorf("RedactQuerySecrets(%q) = %q, want %q", in, got, want)
		}
	}
}

// Finding 7: a URL's query secrets are redacted in the session file
// (header and transport rows), unless KeepSecrets; frames stay exact.
func TestRecordRedactsQuerySecrets(t *testing.T) {
	for _, keep := range []bool{false, true} {
		var b strings.Builder
		w := NewWriter(nopCloser{&b}, Session{Target: "https://h/mcp?api_key=SECRET1", Command: []string{"https://h/mcp?token=SECRET2"}, KeepSecrets: keep})
		w.Event(mcp.TransportEvent{Kind: "http", Summary: "POST /mcp?api_key=SECRET3 → 200",
			Fields: []mcp.Field{{Key: "url", Value: "https://h/mcp?api_key=SECRET4"}}, Err: errors.New("GET https://h/x?secret=SECRET5 failed")})
		w.Event(mcp.FrameEvent{Frame: &mcp.Frame{Raw: []byte(`{"uri":"x?token=WIRE"}`)}})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "WIRE") {
			t.Errorf("keep=%v: a frame was changed", keep)
		}
		for _, s := range []string{"SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5"} {
			if strings.Contains(out, s) != keep {
				t.Errorf("keep=%v: %s present = %v\n%s", keep, s, !keep, out)
			}
		}
	}
}
