// Command peerbench measures mcpscope and its peers side by side on this
// machine and prints one table (.ci/peers.sh runs it; see there for how the
// peers are installed). Runs of the tools being compared alternate, so that
// drift in the machine's load hits them alike; each cell is the median,
// with the spread (the 10th to the 90th percentile, or min-max for fewer
// than ten runs) after it.
//
// It is a report, never a gate: timing on a shared machine is noisy, and a
// peer that could not be installed is a cell that says so.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// peer is one tool in the table: its binary (or command prefix) and why it
// is missing when it is.
type peer struct {
	name    string
	argv    []string // the command that starts it; nil when missing
	missing string   // why it is missing
}

var (
	mcpscopeBin = flag.String("mcpscope", "", "the mcpscope binary")
	npmPrefix   = flag.String("npm", "", "folder whose node_modules holds server-everything and the Inspector")
	mcptuiBin   = flag.String("mcp-tui", "", "the mcp-tui binary (empty: missing)")
	mcptuiWhy   = flag.String("mcp-tui-missing", "not installed", "why mcp-tui is missing")
	mcptoolsBin = flag.String("mcptools", "", "the mcptools binary (empty: missing)")
	mcptoolsWhy = flag.String("mcptools-missing", "not installed", "why mcptools is missing")
	helloBin    = flag.String("hello", "", "a Go hello-world binary, the start-up floor")
	runs        = flag.Int("n", 11, "runs of each fast measurement (start-up takes 3n)")
	ciDir       = flag.String("ci", ".ci", "the .ci folder (bare-client.sh, big_result_server.py, the flood server)")
	floodN      = flag.Int("flood", 50000, "notifications in the flood")
	only        = flag.String("only", "", "measure only these rows, comma-separated: startup, call, idle, flood, big")
)

// want reports whether the rows named name are measured.
func want(name string) bool {
	return *only == "" || strings.Contains(","+*only+",", ","+name+",")
}

