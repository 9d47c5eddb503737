//go:build !linux

package tap

import "os"

// lowerPriority does nothing where priority is per process.
func lowerPriority() {}

// widenPipe does nothing where pipes cannot be resized.
func widenPipe(*os.File, int) {}

const serverPipeSize = 0
