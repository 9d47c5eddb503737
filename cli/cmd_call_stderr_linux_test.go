package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// call --record against a server that writes 500 MB to stderr before it
// answers keeps a bounded part of it: peak RSS under 100 MiB (1.85 GB and
// 28 s when every line was kept in memory and on disk), the record tens
// of megabytes, with the count of the lines left out, and the flood's
// last line in it.
func TestCallStderrFloodStaysSmall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates RSS several times over")
	}
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "flood.jsonl")
	start := time.Now()
	cmd := exec.Command(bin, "call", "--method", "tools/list", "--record", rec,
		"-e", mcptest.EnvVar+"=stderr-flood", "-e", mcptest.StderrBytesVar+"="+strconv.Itoa(500<<20), "--", os.Args[0])
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The kernel's maxrss of a child counts the memory of the test binary
	// that started it (the two share it until the exec): the child's own
	// high-water mark is read from /proc while it runs.
	var peak int64
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("call: %v\n%.2000s", err, out.String())
			}
			waiting = false
		case <-time.After(2 * time.Millisecond):
			peak = max(peak, vmHWM(cmd.Process.Pid))
		}
	}
	st, err := os.Stat(rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS %.1f MiB, %v, a record of %.1f MB", float64(peak)/(1<<20), time.Since(start).Round(time.Millisecond), float64(st.Size())/1e6)
	if peak > 100<<20 {
		t.Errorf("call's peak RSS was %.1f MiB for 500 MB of stderr (budget 100 MiB)", float64(peak)/(1<<20))
	}
	if st.Size() > 100<<20 {
		t.Errorf("the record is %d bytes", st.Size())
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"dropped":`) || !strings.Contains(string(b), `"line":"`+mcptest.StderrFloodDone+`"`) {
		t.Error("the record does not count the lines it left out, or lacks the flood's last line")
	}
}

// vmHWM is the peak resident size of a running process (0 once it ended).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
