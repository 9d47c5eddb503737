//go:build !linux

package tap

// lowerPriority does nothing where priority is per process.
func lowerPriority() {}
