//go:build unix

package child

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// The guard ends the process groups of the servers this process started
// when it ends, however it ends (SIGKILL included). The parent-death
// signal reaches only the server itself: a server started through `sh -c`
// or npx leaves its children, and a server that ignores SIGTERM stays.
// Each server is the leader of a process group of its own (Setpgid), so
// its children are in that group; the guard is a small shell that reads
// the groups to watch from a pipe only this process holds, and when the
// pipe ends (this process is gone) sends each group SIGTERM, then SIGKILL
// half a second later (a second where sleep takes whole seconds only). It
// is in a process group of its own, so a ^C in the terminal does not end
// it first, and it ignores the signals a terminal or a stray kill would
// send it: the end of its input is what ends it.
//
// Its lines: "+PGID" to watch a group, "-PGID" once the group is gone.
const guardScript = `trap '' INT HUP TERM QUIT PIPE
groups=' '
while IFS= read -r line; do
	case $line in
	+*) groups="$groups${line#?} " ;;
	-*) g=${line#?}
		case $groups in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;
	esac
done
[ "$groups" = ' ' ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 0.5 2>/dev/null || sleep 1
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
`

var guard struct {
	mu     sync.Mutex
	w      *os.File // the guard's input; nil until the first group
	cmd    *exec.Cmd
	groups map[int]bool
	// starting is closed when the start under way is done; nil when
	// none is.
	starting chan struct{}
}

// started is what guardReady returns when the guard runs already.
var started = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// guardReady starts the guard, when none runs, on another goroutine; what
// it returns is closed once the guard runs (or could not be started:
// watchGroup then tries again, on the child's way).
func guardReady() <-chan struct{} {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if guard.w != nil {
		return started
	}
	if guard.starting == nil {
		done := make(chan struct{})
		guard.starting = done
		go func() {
			guard.mu.Lock()
			if guard.w == nil {
				startGuard()
			}
			guard.starting = nil
			guard.mu.Unlock()
			close(done)
		}()
	}
	return guard.starting
}

// watchGroup has the guard end group pgid when this process ends.
func watchGroup(pgid int) {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if guard.groups == nil {
		guard.groups = map[int]bool{}
	}
	guard.groups[pgid] = true
	if guard.w == nil {
		startGuard() // with every group, this one included
		return
	}
	if _, err := fmt.Fprintf(guard.w, "+%d\n", pgid); err == nil {
		return
	}
	// The guard is gone (someone killed it): a new one takes every group
	// still watched.
	_ = guard.w.Close()
	guard.w = nil
	if guard.cmd != nil {
		go func(c *exec.Cmd) { _ = c.Wait() }(guard.cmd)
	}
	startGuard()
}

// forgetGroup tells the guard group pgid is gone.
func forgetGroup(pgid int) {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if !guard.groups[pgid] {
		return
	}
	delete(guard.groups, pgid)
	if guard.w != nil {
		_, _ = fmt.Fprintf(guard.w, "-%d\n", pgid) // a guard gone forgets by itself
	}
}

// startGuard starts the guard with every group watched; guard.mu is held.
// Without one (no shell) the servers still get the parent-death signal.
func startGuard() {
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", guardScript)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = r.Close()
		_ = w.Close()
		return
	}
	_ = r.Close()
	guard.w, guard.cmd = w, cmd
	for g := range guard.groups {
		_, _ = fmt.Fprintf(w, "+%d\n", g)
	}
}

// GuardPID is the guard's process id, 0 when none runs (tests).
func GuardPID() int {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if guard.cmd == nil || guard.w == nil {
		return 0
	}
	return guard.cmd.Process.Pid
}

// leadsGroup reports whether cmd was started as the leader of a process
// group of its own.
func leadsGroup(cmd *exec.Cmd) bool {
	a := cmd.SysProcAttr
	return a != nil && a.Setpgid && a.Pgid == 0
}
