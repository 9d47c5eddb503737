// Package child starts a child process that does not outlive this one.
//
// A server mcpscope starts (the TUI's, call's, a tap's) must end when
// mcpscope ends, however it ends: closing the server's stdin is the
// orderly way, and a server that does not read it (or one still busy)
// would run on, orphaned, after a SIGKILL. On Linux the kernel sends the
// child SIGTERM when its parent dies (PR_SET_PDEATHSIG); elsewhere the
// closed stdin is all there is.
package child

import "os/exec"

// Start starts cmd as cmd.Start does, asking the kernel, where it can, to
// send the child SIGTERM when this process dies.
func Start(cmd *exec.Cmd) error { return start(cmd) }