func main() {
	flag.Parse()
	if *mcpscopeBin == "" || *npmPrefix == "" {
		fmt.Fprintln(os.Stderr, "usage: peerbench -mcpscope BIN -npm PREFIX [-mcp-tui BIN] [-mcptools BIN] [-hello BIN] [-n N]")
		os.Exit(2)
	}
	started := time.Now()
	se := filepath.Join(*npmPrefix, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	launcher := filepath.Join(*npmPrefix, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
	inspector := peer{name: "Inspector 2.12", argv: []string{"node", launcher}}
	if _, err := os.Stat(launcher); err != nil {
		inspector = peer{name: "Inspector", missing: "not installed"}
	}
	mcptui := peer{name: "mcp-tui", missing: *mcptuiWhy}
	if *mcptuiBin != "" {
		mcptui = peer{name: "mcp-tui", argv: []string{*mcptuiBin}}
	}
	mcptools := peer{name: "mcptools", missing: *mcptoolsWhy}
	if *mcptoolsBin != "" {
		mcptools = peer{name: "mcptools", argv: []string{*mcptoolsBin}}
	}
	demo := []string{*mcpscopeBin, "demo-server"}
	bare := func(server ...string) []string {
		return append([]string{"bash", filepath.Join(*ciDir, "bare-client.sh")}, server...)
	}
	// A fresh HOME, so the Inspector neither reads nor writes the user's
	// catalog.
	home, err := os.MkdirTemp("", "peerbench-home")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	env := append(os.Environ(), "HOME="+home)

	var t table

	// Start-up.
	if want("startup") {
		t.section("start-up: `--version`, wall time (CPU)")
		startup := []job{{label: "mcpscope", argv: []string{*mcpscopeBin, "--version"}}}
		if *helloBin != "" {
			startup = append(startup, job{label: "Go hello-world (floor)", argv: []string{*helloBin}})
		}
		startup = append(startup, peerJob(mcptui, "--version"), peerJob(mcptools, "version"), peerJob(inspector, "--cli", "--version"))
		for _, r := range measure(startup, 3**runs, env) {
			t.row(r.label, r.cell(true))
		}
	}

	// tools/list against two servers, each against the bare client.
	if want("call") {
		for _, srv := range []struct {
			name string
			argv []string
		}{{"server-everything (Node)", []string{"node", se}}, {"the demo server (mcpscope demo-server)", demo}} {
			t.section("call tools/list against " + srv.name + ": wall time, ratio to the bare client")
			jobs := []job{
				{label: "bare shell client (floor)", argv: bare(srv.argv...)},
				{label: "mcpscope call", argv: append([]string{*mcpscopeBin, "call", "--method", "tools/list", "--"}, srv.argv...)},
				peerJob(mcptools, append([]string{"tools"}, srv.argv...)...),
				peerJob(mcptui, append(mcptuiTarget(srv.argv), "tool", "list")...),
				peerJob(inspector, append(append([]string{"--cli"}, srv.argv...), "--method", "tools/list")...),
			}
			res := measure(jobs, *runs, env)
			floor := res[0].median()
			for _, r := range res {
				c := r.cell(false)
				if r.ok() && r.label != res[0].label {
					c += fmt.Sprintf("  %.2f×", r.median()/floor)
				}
				t.row(r.label, c)
			}
		}
	}

	// Idle memory in the TUI.
	if want("idle") {
		t.section("TUI idle: RSS 5 s after connecting to the demo server (anonymous + file-backed; the server's process left out)")
		inspectorTUI := peerJob(inspector, "--tui", *mcpscopeBin, "demo-server")
		// It starts disconnected; c connects the server it was given.
		inspectorTUI.connectWhen, inspectorTUI.connectKey, inspectorTUI.connected = "[Connect]", "c", "● connected"
		tuis := []job{
			{label: "mcpscope", argv: []string{*mcpscopeBin, "--", *mcpscopeBin, "demo-server"}, connected: "● ready"},
			peerJob(mcptui, mcptuiTarget(demo)...),
			inspectorTUI,
		}
		for _, j := range tuis {
			if j.argv == nil {
				t.row(j.label, j.missing)
				continue
			}
			var rss, anon, file []float64
			connected := true
			for i := 0; i < 3; i++ {
				m, err := idleRSS(j, env, 5*time.Second)
				if err != nil {
					t.row(j.label, "failed: "+err.Error())
					connected = false
					break
				}
				connected = connected && m.serverUp
				rss, anon, file = append(rss, m.rss), append(anon, m.anon), append(file, m.file)
			}
			if len(rss) == 3 {
				note := ""
				if !connected {
					note = "  (the server was not running 5 s in: not connected)"
				}
				t.row(j.label, fmt.Sprintf("%.1f MiB (%s)  = %.1f anon + %.1f file%s", med(rss), spread(rss, "%.1f"), med(anon), med(file), note))
			}
		}
	}

	// The flood, in mcpscope's TUI (the peers show no count to wait for).
	if want("flood") {
		t.section(fmt.Sprintf("TUI flood: %d notifications after the handshake", *floodN))
		for i := 0; i < 2; i++ {
			f, err := flood(env)
			if err != nil {
				t.row("mcpscope", "failed: "+err.Error())
				break
			}
			t.row(fmt.Sprintf("mcpscope, run %d", i+1), fmt.Sprintf("all %d frames on screen %.2f s after the server's last; %.2f s CPU; peak RSS %.1f MiB", *floodN+3, f.lag, f.cpu, f.peak))
		}
		// A peer shows no count of frames to wait for: its cost is taken
		// once it has been quiet for a second after the server's last frame.
		inspectorFlood := func(server []string) job {
			j := peerJob(inspector, append([]string{"--tui"}, server...)...)
			j.connectWhen, j.connectKey = "[Connect]", "c"
			return j
		}
		mcptuiFlood := func(server []string) job { return peerJob(mcptui, mcptuiTarget(server)...) }
		for _, mk := range []func([]string) job{mcptuiFlood, inspectorFlood} {
			j := mk([]string{"python3"})
			if j.argv == nil {
				t.row(j.label, j.missing)
				continue
			}
			f, err := floodPeer(mk, env)
			if err != nil {
				t.row(j.label, "failed: "+err.Error())
				continue
			}
			t.row(j.label, fmt.Sprintf("%.2f s CPU; peak RSS %.1f MiB (quiet %.1f s after the server's last frame)", f.cpu, f.peak, f.lag))
		}
	}

	// A 20 MB result, headless.
	if want("big") {
		t.section("call tools/call with a 20,000,000-byte text result (headless): wall time, peak RSS")
		big := []string{"python3", filepath.Join(*ciDir, "big_result_server.py")}
		bigJobs := []job{
			{label: "mcpscope call", argv: append([]string{*mcpscopeBin, "call", "--method", "tools/call", "--tool-name", "big", "--"}, big...)},
			peerJob(mcptools, append([]string{"call", "big", "--params", "{}"}, big...)...),
			peerJob(inspector, append(append([]string{"--cli"}, big...), "--method", "tools/call", "--tool-name", "big")...),
		}
		for _, r := range measure(bigJobs, 3, env) {
			c := r.cell(false)
			if r.ok() {
				c += fmt.Sprintf(", peak RSS %.0f MiB", med(r.peak))
			}
			t.row(r.label, c)
		}

	}

	t.print(os.Stdout)
	fmt.Printf("\n(%d runs of each call, %d of each --version, 3 of the rest; measured in %.0f s)\n", *runs, 3**runs, time.Since(started).Seconds())
}

// mcptuiTarget is mcp-tui's way of naming a stdio server: --cmd, then
// one --args per argument.
func mcptuiTarget(argv []string) []string {
	out := []string{"--cmd", argv[0]}
	for _, a := range argv[1:] {
		out = append(out, "--args", a)
	}
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "peerbench:", err)
	os.Exit(1)
}

func peerJob(p peer, args ...string) job {
	if p.argv == nil {
		return job{label: p.name, missing: "n/a: " + p.missing}
	}
	return job{label: p.name, argv: append(append([]string{}, p.argv...), args...)}
}

// job is one command measured by running it to its end.
type job struct {
	label   string
	argv    []string
	missing string
	// For a TUI that does not connect on its own: the text on its screen
	// that says it is ready for the key, the key, and the text that says
	// it connected.
	connectWhen, connectKey, connected string
}

// result is a job's runs.
type result struct {
	job
	wall, cpu, peak []float64 // ms, ms, MiB
	err             error
}

func (r result) ok() bool        { return r.argv != nil && r.err == nil && len(r.wall) > 0 }
func (r result) median() float64 { return med(r.wall) }

func (r result) cell(withCPU bool) string {
	switch {
	case r.argv == nil:
		return r.missing
	case r.err != nil:
		return "failed: " + r.err.Error()
	}
	s := fmt.Sprintf("%s ms (%s)", num(med(r.wall)), spread(r.wall, "%.1f"))
	if withCPU {
		s += fmt.Sprintf(", CPU %s ms", num(med(r.cpu)))
	}
	return s
}

// measure runs the jobs in turn, n rounds, after one warm-up round that
// fills the page cache; a job that fails once is not run again.
func measure(jobs []job, n int, env []string) []result {
	res := make([]result, len(jobs))
	for i, j := range jobs {
		res[i].job = j
	}
	for round := -1; round < n; round++ {
		for i := range res {
			r := &res[i]
			if r.argv == nil || r.err != nil {
				continue
			}
			wall, cpu, peak, err := runOnce(r.argv, env)
			if err != nil {
				r.err = err
				continue
			}
			if round >= 0 {
				r.wall, r.cpu, r.peak = append(r.wall, wall), append(r.cpu, cpu), append(r.peak, peak)
			}
		}
	}
	return res
}

// runOnce runs argv with no input and returns its wall time and CPU time
// in ms (the process and the children it waited for) and its peak RSS in
// MiB (sampled every 5 ms from /proc, the process alone).
func runOnce(argv []string, env []string) (wall, cpu, peak float64, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hwm float64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case err := <-done:
			wall := time.Since(t0)
			if err != nil {
				return 0, 0, 0, fmt.Errorf("%v: %s", err, lastLine(stderr.String()))
			}
			st := cmd.ProcessState
			return ms(wall), ms(st.UserTime() + st.SystemTime()), hwm, nil
		case <-tick.C:
			if v := procStatus(cmd.Process.Pid)["VmHWM"]; v > hwm {
				hwm = v
			}
		case <-timeout:
			_ = cmd.Process.Kill()
			<-done
			return 0, 0, 0, fmt.Errorf("no answer within 60 s")
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// procStatus reads the kB fields of /proc/PID/status, in MiB.
func procStatus(pid int) map[string]float64 {
	m := map[string]float64{}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		f := strings.Fields(v)
		if ok && len(f) == 2 && f[1] == "kB" {
			n, _ := strconv.ParseFloat(f[0], 64)
			m[k] = n / 1024
		}
	}
	return m
}

// tmux runs argv in a detached 120x35 tmux session of its own and returns
// the pane's process id and functions that read the screen, end the
// session and type keys.
func tmux(argv []string, env []string) (pid int, capture func() string, stop func(), keys func(string), err error) {
	sock := fmt.Sprintf("peerbench-%d-%d", os.Getpid(), time.Now().UnixNano())
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	cmd := exec.Command("tmux", "-L", sock, "new-session", "-d", "-s", "p", "-x", "120", "-y", "35", "exec "+strings.Join(quoted, " "))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, nil, nil, nil, fmt.Errorf("tmux: %v: %s", err, out)
	}
	stop = func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() }
	keys = func(k string) { _ = exec.Command("tmux", "-L", sock, "send-keys", "-t", "p", k).Run() }
	capture = func() string {
		out, _ := exec.Command("tmux", "-L", sock, "capture-pane", "-t", "p", "-p").Output()
		return string(out)
	}
	out, err := exec.Command("tmux", "-L", sock, "list-panes", "-t", "p", "-F", "#{pane_pid}").Output()
	if err != nil {
		stop()
		return 0, nil, nil, nil, err
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		stop()
		return 0, nil, nil, nil, err
	}
	return pid, capture, stop, keys, nil
}

