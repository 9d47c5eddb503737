// Command peerbench measures mcpscope's performance budgets
// (docs/performance.md) on this machine, each beside what its peers do
// in the same minutes, and prints one table (.ci/peers.sh runs it; see
// there for how the peers are installed). Runs of the tools compared
// alternate, so that drift in the machine's load hits them alike; each
// cell is the median, with the spread (the 10th to the 90th percentile, or
// min-max for fewer than ten runs) after it.
//
// The rows are the budgets, measured as a user meets them:
//
//   - call tools/list and tools/call, on server-everything (a Node
//     server) and on the demo server (a Go one): wall time against a bare
//     client (bash doing the handshake and the request by hand) and
//     against mcptools;
//   - check against call tools/list on the same server;
//   - what the stdio tap and the HTTP tap add to each request of a session
//     with server-everything;
//   - the TUI's first screen after exec, and its tools on screen after the
//     server's tools/list answer (a relay in front of the server stamps
//     the answer; tmux's control mode stamps each screen update);
//   - --version;
//   - the idle TUI's private memory 5 s after connecting to the demo
//     server (RssAnon, with PSS beside it; the server's process left out);
//   - a 50,000-notification flood: the last frame on screen after the
//     server wrote it, and the peak private memory;
//   - 20 MB and 160 MB JSON results: the first screen after the server
//     wrote each, and the private memory each adds to the TUI.
//
// It is a report, never a gate: timing on a shared machine is noisy, and a
// peer that could not be installed, or cannot do what a row measures, is a
// cell that says so.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// peer is one tool in the table: its binary (or command prefix) and why it
// is missing when it is.
type peer struct {
	name    string
	argv    []string // the command that starts it; nil when missing
	missing string   // why it is missing
}

// cell is what a missing peer's cells say: the reason's first words (the
// table's notes give it whole).
func (p peer) cell() string {
	short, _, _ := strings.Cut(p.missing, ":")
	return "n/a: " + short
}

var (
	mcpscopeBin = flag.String("mcpscope", "", "the mcpscope binary")
	npmPrefix   = flag.String("npm", "", "folder whose node_modules holds server-everything and the Inspector")
	mcptuiBin   = flag.String("mcp-tui", "", "the mcp-tui binary (empty: missing)")
	mcptuiWhy   = flag.String("mcp-tui-missing", "not installed", "why mcp-tui is missing")
	mcptoolsBin = flag.String("mcptools", "", "the mcptools binary (empty: missing)")
	mcptoolsWhy = flag.String("mcptools-missing", "not installed", "why mcptools is missing")
	helloBin    = flag.String("hello", "", "a Go hello-world binary, the start-up floor")
	runs        = flag.Int("n", 11, "runs of each call and TUI start (--version takes 3n)")
	ciDir       = flag.String("ci", ".ci", "the .ci folder (bare-client.sh) beside the repository's mcp/mcptest/testdata")
	floodN      = flag.Int("flood", 50000, "notifications in the flood")
	only        = flag.String("only", "", "measure only these rows, comma-separated: call, check, tap, screen, version, idle, flood, big")
)

// want reports whether the rows named name are measured.
func want(name string) bool {
	return *only == "" || strings.Contains(","+*only+",", ","+name+",")
}

// relayVar, when set, makes peerbench the relay in front of a server (see
// relay): the variable names the file the stamp goes to.
const relayVar = "PEERBENCH_RELAY"

