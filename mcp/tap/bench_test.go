package tap

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tap's overhead, measured on real processes: the test binary plays
// the server (an echo server, or a flood of notifications), the tap is
// the mcpscope binary itself (`mcpscope tap -- SERVER`, built once by the
// benchmarks; the test binary's RunStdio role stands in for it in the
// quick test), and the benchmark is the client. Each figure is compared
// with the same server run directly.

// peer is a started process with its stdio.
type peer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// tapBinary, when set, is the mcpscope binary the tap runs as; otherwise
// the test binary's RunStdio role is the tap.
var tapBinary string

// buildTap builds the mcpscope binary for the benchmarks, once.
var buildTap = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "mcpscope-bench")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "mcpscope")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/mcpscope/mcpscope")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building mcpscope: %v\n%s", err, out)
	}
	return bin, nil
})

// useTapBinary makes the benchmark's tap the real mcpscope binary: the
// one built from this tree, or MCPSCOPE_TAP_BENCH_BINARY (to compare
// another build, e.g. an earlier commit's, under the same conditions).
func useTapBinary(b *testing.B) {
	bin, err := os.Getenv("MCPSCOPE_TAP_BENCH_BINARY"), error(nil)
	if bin == "" {
		bin, err = buildTap()
	}
	if err != nil {
		b.Fatal(err)
	}
	tapBinary = bin
	b.Cleanup(func() { tapBinary = "" })
}

// route is how the benchmark client reaches the server.
type route int

const (
	pipeDirect route = iota // the server's own stdio
	viaTap                  // through the tap
	// viaRelay: through a bare relay, the test binary copying both ways
	// with nothing recorded: what any process in the pipe costs.
	viaRelay
)

func (r route) String() string { return [...]string{"direct", "tap", "relay"}[r] }

// spawn starts the server (role env) directly, behind a tap or behind the
// bare relay.
func spawn(tb testing.TB, r route, env ...string) *peer {
	tb.Helper()
	name, args := os.Args[0], []string{}
	switch {
	case r == viaTap && tapBinary != "":
		name, args = tapBinary, []string{"tap", "--name", "bench", "--", os.Args[0]}
	case r == viaTap:
		args = []string{os.Args[0]}
		env = append(env, asTapEnv+"=1")
	case r == viaRelay:
		args = []string{os.Args[0]}
		env = append(env, relayEnv+"=1")
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return &peer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
}

func (p *peer) stop() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
}

