package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// initCost is what the Go runtime reports (GODEBUG=inittrace=1) for the
// package initialisers of one `mcpscope --version`.
type initCost struct {
	bytes, allocs int
	byPackage     map[string][2]int // package -> bytes, allocs
}

// measureInit runs this test binary as mcpscope (asCLIVar) with --version
// and adds up the runtime's init trace. The test binary links mcpscope's
// packages and a few of the tests' own (testing, mcptest): a little more
// than the real binary.
func measureInit(tb testing.TB) initCost {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "--version")
	cmd.Env = append(os.Environ(), asCLIVar+"=1", "GODEBUG=inittrace=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("--version: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), version) {
		tb.Fatalf("--version printed %q, not the version %s", stdout.String(), version)
	}
	c := initCost{byPackage: map[string][2]int{}}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/x/y @0.9 ms, 0.02 ms clock, 4128 bytes, 3 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			tb.Fatalf("unreadable init trace line %q", sc.Text())
		}
		c.bytes += b
		c.allocs += a
		c.byPackage[f[1]] = [2]int{b, a}
	}
	if len(c.byPackage) < 50 {
		tb.Fatalf("the init trace named %d packages; GODEBUG=inittrace=1 gave:\n%s", len(c.byPackage), stderr.String())
	}
	return c
}

func (c initCost) top(n int) string {
	names := make([]string, 0, len(c.byPackage))
	for p := range c.byPackage {
		names = append(names, p)
	}
	sort.Slice(names, func(i, j int) bool { return c.byPackage[names[i]][1] > c.byPackage[names[j]][1] })
	var b strings.Builder
	for _, p := range names[:min(n, len(names))] {
		fmt.Fprintf(&b, "\n  %6d allocs %8d bytes  %s", c.byPackage[p][1], c.byPackage[p][0], p)
	}
	return b.String()
}

// Start-up does no work of ours that a command may not need: the doctor's
// patterns, the recorder's and the HTML export's page are made on first
// use (issue 16: with the schema library's 21,000, they were 27,500
// allocations of a --version). The budgets are allocation counts, which do
// not depend on the machine's load.
func TestStartupInitCost(t *testing.T) {
	c := measureInit(t)
	t.Logf("package init: %d allocations, %d bytes; the largest:%s", c.allocs, c.bytes, c.top(8))
	// mcp/lib/schema's validator is mcpscope's own and builds nothing at init
	// (issue 16: santhosh-tekuri/jsonschema/v6 compiled five drafts'
	// meta-schemas there, 21,286 allocations and 6.3 ms of every start).
	if ba, linked := c.byPackage[formerSchemaLibrary]; linked {
		t.Errorf("%s is linked again and made %d allocations at init", formerSchemaLibrary, ba[1])
	}
	if c.allocs > 3000 || c.bytes > 1<<20 {
		t.Errorf("package init made %d allocations (%d bytes); budget 3,000 and 1 MiB. The largest:%s", c.allocs, c.bytes, c.top(8))
	}
	// mcpscope's own packages do next to nothing at init (mcp/doctor's rule
	// index, 16 KB of its 19, is built on first use). The cli package is
	// held to the count only: in this test binary its init includes the
	// tests' own tables.
	for p, ba := range c.byPackage {
		if !strings.HasPrefix(p, "github.com/mcpscope/mcpscope") {
			continue
		}
		if ba[1] > 200 || p != "github.com/mcpscope/mcpscope/cli" && ba[0] > 8<<10 {
			t.Errorf("%s made %d allocations (%d bytes) at init; budget 200 and 8 KiB: make that work lazy (sync.OnceValue)", p, ba[1], ba[0])
		}
	}
}

// formerSchemaLibrary is the JSON Schema module mcp/lib/schema compiled with
// before it had its own validator.
const formerSchemaLibrary = "github.com/santhosh-tekuri/jsonschema/v6"

// BenchmarkStartupVersion is one `mcpscope --version` as a process (the
// test binary standing in for mcpscope): wall time per run, and the
// package initialisers' allocations and bytes.
func BenchmarkStartupVersion(b *testing.B) {
	c := measureInit(b)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "--version")
		cmd.Env = append(os.Environ(), asCLIVar+"=1")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(c.allocs), "init-allocs/op")
	b.ReportMetric(float64(c.bytes), "init-B/op")
}

// heavyPackages are kept out of the mcpscope binary on purpose: each made
// every start pay for work at init that mcpscope does not need.
var heavyPackages = map[string]string{
	"github.com/alecthomas/chroma/v2":        "JSON and Markdown are highlighted by panes/lexers.go (chroma's init and its regexp2 engine's: about 0.2 ms, 0.9 MB of binary)",
	"github.com/dlclark/regexp2/v2":          "linked only through chroma",
	"github.com/alecthomas/chroma/v2/lexers": "its registry parses ~280 lexer definitions at init (about 15 ms)",
}

// The binary links none of heavyPackages (the tests may).
func TestStartupLinksNoHeavyPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/mcpscope/mcpscope").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps named %d packages:\n%s", len(deps), out)
	}
	for _, p := range deps {
		for heavy, why := range heavyPackages {
			if p == heavy || strings.HasPrefix(p, heavy+"/") {
				t.Errorf("mcpscope links %s: %s", p, why)
			}
		}
	}
}
