//go:build !unix

package tap

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, sig os.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}

// ForwardedSignals are the signals a tap passes on to its server.
var ForwardedSignals = []os.Signal{os.Interrupt}

var sigTerm, sigKill os.Signal = os.Kill, os.Kill

func ignoreSIGPIPE() {}

func exitSignal(*os.ProcessState) os.Signal { return nil }

// Reraise does nothing where signals cannot be re-raised.
func Reraise(os.Signal) {}

// SignalCode is the exit code for a death by signal.
func SignalCode(os.Signal) int { return 1 }

func signalName(sig os.Signal) string { return sig.String() }
