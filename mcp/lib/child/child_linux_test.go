package child

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// onThreadThatEnds runs f on a goroutine locked to its thread, which then
// returns without unlocking: Go ends that thread. It returns the thread's
// id once f has returned.
func onThreadThatEnds(f func()) int {
	tid := make(chan int)
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() == os.Getpid() {
			// Go keeps the main thread (it parks it instead of ending
			// it): hold it, so that the next try lands elsewhere.
			tid <- onThreadThatEnds(f)
			runtime.UnlockOSThread()
			return
		}
		f()
		tid <- syscall.Gettid()
	}()
	return <-tid
}

// The parent-death signal follows the thread that forked the child. A
// goroutine that locks its thread and returns ends that thread: a child
// it started must live on.
func TestChildOutlivesTheThreadThatStartedIt(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	var err error
	tid := onThreadThatEnds(func() { err = Start(cmd) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig != syscall.SIGTERM {
		t.Fatal("no parent-death signal set")
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the child ended with the thread that started it: %v", err)
	case <-time.After(time.Second):
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid)); err == nil {
		t.Fatalf("thread %d still runs: the test did not end it", tid)
	}
}