func main() {
	if spec := os.Getenv(proxyVar); spec != "" {
		os.Exit(bareProxy(spec))
	}
	if stamp := os.Getenv(relayVar); stamp != "" {
		os.Exit(relay(stamp, os.Args[1:]))
	}
	flag.Parse()
	if *mcpscopeBin == "" || *npmPrefix == "" {
		fmt.Fprintln(os.Stderr, "usage: peerbench -mcpscope BIN -npm PREFIX [-mcp-tui BIN] [-mcptools BIN] [-hello BIN] [-n N] [-only ROWS]")
		os.Exit(2)
	}
	started := time.Now()
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	testdata := filepath.Join(*ciDir, "..", "mcp", "mcptest", "testdata")
	se := []string{"node", filepath.Join(*npmPrefix, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")}
	launcher := filepath.Join(*npmPrefix, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
	inspector := peer{name: "Inspector 2.12", argv: []string{"node", launcher}}
	if _, err := os.Stat(launcher); err != nil {
		inspector = peer{name: "Inspector", missing: "not installed"}
	}
	mcptui := peer{name: "mcp-tui", missing: *mcptuiWhy}
	if *mcptuiBin != "" {
		mcptui = peer{name: "mcp-tui", argv: []string{*mcptuiBin}}
	}
	mcptools := peer{name: "mcptools 0.7.1", missing: *mcptoolsWhy}
	if *mcptoolsBin != "" {
		mcptools = peer{name: "mcptools 0.7.1", argv: []string{*mcptoolsBin}}
	}
	demo := []string{*mcpscopeBin, "demo-server"}
	// A fresh HOME, so the Inspector neither reads nor writes the user's
	// catalog.
	home, err := os.MkdirTemp("", "peerbench-home")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	// CI is left out: .ci/run sets it, and Ink, which draws the
	// Inspector's TUI, then draws nothing until the program exits (its
	// is-in-ci check), so every Inspector TUI row failed in CI alone.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "NO_UPDATE_NOTIFIER=1")

	var t table
	peers := []peer{inspector, mcptools, mcptui}
	t.peers = []string{inspector.name, mcptools.name, mcptui.name}
	for _, p := range peers {
		if p.argv == nil {
			t.notes = append(t.notes, p.name+": "+p.missing)
		}
	}

	if want("call") {
		// The four ways a call meets its fixed cost: a slow server (Node's
		// start-up dominates) and a fast one (mcpscope's own, in Go), a list
		// and a tool call (which mcpscope precedes with a tools/list, to
		// check the arguments against the inputSchema).
		cases := []struct {
			what, server string
			argv         []string
			mcpscope     []string
			mcptools     []string
			bare         string // BARE_REQUEST
		}{
			{"`call tools/list` on server-everything", "server-everything", se,
				[]string{"--method", "tools/list"}, []string{"tools"}, ""},
			{"`call tools/call` (echo) on server-everything", "server-everything", se,
				[]string{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"},
				[]string{"call", "echo", "--params", `{"message":"hi"}`},
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`},
			{"`call tools/list` on the demo server", "demo", demo,
				[]string{"--method", "tools/list"}, []string{"tools"}, ""},
			{"`call tools/call` (add) on the demo server", "demo", demo,
				[]string{"--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "--tool-arg", "b=2"},
				[]string{"call", "add", "--params", `{"a":1,"b":2}`},
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`},
		}
		for _, c := range cases {
			callEnv := env
			if c.bare != "" {
				callEnv = append(append([]string{}, env...), "BARE_REQUEST="+c.bare)
			}
			inspectorArgs := append(append([]string{"--cli"}, c.argv...), "--method", c.mcpscope[1])
			if c.bare != "" {
				inspectorArgs = append(inspectorArgs, "--tool-name", c.mcpscope[3])
				for i := 4; i+1 < len(c.mcpscope); i += 2 {
					inspectorArgs = append(inspectorArgs, "--tool-arg", c.mcpscope[i+1])
				}
			}
			jobs := []job{
				{label: "mcpscope", argv: append(append(append([]string{*mcpscopeBin, "call"}, c.mcpscope...), "--"), c.argv...)},
				{label: "bare client", argv: append([]string{"bash", filepath.Join(*ciDir, "bare-client.sh")}, c.argv...)},
				peerJob(inspector, inspectorArgs...),
				peerJob(mcptools, append(append([]string{}, c.mcptools...), c.argv...)...),
				peerJob(mcptui, append(mcptuiTarget(c.argv), "tool", "list")...),
			}
			if c.bare != "" {
				jobs[4] = job{label: mcptui.name, missing: mcptui.cell()}
				if mcptui.argv != nil {
					jobs[4].missing = "not measured"
				}
			}
			res := measure(jobs, *runs, callEnv)
			floor := res[1]
			cell := func(r result) string {
				cl := r.cell()
				if r.ok() && floor.ok() {
					cl += fmt.Sprintf(", %.2f×", r.median()/floor.median())
				}
				return cl
			}
			r := t.row(c.what, "≤ 1.05× a bare client, ≤ mcptools", cell(res[0]))
			r.note = "bare client " + floor.cell()
			if floor.ok() && res[0].ok() {
				r.ok = res[0].median() <= 1.05*floor.median()
				if res[3].ok() {
					r.ok = r.ok && res[0].median() <= res[3].median()
				}
			}
			for i, p := range peers {
				r.peers[p.name] = cell(res[2+i])
			}
		}
	}

	if want("check") {
		// check sends each list once, and the doctor and the report share
		// them. Beyond call tools/list it sends the other lists, counts
		// the tools' tokens, and waits up to a second for the server to
		// exit once its stdin is closed (stdio/forced-exit).
		for _, c := range []struct {
			what, note string
			argv       []string
		}{
			{"server-everything", "it exits a second after its stdin closes, so SIGTERM is sent; check waits for that", se},
			{"the demo server", "it adds the other lists and the token costs", demo},
		} {
			jobs := []job{
				{label: "check", argv: append([]string{*mcpscopeBin, "check", "--"}, c.argv...)},
				{label: "call", argv: append([]string{*mcpscopeBin, "call", "--method", "tools/list", "--"}, c.argv...)},
			}
			res := measure(jobs, max(3, *runs/2), env)
			r := t.row("`check` on "+c.what+", against `call tools/list` on it", "≤ 1.5×", res[0].cell())
			if res[0].ok() && res[1].ok() {
				r.mcpscope += fmt.Sprintf(", %.2f×", res[0].median()/res[1].median())
				r.ok = res[0].median() <= 1.5*res[1].median()
			}
			r.note = "call tools/list " + res[1].cell() + "; " + c.note
			for _, p := range peers {
				r.peers[p.name] = "n/a: no check"
			}
		}
	}

	if want("tap") {
		tapRows(&t, se, env)
	}

	if want("screen") {
		screens(&t, self, se, inspector, mcptui, env)
	}

	if want("version") {
		jobs := []job{{label: "mcpscope", argv: []string{*mcpscopeBin, "--version"}}}
		if *helloBin != "" {
			jobs = append(jobs, job{label: "Go hello-world", argv: []string{*helloBin}})
		}
		jobs = append(jobs, peerJob(inspector, "--cli", "--version"), peerJob(mcptools, "version"), peerJob(mcptui, "--version"))
		res := measure(jobs, 3**runs, env)
		r := t.row("`mcpscope --version`", "≤ 20 ms", res[0].cell())
		r.ok = res[0].ok() && res[0].median() <= 20
		if *helloBin != "" {
			r.note = "a Go hello-world " + res[1].cell()
			res = append(res[:1], res[2:]...)
		}
		for i, p := range peers {
			r.peers[p.name] = res[1+i].cell()
		}
	}

	if want("idle") {
		inspectorTUI := peerJob(inspector, append([]string{"--tui"}, demo...)...)
		// It starts disconnected; c connects the server it was given.
		inspectorTUI.connectWhen, inspectorTUI.connectKey, inspectorTUI.connected = "[Connect]", "c", "● connected"
		jobs := []job{
			{label: "mcpscope", argv: append([]string{*mcpscopeBin, "--"}, demo...), connected: "● ready"},
			inspectorTUI,
			{label: mcptools.name, missing: "n/a: no TUI"},
			peerJob(mcptui, mcptuiTarget(demo)...),
		}
		cells := make([]string, len(jobs))
		var mine float64
		for i, j := range jobs {
			if j.argv == nil {
				cells[i] = j.missing
				continue
			}
			var anon, pss []float64
			up := true
			for k := 0; k < 3; k++ {
				m, err := idle(j, env, 5*time.Second)
				if err != nil {
					cells[i] = "failed: " + err.Error()
					break
				}
				up = up && m.serverUp
				anon, pss = append(anon, m.anon), append(pss, m.pss)
			}
			if len(anon) == 3 {
				cells[i] = fmt.Sprintf("%.1f MiB (%s), PSS %.1f", med(anon), spread(anon, "%.1f"), med(pss))
				if !up {
					cells[i] += " (the server was not running 5 s in: not connected)"
				}
				if i == 0 {
					mine = med(anon)
				}
			}
		}
		r := t.row("idle TUI after connecting, private memory (RssAnon; PSS beside it)", "≤ 20 MiB", cells[0])
		r.ok = mine > 0 && mine <= 20
		r.note = "5 s after connecting to the demo server, its process left out"
		for i, p := range peers {
			r.peers[p.name] = cells[1+i]
		}
	}

	if want("flood") {
		flood := filepath.Join(testdata, "flood_server.py")
		var lags, peaks, cpus []float64
		cell := ""
		for i := 0; i < 2; i++ {
			f, err := floodMcpscope(flood, env)
			if err != nil {
				cell = "failed: " + err.Error()
				break
			}
			lags, peaks, cpus = append(lags, f.lag), append(peaks, f.peak), append(cpus, f.cpu)
		}
		if len(lags) == 2 {
			cell = fmt.Sprintf("%.2f s (%s); %.1f MiB (%s)", med(lags), spread(lags, "%.2f"), med(peaks), spread(peaks, "%.1f"))
		}
		r := t.row(fmt.Sprintf("%s-notification flood: last frame on screen after it arrived; peak private memory", thousands(*floodN)), "≤ 0.5 s; ≤ 60 MiB", cell)
		r.ok = len(lags) == 2 && med(lags) <= 0.5 && med(peaks) <= 60
		if len(cpus) > 0 {
			r.note = fmt.Sprintf("mcpscope keeps every frame; %.2f s of CPU", med(cpus))
		}
		r.peers[mcptools.name] = "n/a: no TUI"
		for _, p := range []peer{inspector, mcptui} {
			j := floodPeerJob(p, flood)
			if j.argv == nil {
				r.peers[p.name] = j.missing
				continue
			}
			f, err := floodPeer(j, env)
			if err != nil {
				r.peers[p.name] = "failed: " + err.Error()
				continue
			}
			r.peers[p.name] = fmt.Sprintf("quiet %.1f s after (shows no count to wait for); %.1f MiB; %.2f s CPU", f.lag, f.peak, f.cpu)
		}
	}

	if want("big") {
		huge := []string{"python3", filepath.Join(testdata, "huge_server.py")}
		for _, mb := range []int{20, 160} {
			var lags, peaks, adds []float64
			cell := ""
			for i := 0; i < 3; i++ {
				f, err := bigMcpscope(huge, env, mb)
				if err != nil {
					cell = "failed: " + err.Error()
					break
				}
				lags, peaks, adds = append(lags, f.lag), append(peaks, f.peak), append(adds, f.added)
			}
			if len(lags) == 3 {
				cell = fmt.Sprintf("%.2f s (%s); adds %.2f× its size (%s), peak private %.0f MiB", med(lags), spread(lags, "%.2f"), med(adds), spread(adds, "%.2f"), med(peaks))
			}
			budget := "≤ 0.5 s; adds ≤ 1.5× its size"
			if mb != 20 {
				budget = "adds ≤ 1.5× its size"
			}
			r := t.row(fmt.Sprintf("%d MB JSON result: first screen; private memory it adds", mb), budget, cell)
			r.ok = len(lags) == 3 && med(adds) <= 1.5 && (mb != 20 || med(lags) <= 0.5)
			r.note = "after the server wrote it; the memory added is the peak less the TUI's just before the call, against the response line's size; the peers' cells are their headless call to its end"
			jobs := []job{
				peerJob(inspector, append(append([]string{"--cli"}, huge...), "--method", "tools/call", "--tool-name", "big")...),
				peerJob(mcptools, append([]string{"call", "big", "--params", "{}"}, huge...)...),
				peerJob(mcptui, append(mcptuiTarget(huge), "tool", "call", "big")...),
			}
			for i, res := range measure(jobs, 3, append(env, "HUGE_JSON=1", fmt.Sprintf("HUGE_MB=%d", mb))) {
				c := res.cell()
				if res.ok() {
					c += fmt.Sprintf(", peak private %.0f MiB", med(res.peak))
				}
				r.peers[peers[i].name] = c
			}
		}
	}

	t.print(os.Stdout)
	fmt.Printf("\n(%d runs of each call and TUI start, %d of --version, 3 of idle and the big result, 2 floods; measured in %.0f s; load %s)\n",
		*runs, 3**runs, time.Since(started).Seconds(), loadAverage())
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
		return job{label: p.name, missing: p.cell()}
	}
	return job{label: p.name, argv: append(append([]string{}, p.argv...), args...)}
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
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
	wall, cpu, peak []float64 // ms, ms, MiB of private memory
	err             error
}

func (r result) ok() bool        { return r.argv != nil && r.err == nil && len(r.wall) > 0 }
func (r result) median() float64 { return med(r.wall) }

func (r result) cell() string {
	switch {
	case r.argv == nil:
		return r.missing
	case r.err != nil:
		return "failed: " + r.err.Error()
	}
	return fmt.Sprintf("%s ms (%s)", num(med(r.wall)), spread(r.wall, "%.1f"))
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
// in ms (the process and the children it waited for) and its peak private
// memory in MiB (RssAnon, sampled every 5 ms from /proc, the process
// alone).
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
			hwm = max(hwm, procStatus(cmd.Process.Pid)["RssAnon"])
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
func procStatus(pid int) map[string]float64 { return procKB(fmt.Sprintf("/proc/%d/status", pid)) }

// pss is the process's proportional set size in MiB.
func pss(pid int) float64 { return procKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid))["Pss"] }

// procKB reads the "Name: N kB" lines of a /proc file, in MiB.
func procKB(path string) map[string]float64 {
	m := map[string]float64{}
	b, err := os.ReadFile(path)
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

// screen is a program running in a detached tmux session of its own,
// watched through tmux's control mode, which reports every update of the
// pane as it happens: when text first shows is the time of the update
// that put it there, not of a poll.
type screen struct {
	sock    string
	pid     int
	started time.Time // when the program was exec'ed
	last    atomic.Int64
	updated chan struct{}
	ctl     *exec.Cmd
	ctlIn   io.WriteCloser
}

// startScreen runs argv in a w×h tmux pane. The pane's shell waits for a
// line, touches a file and execs argv, so the program starts after the
// control client listens, and the file's time is the exec's.
func startScreen(argv []string, env []string, w, h int) (*screen, error) {
	dir, err := os.MkdirTemp("", "peerbench-screen")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	stamp := filepath.Join(dir, "exec")
	// A socket of its own path, which stop removes: tmux leaves a -L
	// socket behind when its server exits.
	sock := filepath.Join(os.TempDir(), fmt.Sprintf("peerbench-%d-%d.sock", os.Getpid(), time.Now().UnixNano()))
	s := &screen{sock: sock, updated: make(chan struct{}, 1)}
	script := "read _ && : >" + quote(stamp) + " && exec"
	for _, a := range argv {
		script += " " + quote(a)
	}
	cmd := exec.Command("tmux", "-S", s.sock, "new-session", "-d", "-s", "p", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), script,
		";", "set-option", "-g", "window-size", "manual")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(s.sock)
		return nil, fmt.Errorf("tmux: %v: %s", err, out)
	}
	s.ctl = exec.Command("tmux", "-S", s.sock, "-C", "attach", "-t", "p")
	s.ctl.Env = env
	s.ctlIn, _ = s.ctl.StdinPipe()
	out, _ := s.ctl.StdoutPipe()
	if err := s.ctl.Start(); err != nil {
		s.stop()
		return nil, err
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		once := sync.Once{}
		for sc.Scan() {
			line := sc.Bytes()
			if bytes.HasPrefix(line, []byte("%output ")) {
				s.last.Store(time.Now().UnixNano())
				select {
				case s.updated <- struct{}{}:
				default:
				}
			} else if bytes.HasPrefix(line, []byte("%end")) {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready: // the client's attach was answered: it hears the pane from here on
	case <-time.After(10 * time.Second):
		s.stop()
		return nil, fmt.Errorf("tmux's control client did not attach")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "-t", "p", "#{pane_pid}")))
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("no pane pid: %v", err)
	}
	s.pid = pid
	s.keys("Enter")
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if fi, err := os.Stat(stamp); err == nil {
			s.started = fi.ModTime()
			return s, nil
		}
		if time.Now().After(end) {
			s.stop()
			return nil, fmt.Errorf("the program never started")
		}
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *screen) tmux(args ...string) string {
	out, _ := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).Output()
	return string(out)
}

