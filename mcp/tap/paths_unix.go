//go:build unix

package tap

import (
	"os"
	"syscall"
)

func checkOwner(fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return errNotOwner
	}
	return nil
}

// alive reports whether a process exists (signal 0).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