// children maps each process to its children, from /proc.
func children() map[int][]int {
	m := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			m[pp] = append(m[pp], pid)
		}
	}
	return m
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(string(b), "\x00", " ")
}

type memory struct {
	rss, anon, file float64
	serverUp        bool
}

// idleRSS starts the job in tmux, connects it if it needs a key for that,
// waits, and adds up the RSS of its process tree, leaving out the server
// (the subtree whose command line ends in "demo-server").
func idleRSS(j job, env []string, wait time.Duration) (memory, error) {
	pid, capture, stop, keys, err := tmux(j.argv, env)
	if err != nil {
		return memory{}, err
	}
	defer stop()
	if j.connectKey != "" {
		if !waitFor(capture, j.connectWhen, 30*time.Second) {
			return memory{}, fmt.Errorf("%q never showed", j.connectWhen)
		}
		keys(j.connectKey)
	}
	if j.connected != "" && !waitFor(capture, j.connected, 30*time.Second) {
		return memory{}, fmt.Errorf("%q never showed", j.connected)
	}
	time.Sleep(wait)
	var m memory
	kids := children()
	var walk func(int)
	walk = func(p int) {
		if p != pid && strings.HasSuffix(strings.TrimSpace(cmdline(p)), "demo-server") {
			m.serverUp = true
			return
		}
		st := procStatus(p)
		m.rss += st["VmRSS"]
		m.anon += st["RssAnon"]
		m.file += st["RssFile"] + st["RssShmem"]
		for _, c := range kids[p] {
			walk(c)
		}
	}
	walk(pid)
	if m.rss == 0 {
		return m, fmt.Errorf("the process had ended")
	}
	return m, nil
}

