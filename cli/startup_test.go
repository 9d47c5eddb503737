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

// formerSchemaLibrary is the JSON Schema module mcp/lib/schema compiled with
// before it had its own validator.
const formerSchemaLibrary = "github.com/santhosh-tekuri/jsonschema/v6"

// BenchmarkStartupVersion is one `mcpscope --version` as a process (the
// test binary standing in for mcpscope): wall time per run, and the
// package initialisers' allocations and bytes, all of them and mcpscope's
// own (whose largest the log names: work there that not every command
// needs belongs in a sync.OnceValue).
func BenchmarkStartupVersion(b *testing.B) {
	c := measureInit(b)
	var own initCost
	own.byPackage = map[string][2]int{}
	for p, ba := range c.byPackage {
		if strings.HasPrefix(p, "github.com/mcpscope/mcpscope") {
			own.bytes, own.allocs, own.byPackage[p] = own.bytes+ba[0], own.allocs+ba[1], ba
		}
	}
	b.Logf("package init: %d allocations, %d bytes; the largest:%s", c.allocs, c.bytes, c.top(8))
	b.Logf("mcpscope's own packages: %d allocations, %d bytes; the largest:%s", own.allocs, own.bytes, own.top(4))
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
	b.ReportMetric(float64(own.allocs), "own-init-allocs/op")
}

// unwantedPackages are kept out of the mcpscope binary: it has no use for
// them.
var unwantedPackages = map[string]string{
	formerSchemaLibrary: "mcp/lib/schema is mcpscope's validator (docs/schema-validator.md)",
	// Registries parsed at package initialisation, paid by every start of
	// every command: panes has lexers of its own, built at first use.
	"github.com/alecthomas/chroma/v2/lexers": "chroma's lexer registry costs every start 6-8 ms (panes/highlight_lexers.go)",
	"github.com/alecthomas/chroma/v2/styles": "chroma's style registry costs every start about 5 ms; the theme builds its one style",
	"charm.land/glamour/v2":                  "panes/markdown lays Markdown out itself (glamour links both chroma registries)",
	"github.com/microcosm-cc/bluemonday":     "the HTML export's allowlist is its own (bluemonday's CSS tables cost every start about 2 ms)",
}

// wantedPackages are the libraries DESIGN.md chose for a job: the binary
// does that job with them, not with code of its own.
var wantedPackages = map[string]string{
	"github.com/alecthomas/chroma/v2":        "chroma's engine runs our lexers (panes/highlight_lexers.go)",
	"golang.org/x/net/idna":                  "the idn-hostname and idn-email formats (mcp/lib/schema/format/idna.go)",
	"github.com/tiktoken-go/tokenizer/codec": "token costs in o200k_base (mcp/doctor/tokens)",
	"github.com/fsnotify/fsnotify":           "--watch follows the server's files (mcp/watch)",
	"golang.org/x/image/webp":                "WebP images in results are drawn (panes/termimage)",
}

// The binary links the chosen libraries and none of unwantedPackages (the
// tests may).
func TestStartupLinksTheChosenLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/mcpscope/mcpscope").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps named %d packages:\n%s", len(deps), out)
	}
	linked := map[string]bool{}
	for _, p := range deps {
		linked[p] = true
		for unwanted, why := range unwantedPackages {
			if p == unwanted || strings.HasPrefix(p, unwanted+"/") {
				t.Errorf("mcpscope links %s: %s", p, why)
			}
		}
	}
	for p, why := range wantedPackages {
		if !linked[p] {
			t.Errorf("mcpscope does not link %s: %s", p, why)
		}
	}
}

// BenchmarkRootCommand is building the command tree, which every start
// does (-benchmem reports its allocations).
func BenchmarkRootCommand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		newRootCommand()
	}
}
