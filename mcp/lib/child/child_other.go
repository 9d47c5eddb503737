//go:build !linux

package child

import "os/exec"

// start starts cmd and runs started (if not nil) as soon as it has.
func start(cmd *exec.Cmd, started func(pid int)) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	return nil
}