// waitFor reports whether text shows on the screen within limit.
func waitFor(capture func() string, text string, limit time.Duration) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(capture(), text) {
			return true
		}
	}
	return false
}

type floodResult struct{ lag, cpu, peak float64 }

var framesRe = regexp.MustCompile(`Log · (\d+) frames`)

// flood runs mcpscope's TUI on the flood server and waits until the log's
// title counts every frame.
func flood(env []string) (floodResult, error) {
	stamp, err := os.CreateTemp("", "peerbench-flood")
	if err != nil {
		return floodResult{}, err
	}
	stamp.Close()
	defer os.Remove(stamp.Name())
	server := filepath.Join(*ciDir, "..", "mcp/mcptest/testdata/flood_server.py")
	env = append(env, fmt.Sprintf("FLOOD_N=%d", *floodN), "FLOOD_STAMP="+stamp.Name())
	pid, capture, stop, _, err := tmux([]string{*mcpscopeBin, "--", "python3", server}, env)
	if err != nil {
		return floodResult{}, err
	}
	defer stop()
	want := *floodN + 3
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := framesRe.FindStringSubmatch(capture()); m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= want {
				seen := time.Now()
				b, _ := os.ReadFile(stamp.Name())
				last, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
				if err != nil {
					return floodResult{}, fmt.Errorf("the flood server left no time stamp")
				}
				lag := float64(seen.UnixNano())/1e9 - last
				return floodResult{lag: lag, cpu: cpuSeconds(pid), peak: procStatus(pid)["VmHWM"]}, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return floodResult{}, fmt.Errorf("not all %d frames showed within 60 s", want)
}

// floodPeer runs a peer's TUI on the flood server, connects it, and waits
// until the server has sent its last frame and the peer's CPU time has not
// grown for a second; it reports the peer's CPU time and peak RSS (its
// process tree, the server left out) and when it went quiet.
//
// The server's settings go on its command line (through env): a peer may
// not pass its own environment on to the server.
func floodPeer(mk func(server []string) job, env []string) (floodResult, error) {
	stamp, err := os.CreateTemp("", "peerbench-flood")
	if err != nil {
		return floodResult{}, err
	}
	stamp.Close()
	defer os.Remove(stamp.Name())
	j := mk([]string{"env", fmt.Sprintf("FLOOD_N=%d", *floodN), "FLOOD_STAMP=" + stamp.Name(), "python3",
		filepath.Join(*ciDir, "..", "mcp/mcptest/testdata/flood_server.py")})
	pid, capture, stop, keys, err := tmux(j.argv, env)
	if err != nil {
		return floodResult{}, err
	}
	defer stop()
	if j.connectKey != "" {
		if !waitFor(capture, j.connectWhen, 30*time.Second) {
			return floodResult{}, fmt.Errorf("%q never showed", j.connectWhen)
		}
		keys(j.connectKey)
	}
	tree := func() (cpu, peak float64) {
		kids := children()
		var walk func(int)
		walk = func(p int) {
			if p != pid && strings.Contains(cmdline(p), "flood_server.py") {
				return
			}
			cpu += cpuSeconds(p)
			peak += procStatus(p)["VmHWM"]
			for _, c := range kids[p] {
				walk(c)
			}
		}
		walk(pid)
		return cpu, peak
	}
	var last float64
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && last == 0 {
		b, _ := os.ReadFile(stamp.Name())
		last, _ = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		time.Sleep(50 * time.Millisecond)
	}
	if last == 0 {
		return floodResult{}, fmt.Errorf("the flood server never finished")
	}
	prev, _ := tree()
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		cpu, peak := tree()
		if cpu-prev < 0.02 {
			return floodResult{lag: float64(time.Now().Add(-time.Second).UnixNano())/1e9 - last, cpu: cpu, peak: peak}, nil
		}
		prev = cpu
	}
	return floodResult{}, fmt.Errorf("still busy 90 s in")
}

