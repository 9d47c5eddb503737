//go:build !linux

package resident

// releaseExecutablePages does nothing outside Linux, where the process's
// mappings are not listed in /proc/self/maps.
func releaseExecutablePages() {}