func (s *screen) keys(k ...string) { s.tmux(append([]string{"send-keys", "-t", "p"}, k...)...) }
func (s *screen) capture() string  { return s.tmux("capture-pane", "-t", "p", "-p") }
func (s *screen) stop() {
	_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
	s.wait()
	_ = os.Remove(s.sock)
}
func (s *screen) lastUpdate() time.Time { return time.Unix(0, s.last.Load()) }

func (s *screen) wait() {
	if s.ctl != nil && s.ctl.Process != nil {
		_ = s.ctlIn.Close()
		_ = s.ctl.Wait()
	}
}

// waitFor waits until ok holds for the screen and returns the time of the
// update that made it hold: the last one heard of once the screen was
// read, which is that update or, if another came while it was read, one a
// few milliseconds later (never earlier).
func (s *screen) waitFor(ok func(string) bool, limit time.Duration) (time.Time, string, bool) {
	end := time.After(limit)
	for {
		scr := s.capture()
		if ok(scr) {
			return s.lastUpdate(), scr, true
		}
		select {
		case <-s.updated:
		case <-time.After(100 * time.Millisecond):
		case <-end:
			return time.Time{}, scr, false
		}
	}
}

func (s *screen) waitText(text string, limit time.Duration) (time.Time, bool) {
	at, _, ok := s.waitFor(func(scr string) bool { return strings.Contains(scr, text) }, limit)
	return at, ok
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

// tree calls f for pid and its descendants, leaving out the subtrees whose
// command line server says is the server.
func tree(pid int, server func(cmdline string) bool, f func(pid int)) {
	kids := children()
	var walk func(int)
	walk = func(p int) {
		if p != pid && server(cmdline(p)) {
			return
		}
		f(p)
		for _, c := range kids[p] {
			walk(c)
		}
	}
	walk(pid)
}

// peakAnon samples the private memory (RssAnon) of pid's tree, the server
// left out, every 10 ms until stop is called, which returns the peak.
func peakAnon(pid int, server func(string) bool) (stop func() float64) {
	var peak float64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			var sum float64
			tree(pid, server, func(p int) { sum += procStatus(p)["RssAnon"] })
			peak = max(peak, sum)
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() float64 { close(done); <-finished; return peak }
}

type memory struct {
	anon, pss float64
	serverUp  bool
}

// idle starts the job in tmux, connects it if it needs a key for that,
// waits, and adds up the private memory and PSS of its process tree,
// leaving out the server (the subtree whose command line ends in
// "demo-server").
func idle(j job, env []string, wait time.Duration) (memory, error) {
	s, err := startScreen(j.argv, env, 120, 35)
	if err != nil {
		return memory{}, err
	}
	defer s.stop()
	if j.connectKey != "" {
		if _, ok := s.waitText(j.connectWhen, 30*time.Second); !ok {
			return memory{}, fmt.Errorf("%q never showed", j.connectWhen)
		}
		s.keys(j.connectKey)
	}
	if _, ok := s.waitText(j.connected, 30*time.Second); j.connected != "" && !ok {
		return memory{}, fmt.Errorf("%q never showed", j.connected)
	}
	time.Sleep(wait)
	var m memory
	isServer := func(c string) bool {
		up := strings.HasSuffix(strings.TrimSpace(c), "demo-server")
		m.serverUp = m.serverUp || up
		return up
	}
	tree(s.pid, isServer, func(p int) {
		m.anon += procStatus(p)["RssAnon"]
		m.pss += pss(p)
	})
	if m.anon == 0 {
		return m, fmt.Errorf("the process had ended")
	}
	return m, nil
}

// relay runs argv as a server with our stdin and stdout, copying its
// output a line at a time, and writes to stamp, just before it forwards
// the server's answer to tools/list, the time and that answer's tool
// names, one a line: the moment a client can first know the tools.
func relay(stamp string, argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "peerbench relay: no server command")
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "peerbench relay:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench relay:", err)
		return 1
	}
	r := bufio.NewReaderSize(out, 1<<20)
	stamped := false
	for {
		line, err := r.ReadBytes('\n')
		if !stamped && bytes.Contains(line, []byte(`"tools":[`)) {
			var msg struct {
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			if json.Unmarshal(line, &msg) == nil && len(msg.Result.Tools) > 0 {
				var b strings.Builder
				fmt.Fprintf(&b, "%d\n", time.Now().UnixNano())
				for _, t := range msg.Result.Tools {
					b.WriteString(t.Name + "\n")
				}
				_ = os.WriteFile(stamp, []byte(b.String()), 0o600)
				stamped = true
			}
		}
		if _, werr := os.Stdout.Write(line); werr != nil || err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// readRelayStamp waits for the relay's stamp: when the tools/list answer
// went to the client, and its tool names.
func readRelayStamp(path string, limit time.Duration) (time.Time, []string, error) {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		ns, err := strconv.ParseInt(lines[0], 10, 64)
		if err != nil || len(lines) < 2 {
			return time.Time{}, nil, fmt.Errorf("an unreadable relay stamp %q", b)
		}
		return time.Unix(0, ns), lines[1:], nil
	}
	return time.Time{}, nil, fmt.Errorf("the server never answered tools/list within %v", limit)
}

// screenJob is how one TUI is started and known on screen: the text of its
// first screen, and how its tools show once it has them.
type screenJob struct {
	name    string
	argv    func(server []string) []string // nil when missing
	missing string
	first   string // text of the first screen
	// connect is the key that connects, and the text that says it may be
	// pressed, for a TUI that does not connect on its own.
	connectWhen, connectKey string
	// tools is what shows once the tools are on screen, from their names.
	tools func(names []string) string
	// toolsHow says what that is, when it is not the tools' names.
	toolsHow string
}

// screens measures the TUI's first screen after exec, and the tools on
// screen after the server's tools/list answer, on server-everything
// through the relay, the TUIs' runs alternating.
func screens(t *table, self string, se []string, inspector, mcptui peer, env []string) {
	jobs := []screenJob{{
		name:  "mcpscope",
		argv:  func(server []string) []string { return append([]string{*mcpscopeBin, "--"}, server...) },
		first: "─ Log",
		// The tools pane lists them in the server's order; the first is
		// the one it shows first.
		tools: func(names []string) string { return names[0] },
	}, {
		name: inspector.name, missing: inspector.cell(),
		first:       "MCP Inspector TUI",
		connectWhen: "[Connect]", connectKey: "c",
		tools:    func(names []string) string { return fmt.Sprintf("Tools (%d)", len(names)) },
		toolsHow: "its tab bar's tool count (c connects it)",
	}, {
		name: mcptui.name, missing: mcptui.cell(),
		first: "MCP",
		tools: func(names []string) string { return names[0] },
	}}
	if inspector.argv != nil {
		jobs[1].argv = func(server []string) []string {
			return append(append(append([]string{}, inspector.argv...), "--tui"), server...)
		}
	}
	if mcptui.argv != nil {
		jobs[2].argv = func(server []string) []string {
			return append(append([]string{}, mcptui.argv...), mcptuiTarget(server)...)
		}
	}
	firsts := make([][]float64, len(jobs))
	tools := make([][]float64, len(jobs))
	firstErrs, toolsErrs := make([]error, len(jobs)), make([]error, len(jobs))
	for round := 0; round < *runs; round++ {
		for i, j := range jobs {
			if j.argv == nil || firstErrs[i] != nil || toolsErrs[i] != nil {
				continue
			}
			first, tl, err := screenOnce(j, self, se, env)
			switch {
			case first == 0:
				firstErrs[i] = err
			case err != nil:
				toolsErrs[i] = err
			}
			if first > 0 {
				firsts[i] = append(firsts[i], first)
			}
			if err == nil {
				tools[i] = append(tools[i], tl)
			}
		}
	}
	cell := func(i int, v [][]float64, errs []error, how string) string {
		switch {
		case jobs[i].argv == nil:
			return jobs[i].missing
		case errs[i] != nil:
			return "failed: " + errs[i].Error()
		case len(v[i]) == 0:
			return "no measurement (the screen never showed it)"
		}
		c := fmt.Sprintf("%s ms (%s)", num(med(v[i])), spread(v[i], "%.1f"))
		if how != "" {
			c += ", " + how
		}
		return c
	}
	r := t.row("TUI: first screen after exec", "≤ 100 ms", cell(0, firsts, firstErrs, ""))
	r.ok = firstErrs[0] == nil && len(firsts[0]) > 0 && med(firsts[0]) <= 100
	r.note = "on server-everything, 120×35 in tmux"
	r2 := t.row("TUI: tools on screen after the tools/list answer", "≤ 50 ms", cell(0, tools, toolsErrs, ""))
	r2.ok = firstErrs[0] == nil && toolsErrs[0] == nil && len(tools[0]) > 0 && med(tools[0]) <= 50
	r2.note = "the answer stamped by a relay in front of the server"
	for i, j := range jobs[1:] {
		r.peers[j.name] = cell(i+1, firsts, firstErrs, "")
		r2.peers[j.name] = cell(i+1, tools, append([]error(nil), toolsErrs...), j.toolsHow)
	}
	r.peers["mcptools 0.7.1"], r2.peers["mcptools 0.7.1"] = "n/a: no TUI", "n/a: no TUI"
}

// screenOnce starts one TUI on the server behind the relay and returns, in
// ms, its first screen after exec and its tools on screen after the
// server's answer.
func screenOnce(j screenJob, self string, server []string, env []string) (first, tools float64, err error) {
	dir, err := os.MkdirTemp("", "peerbench-relay")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	stamp := filepath.Join(dir, "tools")
	// env(1) puts the relay's variable on the server's command line: a
	// TUI may not pass its own environment on to the server.
	relayed := append([]string{"env", relayVar + "=" + stamp, self}, server...)
	s, err := startScreen(j.argv(relayed), env, 120, 35)
	if err != nil {
		return 0, 0, err
	}
	defer s.stop()
	at, ok := s.waitText(j.first, 30*time.Second)
	if !ok {
		return 0, 0, fmt.Errorf("%q never showed", j.first)
	}
	first = ms(at.Sub(s.started))
	if j.connectKey != "" {
		if _, ok := s.waitText(j.connectWhen, 30*time.Second); !ok {
			return first, 0, fmt.Errorf("%q never showed", j.connectWhen)
		}
		s.keys(j.connectKey)
	}
	answered, names, err := readRelayStamp(stamp, 60*time.Second)
	if err != nil {
		return first, 0, err
	}
	marker := j.tools(names)
	at, ok = s.waitText(marker, 30*time.Second)
	if !ok {
		return first, 0, fmt.Errorf("%q never showed", marker)
	}
	return first, ms(at.Sub(answered)), nil
}

type floodResult struct{ lag, cpu, peak float64 }

var framesRe = regexp.MustCompile(`Log · (\d+) frames`)

// floodMcpscope runs mcpscope's TUI on the flood server and waits until
// the log's title counts every frame: how long after the server wrote its
// last frame, the CPU time, and the peak private memory.
func floodMcpscope(server string, env []string) (floodResult, error) {
	stamp, err := os.CreateTemp("", "peerbench-flood")
	if err != nil {
		return floodResult{}, err
	}
	stamp.Close()
	defer os.Remove(stamp.Name())
	env = append(env, fmt.Sprintf("FLOOD_N=%d", *floodN), "FLOOD_STAMP="+stamp.Name())
	s, err := startScreen([]string{*mcpscopeBin, "--", "python3", server}, env, 120, 35)
	if err != nil {
		return floodResult{}, err
	}
	defer s.stop()
	isServer := func(c string) bool { return strings.Contains(c, "flood_server.py") }
	peak := peakAnon(s.pid, isServer)
	want := *floodN + 3
	at, _, ok := s.waitFor(func(scr string) bool {
		m := framesRe.FindStringSubmatch(scr)
		n := 0
		if m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		return n >= want
	}, 60*time.Second)
	if !ok {
		peak()
		return floodResult{}, fmt.Errorf("not all %d frames showed within 60 s", want)
	}
	b, _ := os.ReadFile(stamp.Name())
	last, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		peak()
		return floodResult{}, fmt.Errorf("the flood server left no time stamp")
	}
	return floodResult{lag: float64(at.UnixNano())/1e9 - last, cpu: cpuSeconds(s.pid), peak: peak()}, nil
}