// cpuSeconds is the process's user and system time so far.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100 // USER_HZ
}

func med(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// spread is the 10th to the 90th percentile, or min-max for fewer than
// ten values.
func spread(v []float64, f string) string {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	lo, hi := s[0], s[len(s)-1]
	if len(s) >= 10 {
		lo, hi = s[len(s)/10], s[len(s)*9/10]
	}
	return fmt.Sprintf(f+"–"+f, lo, hi)
}

func num(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// table is a list of sections of two-column rows.
type table struct{ lines [][2]string }

func (t *table) section(title string) { t.lines = append(t.lines, [2]string{"", title}) }
func (t *table) row(a, b string)      { t.lines = append(t.lines, [2]string{a, b}) }

func (t *table) print(f *os.File) {
	w := 0
	for _, l := range t.lines {
		if l[0] != "" && len([]rune(l[0])) > w {
			w = len([]rune(l[0]))
		}
	}
	bw := bufio.NewWriter(f)
	for _, l := range t.lines {
		if l[0] == "" {
			fmt.Fprintf(bw, "\n%s\n", l[1])
			continue
		}
		fmt.Fprintf(bw, "  %s%s  %s\n", l[0], strings.Repeat(" ", w-len([]rune(l[0]))), l[1])
	}
	_ = bw.Flush()
}
