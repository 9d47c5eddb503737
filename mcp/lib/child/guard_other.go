//go:build !unix

package child

import "os/exec"

func leadsGroup(*exec.Cmd) bool { return false }
func watchGroup(int)            {}
func forgetGroup(int)           {}

// GuardPID is 0: no guard runs on this system.
func GuardPID() int { return 0 }
