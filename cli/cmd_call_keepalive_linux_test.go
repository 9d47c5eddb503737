package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keepAliveFlood answers tools/call with an SSE stream of size bytes of
// comment-only events (": k" and a blank line) before the answer.
func keepAliveFlood(size int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &msg)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case len(msg.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "initialize":
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}`, msg.ID)
		case msg.Method == "tools/list":
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}}`, msg.ID)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := strings.Repeat(": k\n\n", 1<<14)
			for sent := 0; sent < size; sent += len(chunk) {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			_, _ = fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", msg.ID)
		}
	})
}

// 10 MB of keep-alives (two million comment-only events) on a POST's
// answer cost `mcpscope call` what a small answer costs: one timeline row
// and one record line, and a peak RSS far under 50 MB (676-755 MB when
// each was an event of its own). The budget here has twice the headroom.
func TestCallKeepAliveFloodStaysSmall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates RSS several times over")
	}
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(keepAliveFlood(10 << 20))
	defer srv.Close()
	rec := t.TempDir() + "/flood.jsonl"
	start := time.Now()
	cmd := exec.Command(bin, "call", srv.URL, "--method", "tools/call", "--tool-name", "slow", "--record", rec)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("call: %v\n%s", err, out)
	}
	elapsed := time.Since(start)
	if !strings.Contains(string(out), `"done"`) {
		t.Fatalf("call printed:\n%s", out)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kB on Linux
	t.Logf("peak RSS %.1f MiB, %v", float64(peak)/(1<<20), elapsed.Round(time.Millisecond))
	if peak > 100<<20 {
		t.Errorf("call's peak RSS was %.1f MiB for 10 MB of keep-alives (goal: under 50 MB)", float64(peak)/(1<<20))
	}
	raw, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	b := string(raw)
	if n := strings.Count(b, `"keepAlives":`); n != 1 || !strings.Contains(b, `"keepAlives":2097152`) {
		t.Errorf("the record holds %d keep-alive lines (want one of 2,097,152 keep-alives)", n)
	}
}
