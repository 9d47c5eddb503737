package cli

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// tapFloodPeak runs the real `mcpscope tap` in front of a server that
// floods n notifications, reads them all as a client would, and returns
// the tap's peak private memory and what it said on stderr.
func tapFloodPeak(t *testing.T, n int, extra ...string) (int64, string) {
	t.Helper()
	base := t.TempDir()
	rt, err := os.MkdirTemp("", "flood")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"tap", "--name", "flood"}, extra...)
	args = append(args, "--", "env", floodVar+"="+strconv.Itoa(n), os.Args[0])
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(base, "home"), "XDG_RUNTIME_DIR="+rt, "OTEL_METRICS_EXPORTER=none")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"flood-client"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := out.ReadBytes('\n'); err != nil {
			t.Fatalf("after %d lines: %v", i, err)
		}
	}
	_ = in.Close()
	peak := peakOf()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the tap: %v\n%s", err, stderr.String())
	}
	return peak, stderr.String()
}

// A tap whose collector is down or never answers keeps, through a
// 200,000-notification flood, its peak private memory within 10 MiB of
// the same tap without export, and says once what it dropped.
func TestTapFloodWithABadCollectorStaysBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates RSS several times over")
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String()
	_ = closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = silent.Close()
		mu.Lock()
		for _, c := range held {
			_ = c.Close()
		}
		mu.Unlock()
	})

	const n = 200_000
	base, said := tapFloodPeak(t, n)
	t.Logf("without export: peak %.1f MiB private", float64(base)/(1<<20))
	if strings.Contains(said, "OpenTelemetry") {
		t.Fatalf("without export: %s", said)
	}
	for name, url := range map[string]string{"closed port": closedURL, "never answers": "http://" + silent.Addr().String()} {
		peak, said := tapFloodPeak(t, n, "--otlp", url)
		t.Logf("%s: peak %.1f MiB private; said %q", name, float64(peak)/(1<<20), strings.TrimSpace(said))
		if peak-base > 10<<20 {
			t.Errorf("%s: the tap's peak private memory is %.1f MiB above the run without export, want at most 10", name, float64(peak-base)/(1<<20))
		}
		if got := len(droppedTapLine.FindAllString(said, -1)); got != 1 {
			t.Errorf("%s: want one line about the dropped spans, got %d:\n%s", name, got, said)
		}
	}
}

// BenchmarkCallWithABadCollector times `mcpscope call` (the real program,
// process start to exit) against server-everything when MCPSCOPE_SERVER_
// EVERYTHING is set, else the built-in demo: without export, with the
// collector's port closed, and with a collector that accepts and never
// answers. A bad collector must cost a call less than 5%.
//
//	go test ./cli -run '^$' -bench BenchmarkCallWithABadCollector -benchtime 20x
func BenchmarkCallWithABadCollector(b *testing.B) {
	bin, err := realBinary()
	if err != nil {
		b.Fatal(err)
	}
	target := []string{}
	if se := os.Getenv("MCPSCOPE_SERVER_EVERYTHING"); se != "" {
		target = []string{"--", "node", se}
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String()
	_ = closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = silent.Close() }()
	go func() {
		var held []net.Conn
		for {
			c, err := silent.Accept()
			if err != nil {
				for _, c := range held {
					_ = c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"no-export", nil},
		{"closed-port", []string{"--otlp", closedURL}},
		{"never-answers", []string{"--otlp", "http://" + silent.Addr().String()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := append([]string{"call", "--method", "tools/list"}, bc.args...)
			args = append(args, target...)
			for b.Loop() {
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), "OTEL_METRICS_EXPORTER=none")
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
		})
	}
}
