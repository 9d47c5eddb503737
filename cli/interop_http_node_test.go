package cli

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startServerEverything runs server-everything over HTTP ("streamableHttp"
// or "sse") on a free loopback port and returns its base URL once it
// accepts connections. It is stopped when the test ends.
func startServerEverything(t *testing.T, mode string) string {
	t.Helper()
	se := serverEverything(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close() // only its port was wanted
	cmd := exec.Command("node", se, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start server-everything %s: %v", mode, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close() // only a probe that the port is open
			return "http://" + addr
		}
		select {
		case <-exited:
			t.Fatalf("server-everything %s exited early: %s", mode, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %s within 20s: %s", mode, addr, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestInteropServerEverythingHTTP(t *testing.T) {
	for _, tc := range []struct{ mode, path string }{
		{"streamableHttp", "/mcp"},
		{"sse", "/sse"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			url := startServerEverything(t, tc.mode) + tc.path
			out, err, code := runCLI(t, "call", "--method", "tools/list", url)
			if code != exitOK || !strings.Contains(out, `"name": "echo"`) || !strings.Contains(out, `"name": "get-sum"`) {
				t.Fatalf("tools/list: exit %d, err %v, out %.300s", code, err, out)
			}
			out, err, code = runCLI(t, "call", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello over http", url)
			if code != exitOK || !strings.Contains(out, "hello over http") {
				t.Errorf("tools/call echo: exit %d, err %v, out %s", code, err, out)
			}
			if tc.mode == "streamableHttp" {
				// The probe sends server/discover, which a legacy server refuses; auto falls back.
				if _, err, code := runCLI(t, "call", "--era", "auto", "--method", "tools/list", url); code != exitOK {
					t.Errorf("--era auto: exit %d: %v", code, err)
				}
			}
		})
	}
}
