package mcp_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/mcpscope/mcpscope"

// layers orders the module's packages, lowest first, by path prefix (a
// prefix ending in "/..." covers the folder and everything below it). A
// package may import only packages of its own layer or a lower one, so a
// reader knows a package's place from its path.
var layers = [][]string{
	{"mcp/lib/..."}, // generic leaves: they know nothing of MCP
	{"mcp", "mcp/apps", "mcp/config", "mcp/demo"},
	{"mcp/session", "mcp/auth", "mcp/policy", "mcp/doctor/...", "mcp/mcptest", "mcp/apps/host", "mcp/telemetry"},
	{"mcp/sessionfile/...", "mcp/watch", "mcp/tap/...", "mcp/calls"},
	{"keymap", "themes"},
	{"panes/..."},
	{"ui"},
	{"cli"},
	{""}, // main
}

// layerOf is the index in layers of a package path relative to the module
// ("" for the module root), or -1 when no layer names it.
func layerOf(rel string) int {
	for i, layer := range layers {
		for _, p := range layer {
			if dir, ok := strings.CutSuffix(p, "/..."); ok {
				if rel == dir || strings.HasPrefix(rel, dir+"/") {
					return i
				}
			} else if rel == p {
				return i
			}
		}
	}
	return -1
}

// TestLayers fails when a package imports one of a higher layer, or when a
// package is in no layer at all. Tests of mcp/ packages may import any
// package under mcp/ (a fake server, the doctor) but nothing above it.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		"{{.ImportPath}}|{{join .Imports \" \"}}|{{join .TestImports \" \"}} {{join .XTestImports \" \"}}",
		module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	rel := func(path string) (string, bool) {
		if path == module {
			return "", true
		}
		r, ok := strings.CutPrefix(path, module+"/")
		return r, ok
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		pkg, _ := rel(parts[0])
		if strings.HasPrefix(pkg, ".ci/") {
			continue
		}
		seen++
		at := layerOf(pkg)
		if at < 0 {
			t.Errorf("%s is in no layer: add it to layers (and to CONTRIBUTING.md's layout)", parts[0])
			continue
		}
		for _, imp := range strings.Fields(parts[1]) {
			if dep, ok := rel(imp); ok && layerOf(dep) > at {
				t.Errorf("%s imports %s, a higher layer", parts[0], imp)
			}
		}
		if !strings.HasPrefix(pkg+"/", "mcp/") {
			continue
		}
		for _, imp := range strings.Fields(parts[2]) {
			if dep, ok := rel(imp); ok && !strings.HasPrefix(dep+"/", "mcp/") {
				t.Errorf("a test of %s imports %s, which is above mcp/", parts[0], imp)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list named only %d packages", seen)
	}
}

// TestLayersCanFail checks layerOf on paths whose answer is known, so that
// TestLayers cannot pass by placing everything in one layer.
func TestLayersCanFail(t *testing.T) {
	for rel, want := range map[string]int{
		"mcp/lib/schema/format": 0, "mcp": 1, "mcp/session": 2, "mcp/doctor/report": 2, "mcp/doctor/tokens": 2, "mcp/doctor/clients": 2,
		"mcp/sessionfile/record": 3, "mcp/calls": 3, "mcp/watch": 3, "panes/form": 5, "ui": 6, "cli": 7, "": 8, "mcpx": -1,
	} {
		if got := layerOf(rel); got != want {
			t.Errorf("layerOf(%q) = %d, want %d", rel, got, want)
		}
	}
}
