package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

const (
	reloadToolsV1 = `[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}},` +
		`{"name":"clock","description":"The time in a zone.","inputSchema":{"type":"object","properties":{"zone":{"type":"string"}}}}]`
	// echo now needs lang (breaking), reverse is new, clock is as it was.
	reloadToolsV2 = `[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"lang":{"type":"string"}},"required":["message","lang"]}},` +
		`{"name":"clock","description":"The time in a zone.","inputSchema":{"type":"object","properties":{"zone":{"type":"string"}}}},` +
		`{"name":"reverse","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]`
)

// saveAs writes a file as an editor saves it: a new file renamed over the
// old one.
func saveAs(t *testing.T, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Hot reload as a server author lives it: a server whose tools are a
// file, a draft of one tool kept, the file saved with a tool added and
// another given a new required property. Within 2 s the new tool is on
// screen, the log has the restart's separator and the surface row, the
// draft of the unchanged tool is still there, and the breaking change is
// a diagnostic counted in the header.
func flowHotReload(t *testing.T, a *accept) {
	tools := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(tools, []byte(reloadToolsV1), 0o644); err != nil {
		t.Fatal(err)
	}
	s := a.start(t, 120, 35, "--watch", tools, "-e", mcptest.EnvVar+"=tools-file", "-e", mcptest.ToolsFileVar+"="+tools, "--", os.Args[0])
	s.ready()
	s.keys("3")
	s.see("Tools · 2")
	s.keys("j")
	s.waitFor("the cursor on clock", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "▸ clock") })
	s.keys("Enter")
	s.see("Call clock")
	s.typ("UTC")
	s.keys("Escape")
	s.see("keep draft")
	s.keys("k")
	s.see("✎ draft")

	saved := time.Now()
	saveAs(t, tools, reloadToolsV2)
	scr := s.waitFor("the new tool", 2*time.Second, func(scr string) bool { return strings.Contains(scr, "reverse") })
	t.Logf("saved file → new tool on screen: %s", time.Since(saved).Round(time.Millisecond))
	if !regexp.MustCompile(`clock .*✎ draft`).MatchString(scr) || strings.Contains(scr, "⚠ draft") {
		t.Errorf("the unchanged tool's draft did not survive as it was:\n%s", scr)
	}
	s.waitFor("the breaking change in the header", 5*time.Second, func(scr string) bool {
		header, _, _ := strings.Cut(scr, "\n")
		return strings.Contains(header, "⚠ 1 breaking") // "change" goes in a narrow header
	})
	s.keys("1")
	s.see("──── restarted after ")
	s.see("tools.json changed") // the status line has it whole
	s.see("1 breaking, 1 compatible")
	s.keys("9")
	s.see("reload/breaking-change")
	s.waitFor("the header's count gone once seen", 5*time.Second, func(scr string) bool {
		header, _, _ := strings.Cut(scr, "\n")
		return !strings.Contains(header, "breaking")
	})
	// The draft of the changed tool's neighbour opens as it was left.
	s.keys("3")
	s.see("✎ draft")
	s.keys("Enter")
	s.see("Call clock")
	s.see("UTC")
}
