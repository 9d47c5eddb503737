package cli

import (
	"bytes"
	"context"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// startDemoHTTP runs demo-server --http addr until the test ends and
// returns the address it says it listens on.
func startDemoHTTP(t *testing.T, addr string) (printed, said string) {
	t.Helper()
	cmd := &cobra.Command{}
	var out lockedBuffer
	cmd.SetErr(&out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveDemoHTTP(ctx, cmd, addr) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, rest, ok := strings.Cut(out.String(), "listening on "); ok && strings.Contains(rest, "\n") {
			line, _, _ := strings.Cut(rest, "\n")
			printed, _, _ = strings.Cut(line, " ")
			return printed, out.String()
		}
	}
	t.Fatalf("demo-server --http %s printed no address: %q", addr, out.String())
	return "", ""
}

// demo-server --http :PORT listens on loopback only, and says exactly
// where it listens; a named host is taken as given.
func TestDemoServerHTTPBindsLoopback(t *testing.T) {
	printed, said := startDemoHTTP(t, ":0")
	host, port, err := net.SplitHostPort(printed)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("--http :0 listens on %q, want 127.0.0.1:PORT\n%s", printed, said)
	}
	if c, err := net.DialTimeout("tcp", printed, 2*time.Second); err != nil {
		t.Fatalf("nothing listens at the printed %s: %v", printed, err)
	} else {
		_ = c.Close()
	}
	if runtime.GOOS != "linux" {
		return
	}
	// On Linux all of 127/8 reaches this machine: a listener on every
	// interface answers at 127.0.0.2, one on 127.0.0.1 does not.
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.2", port), 2*time.Second); err == nil {
		_ = c.Close()
		t.Errorf("--http :0 answers at 127.0.0.2: it listens beyond 127.0.0.1")
	}
	everywhere, said := startDemoHTTP(t, "0.0.0.0:0")
	host, port, _ = net.SplitHostPort(everywhere)
	if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() || !strings.Contains(said, "every interface") {
		t.Errorf("--http 0.0.0.0:0 said %q", said)
	}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.2", port), 2*time.Second); err != nil {
		t.Errorf("the check cannot tell: a listener on every interface does not answer at 127.0.0.2: %v", err)
	} else {
		_ = c.Close()
	}
}

// lockedBuffer is a bytes.Buffer a command writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
