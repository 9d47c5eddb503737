package tap

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startHTTPTapBinary runs the mcpscope binary as an HTTP tap in front of
// target and returns its local URL.
func startHTTPTapBinary(b *testing.B, target string) string {
	b.Helper()
	cmd := exec.Command(tapBinary, "tap", "--name", "bench", "--listen", "127.0.0.1:0", target)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	_, rest, ok := strings.Cut(line, "point the client at ")
	local, _, _ := strings.Cut(rest, " ")
	if err != nil || !ok {
		b.Fatalf("the tap said %q (%v)", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return local
}

// BenchmarkHTTPTapAddedLatency reports the latency the HTTP tap adds to
// one POST and its answer, at the median and the 99th percentile: the
// same client and server, direct and through the tap, their round trips
// alternating so that both see the same machine. The tap is the mcpscope
// binary (a process of its own, as a user runs it), or RunHTTP in this
// process (no process hop: what the proxy and the recorder cost); the
// answer a JSON body, or an event stream as Streamable HTTP servers send.
func BenchmarkHTTPTapAddedLatency(b *testing.B) {
	for _, c := range []struct {
		name        string
		sse, binary bool
	}{{"binary/json", false, true}, {"binary/sse", true, true}, {"inprocess/json", false, false}, {"inprocess/sse", true, false}} {
		sse := c.sse
		b.Run(c.name, func(b *testing.B) {
			privateDirs(b)
			if c.binary {
				useTapBinary(b)
			}
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				const result = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a message of a usual size for a tool call, some eighty bytes"}]}}`
				if sse {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = io.WriteString(w, "event: message\ndata: "+result+"\n\n")
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, result)
			}))
			defer upstream.Close()
			var local string
			if c.binary {
				local = startHTTPTapBinary(b, upstream.URL+"/mcp")
			} else {
				ctx, cancel := context.WithCancel(context.Background())
				ready := make(chan string, 1)
				done := make(chan error, 1)
				go func() {
					done <- RunHTTP(ctx, HTTPOptions{Name: "bench", Listen: "127.0.0.1:0", Target: upstream.URL + "/mcp",
						Ready: func(u string) { ready <- u }})
				}()
				local = <-ready
				defer func() {
					cancel()
					if err := <-done; err != nil {
						b.Error(err)
					}
				}()
			}

			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			const msg = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a message of a usual size for a tool call, some eighty bytes"}}}`
			roundTrip := func(url string) time.Duration {
				start := time.Now()
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(msg))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			for range 200 { // warm up: connections, the recorder
				roundTrip(upstream.URL + "/mcp")
				roundTrip(local)
			}
			n := max(b.N, 2000)
			direct, tapped := make([]time.Duration, n), make([]time.Duration, n)
			b.ResetTimer()
			for i := range n {
				direct[i] = roundTrip(upstream.URL + "/mcp")
				tapped[i] = roundTrip(local)
			}
			b.ReportMetric(float64(percentile(tapped, 0.5)-percentile(direct, 0.5))/1e6, "added-p50-ms")
			b.ReportMetric(float64(percentile(tapped, 0.99)-percentile(direct, 0.99))/1e6, "added-p99-ms")
			b.ReportMetric(float64(percentile(direct, 0.5))/1e6, "direct-p50-ms")
		})
	}
}
