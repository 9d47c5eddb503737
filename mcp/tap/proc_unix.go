//go:build unix

package tap

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// setProcessGroup gives the server a group of its own, so that a signal the
// tap forwards reaches whatever it spawned (npx, uv, shell wrappers), and a
// Ctrl+C meant for the tap does not reach the server twice.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func signalGroup(cmd *exec.Cmd, sig os.Signal) {
	if cmd.Process == nil {
		return
	}
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(-cmd.Process.Pid, s)
	}
}

// ForwardedSignals are the signals a tap passes on to its server.
var ForwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

var sigTerm, sigKill os.Signal = syscall.SIGTERM, syscall.SIGKILL

// ignoreSIGPIPE makes a write to a client that went away an error instead
// of the end of the tap, so the server can still be shut down in order.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }

// signalName spells a signal as the rest of mcpscope does ("SIGTERM").
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return sig.String()
}

func exitSignal(ps *os.ProcessState) os.Signal {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return nil
}

// Reraise ends the tap the way its server ended: killed by the same
// signal. It returns only if that did not end the process.
func Reraise(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	signal.Reset(s)
	_ = syscall.Kill(os.Getpid(), s)
}

// SignalCode is the shell's exit code for a death by signal.
func SignalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
