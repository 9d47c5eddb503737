package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// floodVar makes the test binary a server that answers its first line with
// that many notifications, one write each, then reads stdin to its end.
const floodVar = "MCPSCOPE_TEST_FLOOD"

func floodServer(arg string) int {
	n, _ := strconv.Atoi(arg)
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadBytes('\n'); err != nil {
		return 1
	}
	for i := 0; i < n; i++ {
		_, _ = fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"event %d of a flood"}}`+"\n", i)
	}
	for {
		if _, err := in.ReadBytes('\n'); err != nil {
			return 0
		}
	}
}

// The mcpscope program running as `mcpscope tap` keeps its private memory
// (RssAnon) under 20 MiB, start-up included, through a 50,000-notification
// flood and the recording that follows it: three times what it holds, so
// a loaded machine cannot fail it, while a recorder that kept the flood in
// memory would. BenchmarkStdioTapFlood (mcp/tap) reports the figures.
func TestTapPrivateMemoryStaysBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates RSS several times over")
	}
	base := t.TempDir()
	rt, err := os.MkdirTemp("", "rss")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	const n = 50000
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The tap is the real program; the flooding server is this test binary.
	cmd := exec.Command(bin, "tap", "--name", "rss", "--", "env", floodVar+"="+strconv.Itoa(n), os.Args[0])
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(base, "home"), "XDG_RUNTIME_DIR="+rt)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peakOf := samplePeakRSSAnon(cmd.Process.Pid)
	out := bufio.NewReader(outPipe)
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"go"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if i == 1 {
			t.Logf("started: %.1f MiB private", float64(rssAnon(cmd.Process.Pid))/(1<<20))
		}
		if _, err := out.ReadBytes('\n'); err != nil {
			t.Fatalf("after %d lines: %v", i, err)
		}
	}
	t.Logf("after the flood: %.1f MiB private", float64(rssAnon(cmd.Process.Pid))/(1<<20))
	_ = in.Close() // the server ends; the tap records the rest and exits
	peak := peakOf()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the tap: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(base, "home", ".local", "state", "mcpscope", "taps", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file, got %v", files)
	}
	rec, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(rec), `"method":"notifications/message"`); got != n {
		t.Fatalf("the record holds %d of the %d notifications", got, n)
	}
	t.Logf("the tap's peak private memory: %.1f MiB", float64(peak)/(1<<20))
	if peak >= 20<<20 {
		t.Errorf("the tap's peak private memory is %.1f MiB, guarded at 20", float64(peak)/(1<<20))
	}
}

// rssAnon is a process's private memory (its resident anonymous pages) in
// bytes; 0 once it has exited.
func rssAnon(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// samplePeakRSSAnon samples a process's private memory every 2 ms until it
// exits; the function it returns waits for that and gives the peak.
func samplePeakRSSAnon(pid int) func() int64 {
	var peak int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			anon := rssAnon(pid)
			if anon == 0 {
				return // exited
			}
			peak = max(peak, anon)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return func() int64 {
		<-sampled
		return peak
	}
}
