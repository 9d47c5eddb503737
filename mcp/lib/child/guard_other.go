//go:build !unix

package child

import "os/exec"

func leadsGroup(*exec.Cmd) bool   { return false }
func guardReady() <-chan struct{} { return started }

// started is what guardReady returns: there is nothing to wait for.
var started = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func watchGroup(int)  {}
func forgetGroup(int) {}

// GuardPID is 0: no guard runs on this system.
func GuardPID() int { return 0 }
