package tap

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The HTTP tap's overhead: the same client and server, direct, through
// the tap, through a bare reverse proxy (net/http's own, with the tap's
// transport, nothing recorded: the floor of an HTTP proxy in the path)
// and through a TCP relay (bytes copied both ways on one connection each:
// the floor of any process in the path), their round trips in a rotating
// order so that all four see the same machine.
//
// Test-binary roles (TestMain), each a proxy in a process of its own that
// says "point the client at URL " on stderr as `mcpscope tap --listen`
// does:
//
//	MCPSCOPE_TAP_AS_HTTP_TAP=URL  the HTTP tap (RunHTTP) in front of URL
//	MCPSCOPE_TAP_HTTP_RELAY=URL   the bare reverse proxy in front of URL
//	MCPSCOPE_TAP_TCP_RELAY=URL    the TCP relay in front of URL's host
const (
	httpTapEnv   = "MCPSCOPE_TAP_AS_HTTP_TAP"
	httpRelayEnv = "MCPSCOPE_TAP_HTTP_RELAY"
	tcpRelayEnv  = "MCPSCOPE_TAP_TCP_RELAY"
)

// runHTTPRole plays one of the roles above; ok is false when the process
// has none of them.
func runHTTPRole() (code int, ok bool) {
	if target, ok := os.LookupEnv(httpTapEnv); ok {
		_ = os.Unsetenv(httpTapEnv)
		Lean()
		err := RunHTTP(context.Background(), HTTPOptions{Name: "bench", Listen: "127.0.0.1:0", Target: target,
			Ready: func(local string) { fmt.Fprintf(os.Stderr, "point the client at %s (tap)\n", local) }})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2, true
		}
		return 0, true
	}
	if target, ok := os.LookupEnv(httpRelayEnv); ok {
		_ = os.Unsetenv(httpRelayEnv)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2, true
		}
		fmt.Fprintf(os.Stderr, "point the client at http://%s/ (bare relay)\n", ln.Addr())
		_ = http.Serve(ln, bareRelay(target))
		return 0, true
	}
	if target, ok := os.LookupEnv(tcpRelayEnv); ok {
		_ = os.Unsetenv(tcpRelayEnv)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2, true
		}
		fmt.Fprintf(os.Stderr, "point the client at http://%s/mcp (TCP relay)\n", ln.Addr())
		serveTCPRelay(ln, target)
		return 0, true
	}
	return 0, false
}

// serveTCPRelay copies each connection's bytes to and from a connection
// of its own to target's host until ln closes.
func serveTCPRelay(ln net.Listener, target string) {
	u, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer func() { _ = c.Close() }()
			up, err := net.Dial("tcp", u.Host)
			if err != nil {
				return
			}
			defer func() { _ = up.Close() }()
			go func() { _, _ = io.Copy(up, c) }()
			_, _ = io.Copy(c, up)
		}()
	}
}

// bareRelay is the floor: what any reverse proxy made with net/http and
// the tap's transport costs, with nothing recorded or looked at.
func bareRelay(target string) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path, pr.Out.Host = u.Scheme, u.Host, u.Path, u.Host
		},
		Transport:     newUpstreamTransport(),
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
}

// startHTTPProxy runs a proxy process and returns its local URL, from the
// line it writes on stderr.
func startHTTPProxy(tb testing.TB, name string, args, env []string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	_, rest, ok := strings.Cut(line, "point the client at ")
	local, _, _ := strings.Cut(rest, " ")
	if err != nil || !ok {
		tb.Fatalf("%s said %q (%v)", name, line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return local
}

// tapPlace says where the measured tap runs.
type tapPlace int

const (
	// tapInBinary: the mcpscope binary, as a user runs it (built once).
	tapInBinary tapPlace = iota
	// tapInProcess: the test binary's RunHTTP role, a process of its own
	// (no build needed: the test's tap).
	tapInProcess
	// tapInline: RunHTTP on a goroutine of the benchmark's own process,
	// the floor a bare relay on another: no process hop, what the proxy
	// and the recorder cost in CPU.
	tapInline
)

// benchResult is the answer the benchmark's server sends, of a usual size.
const benchResult = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a message of a usual size for a tool call, some eighty bytes"}]}}`

// httpOverhead runs n round trips each way (after a warm-up): direct to
// the server, through the tap, through the bare reverse proxy and through
// the TCP relay, rotating which goes first. sse makes the server answer with an event stream, as
// Streamable HTTP servers often do, rather than a JSON body.
func httpOverhead(tb testing.TB, place tapPlace, sse bool, n int) (direct, tapped, relay, hop []time.Duration) {
	tb.Helper()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: "+benchResult+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, benchResult)
	}))
	tb.Cleanup(upstream.Close)
	target := upstream.URL + "/mcp"
	var tapURL, relayURL, hopURL string
	switch place {
	case tapInBinary:
		tapURL = startHTTPProxy(tb, tapBinary, []string{"tap", "--name", "bench", "--listen", "127.0.0.1:0", target}, nil)
	case tapInProcess:
		tapURL = startHTTPProxy(tb, os.Args[0], nil, []string{httpTapEnv + "=" + target})
	case tapInline:
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan string, 1)
		done := make(chan error, 1)
		go func() {
			done <- RunHTTP(ctx, HTTPOptions{Name: "bench", Listen: "127.0.0.1:0", Target: target,
				Ready: func(u string) { ready <- u }})
		}()
		tapURL = <-ready
		tb.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				tb.Error(err)
			}
		})
		relay := httptest.NewServer(bareRelay(target))
		tb.Cleanup(relay.Close)
		relayURL = relay.URL + "/"
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = ln.Close() })
		go serveTCPRelay(ln, target)
		hopURL = "http://" + ln.Addr().String() + "/mcp"
	}
	if relayURL == "" {
		relayURL = startHTTPProxy(tb, os.Args[0], nil, []string{httpRelayEnv + "=" + target})
		hopURL = startHTTPProxy(tb, os.Args[0], nil, []string{tcpRelayEnv + "=" + target})
	}

	client := &http.Client{Transport: &http.Transport{}}
	tb.Cleanup(client.CloseIdleConnections)
	const msg = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a message of a usual size for a tool call, some eighty bytes"}}}`
	want := benchResult
	if sse {
		want = "event: message\ndata: " + benchResult + "\n\n"
	}
	roundTrip := func(url string) time.Duration {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		took := time.Since(start)
		if err != nil || string(got) != want {
			tb.Fatalf("%s answered %q (%v)", url, got, err)
		}
		return took
	}
	urls := [...]string{target, tapURL, relayURL, hopURL}
	for range 200 { // warm up: connections, the recorder
		for _, u := range urls {
			roundTrip(u)
		}
	}
	var took [len(urls)][]time.Duration
	for i := range took {
		took[i] = make([]time.Duration, n)
	}
	for i := range n {
		for k := range urls {
			j := (i + k) % len(urls)
			took[j][i] = roundTrip(urls[j])
		}
	}
	return took[0], took[1], took[2], took[3]
}

