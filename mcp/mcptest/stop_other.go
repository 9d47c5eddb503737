//go:build !unix

package mcptest

// stopSelf cannot stop a process where there is no SIGSTOP.
func stopSelf() {}
