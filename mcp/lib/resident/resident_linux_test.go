//go:build linux

package resident

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// written is initialised data (a writable mapping of the executable):
// releasing must not throw away what the program wrote there.
var written = [3 * 4096]byte{0: 1, 4096: 2, 8191: 3}

// readOnlyExecutableKiB adds up, from /proc/self/smaps, the resident KiB
// of the executable's read-only mappings (the test binary may also map a C
// library, which is not ours to release).
func readOnlyExecutableKiB(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, ours, mappings := 0, false, 0
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && len(fields[1]) == 4:
			slash := strings.IndexByte(line, '/')
			ours = slash >= 0 && line[slash:] == exe && !strings.Contains(fields[1], "w")
			if ours {
				mappings++
			}
		case ours && len(fields) == 3 && fields[0] == "Rss:":
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			total += n
		}
	}
	if mappings == 0 {
		t.Fatalf("/proc/self/smaps lists no read-only mapping of %s", exe)
	}
	return total
}

// Releasing gives back most of the executable's resident pages, and the
// program goes on running from the pages it touches again; what it wrote
// into its initialised data stays.
func TestReleaseExecutablePages(t *testing.T) {
	written[1], written[4097], written[8190] = 11, 12, 13
	before := readOnlyExecutableKiB(t)
	ReleaseExecutablePages()
	after := readOnlyExecutableKiB(t)
	t.Logf("the executable's read-only pages: %d KiB resident -> %d KiB", before, after)
	// Reading smaps and the test's own code fault some back at once (in
	// this small binary about 60 %; in mcpscope's TUI, idle, about 20 %).
	if after > before*3/4 {
		t.Errorf("%d KiB of the executable's read-only pages resident after releasing, %d KiB before: expected at most three quarters", after, before)
	}
	want := map[int]byte{0: 1, 1: 11, 4096: 2, 4097: 12, 8190: 13, 8191: 3}
	for i, w := range want {
		if written[i] != w {
			t.Errorf("written[%d] = %d after releasing, want %d", i, written[i], w)
		}
	}
	// Code and read-only data still work (they come back from the file).
	if got := strconv.Quote(strings.Repeat("é", 2)); got != `"éé"` {
		t.Errorf("strconv.Quote after releasing: %s", got)
	}
}
