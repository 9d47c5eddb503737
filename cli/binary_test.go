package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

var (
	realBinaryOnce sync.Once
	realBinaryPath string
	realBinaryErr  error
)

// realBinary is the mcpscope program itself, for tests that measure or
// drive the real thing (this test binary is mcpscope with its tests and
// their dependencies linked in: larger, with more pages to map).
// MCPSCOPE_BINARY names one already built; otherwise it is built once per
// test run into a temporary directory.
func realBinary() (string, error) {
	realBinaryOnce.Do(func() {
		bin := os.Getenv("MCPSCOPE_BINARY")
		if bin == "" {
			dir, err := os.MkdirTemp("", "mcpscope-bin")
			if err != nil {
				realBinaryErr = err
				return
			}
			bin = filepath.Join(dir, "mcpscope")
			if out, err := exec.Command("go", "build", "-o", bin, "github.com/mcpscope/mcpscope").CombinedOutput(); err != nil {
				realBinaryErr = fmt.Errorf("go build: %w\n%s", err, out)
				return
			}
		}
		if bin, realBinaryErr = filepath.Abs(bin); realBinaryErr != nil {
			return
		}
		if _, realBinaryErr = os.Stat(bin); realBinaryErr != nil {
			return
		}
		realBinaryPath = bin
	})
	return realBinaryPath, realBinaryErr
}
