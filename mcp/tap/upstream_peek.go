//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tap

import (
	"errors"
	"net"
	"syscall"
)

// canPeek: connStillOpen can tell a kept connection the server closed
// from an open one without waiting, so the tap's own transport is used.
const canPeek = true

// connStillOpen says whether a kept-alive connection is still open and
// quiet: a peek at it (without reading or waiting) finds neither its end
// nor bytes the server sent unasked.
func connStillOpen(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		for {
			// Go's sockets do not block: nothing to read is EAGAIN.
			_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			open = errors.Is(err, syscall.EAGAIN)
			return true
		}
	})
	return err == nil && open
}
