package cli

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

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
	srv := httptest.NewServer(&mcptest.KeepAliveServer{Bytes: 10 << 20})
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
