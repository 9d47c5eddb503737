package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/mcp/lib/resident"
)

// procStatusKiB reads fields of /proc/PID/status, in KiB.
func procStatusKiB(t *testing.T, pid int, fields ...string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		for _, f := range fields {
			if name == f {
				n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				got[f] = n
			}
		}
	}
	return got
}

// The TUI connected to the built-in demo server and left alone holds at
// most 40 MiB of private memory (RssAnon): twice the budget of 20
// (docs/performance.md), so a loaded machine cannot fail it, while a leak or a
// cache that never empties would. The server, a process of its own, is not
// counted, as in .ci/peers.sh's idle row, which measures the figure. Needs
// tmux: MCPSCOPE_TMUX_TESTS=1.
func TestTUIIdlePrivateMemoryOnTheDemo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates memory several times over")
	}
	a := acceptance(t)
	s := a.start(t, 120, 40) // no target: the demo server
	s.ready()
	pid, err := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	m := procStatusKiB(t, pid, "RssAnon", "RssFile", "RssShmem")
	t.Logf("5 s after ● ready: %.1f MiB private (RssAnon), %.1f MiB of the binary's pages (RssFile)", float64(m["RssAnon"])/1024, float64(m["RssFile"])/1024)
	if m["RssAnon"] > 40<<10 {
		t.Errorf("idle private memory %.1f MiB, guarded at 40 MiB (the budget is 20)", float64(m["RssAnon"])/1024)
	}
}

// A person's input counts as activity for the trimmer, so browsing earns
// a trim once the TUI has been left alone for LongQuiet; the program's own
// messages do not (a tick every second would keep it from ever trimming
// and an idle TUI would trim for nothing).
func TestInputEarnsATrimAfterALongQuiet(t *testing.T) {
	var trims atomic.Int32
	idle := &resident.Trimmer{Quiet: 10 * time.Millisecond, AfterEvents: 1 << 30, LongQuiet: 60 * time.Millisecond, Trim: func() { trims.Add(1) }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go idle.Run(ctx)
	filter := touchOnInput(idle)
	waitFor := func(n int32, what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for trims.Load() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := trims.Load(); got != n {
			t.Fatalf("%s: %d trims, want %d", what, got, n)
		}
	}
	if got := filter(nil, tea.KeyPressMsg{Code: 'j'}); got != (tea.KeyPressMsg{Code: 'j'}) {
		t.Fatalf("the filter changed the key into %#v", got)
	}
	waitFor(1, "a key, then quiet (the first burst)")
	filter(nil, struct{}{}) // a message of the program's own
	time.Sleep(200 * time.Millisecond)
	waitFor(1, "only the program's own message, then a long quiet")
	filter(nil, tea.MouseWheelMsg{})
	waitFor(2, "the wheel, then a long quiet")
}