// roundTrips sends n requests one at a time and returns each round trip.
func roundTrips(tb testing.TB, p *peer, n int) []time.Duration {
	tb.Helper()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a message of a usual size for a tool call, some eighty bytes"}}}` + "\n")
	out := make([]time.Duration, n)
	for i := range out {
		start := time.Now()
		if _, err := p.in.Write(msg); err != nil {
			tb.Fatal(err)
		}
		if _, err := p.out.ReadBytes('\n'); err != nil {
			tb.Fatal(err)
		}
		out[i] = time.Since(start)
	}
	return out
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

// latency measures the round trip direct and through the tap.
func latency(tb testing.TB, n int) (direct, tapped []time.Duration) {
	tb.Helper()
	for _, r := range []route{pipeDirect, viaTap} {
		p := spawn(tb, r, echoEnv+"=1")
		roundTrips(tb, p, 200) // warm up
		rt := roundTrips(tb, p, n)
		p.stop()
		if r == viaTap {
			tapped = rt
		} else {
			direct = rt
		}
	}
	return direct, tapped
}

// BenchmarkStdioTapAddedLatency reports the latency the tap adds to one
// request and its answer (two crossings), at the median and the 99th
// percentile.
func BenchmarkStdioTapAddedLatency(b *testing.B) {
	privateDirs(b)
	useTapBinary(b)
	direct, tapped := latency(b, max(b.N, 2000))
	b.ReportMetric(float64(percentile(tapped, 0.5)-percentile(direct, 0.5))/1e6, "added-p50-ms")
	b.ReportMetric(float64(percentile(tapped, 0.99)-percentile(direct, 0.99))/1e6, "added-p99-ms")
	b.ReportMetric(float64(percentile(direct, 0.5))/1e6, "direct-p50-ms")
}

// memory is what a process holds, in bytes, and the CPU it used.
type memory struct {
	peak       int64 // VmHWM: the resident set's high-water mark
	anon, file int64 // the largest RssAnon and RssFile seen while sampling
	// cpu is the tap's CPU time (all its threads) during the flood, until
	// the client had all of it: what the copy cost, and whatever the
	// recorder did meanwhile. Unlike the rate, it hardly depends on what
	// else the machine runs.
	cpu time.Duration
}

// cpuTime is a process's CPU time so far, summed over its threads (Linux
// schedstat; 0 elsewhere).
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	var sum time.Duration
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

// floodRun times n notifications from the server to the client, and
// returns the tap's (or relay's) memory and CPU when there is one.
func floodRun(tb testing.TB, r route, n int) (time.Duration, memory) {
	tb.Helper()
	p := spawn(tb, r, floodEnv+"="+strconv.Itoa(n))
	var mem memory
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		// Sampled through the flood and the recording that follows it,
		// until the tap exits (its status then has no memory lines). The
		// high-water mark is read from /proc, not from wait4, whose figure
		// would include the server's (the tap's reaped child). A direct
		// run samples the server the same way (and drops the figures), so
		// that the client does the same work in every run.
		for {
			m := procMemory(p.cmd.Process.Pid)
			if m.peak == 0 {
				return
			}
			mem.peak, mem.anon, mem.file = max(mem.peak, m.peak), max(mem.anon, m.anon), max(mem.file, m.file)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	// Start-up (the server's, the tap's: a 28 MB binary's initialisation)
	// is not the flood's: every run waits for it before the clock starts,
	// and the CPU the tap used before the flood is taken off.
	time.Sleep(200 * time.Millisecond)
	cpu0 := cpuTime(p.cmd.Process.Pid)
	start := time.Now()
	if _, err := p.in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"go"}` + "\n")); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := p.out.ReadBytes('\n'); err != nil {
			tb.Fatalf("after %d lines: %v", i, err)
		}
	}
	d := time.Since(start)
	mem.cpu = cpuTime(p.cmd.Process.Pid) - cpu0
	_ = p.in.Close() // the server ends; the tap finishes its record and exits
	<-sampled
	p.stop()
	return d, mem
}

// procMemory reads a process's memory (Linux; zeros elsewhere).
func procMemory(pid int) memory {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return memory{}
	}
	var m memory
	for _, line := range strings.Split(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var kb int64
		_, _ = fmt.Sscanf(strings.TrimSpace(val), "%d", &kb)
		switch key {
		case "VmHWM":
			m.peak = kb << 10
		case "RssAnon":
			m.anon = kb << 10
		case "RssFile":
			m.file = kb << 10
		}
	}
	return m
}

// BenchmarkStdioTapFlood reports the rate of a 50,000-notification flood
// through the tap as a share of the direct pipe's, and the tap's peak RSS.
//
// Each round runs the same flood three ways, one after the other in an
// order that rotates: direct, through the tap, and through a bare relay
// (the test binary copying both ways, nothing recorded: what any process
// in the pipe costs on this machine). A round's ratios compare runs made
// moments apart, so a burst of load elsewhere touches one round, not the
// figure; the figure is the median round, with the worst and best rounds
// and the load average before and after, since on a shared machine the
// spread is part of the result. Every round is logged (-v).
//
// The RSS is that of the mcpscope binary running as the tap: its
// high-water mark over the flood and the recording that follows, and the
// largest anonymous (the tap's own heap and stacks) and file-backed (the
// binary's pages, shared by every tap) parts seen.
func BenchmarkStdioTapFlood(b *testing.B) {
	privateDirs(b)
	useTapBinary(b)
	const n = 50000
	load0 := loadAverage()
	var ratios, relayRatios, tapToRelay []float64
	var tapped, cpu time.Duration
	var mem memory
	rounds := max(b.N, 5)
	for i := 0; i < rounds; i++ {
		var took [3]time.Duration
		order := []route{pipeDirect, viaTap, viaRelay}
		for j := range order {
			r := order[(i+j)%len(order)]
			d, m := floodRun(b, r, n)
			took[r] = d
			if r == viaTap {
				mem = memory{peak: max(mem.peak, m.peak), anon: max(mem.anon, m.anon), file: max(mem.file, m.file)}
				cpu += m.cpu
			}
		}
		ratios = append(ratios, float64(took[pipeDirect])/float64(took[viaTap]))
		relayRatios = append(relayRatios, float64(took[pipeDirect])/float64(took[viaRelay]))
		tapToRelay = append(tapToRelay, float64(took[viaRelay])/float64(took[viaTap]))
		tapped += took[viaTap]
		b.Logf("round %d: direct %v, tap %v (%.1f %%), relay %v (%.1f %%)", i+1,
			took[pipeDirect].Round(time.Millisecond/10), took[viaTap].Round(time.Millisecond/10), ratios[i]*100,
			took[viaRelay].Round(time.Millisecond/10), relayRatios[i]*100)
	}
	median := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	sort.Float64s(ratios)
	b.ReportMetric(ratios[len(ratios)/2]*100, "%-of-direct-rate")
	b.ReportMetric(ratios[0]*100, "%-worst-run")
	b.ReportMetric(ratios[len(ratios)-1]*100, "%-best-run")
	b.ReportMetric(median(relayRatios)*100, "relay-%-of-direct")
	b.ReportMetric(median(tapToRelay)*100, "%-of-relay-rate")
	b.ReportMetric(load0, "load-before")
	b.ReportMetric(loadAverage(), "load-after")
	b.ReportMetric(float64(n)*float64(rounds)/tapped.Seconds(), "msgs/s-tapped")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rounds)/n, "tap-cpu-ns/msg")
	b.ReportMetric(float64(mem.peak)/(1<<20), "tap-peak-RSS-MiB")
	b.ReportMetric(float64(mem.anon)/(1<<20), "tap-anon-MiB")
	b.ReportMetric(float64(mem.file)/(1<<20), "tap-file-MiB")
}

// loadAverage is the machine's one-minute load average (Linux; 0
// elsewhere).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// TestStdioTapOverhead guards the benchmarks' figures with a margin (the
// CI runs packages in parallel on two cores): the limits here are looser
// than the goals. The flood's rate is not guarded here: with three
// processes in the pipe against two, it measures the machine's load more
// than the tap, so .ci/run reports BenchmarkStdioTapFlood instead.
func TestStdioTapOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real processes")
	}
	privateDirs(t)
	direct, tapped := latency(t, 1000)
	if add := percentile(tapped, 0.5) - percentile(direct, 0.5); add > 2*time.Millisecond {
		t.Errorf("the tap adds %v at the median (goal 0.2 ms)", add)
	}
	_, mem := floodRun(t, viaTap, 50000)
	if raceEnabled {
		return // the race detector's shadow memory inflates RSS several times over
	}
	// The test binary's own pages are not the tap's: its anonymous memory
	// (the recorder's queue, the heap) is what the tap's code decides.
	if mem.anon > 16<<20 {
		t.Errorf("the tap's anonymous memory reached %d MiB in a 50,000-notification flood (the spool should bound it)", mem.anon>>20)
	}
}