func floodPeerJob(p peer, server string) job {
	if p.argv == nil {
		return job{label: p.name, missing: p.cell()}
	}
	// The server's settings go on its command line: a peer may not pass
	// its own environment on to the server. FLOOD_STAMP is added by
	// floodPeer.
	cmd := []string{"env", fmt.Sprintf("FLOOD_N=%d", *floodN), "FLOOD_STAMP=%s", "python3", server}
	j := job{label: p.name}
	switch {
	case strings.HasPrefix(p.name, "Inspector"):
		j.argv = append(append(append([]string{}, p.argv...), "--tui"), cmd...)
		j.connectWhen, j.connectKey = "[Connect]", "c"
	default:
		j.argv = append(append([]string{}, p.argv...), mcptuiTarget(cmd)...)
	}
	return j
}

// floodPeer runs a peer's TUI on the flood server, connects it, and waits
// until the server has sent its last frame and the peer's CPU time has not
// grown for a second; it reports the peer's CPU time and peak private
// memory (its process tree, the server left out) and when it went quiet.
func floodPeer(j job, env []string) (floodResult, error) {
	stamp, err := os.CreateTemp("", "peerbench-flood")
	if err != nil {
		return floodResult{}, err
	}
	stamp.Close()
	defer os.Remove(stamp.Name())
	argv := make([]string, len(j.argv))
	for i, a := range j.argv {
		argv[i] = strings.Replace(a, "FLOOD_STAMP=%s", "FLOOD_STAMP="+stamp.Name(), 1)
	}
	s, err := startScreen(argv, env, 120, 35)
	if err != nil {
		return floodResult{}, err
	}
	defer s.stop()
	if j.connectKey != "" {
		if _, ok := s.waitText(j.connectWhen, 30*time.Second); !ok {
			return floodResult{}, fmt.Errorf("%q never showed", j.connectWhen)
		}
		s.keys(j.connectKey)
	}
	isServer := func(c string) bool { return strings.Contains(c, "flood_server.py") }
	peak := peakAnon(s.pid, isServer)
	cpu := func() (sum float64) {
		tree(s.pid, isServer, func(p int) { sum += cpuSeconds(p) })
		return sum
	}
	var last float64
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && last == 0 {
		b, _ := os.ReadFile(stamp.Name())
		last, _ = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		time.Sleep(50 * time.Millisecond)
	}
	if last == 0 {
		peak()
		return floodResult{}, fmt.Errorf("the flood server never finished")
	}
	prev := cpu()
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		c := cpu()
		if c-prev < 0.02 {
			return floodResult{lag: float64(time.Now().Add(-time.Second).UnixNano())/1e9 - last, cpu: c, peak: peak()}, nil
		}
		prev = c
	}
	peak()
	return floodResult{}, fmt.Errorf("still busy 90 s in")
}