// BenchmarkHTTPTapAddedLatency reports the latency the HTTP tap adds to
// one POST and its answer at the median and the 99th percentile, beside
// what the bare reverse proxy and the TCP relay add in the same rounds
// (the floors) and the tap's median above the reverse proxy's. The tap is the mcpscope
// binary (MCPSCOPE_TAP_BENCH_BINARY picks another build), the test
// binary's RunHTTP role, or RunHTTP in the benchmark's own process; the
// answer a JSON body or an event stream. -benchtime Nx sets the rounds
// (at least 2,000).
func BenchmarkHTTPTapAddedLatency(b *testing.B) {
	for _, c := range []struct {
		name  string
		place tapPlace
		sse   bool
	}{
		{"binary/json", tapInBinary, false}, {"binary/sse", tapInBinary, true},
		{"process/json", tapInProcess, false}, {"process/sse", tapInProcess, true},
		{"inline/json", tapInline, false}, {"inline/sse", tapInline, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			privateDirs(b)
			if c.place == tapInBinary {
				useTapBinary(b)
			}
			load := loadAverage()
			b.ResetTimer()
			direct, tapped, relay, hop := httpOverhead(b, c.place, c.sse, max(b.N, 2000))
			b.StopTimer()
			d50 := percentile(direct, 0.5)
			b.ReportMetric(ms(percentile(tapped, 0.5)-d50), "added-p50-ms")
			b.ReportMetric(ms(percentile(relay, 0.5)-d50), "proxy-p50-ms")
			b.ReportMetric(ms(percentile(hop, 0.5)-d50), "tcp-p50-ms")
			b.ReportMetric(ms(percentile(tapped, 0.5)-percentile(relay, 0.5)), "above-proxy-p50-ms")
			b.ReportMetric(ms(percentile(tapped, 0.99)-percentile(direct, 0.99)), "added-p99-ms")
			b.ReportMetric(ms(d50), "direct-p50-ms")
			b.ReportMetric(max(load, loadAverage()), "load")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// TestHTTPTapOverhead guards the HTTP tap's added latency at twice its
// budget (0.1 ms at the median): the tap in a process of its own, JSON and
// event-stream answers. A loaded machine raises what any proxy adds (the
// bare reverse proxy's floor is itself over 0.1 ms on two busy cores), so
// a run is over only when the tap adds more than 0.2 ms and more than
// 0.05 ms above the bare reverse proxy in the same rounds, and a case
// fails only when three runs in a row are over.
func TestHTTPTapOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real processes")
	}
	if raceEnabled {
		t.Skip("the race detector's binaries run several times slower")
	}
	for _, sse := range []bool{false, true} {
		var runs []string
		over := true
		for range 3 {
			privateDirs(t)
			direct, tapped, relay, hop := httpOverhead(t, tapInProcess, sse, 1000)
			d50 := percentile(direct, 0.5)
			added, proxy := percentile(tapped, 0.5)-d50, percentile(relay, 0.5)-d50
			runs = append(runs, fmt.Sprintf("%v (a bare reverse proxy %v, a TCP relay %v; direct %v, load %.1f)",
				added, proxy, percentile(hop, 0.5)-d50, d50, loadAverage()))
			if added <= 200*time.Microsecond || added-proxy <= 50*time.Microsecond {
				over = false
				break
			}
		}
		if over {
			t.Errorf("sse %v: the tap adds %s at the median (goal 0.1 ms)", sse, strings.Join(runs, "; then "))
		} else {
			t.Logf("sse %v: the tap adds %s at the median", sse, strings.Join(runs, "; then "))
		}
	}
}
