package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// The flags that only mean something with --watch say so without it, and
// a path that is not there is refused: each a usage error that says what
// to do, before any terminal or server is touched.
func TestWatchFlagsNeedWatch(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--build", "make"}, "--build needs --watch PATH"},
		{[]string{"--watch-ignore", "*.log"}, "--watch-ignore needs --watch PATH"},
		{[]string{"--rerun"}, "--rerun needs --watch PATH"},
		{[]string{"--watch", missing}, "name a file or directory that exists"},
		{[]string{"tap", "--build", "make", "--", "true"}, "--build needs --watch PATH"},
		{[]string{"tap", "--listen", "127.0.0.1:0", "--watch", missing, "http://127.0.0.1:9/mcp"}, "name a file or directory that exists"},
	} {
		_, err, code := runCLI(t, c.args...)
		if err == nil || code != exitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("mcpscope %s: exit %d, %v; want a usage error saying %q", strings.Join(c.args, " "), code, err, c.want)
		}
	}
}
