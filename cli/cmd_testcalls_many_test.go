package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// manyRequests writes a session file in which the client called the same
// tool n times, each call answered.
func manyRequests(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"session","time":"2026-01-01T00:00:00Z","format":1,"mcpscope":"test","target":"server"}` + "\n")
	b.WriteString(`{"type":"frame","time":"2026-01-01T00:00:00Z","seq":1,"dir":"out","transport":"stdio","kind":"request","method":"initialize","id":"1","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}"}` + "\n")
	b.WriteString(`{"type":"frame","time":"2026-01-01T00:00:00Z","seq":2,"dir":"in","transport":"stdio","kind":"response","id":"1","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}","replyTo":1}` + "\n")
	frame := func(seq int, dir, kind, method string, id int, raw string, replyTo int) {
		line := map[string]any{"type": "frame", "time": "2026-01-01T00:00:01Z", "seq": seq, "dir": dir, "transport": "stdio",
			"kind": kind, "id": fmt.Sprint(id), "raw": raw}
		if method != "" {
			line["method"] = method
		}
		if replyTo > 0 {
			line["replyTo"] = replyTo
		}
		j, err := json.Marshal(line)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	seq := 3
	for i := range n {
		id := i + 2
		frame(seq, "out", "request", "tools/call", id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}`, id, i), 0)
		frame(seq+1, "in", "response", "", id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}`, id, i+2), seq)
		seq += 2
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("many-%d.jsonl", n))
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// test --from a session of 20,000 requests of one tool writes its calls
// file in time linear in the session (78 s before: each name tried " #2",
// " #3"... anew, and each request was compared with every earlier one to
// find whether it was a retry). The budget is twice ten times the time of
// 2,000, so that a loaded machine slows both alike (the binary takes
// 0.45 s of CPU for 20,000; 4 s is the bound on a machine loaded many
// times over).
func TestTestFromManyRequestsIsLinear(t *testing.T) {
	seed := func(n int) time.Duration {
		session := manyRequests(t, n)
		out := filepath.Join(t.TempDir(), "many.calls.json")
		start := time.Now()
		if msg, err, code := runCLI(t, "test", "--from", session, "--calls", out); code != exitOK {
			t.Fatalf("test --from: exit %d %v\n%s", code, err, msg)
		}
		took := time.Since(start)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if last := fmt.Sprintf(`"tools/call add #%d"`, n); !strings.Contains(string(b), last) || strings.Count(string(b), `"name": "tools/call add`) != n {
			t.Fatalf("the calls file does not name %d calls up to %s", n, last)
		}
		return took
	}
	seed(2000) // warm up
	small := seed(2000)
	big := seed(20000)
	// A machine whose load changes during the test slows one run more
	// than another: the small run is timed on both sides of the big one
	// and the slower taken.
	small = max(small, seed(2000))
	t.Logf("2,000 requests: %v; 20,000: %v", small, big)
	if budget := 2 * 10 * small; big > budget && big > 200*time.Millisecond {
		t.Errorf("20,000 requests took %v, 2,000 took %v: more than linear (budget %v)", big, small, budget)
	}
	// The race detector slows this code several times over; the linear
	// bound above is the one that holds under it.
	limit := 4 * time.Second
	if raceEnabled {
		limit *= 3
	}
	if big > limit {
		t.Errorf("20,000 requests took %v (limit %v)", big, limit)
	}
}