// bigMcpscope calls the huge server's tool in mcpscope's TUI (3, enter,
// ctrl+s) and reports how long after the server wrote its 20 MB JSON
// answer the first line of it was on screen, and the peak private memory.
// bigResult is one huge result in the TUI: how long after the server
// wrote it its first row was on screen (s), the peak private memory (MiB),
// and what the result added to it as a multiple of the response line.
type bigResult struct{ lag, peak, added float64 }

func bigMcpscope(server []string, env []string, mb int) (bigResult, error) {
	stamp, err := os.CreateTemp("", "peerbench-big")
	if err != nil {
		return bigResult{}, err
	}
	stamp.Close()
	defer os.Remove(stamp.Name())
	_ = os.Remove(stamp.Name())
	env = append(env, "HUGE_JSON=1", fmt.Sprintf("HUGE_MB=%d", mb), "HUGE_STAMP="+stamp.Name())
	s, err := startScreen(append([]string{*mcpscopeBin, "--theme", "dark", "--"}, server...), env, 120, 35)
	if err != nil {
		return bigResult{}, err
	}
	defer s.stop()
	if _, ok := s.waitText("Tools · 1", 30*time.Second); !ok {
		return bigResult{}, fmt.Errorf("the tool list never showed")
	}
	s.keys("3")
	time.Sleep(200 * time.Millisecond)
	s.keys("Enter")
	time.Sleep(500 * time.Millisecond)
	isServer := func(c string) bool { return strings.Contains(c, "huge_server.py") }
	var before float64
	tree(s.pid, isServer, func(p int) { before += procStatus(p)["RssAnon"] })
	peak := peakAnon(s.pid, isServer)
	s.keys("C-s")
	at, ok := s.waitText("row 0000000", 120*time.Second)
	if !ok {
		peak()
		return bigResult{}, fmt.Errorf("the result never showed")
	}
	// The stamp is the time the response was written and its size; the
	// memory is sampled a moment longer, for what the first screen builds.
	b, err := os.ReadFile(stamp.Name())
	stampTime, stampSize, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	sent, perr := strconv.ParseFloat(stampTime, 64)
	size, serr := strconv.ParseFloat(stampSize, 64)
	if err != nil || perr != nil || serr != nil || size == 0 {
		peak()
		return bigResult{}, fmt.Errorf("the server left no time stamp")
	}
	time.Sleep(time.Second)
	hwm := peak()
	return bigResult{lag: float64(at.UnixNano())/1e9 - sent, peak: hwm, added: (hwm - before) * (1 << 20) / size}, nil
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
	if len(v) == 0 {
		return "no samples"
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	lo, hi := s[0], s[len(s)-1]
	if len(s) >= 10 {
		lo, hi = s[len(s)/10], s[len(s)*9/10]
	}
	return fmt.Sprintf(f+"–"+f, lo, hi)
}

// thousands writes n with commas between its thousands.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func num(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// row is one budget: mcpscope's figure, whether it is within the budget,
// a note, and each peer's cell.
type row struct {
	what, budget, mcpscope, note string
	ok                           bool
	peers                        map[string]string
}

// table is the budget rows, printed as a Markdown table (the last runs
// in docs/performance.md take it as it is) and the notes under it.
type table struct {
	peers []string
	rows  []*row
	notes []string // about the peers
}

func (t *table) row(what, budget, mcpscope string) *row {
	r := &row{what: what, budget: budget, mcpscope: mcpscope, peers: map[string]string{}}
	t.rows = append(t.rows, r)
	return r
}

func (t *table) print(f *os.File) {
	bw := bufio.NewWriter(f)
	defer bw.Flush()
	fmt.Fprintf(bw, "| what | budget | mcpscope | %s |\n|---|---|---|%s\n", strings.Join(t.peers, " | "), strings.Repeat("---|", len(t.peers)))
	for _, r := range t.rows {
		verdict := "✗ over"
		if r.ok {
			verdict = "✓"
		}
		cells := make([]string, len(t.peers))
		for i, p := range t.peers {
			cells[i] = r.peers[p]
			if cells[i] == "" {
				cells[i] = "—"
			}
		}
		fmt.Fprintf(bw, "| %s | %s | %s %s | %s |\n", r.what, r.budget, r.mcpscope, verdict, strings.Join(cells, " | "))
	}
	fmt.Fprintln(bw)
	for _, r := range t.rows {
		if r.note != "" {
			fmt.Fprintf(bw, "- %s: %s\n", r.what, r.note)
		}
	}
	for _, n := range t.notes {
		fmt.Fprintf(bw, "- %s\n", n)
	}
}
