//go:build !unix

package mcp

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func exitSignal(ee *exec.ExitError) string { return "" }

func signalName(sig syscall.Signal) string { return sig.String() }
