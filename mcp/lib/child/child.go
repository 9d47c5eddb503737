// Package child starts a child process that does not outlive this one.
//
// A server mcpscope starts (the TUI's, call's, a tap's) must end when
// mcpscope ends, however it ends: closing the server's stdin is the
// orderly way, and a server that does not read it (or one still busy)
// would run on, orphaned, after a SIGKILL. So would what the server
// started: `sh -c` wrappers, npx's node, a child that ignores SIGTERM.
//
// On Linux the kernel sends the child SIGTERM when its parent dies
// (PR_SET_PDEATHSIG). On every Unix (Linux and macOS), a child that leads
// a process group of its own (SysProcAttr.Setpgid) has that whole group
// ended with mcpscope, by a guard process (guard_unix.go): SIGTERM, then
// SIGKILL half a second later. A descendant that leaves the group (setsid: a
// daemon) is not followed. On Windows the closed stdin is all there is.
package child

import "os/exec"

// Start starts cmd as cmd.Start does, asking the kernel, where it can, to
// send the child SIGTERM when this process dies. When cmd leads a process
// group of its own (SysProcAttr.Setpgid with Pgid 0), the whole group is
// ended when this process ends: call Ended once the group is gone.
//
// Such a start waits for the guard to run (see Prepare) and has it watch
// the group the moment the child exists, before the child can tell anyone
// it runs: a SIGKILL after that leaves nothing behind.
func Start(cmd *exec.Cmd) error {
	if !leadsGroup(cmd) {
		return start(cmd, nil)
	}
	<-guardReady()
	return start(cmd, watchGroup)
}

// Prepare starts the guard, if none runs, on another goroutine. A command
// that is about to start a server calls it as early as it can, so that the
// guard's shell starts while the command does its other work rather than
// on the way to the server's start.
func Prepare() { guardReady() }

// Ended says cmd's process group is gone (its leader reaped, what it left
// killed): nothing is to be ended for it any more, and its number may be
// another group's soon.
func Ended(cmd *exec.Cmd) {
	if cmd.Process != nil && leadsGroup(cmd) {
		forgetGroup(cmd.Process.Pid)
	}
}
