//go:build !linux

package child

import "os/exec"

func start(cmd *exec.Cmd) error { return cmd.Start() }
