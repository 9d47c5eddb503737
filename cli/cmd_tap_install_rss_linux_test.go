package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// childPeakRSS runs cmd to its end and returns its own peak resident
// size, read from /proc while it runs (the kernel's maxrss of a child
// counts the test binary it was forked from).
func childPeakRSS(t *testing.T, cmd *exec.Cmd) (int64, string) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var peak int64
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%v: %v\n%.2000s", cmd.Args, err, out.String())
			}
			return peak, out.String()
		case <-time.After(time.Millisecond):
			peak = max(peak, vmHWM(cmd.Process.Pid))
		}
	}
}

// tap install on a big config holds the file and the edited text, and
// nothing else of its size: a 16 MB ~/.claude.json-like file (a long
// history, a few servers) peaked at 57.5 MB (about 24 MB of it the
// program's start), 125 MB before it was read without doublings, its
// comments blanked only on a copy when it has any, the parsed args let go
// before the edit and the compare made a piece at a time. 65 MB: 154 MB,
// 316 MB before. The guard is twice the file plus 48 MiB.
func TestTapInstallOnABigConfigCostsTwiceItsSize(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates RSS several times over")
	}
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"numStartups": 3, "mcpServers": {"a": {"command": "node", "args": ["a.js"]}}, "projects": {` + "\n")
	for i := 0; b.Len() < 16<<20; i++ {
		fmt.Fprintf(&b, `  "/home/u/p%d": {"history": [`, i)
		for j := 0; j < 50; j++ {
			fmt.Fprintf(&b, `{"display": %q, "pastedContents": {}}, `, strings.Repeat("y", 2000))
		}
		b.WriteString(`{}], "mcpServers": {"p": {"command": "node", "args": ["p.js"]}}},` + "\n")
	}
	b.WriteString(`  "/last": {"history": []}}}` + "\n")
	path := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	size := int64(b.Len())
	start := time.Now()
	peak, out := childPeakRSS(t, exec.Command(bin, "tap", "install", "--config", path, "--all", "--command", "/opt/mcpscope"))
	t.Logf("tap install on %.1f MB: peak RSS %.1f MB, %v", float64(size)/1e6, float64(peak)/1e6, time.Since(start).Round(time.Millisecond))
	if !strings.Contains(out, "now run through the tap") {
		t.Fatalf("tap install did not say it tapped the servers:\n%s", out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(got, []byte(`"command": "/opt/mcpscope"`)); n < 2 {
		t.Fatalf("%d servers tapped", n)
	}
	if peak > 2*size+48<<20 {
		t.Errorf("tap install on a %d-byte config peaked at %d bytes (guard: twice the file plus 48 MiB)", size, peak)
	}
}
