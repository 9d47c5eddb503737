package ui

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// stderrChildVar makes TestStderrFloodKeepsTheTUISmall the measured child:
// it drives the TUI's model against a server that writes that many bytes
// to stderr, until the flood's last line is shown.
const stderrChildVar = "MCPSCOPE_TEST_STDERR_CHILD"

// 400 MB of a server's stderr (four million lines) cost the TUI a bounded
// ring: its peak RSS stays under 100 MiB (607 MB when it kept every
// line), and the log says how many earlier lines it dropped. The model is
// driven in a child process, whose peak RSS the kernel reports.
func TestStderrFloodKeepsTheTUISmall(t *testing.T) {
	if n := os.Getenv(stderrChildVar); n != "" {
		stderrFloodChild(t, n)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the child's peak RSS from /proc")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates RSS several times over")
	}
	const flood = 400 << 20
	cmd := exec.Command(os.Args[0], "-test.run=^TestStderrFloodKeepsTheTUISmall$", "-test.v")
	cmd.Env = append(os.Environ(), stderrChildVar+"="+strconv.Itoa(flood))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	// The child reports its own high-water mark: the kernel's maxrss of a
	// child counts the memory of the test binary that started it (the
	// two share it until the exec), hundreds of megabytes in a full run.
	m := regexp.MustCompile(`child peak: (\d+) kB`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the child did not report its peak (%v):\n%s", err, out)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	peak := kb << 10
	t.Logf("400 MB of stderr: peak RSS %.1f MiB, %v", float64(peak)/(1<<20), time.Since(start).Round(time.Millisecond))
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "dropped") {
			t.Log(strings.TrimSpace(l))
		}
	}
	if err != nil {
		t.Errorf("the child: %v\n%s", err, out)
	}
	if peak > 100<<20 {
		t.Errorf("the TUI's peak RSS was %.1f MiB for 400 MB of stderr (budget 100 MiB)", float64(peak)/(1<<20))
	}
}

func stderrFloodChild(t *testing.T, bytes string) {
	m := New(Config{Target: "flood", Theme: "dark", NewClient: func() *mcp.Client {
		tr := &mcp.StdioTransport{Command: os.Args[0], Grace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond,
			Env: []string{mcptest.EnvVar + "=stderr-flood", mcptest.StderrBytesVar + "=" + bytes}}
		return mcp.NewClient(tr, mcp.Options{Timeout: time.Minute})
	}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	deadline := time.Now().Add(5 * time.Minute)
	for !slices.Contains(m.lastStderr, mcptest.StderrFloodDone) {
		if time.Now().After(deadline) {
			t.Fatal("the flood's last line never came")
		}
		select {
		case msg := <-p.msgs:
			_, cmd := m.Update(msg)
			p.run(cmd)
		case <-time.After(time.Second):
		}
	}
	if s := screenOf(m); !strings.Contains(s, mcptest.StderrFloodDone) {
		t.Errorf("the flood's last line is not the log's last:\n%s", s)
	}
	press(m, "1", "g") // the log's first rows
	s := screenOf(m)
	if !strings.Contains(s, "earlier lines dropped (") {
		t.Errorf("the log does not say that it dropped earlier lines:\n%s", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "dropped") {
			t.Log(strings.TrimSpace(l))
		}
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			fmt.Printf("child peak: %s kB\n", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
}
