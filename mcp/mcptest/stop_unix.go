//go:build unix

package mcptest

import (
	"os"
	"syscall"
)

// stopSelf stops the fake server as SIGSTOP from outside would.
func stopSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
