//go:build windows

package tap

import (
	"errors"
	"os"
	"syscall"
)

// openLocked creates path and keeps it open without sharing write access:
// while the tap runs, nobody else can open it for writing, and the system
// closes the handle when the tap's process ends, whichever way. Reads and
// the rename to its final name stay allowed.
func openLocked(path string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_DELETE, nil, syscall.CREATE_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}

// lockHeld reports whether a tap holds path: opening it for writing is
// then a sharing violation.
func lockHeld(path string) (bool, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return false, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_WRITE,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE, nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err == nil {
		_ = syscall.CloseHandle(h)
		return false, nil
	}
	const errorSharingViolation syscall.Errno = 32
	if errors.Is(err, errorSharingViolation) {
		return true, nil
	}
	return false, err
}
